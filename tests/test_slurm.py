"""Cluster support: every job declares standard resources (mem_mb, runtime; model jobs
gpu=model_gpu and mem_mb=model_mem_mb), and the tiny workflow runs through profiles/slurm on
a real one-node Slurm (../shared/tools/slurm/start_slurm.sh: Debian's slurm-wlm on localhost,
two fake GPUs as gres, no accounting), checked in Slurm's own records, with the same tables
as a local run."""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import threading
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

import tiny_run
from conftest import ROOT, SHARED_DATA
from tiny_run import DATASET, MODEL

SLURM_TOOLS = Path(os.environ.get("ICL_SLURM_TOOLS", SHARED_DATA.parent / "tools" / "slurm"))
SLURM_STATE = Path(os.environ.get("SLURM_STATE_DIR", "/run/slurm-local"))
JOBCOMP_LOG = Path("/var/log/slurm-local/jobcomp.log")  # JobCompLoc of start_slurm.sh
NO_DEVICE_RULES = {"materialise_model", "prompts_score", "prompts_eval", "yin_dynamics"}  # read a model's manifest, never run it
GPU_RULES = {"cache", "induction_scores", "fv_scores", "tsla_ablation", "tsla_perturbation", "tsla_steering"}


def dry_run_jobs(cfg: dict, tmp_path: Path) -> list[dict]:
    """Every job of `snakemake -n --forceall figures/` with cfg: rule, input, resources."""
    wd = tmp_path / "wd"
    tiny_run.write_config(wd, cfg)
    proc = tiny_run.snakemake(wd, "-n", "--forceall", "--cores", "2", "figures/", timeout=300)
    jobs = []
    for rule, block in tiny_run.dry_run_job_texts(proc.stdout):
        fields = dict(re.findall(r"^    (\w+): (.*)$", block, re.M))
        res = dict(kv.split("=", 1) for kv in fields.get("resources", "").split(", ") if "=" in kv)
        jobs.append({"rule": rule, "input": fields.get("input", ""), "resources": res})
    return jobs


def test_every_job_declares_memory_runtime_and_model_jobs_gpus(tmp_path):
    """Model jobs take mem_mb / gpu from the model entry (mem_gb x 1024, gpu), every job has
    mem_mb and runtime, so one DAG runs locally (`--resources gpu=N`) and on a cluster."""
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    cfg["data_dir"] = str(SHARED_DATA)
    sizes = {}
    for i, (name, entry) in enumerate(cfg["models"].items()):
        entry.update(mem_gb=5 + i, gpu=1 + i)  # distinct values, so each job's source shows
        sizes[name] = entry
    jobs = dry_run_jobs(cfg, tmp_path)
    assert {j["rule"] for j in jobs} >= GPU_RULES | {"materialise_model", "tsla_scores", "gallery"}
    model_rules = set()
    for job in jobs:
        rule, res = job["rule"], job["resources"]
        if rule == "all":
            continue
        assert "mem_mb" in res and "runtime" in res, (rule, res)
        manifest = re.search(r"([^/ ,]+)/manifest\.json", job["input"])
        if manifest and rule not in NO_DEVICE_RULES:  # a job that loads the model
            model_rules.add(rule)
            entry = sizes[manifest.group(1).split("--")[0]]  # a checkpoint model sizes like its parent
            assert int(res["mem_mb"]) == entry["mem_gb"] * 1024 and int(res.get("gpu", 0)) == entry["gpu"], (rule, res)
        else:
            assert int(res.get("gpu", 0)) == 0, (rule, res)
    assert GPU_RULES <= model_rules


def test_the_paper_config_asks_a_gpu_for_the_8b_model():
    paper = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())
    big = [e for e in paper["models"].values() if e.get("repo_id", "").endswith("8B")]
    assert big and all(e["gpu"] == 1 and e["mem_gb"] >= 32 for e in big)
    default = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    assert all(e.get("gpu", 0) == 0 for e in default["models"].values())  # CPU by default


