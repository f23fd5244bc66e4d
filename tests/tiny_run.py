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


def snakemake(wd: Path, *args, configfile: Path | None = None, timeout: float = 1800, check: bool = True,
              env: dict | None = None):
    """snakemake on the project's Snakefile in working directory wd, with wd/config/config.yaml
    (`env`: variables set on top of this process's environment)."""
    cfgfile = configfile or wd / "config" / "config.yaml"
    # targets before --configfile, which takes several values
    proc = run_killable([*SNAKEMAKE, "-s", ROOT / "Snakefile", "--directory", wd, *args, "--configfile", cfgfile],
                        cwd=wd, timeout=timeout, env={**os.environ, **env} if env else None)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(map(str, args))} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc


def test_config(name: str, resources: str) -> dict:
    """.test/config_<name>/config.yaml laid over config/config.yaml (as Snakemake merges
    --configfile), with this machine's data_dir (../shared/data) and resources_dir."""
    from icl_heads.config import deep_merge

    base = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    over = yaml.safe_load((ROOT / ".test" / f"config_{name}" / "config.yaml").read_text())
    cfg = deep_merge(base, over)
    cfg["data_dir"] = str(SHARED_DATA)
    cfg["resources_dir"] = resources
    return cfg


def tiny_config(resources: str) -> dict:
    """.test/config_tiny: SmolLM2 on one dataset with a few prompts; TSLA, synthesis, report
    pages and the gallery (no Paper B or C)."""
    return test_config("tiny", resources)


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


def dry_run_job_texts(dry_run_output: str) -> list[tuple[str, str]]:
    """(rule, text) of each job a `snakemake -n` run lists, the text from its header to the next
    job's header (blank lines do not separate jobs reliably)."""
    heads = list(_JOB.finditer(dry_run_output))
    ends = [m.start() for m in heads[1:]] + [len(dry_run_output)]
    return [(m.group(1), dry_run_output[m.start():end]) for m, end in zip(heads, ends)]


def planned_jobs(dry_run_output: str, rule: str) -> list[str]:
    """The text of each job of `rule` a `snakemake -n` run lists."""
    return [text for name, text in dry_run_job_texts(dry_run_output) if name == rule]
