"""A user's own prompts through the FV rule: the prompts the workflow builds for a task, written
to a prompt_set file by hand and scored by rule fv_scores under the same dataset name, give the
same FV score for every head as scoring the task itself (SmolLM2, 2 prompts)."""
from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml

import tiny_run
from icl_heads.config import job_seed
from icl_heads.data import load_dataset
from icl_heads.prompts import build_prompts

pytestmark = pytest.mark.slow
M, TASK = "smollm2-135m", "antonym"


def _run_fv(wd, cfg):
    (wd / "config").mkdir(parents=True, exist_ok=True)
    (wd / "config" / "config.yaml").write_text(yaml.safe_dump(cfg))
    out = f"results/{M}/heads/fv/{TASK}.csv"
    tiny_run.snakemake(wd, "--cores", "2", out)
    return pd.read_csv(wd / out), json.loads((wd / f"{out}.prov.json").read_text())


def test_fv_scores_of_a_written_prompt_set_equal_the_internal_prompts(tmp_path, test_resources):
    cfg = tiny_run.test_config("tiny", test_resources)
    cfg["fv"].update(scoring_tasks=[TASK], n_prompts=2, n_shot=3)
    internal, _ = _run_fv(tmp_path / "internal", cfg)

    # the same prompts, as a user would write them: demonstrations, query and answer
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained(f"{test_resources}/{M}/hf")
    task = load_dataset(TASK, cfg, cfg["data_dir"])
    seed = job_seed(cfg, "fv", TASK)   # rule fv_scores' seed: the dataset name is the same below
    prompts = build_prompts(task, tok, n_shot=3, n_queries=2, seed=seed, balanced=False)
    train, test = task.split("train"), task.split("test")
    lines = [json.dumps({"demonstrations": [{"input": train[i]["input"], "output": train[i]["output"]}
                                            for i in p.demo_indices],
                         "input": test[p.index]["input"], "output": test[p.index]["output"]}) for p in prompts]
    given = tmp_path / "my_prompts.jsonl"
    given.write_text("\n".join(lines) + "\n")

    cfg2 = json.loads(json.dumps(cfg))
    cfg2["datasets"][TASK] = {"source": "prompt_set", "path": str(given), "template": task.template}
    scored, prov = _run_fv(tmp_path / "given", cfg2)
    assert prov["data"]["source"] == "prompt_set" and str(given) in prov["data"]["files"]
    merged = internal.merge(scored, on=["layer", "head"], suffixes=("_internal", "_given"))
    assert len(merged) == len(internal) > 0
    assert (merged.fv_internal - merged.fv_given).abs().max() <= 1e-6