def _alive(name: str) -> bool:
    """A daemon start_slurm.sh started (pid file in its state dir) is running."""
    pf = SLURM_STATE / f"{name}.pid"
    try:
        pid = pf.read_text().strip()
        return Path(f"/proc/{pid}/comm").read_text().strip() == name
    except OSError:
        return False


@pytest.fixture(scope="module")
def slurm_cluster():
    """A one-node Slurm on localhost; skips where it cannot be had. Stopped at the end unless
    it was already running before."""
    start, stop = SLURM_TOOLS / "start_slurm.sh", SLURM_TOOLS / "stop_slurm.sh"
    if not start.is_file():
        pytest.skip(f"no {start} (../shared/tools/slurm beside the clone, or set ICL_SLURM_TOOLS)")
    if os.geteuid() != 0:
        pytest.skip("start_slurm.sh needs root (it installs and starts slurmctld, slurmd, munged)")
    if not shutil.which("slurmctld") and not (shutil.which("apt-get") and shutil.which("dpkg-query")):
        pytest.skip("Slurm is not installed and there is no apt-get to install it")
    was_running = _alive("slurmctld") and _alive("slurmd")
    env = {**os.environ, "SLURM_ACCOUNTING": "0", "SLURM_FAKE_GPUS": "2"}
    err = ""
    for _ in range(6):  # apt may be busy with another install: wait for its lock
        try:
            proc = subprocess.run(["bash", str(start)], capture_output=True, text=True, timeout=600, env=env)
        except subprocess.TimeoutExpired:
            err = "start_slurm.sh took over 600 s"
            break
        if proc.returncode == 0:
            break
        err = proc.stderr[-2000:]
        if "Could not get lock" not in err and "dpkg was interrupted" not in err:
            break
        time.sleep(20)
    else:
        proc = None
    if proc is None or proc.returncode != 0:
        pytest.skip(f"could not start a one-node Slurm: {err}")
    yield
    if not was_running:
        subprocess.run(["bash", str(stop)], capture_output=True, text=True, timeout=120)


class SlurmJobs(threading.Thread):
    """Polls `scontrol show job` while a run goes on and keeps each job's last record: Slurm
    forgets a finished job after MinJobAge (300 s), and without accounting there is no sacct."""

    def __init__(self):
        super().__init__(daemon=True)
        self.records: dict[str, dict] = {}
        self.done = threading.Event()

    def poll(self):
        out = subprocess.run(["scontrol", "-o", "show", "job"], capture_output=True, text=True, timeout=30).stdout
        for line in out.splitlines():
            rec = dict(re.findall(r"(\S+?)=(\S*)", line))
            if "JobId" in rec:
                self.records[rec["JobId"]] = rec

    def run(self):
        while not self.done.wait(1.0):
            self.poll()

    def stop(self):
        self.done.set()
        self.join(timeout=60)
        self.poll()


def mem_mb(value: str) -> float:
    """Slurm's memory figures ("3072M", "3G") in MB."""
    num, unit = re.fullmatch(r"([\d.]+)([KMGT]?)", value).groups()
    return float(num) * {"K": 1 / 1024, "M": 1, "": 1, "G": 1024, "T": 1024 ** 2}[unit]


def jobcomp_records() -> dict[str, dict]:
    """Slurm's completion log (jobcomp/filetxt): one line per finished job."""
    recs = {}
    for line in JOBCOMP_LOG.read_text().splitlines() if JOBCOMP_LOG.is_file() else []:
        rec = dict(re.findall(r"(\S+?)=(\S*)", line))
        if "JobId" in rec:
            recs[rec["JobId"]] = rec
    return recs


