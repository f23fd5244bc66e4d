"""Rule ltv_transfer (L6): the baseline LTV of every dataset evaluated on every dataset's
evaluation queries (train on A, test on B)."""
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
model = job.load_model(attn="sdpa")
seed = job_seed(job.cfg, "ltv_transfer", w["model"])
vecs = {d: read_vectors(p)["baseline"] for d, p in zip(cfg["datasets"], smk.input.vectors)}
rows, data = [], {}
for target in cfg["datasets"]:
    task, sets, labels = task_and_queries(job, model, target, icl=False)
    conds = {src: v for src, v in vecs.items()}
    conds["zero-shot"] = (None, None)
    res = evaluate(model, sets["eval_zs"], labels, ltv.conditions(conds), share="both", batch_size=cfg["batch_size"])
    for src, r in res.items():
        rows.append(acc_row({"model": w["model"], "source": src, "target": target}, r.correct))
        data[(src, target)] = r
label_sets = {}
for d in cfg["datasets"]:
    label_sets[d] = set(job.load_task(d).label_set)
df = pd.DataFrame(rows)
df["same_task"] = df.source == df.target
df["shared_label_space"] = [s != "zero-shot" and bool(label_sets.get(s, set()) & label_sets[t]) and s != t
                            for s, t in zip(df.source, df.target)]
df["seed"] = seed
prov = job.provenance(seed=seed, model=job.model_record(),
                      choices={"vectors": "baseline configuration LTV of each source dataset, injected unchanged"})
write_csv(df, smk.output.table, prov)
# Claim (S2, config/claims.yaml): queries of a vector on its own task against queries of a vector
# on a task with a disjoint label space, two independent groups.
same = [data[(d, d)] for d in cfg["datasets"] if (d, d) in data]
other = [data[(s, t)] for s in vecs for t in cfg["datasets"] if s != t and not (label_sets[s] & label_sets[t])]
cl = claims.Claims(job.params["claims"], model=w["model"], dataset="all", rule=job.rule, seed=seed)
if other:
    cl.judge("L6.transfer_within_label_space", claims.eval_arrays({"same": same, "other": other}, pool="concat"))
write_csv(cl.table(), smk.output.claims, prov)
