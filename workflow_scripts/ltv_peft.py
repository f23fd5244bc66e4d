"""Rule ltv_peft (L2): LTV against LoRA, prefix tuning and prompt tuning (peft) at a matched
parameter budget, trained and measured in one run on the same queries."""
from common import Job  # noqa: I001

import pandas as pd

from icl_heads import ltv_peft
from icl_heads.config import job_seed
from icl_heads.io import write_csv
from icl_heads.stats import bootstrap_ci
from ltv_common import ltv_cfg, task_and_queries

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
w, cfg = job.wildcards, ltv_cfg(job)
pcfg = cfg["peft"]
seed = job_seed(job.cfg, "ltv_peft", w["model"])
rows = []
for method in pcfg["methods"]:
    import gc

    model = None
    gc.collect()
    model = job.load_model(attn="sdpa")  # a fresh copy per method: peft changes the model in place
    task, sets, _ = task_and_queries(job, model, pcfg["dataset"], icl=False)
    layer = model.n_layers // 2
    try:
        r = ltv_peft.train_and_measure(method, model, sets["train_zs"], sets["eval_zs"], steps=cfg["steps"],
                                       lr=pcfg["lr"] if pcfg["lr"] else cfg["lr"], weight_decay=cfg["weight_decay"],
                                       batch_size=cfg["batch_size"], seed=seed, budget=model.d_model, layer=layer,
                                       label_mode=cfg["label_tokens"], lr_scale=cfg["lr_scale"])
    except Exception as e:  # a peft method this model type does not support is reported, not fatal
        job.log.exception("method %s failed", method)
        rows.append({"model": w["model"], "dataset": pcfg["dataset"], "method": method, "error": repr(e)[:300]})
        continue
    lo, hi = bootstrap_ci(r.pop("correct"), seed=0)
    rows.append({"model": w["model"], "dataset": pcfg["dataset"], **r, "ci_low": lo, "ci_high": hi,
                 "ltv_budget_params": model.d_model, "n": len(sets["eval_zs"]), "n_train": len(sets["train_zs"]),
                 "steps": cfg["steps"], "seed": seed, "error": ""})
    job.log.info("%s: %s", method, rows[-1])
prov = job.provenance(seed=seed, data=task.provenance(), model=job.model_record(),
                      choices={"budget": "LTV trains d_model parameters; LoRA rank chosen so r*(d_in+d_out) is closest to d_model "
                                         "on o_proj of the middle layer; prefix / prompt tuning with 1 virtual token (their "
                                         "smallest setting); trainable_params states every count",
                               "harness": "same queries, loss, AdamW, steps and batches for every method; latency = mean wall "
                                          "time of a training step after the first"})
write_csv(pd.DataFrame(rows), smk.output[0], prov)
