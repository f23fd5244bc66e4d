"""Rule ltv_composition (L7): LTV(English->French) + LTV(masculine->feminine) on the composed
task (English masculine -> French feminine), against each vector alone, zero-shot and ICL."""
from common import Job  # noqa: I001

import pandas as pd

from icl_heads import claims, ltv
from icl_heads.config import job_seed
from icl_heads.model import evaluate
from icl_heads.io import write_csv
from icl_heads.stats import paired_bootstrap
from ltv_common import acc_row, ltv_cfg, read_vectors, task_and_queries

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
w, cfg = job.wildcards, ltv_cfg(job)
ccfg = cfg["composition"]
model = job.load_model(attn="sdpa")
seed = job_seed(job.config, "ltv_composition", w["model"])
vecs = [(d, *read_vectors(p)["baseline"]) for d, p in zip(ccfg["tasks"], smk.input.vectors)]
site = vecs[0][1]
if any(v[1] != site for v in vecs):
    raise SystemExit("ltv.composition: the composed vectors must share their injection site")
task, sets, labels = task_and_queries(job, model, ccfg["composed"])
ev = sets["train_zs"] + sets["eval_zs"]        # the composed task is never trained on: every test query evaluates
ev_icl = sets["train_icl"] + sets["eval_icl"]
conds = {f"LTV({d}) alone": (site, th) for d, _, th in vecs}
conds["LTV sum"] = (site, sum(th for _, _, th in vecs))
conds["zero-shot"] = (None, None)
res = evaluate(model, ev, labels, ltv.conditions(conds), share="columns", batch_size=cfg["batch_size"])
res["ICL"] = evaluate(model, ev_icl, labels, {"ICL": []}, share="columns", batch_size=cfg["batch_size"])["ICL"]
rows = [acc_row({"model": w["model"], "dataset": ccfg["composed"], "condition": k}, r.correct) for k, r in res.items()]
for r in rows:
    r["seed"] = seed
prov = job.provenance(seed=seed, model=job.model_record(), data=task.provenance(),
                      choices={"vectors": f"baseline LTVs of {[d for d, _, _ in vecs]}, summed"},
                      config_keys=["ltv.composition", "ltv.n_shot"])
write_csv(pd.DataFrame(rows), smk.output.table, prov)
vals = {"sum": res["LTV sum"].correct.numpy(), "zs": res["zero-shot"].correct.numpy(), "icl": res["ICL"].correct.numpy()}
crow = []
for claim, metric, fn, ref in [("The sum of two LTVs performs the composed task above zero-shot", "acc(LTV sum) - acc(zero-shot)",
                                lambda m: m["sum"] - m["zs"], "far above zero-shot"),
                               ("The sum of two LTVs beats ICL on the composed task", "acc(LTV sum) - acc(ICL)",
                                lambda m: m["sum"] - m["icl"], "above ICL")]:
    v, lo, hi = paired_bootstrap(vals, fn, seed=seed % 2**31)
    crow.append(claims.row(paper="LTV", artifact="L7", claim=claim, model=w["model"], dataset=ccfg["composed"], metric=metric,
                           value=v, ci=(lo, hi), direction="positive", paper_value=ref, n=len(ev), seed=seed, rule=job.rule))
write_csv(pd.DataFrame(crow, columns=claims.COLUMNS), smk.output.claims, prov)
