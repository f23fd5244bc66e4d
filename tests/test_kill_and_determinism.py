"""Two guarantees of the workflow on the tiny config (tests/tiny_run.py), each against the
uninterrupted build that test_rerun_plan and test_slurm share:

- determinism: a second clean run in another directory, without the warm interpreter the first
  one uses (icl_heads/warm.py), gives the same sha256 for every output (tables, caches, figures in
  every format; provenance records equal but for their time stamp);
- kill and recover: a run killed with SIGKILL (its whole process group) at 10 moments drawn from
  a seed, each kill followed by the README's recovery command (`snakemake --cores all --unlock`, then the
  same command with `--rerun-incomplete`), ends with every output byte-identical to the
  uninterrupted run and no temporary file left anywhere in the working directory.
"""
from __future__ import annotations

import hashlib
import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path

import tiny_run
from conftest import ROOT
from tiny_run import SNAKEMAKE, snakemake, tiny_config, write_config

_runs: dict = {}


def outputs(wd: Path) -> dict[str, str]:
    """sha256 of every file under results/ and figures/ (a provenance record without its
    `created` time stamp, the one field that says when rather than what)."""
    out = {}
    for top in ("results", "figures"):
        for p in sorted((wd / top).rglob("*")):
            if not p.is_file():
                continue
            data = p.read_bytes()
            if p.name.endswith(".prov.json"):
                rec = json.loads(data)
                rec.pop("created", None)
                data = json.dumps(rec, sort_keys=True).encode()
            out[str(p.relative_to(wd))] = hashlib.sha256(data).hexdigest()
    return out


def strays(wd: Path) -> list[str]:
    """Temporary files or directories a writer left behind (hidden `.X.*.part*` files of the
    atomic writers, `.X.part` directories, `*.tmp`) outside Snakemake's own `.snakemake/`."""
    found = []
    for p in wd.rglob("*"):
        rel = p.relative_to(wd)
        if rel.parts[0] == ".snakemake":
            continue
        if ".part" in p.name or p.name.endswith(".tmp") or (p.name.startswith("tmp") and p.is_dir()):
            found.append(str(rel))
    return found


def second_run(tmp_path_factory, resources) -> tuple[Path, float]:
    """A clean run of the tiny config in a fresh directory, and its wall time: without the warm
    interpreter (icl_heads/warm.py), which the reference run uses, so that equal bytes also show
    that a script run in a fork of the warm server computes what it computes on its own."""
    if "second" not in _runs:
        wd = tmp_path_factory.mktemp("tiny_second")
        write_config(wd, tiny_config(resources))
        t = time.time()
        snakemake(wd, "--cores", "2", "figures/", env={"ICL_HEADS_WARM": "0"})
        _runs["second"] = (wd, time.time() - t)
    return _runs["second"]


def test_two_clean_runs_give_identical_outputs(tmp_path_factory, test_resources):
    ref = outputs(tiny_run.built_workdir(tmp_path_factory, test_resources))
    wd, _ = second_run(tmp_path_factory, test_resources)
    got = outputs(wd)
    assert len(ref) > 50 and any(k.endswith(".safetensors") for k in ref) and any(k.endswith(".pdf") for k in ref)
    assert sorted(got) == sorted(ref)
    differ = [k for k in ref if got[k] != ref[k]]
    assert not differ, f"outputs that differ between two clean runs: {differ}"


def test_killed_ten_times_and_recovered_ends_byte_identical(tmp_path_factory, test_resources):
    ref = outputs(tiny_run.built_workdir(tmp_path_factory, test_resources))
    _, duration = second_run(tmp_path_factory, test_resources)
    wd = tmp_path_factory.mktemp("tiny_killed")
    cfgfile = write_config(wd, tiny_config(test_resources))
    base = [*SNAKEMAKE, "-s", str(ROOT / "Snakefile"), "--directory", str(wd), "--cores", "2", "figures/"]
    rng = random.Random(20261201)
    # each start runs for 2-8% of an uninterrupted run's wall time before the kill: the ten kills
    # land at different stages (DAG build, model loading, inside a job, between jobs)
    moments = [duration * rng.uniform(0.02, 0.08) for _ in range(10)]
    landed = []
    for i, wait in enumerate(moments):
        if i:   # the README's recovery: unlock, then the same command with --rerun-incomplete
            snakemake(wd, "--cores", "all", "--unlock", configfile=cfgfile, timeout=300)
        cmd = base + (["--rerun-incomplete"] if i else []) + ["--configfile", str(cfgfile)]
        proc = subprocess.Popen(cmd, cwd=wd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        time.sleep(wait)
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            landed.append(round(wait, 1))
        proc.wait()
    assert len(landed) == 10, f"only {len(landed)} of the 10 kills found the run still going: {landed}"
    snakemake(wd, "--cores", "all", "--unlock", configfile=cfgfile, timeout=300)
    snakemake(wd, "--cores", "2", "figures/", "--rerun-incomplete", configfile=cfgfile)
    got = outputs(wd)
    assert sorted(got) == sorted(ref)
    differ = [k for k in ref if got[k] != ref[k]]
    assert not differ, f"outputs that differ from the uninterrupted run after kills at {landed} s: {differ}"
    assert not strays(wd), f"temporary files left after the kills: {strays(wd)}"
