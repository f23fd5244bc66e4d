"""One tiny end-to-end build of the workflow (real SmolLM2, one dataset, a handful of prompts),
shared by test_slurm.py and test_rerun_plan.py: the first test that asks for it builds
`figures/` locally; later ones reuse the same working directory (the cache lives in this
module, so it holds across test files of one pytest session)."""
from __future__ import annotations

import copy
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import yaml

from conftest import ROOT, SHARED_DATA

SNAKEMAKE = [sys.executable, "-m", "snakemake"]
MODEL = "smollm2-135m"
DATASET = "sentiment_lexicon"
_cache: dict = {}


def run_killable(cmd, *, cwd, timeout: float, env=None) -> subprocess.CompletedProcess:
    """Run cmd in its own process group; past `timeout` s the whole group gets SIGKILL
    (the Slurm executor plugin can ignore SIGTERM) and TimeoutError names the command."""
    proc = subprocess.Popen([str(c) for c in cmd], cwd=cwd, env=env, text=True, start_new_session=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        raise TimeoutError(f"killed after {timeout:.0f} s: {' '.join(map(str, cmd))}\n{out[-3000:]}\n{err[-3000:]}")
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def snakemake(wd: Path, *args, configfile: Path | None = None, timeout: float = 1800, check: bool = True):
    """snakemake on the project's Snakefile in working directory wd, with wd/config/config.yaml."""
    cfgfile = configfile or wd / "config" / "config.yaml"
    # targets before --configfile, which takes several values
    proc = run_killable([*SNAKEMAKE, "-s", ROOT / "Snakefile", "--directory", wd, *args, "--configfile", cfgfile],
                        cwd=wd, timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(map(str, args))} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc


def tiny_config(resources: str) -> dict:
    """config/config.yaml cut down to SmolLM2 on one dataset with a few prompts, no FV scoring
    (so no Paper C) and no LTV (Paper B): TSLA, synthesis, report pages and the gallery;
    the model entry asks for one GPU (a model job then requests a GPU from a scheduler; it
    still runs on the CPU where there is no CUDA)."""
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    cfg["run_models"] = [MODEL]
    cfg["models"] = {MODEL: {**cfg["models"][MODEL], "gpu": 1}}
    cfg["classification_datasets"] = [DATASET]
    cfg["prompts"].update(n_score=4, n_eval=6, batch_size=6)
    cfg["induction"].update(n_sequences=4, batch_size=4, seq_len=20)
    cfg["tsla"].update(threshold_sweep=[3], random_seeds=1, sweep_random_seeds=1)
    cfg["fv"].update(scoring_tasks=[], eval_tasks=[])
    cfg["ltv"]["datasets"] = []
    cfg["data_dir"] = str(SHARED_DATA)
    cfg["resources_dir"] = resources
    return cfg


def write_config(wd: Path, cfg: dict, name: str = "config.yaml") -> Path:
    (wd / "config").mkdir(parents=True, exist_ok=True)
    path = wd / "config" / name
    path.write_text(yaml.safe_dump(copy.deepcopy(cfg)))
    return path


def built_workdir(tmp_path_factory, resources: str) -> Path:
    """A working directory where `snakemake figures/` has run to completion on tiny_config
    (resources: conftest's test_resources, where the model is materialised)."""
    if "built" not in _cache:
        wd = tmp_path_factory.mktemp("tiny_built")
        write_config(wd, tiny_config(resources))
        snakemake(wd, "--cores", "2", "figures/")
        _cache["built"] = wd
    return _cache["built"]


_JOB = re.compile(r"^(?:local)?(?:rule|checkpoint) (\w+):$", re.M)


def planned_rules(dry_run_output: str) -> set[str]:
    """The rule names of the jobs a `snakemake -n` run lists."""
    return set(_JOB.findall(dry_run_output))