@pytest.mark.slow
def test_tiny_workflow_through_the_slurm_profile(slurm_cluster, tmp_path_factory, test_resources, record_property):
    """A model job and a TSLA table through profiles/slurm (with the two settings of a cluster
    without accounting); Slurm's records show each job, the model jobs with a GPU and the
    model's memory; the tables equal those of a local run of the same config."""
    ref = tiny_run.built_workdir(tmp_path_factory, test_resources)  # the local run
    cfg = yaml.safe_load((ref / "config" / "config.yaml").read_text())
    assert cfg["models"][MODEL]["gpu"] == 1
    wd = tmp_path_factory.mktemp("slurm_run")
    tiny_run.write_config(wd, cfg)
    targets = [f"results/{MODEL}/heads/induction.csv", f"results/{MODEL}/tsla/scores/{DATASET}.csv"]
    t0 = time.time()
    recorder = SlurmJobs()
    recorder.start()
    try:
        proc = tiny_run.snakemake(
            wd, "--profile", ROOT / "profiles" / "slurm", "--cores", "2", "--jobs", "2", "--latency-wait", "5",
            "--retries", "0", "--slurm-status-command", "squeue", "--slurm-init-seconds-before-status-checks", "2",
            *targets, timeout=900, check=False)
    finally:
        recorder.stop()
    wall = time.time() - t0
    record_property("slurm_run_seconds", round(wall, 1))
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-6000:]
    assert "Using profile" in log and "slurm" in log

    # the jobs Snakemake submitted, as Slurm recorded them
    submitted = dict(re.findall(r"Job (\d+) has been submitted with SLURM jobid (\d+)", log))
    assert submitted, log[-4000:]
    comp = jobcomp_records()
    host = socket.gethostname().split(".")[0]
    rules = {}
    for jobid in submitted.values():
        rec = comp.get(jobid)
        assert rec, f"SLURM job {jobid} is not in {JOBCOMP_LOG}"
        assert rec["JobState"] == "COMPLETED" and rec["WorkDir"] == str(wd) and rec["NodeList"] == host, rec
        info = recorder.records.get(jobid, {})
        assert info.get("JobState") == "COMPLETED", (jobid, info)
        rule = re.match(r"rule_(\w+?)(?:_wildcards_.*)?$", info["Comment"]).group(1)
        rules[rule] = info
        if rule in GPU_RULES:
            assert "gpu:1" in info.get("TresPerJob", ""), (rule, info.get("TresPerJob"))
            assert mem_mb(info["MinMemoryNode"]) == cfg["models"][MODEL]["mem_gb"] * 1024, (rule, info["MinMemoryNode"])
        else:
            assert "gpu" not in info.get("TresPerJob", ""), (rule, info.get("TresPerJob"))
    # the targets need the score prompts only (the evaluation sets feed the ablations, not these tables)
    assert {"prompts_score", "cache", "induction_scores", "tsla_scores"} <= set(rules), sorted(rules)
    assert "prompts_eval" not in rules, sorted(rules)

    # same config, same tables as the local run
    for t in targets:
        pd.testing.assert_frame_equal(pd.read_csv(wd / t), pd.read_csv(ref / t), check_exact=True)
    print(f"slurm run of {len(submitted)} jobs: {wall:.0f} s")


def test_locally_resources_gpu_caps_the_gpu_jobs(tmp_path):
    """The same DAG locally: `--resources gpu=N` caps the GPUs of the running jobs (a job's
    request is cut to N, so gpu=0 runs every job on the CPU)."""
    cfg = tiny_run.tiny_config(str(tmp_path / "resources"))  # model entry with gpu: 1
    tiny_run.write_config(tmp_path, cfg)
    target = f"results/{MODEL}/heads/induction.csv"
    for n in (1, 0):
        proc = tiny_run.snakemake(tmp_path, "-n", "--cores", "2", target, "--resources", f"gpu={n}", timeout=300)
        jobs = re.findall(r"^rule (\w+):\n(?:    .*\n)*?    resources: (.*)$", proc.stdout, re.M)
        assert dict(jobs)["induction_scores"].split(", ").count(f"gpu={n}") == 1, jobs
        assert "gpu=" not in dict(jobs)["materialise_model"], jobs
