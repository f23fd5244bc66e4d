"""Rule ltv_composition (L7): LTV(English->French) + LTV(masculine->feminine) on the composed
task (English masculine -> French feminine), against each vector alone, zero-shot and ICL."""
from common import Job  # noqa: I001

import pandas as pd

from icl_heads import claims, ltv
from icl_heads.config import job_seed
from icl_heads.model import evaluate
from icl_heads.io import write_csv
from ltv_common import acc_row, ltv_cfg, read_vectors, task_and_queries

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
w, cfg = job.wildcards, ltv_cfg(job)
ccfg = cfg["composition"]
model = job.load_model(attn="sdpa")
seed = job_seed(job.cfg, "ltv_composition", w["model"])
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
res = evaluate(model, ev, labels, ltv.conditions(conds), share="both", batch_size=cfg["batch_size"])
res["ICL"] = evaluate(model, ev_icl, labels, {"ICL": []}, share="both", batch_size=cfg["batch_size"])["ICL"]
rows = [acc_row({"model": w["model"], "dataset": ccfg["composed"], "condition": k}, r.correct) for k, r in res.items()]
for r in rows:
    r["seed"] = seed
prov = job.provenance(seed=seed, model=job.model_record(), data=task.provenance(),
                      choices={"vectors": f"baseline LTVs of {[d for d, _, _ in vecs]}, summed"})
write_csv(pd.DataFrame(rows), smk.output.table, prov)
# Claims (S2, config/claims.yaml), paired over the composed task's queries.
cl = claims.Claims(job.params["claims"], model=w["model"], dataset=ccfg["composed"], rule=job.rule, seed=seed)
cl.judge(["L7.sum_above_zero_shot", "L7.sum_beats_icl"],
         claims.eval_arrays({"sum": res["LTV sum"], "zs": res["zero-shot"], "icl": res["ICL"]}))
write_csv(cl.table(), smk.output.claims, prov)
