"""Helpers shared by the LTV rule scripts (Paper B): one place that turns the config into
query sets, label tokens and the injection site of a configuration."""
from __future__ import annotations


import numpy as np


def ltv_cfg(job) -> dict:
    return job.cfg["ltv"]


def task_and_queries(job, model, dataset: str, icl: bool = True):
    from icl_heads import ltv
    from icl_heads.prompts import label_tokens

    cfg = ltv_cfg(job)
    task = job.load_task(dataset)
    from icl_heads.config import dataset_size

    n_train = dataset_size(job.cfg, dataset, "ltv_n_train")   # ltv.n_train or datasets.<name>.sizes.ltv_n_train
    sets = ltv.query_sets(task, model.tokenizer, n_train=n_train, n_eval=cfg["n_eval"], n_shot=cfg["n_shot"],
                          seed=job.cfg["seed"], icl=icl)
    labels = label_tokens(model.tokenizer, task.label_set, dataset) if task.label_set else None
    return task, sets, labels


def site_of(job, model, conf: str):
    from icl_heads import ltv

    return ltv.site(conf, model.n_layers, ltv_cfg(job)["layer_stride"])


def acc_row(base: dict, correct, seed: int = 0) -> dict:
    from icl_heads.stats import bootstrap_ci

    v = np.asarray(correct, dtype=float)
    lo, hi = bootstrap_ci(v, seed=seed)
    return {**base, "metric": "accuracy", "value": float(v.mean()), "ci_low": lo, "ci_high": hi, "n": len(v)}


def fv_heads(job, path) -> list[tuple[int, int]]:
    """Top fv.top_percent % heads of the Paper C FV ranking (results/{model}/heads/fv.csv)."""
    import pandas as pd

    from icl_heads.scores import top_set
    from icl_heads.tsla import score_matrix

    df = pd.read_csv(path)
    return sorted(top_set(score_matrix(df, "fv").nan_to_num(float("-inf")), job.cfg["fv"]["top_percent"]))


def read_vectors(path) -> dict:
    """configuration -> (Site, theta) of a vectors file written by rule ltv_train."""
    from icl_heads import ltv
    from icl_heads.io import load_tensors

    t, meta = load_tensors(path)
    return {c: (ltv.Site(tuple(m["layers"]), tuple(m["positions"]), m["prompt"]), t[f"theta.{c}"])
            for c, m in meta["sites"].items()}
