"""Exact reruns: config reaches a rule script only through the rule's `cfg` param (rules/common.smk
cfg(); workflow_scripts/common.py Job.cfg raises on any other key), so changing one config key
must plan exactly the jobs whose `cfg` param holds it, and what is made from them.

The test builds no model: it creates every output of the full default DAG (config/config.yaml)
as an empty file, lets `snakemake --touch --forceall` record every job's params, then changes every leaf key
of the configuration, one at a time, and compares `snakemake --summary`'s plan with the jobs
whose recorded `cfg` param names the key (derived from the rules through Snakemake's own
records, not from a list here) and their descendants."""
from __future__ import annotations

import ast
import base64
import copy
import functools
import json
import os
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
import yaml

import tiny_run
from conftest import ROOT, SHARED_DATA
from icl_heads.config import BUILTIN_SHA_KEY, SCHEMA_PATH, config_value, validate

pytestmark = pytest.mark.slow

# Keys read when the DAG is built, which decide which jobs and files exist rather than what a job
# computes: a change adds or removes jobs (Snakemake then reruns a job whose set of input files
# changed), which no params comparison expresses. Each is listed with what it decides.
DAG_KEYS = {
    "resources_dir": "where models are materialised: every model job's output path",
    "run_models": "which models run",
    "plots.formats": "which figure files exist",
    "models.tiny-neox.artifacts": "which artifacts the trained model runs",
    "models.tiny-neox.train.checkpoint_steps": "which checkpoint models exist (Y9)",
    # lists of datasets / tasks: a change adds or removes their jobs, and the jobs that gather
    # over them (claims, rankings, summaries) rerun because their set of input files changed
    "classification_datasets": "which classification datasets run (TSLA)",
    "fv.scoring_tasks": "which tasks score FV heads (Y2)",
    "fv.eval_tasks": "which tasks Y5-Y8 evaluate",
    "ltv.datasets": "which datasets LTVs are trained on (L1)",
    "ltv.mechanism_datasets": "which datasets L3-L5 run on",
}
DAG_PREFIXES = {
    "ltv.n_layers_hint.": "the layer count used to plan the F4 sweep before a model exists "
                          "(ltv_train's configurations param follows it)",
}


def leaves(node, path=()):
    if isinstance(node, dict) and node:
        for k, v in node.items():
            yield from leaves(v, (*path, str(k)))
    else:
        yield ".".join(path), node


@functools.lru_cache(maxsize=1)
def _schema() -> dict:
    return yaml.safe_load(Path(SCHEMA_PATH).read_text())


def schema_of(key: str) -> dict:
    node = _schema()
    for part in key.split("."):
        props = node.get("properties", {})
        node = props.get(part) or (node.get("additionalProperties") if isinstance(node.get("additionalProperties"), dict)
                                   else {})
    return node or {}


def mutated(cfg: dict, key: str, value):
    """A different valid value for `key` (None where the test cannot make one)."""
    sch = schema_of(key)
    if key == "data_dir":
        return None  # set by the test to an equivalent directory (below)
    if key.startswith("models.") and key.endswith(".source"):
        return None  # another source needs its own keys (package, path, repo_id); they are changed one by one
    if key.startswith("datasets.") and key.endswith(".source"):
        return {"__entry__": True}  # the dataset's entry changes: it names its built-in task explicitly
    if key.endswith(".sha256"):
        return "0" * 64
    if isinstance(value, bool):
        return not value
    if value is None and "integer" in (sch.get("type") if isinstance(sch.get("type"), list) else [sch.get("type")]):
        return 1  # a null limit ("all", e.g. tsla.ablation_n_eval) becomes a number
    if isinstance(value, int) and key in ("prompts.n_score", "prompts.n_eval"):
        return value - 1  # their sum is bounded by each dataset's test split (config.check_data), which the default may fill
    if isinstance(value, int):
        hi = sch.get("maximum")
        return value + 1 if hi is None or value + 1 <= hi else value - 1
    if isinstance(value, float):
        return value * 0.9 if value else 0.05
    if isinstance(value, str):
        if sch.get("enum"):
            return next((e for e in sch["enum"] if e != value), None)
        if key in ("fv.token_loss.dataset",):
            return None
        if key in ("ltv.peft.dataset", "ltv.composition.composed"):
            return next(d for d in cfg["ltv"]["datasets"] + cfg["fv"]["eval_tasks"] if d != value)
        if any(alt.get("type") == "integer" for alt in sch.get("anyOf", [])):
            return 1  # a word or a number (model_threads: all or n)
        return value + "x"
    if isinstance(value, list):
        if value and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            return value[:-1] + [value[-1] + 1 if isinstance(value[-1], int) else value[-1] * 0.9]
        if len(value) >= 2:
            return value[:-1]
        if len(value) == 1 and value[0] in cfg["datasets"]:  # another dataset of the same kind
            return [next(d for d in cfg["classification_datasets"] + cfg["ltv"]["datasets"] if d != value[0])]
        return None
    if isinstance(value, dict):  # an empty mapping
        return None
    return None


def summary(wd: Path, cfgfile: Path) -> dict[str, str]:
    proc = tiny_run.snakemake(wd, "--cores", "1", "--summary", configfile=cfgfile, timeout=600)
    rows = [line.split("\t") for line in proc.stdout.splitlines() if "\t" in line]
    head = rows[0]
    return {r[0]: r[head.index("plan")] for r in rows[1:]}


