"""Rule ltv_evaluate (L1 and F4 rows of one dataset): accuracy of LTV, Vanilla TV and FV at
every configured site, plus zero-shot and ICL, on the evaluation queries."""
from common import Job  # noqa: I001

import pandas as pd

from icl_heads import ltv
from icl_heads.config import job_seed
from icl_heads.model import evaluate
from icl_heads.io import save_tensors, write_csv
from ltv_common import acc_row, fv_heads, ltv_cfg, read_vectors, task_and_queries

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
w, cfg = job.wildcards, ltv_cfg(job)
model = job.load_model(attn="sdpa")
task, sets, labels = task_and_queries(job, model, w["dataset"])
seed = job_seed(job.cfg, "ltv_evaluate", w["model"], w["dataset"])
bs = cfg["batch_size"]

# Vanilla TV and FV are extracted from the training queries (the ones LTV is trained on).
r_icl, r_zs, head_means = ltv.extraction_means(model, sets["train_icl"], sets["train_zs"], batch_size=bs)
heads = fv_heads(job, smk.input.fv) if smk.input.get("fv") else None

conds = {"zs": {}, "icl": {}}
meta = {}
for conf, (s, theta) in read_vectors(smk.input.vectors).items():
    group = "icl" if s.prompt == "icl" else "zs"
    kind = "sweep" if conf.startswith("layer") else "configuration"
    meta[conf] = (s, kind)
    conds[group][("LTV", conf)] = (s, theta)
    conds[group][("Vanilla TV", conf)] = (s, ltv.vanilla_theta(r_icl, r_zs, s))
    if heads:
        conds[group][("FV", conf)] = (s, ltv.fv_theta(head_means, heads, s))
conds["zs"][("zero-shot", "none")] = (None, None)
conds["icl"][("ICL", "none")] = (None, None)

results = {}
for group, prompts in (("zs", sets["eval_zs"]), ("icl", sets["eval_icl"])):
    named = {f"{a}|{b}": v for (a, b), v in conds[group].items()}
    res = evaluate(model, prompts, labels, ltv.conditions(named), share="both", batch_size=bs, progress=True, desc="LTV eval")
    results.update(res)

rows = []
for key, res in results.items():
    method, conf = key.split("|")
    s, kind = meta.get(conf, (None, "reference"))
    rows.append(acc_row({"model": w["model"], "dataset": w["dataset"], "method": method, "configuration": conf, "kind": kind,
                         "layers": " ".join(map(str, s.layers)) if s else "", "positions": " ".join(map(str, s.positions)) if s else "",
                         "prompt": s.prompt if s else ("icl" if method == "ICL" else "zeroshot")}, res.correct))
    rows[-1]["mean_p_answer"] = float(res.p_answer.mean())
    rows[-1]["seed"] = seed
prov = job.provenance(seed=seed, model=job.model_record(), data=task.provenance(),
                      choices={"vanilla_tv": "mean over the training queries of resid_pre^l[N] (8-shot) - resid_pre^l[N] (zero-shot), "
                                             "the same vector at every position of layer l",
                               "fv": (f"sum of the mean ICL outputs at N of the top fv.top_percent% FV heads ({len(heads)} heads, "
                                      "ranking results/{model}/heads/fv.csv), the same vector at every site") if heads else "not configured",
                               "accuracy": "full-vocabulary argmax at N equals the answer's first token",
                               "ci": "95% percentile bootstrap over queries"})
write_csv(pd.DataFrame(rows), smk.output.table, prov)
# Per query: 0/1 correct and log p(answer) (the continuous partner the claims' floor rule judges on).
save_tensors({**{k: v.correct for k, v in results.items()},
              **{f"logp_answer/{k}": v.logp_answer for k, v in results.items()}}, smk.output.per_query, prov,
             metadata={"keys": "method|configuration -> 0/1 correct per evaluation query; "
                               "logp_answer/method|configuration -> log p(answer token) per evaluation query"})