@pytest.fixture(scope="module")
def touched(tmp_path_factory):
    wd = tmp_path_factory.mktemp("exact_rerun")
    base = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    base["data_dir"] = str(SHARED_DATA)
    cfgfile = tiny_run.write_config(wd, base)
    plan = summary(wd, cfgfile)
    for out in plan:
        p = wd / out
        if "." not in p.name:
            p.mkdir(parents=True, exist_ok=True)
        else:
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text("{}" if out.endswith(".prov.json") else "")
    tiny_run.snakemake(wd, "--cores", "1", "--touch", "--forceall", configfile=cfgfile, timeout=600)
    full = validate(copy.deepcopy(base))
    # Snakemake's record of each output: its job's rule, inputs and params (per output, so no
    # grouping of outputs into jobs is needed: a job's outputs share their record's fields)
    records: dict = {}
    for rec_path in (wd / ".snakemake" / "metadata").iterdir():
        rec = json.loads(rec_path.read_text())
        out = base64.b64decode(rec_path.name.replace("@", "/")).decode()
        records[out] = {"rule": rec["rule"], "inputs": set(rec["input"]), "cfg": declared(rec["params"], full)}
    return wd, base, records


def declared(params: list[str], cfg: dict) -> dict:
    """A job's cfg param ({key: value}) among its recorded params (each the repr of a value)."""
    for text in params:
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            continue
        if isinstance(value, dict) and value and all(isinstance(k, str) for k in value):
            try:
                for k in value:   # config keys, and the built-in datasets' sha256 (not config keys)
                    if not k.startswith(BUILTIN_SHA_KEY + "."):
                        config_value(cfg, k)
            except Exception:
                continue
            return value
    return {}


def holds(cfg: dict, key: str) -> bool:
    """Whether a job's cfg param holds `key`: as one of its keys, or inside the value of a key
    above it (a model entry without its scheduling keys holds no mem_gb)."""
    for k, v in cfg.items():
        if key == k:
            return True
        if key.startswith(k + "."):
            for part in key[len(k) + 1:].split("."):
                if not isinstance(v, dict) or part not in v:
                    break
                v = v[part]
            else:
                return True
    return False


def expected_outputs(records: dict, key: str) -> set[str]:
    """The outputs whose job's cfg param holds `key` (it, or a key above it), and every output
    made from them."""
    hit = {o for o, r in records.items() if holds(r["cfg"], key)}
    changed = True
    while changed:
        new = {o for o, r in records.items() if o not in hit and r["inputs"] & hit}
        hit |= new
        changed = bool(new)
    return hit


def test_touched_build_plans_nothing(touched):
    wd, base, records = touched
    plan = summary(wd, wd / "config" / "config.yaml")
    assert {o for o, p in plan.items() if p != "no update"} == set()
    assert set(plan) - {"figures"} <= set(records), "outputs without a Snakemake record"
    assert sum(bool(r["cfg"]) for r in records.values()) > 400, "too few outputs record a cfg param"


def config_keys(base: dict, full: dict):
    """Every leaf key of config/config.yaml, and those the schema defaults outside the model and
    dataset entries (plots.*, ltv.label_tokens, ...): (key, its value)."""
    own = dict(leaves(base))
    yield from own.items()
    for key, value in leaves(full):
        if key not in own and key.split(".")[0] not in ("models", "datasets"):
            yield key, value


def with_value(base: dict, full: dict, key: str, value) -> dict:
    """base with `key` set to value; a section base leaves to the schema's defaults is copied
    whole from the validated config first (so only `key` differs)."""
    out = copy.deepcopy(base)
    node, fnode = out, full
    parts = key.split(".")
    for p in parts[:-1]:
        fnode = fnode[p]
        if p not in node:
            node[p] = copy.deepcopy(fnode)
        node = node[p]
    if isinstance(value, dict) and value.get("__entry__"):
        out["datasets"][parts[1]] = {**out["datasets"][parts[1]], "task": parts[1]}
    else:
        node[parts[-1]] = value
    return out


def test_every_config_key_reruns_exactly_the_jobs_that_declare_it(touched, tmp_path):
    wd, base, records = touched
    full = validate(copy.deepcopy(base))
    cases, skipped = [], {}
    for key, value in config_keys(base, full):
        if key in DAG_KEYS or any(key.startswith(p) for p in DAG_PREFIXES):
            skipped[key] = "DAG"
            continue
        if key == "data_dir":
            alias = tmp_path / "data_alias"
            alias.symlink_to(SHARED_DATA, target_is_directory=True)
            new = str(alias)
        elif key.endswith("corpus.path"):  # the same corpus (same sha256) at another path
            alias = tmp_path / "corpus.txt"
            alias.symlink_to(SHARED_DATA / value)
            new = str(alias)
        elif key == "induction.sequences":  # a file of given token sequences
            (tmp_path / "sequences.json").write_text("[[5, 6, 7], [8, 9, 10]]")
            new = str(tmp_path / "sequences.json")
        else:
            new = mutated(base, key, value)
        if new is None:
            skipped[key] = "no other valid value"
            continue
        cases.append((key, with_value(base, full, key, new)))

    only = os.environ.get("ICL_RERUN_KEYS")  # a comma-separated subset, while developing
    if only:
        cases = [c for c in cases if c[0] in only.split(",")]

    def check(case):
        key, cfg = case
        path = tiny_run.write_config(wd, cfg, f"mut_{key}.yaml")
        plan = summary(wd, path)
        got = {o for o, p in plan.items() if p != "no update"}
        want = expected_outputs(records, key)
        return key, sorted(got - want)[:5], sorted(want - got)[:5]

    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(check, cases))
    bad = [r for r in results if r[1] or r[2]]
    assert not bad, "config keys whose change plans other jobs than those declaring them " \
                    "(key, planned but not declaring, declaring but not planned):\n" + \
                    "\n".join(map(str, bad))
    assert only or len(cases) >= 100, (len(cases), skipped)
    assert len([k for k, why in skipped.items() if why != "DAG"]) <= 5, skipped
