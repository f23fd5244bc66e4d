"""Rule ltv_transfer (L6): the baseline LTV of every dataset evaluated on every dataset's
evaluation queries (train on A, test on B)."""
from common import Job  # noqa: I001

import numpy as np
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
seed = job_seed(job.config, "ltv_transfer", w["model"])
vecs = {d: read_vectors(p)["baseline"] for d, p in zip(cfg["datasets"], smk.input.vectors)}
rows, data = [], {}
for target in cfg["datasets"]:
    task, sets, labels = task_and_queries(job, model, target, icl=False)
    conds = {src: v for src, v in vecs.items()}
    conds["zero-shot"] = (None, None)
    res = evaluate(model, sets["eval_zs"], labels, ltv.conditions(conds), share="columns", batch_size=cfg["batch_size"])
    for src, r in res.items():
        rows.append(acc_row({"model": w["model"], "source": src, "target": target}, r.correct))
        data[(src, target)] = r.correct.numpy()
label_sets = {}
for d in cfg["datasets"]:
    label_sets[d] = set(job.load_task(d).label_set)
df = pd.DataFrame(rows)
df["same_task"] = df.source == df.target
df["shared_label_space"] = [s != "zero-shot" and bool(label_sets.get(s, set()) & label_sets[t]) and s != t
                            for s, t in zip(df.source, df.target)]
df["seed"] = seed
prov = job.provenance(seed=seed, model=job.model_record(),
                      choices={"vectors": "baseline configuration LTV of each source dataset, injected unchanged"},
                      config_keys=["ltv.datasets", "ltv.n_eval"])
write_csv(df, smk.output.table, prov)
diag = np.concatenate([data[(d, d)] for d in cfg["datasets"] if (d, d) in data])
off = [data[(s, t)] for s in vecs for t in cfg["datasets"] if s != t and not (label_sets[s] & label_sets[t])]
crow = []
if off:
    off = np.concatenate(off)
    rng = np.random.default_rng(seed % 2**31)
    bs = [rng.choice(diag, len(diag)).mean() - rng.choice(off, len(off)).mean() for _ in range(1000)]
    crow.append(claims.row(paper="LTV", artifact="L6", claim="LTVs transfer to their own task but not across label spaces",
                           model=w["model"], dataset="all", metric="acc(same task) - acc(other task, disjoint label space)",
                           value=float(diag.mean() - off.mean()), ci=(float(np.quantile(bs, 0.025)), float(np.quantile(bs, 0.975))),
                           direction="positive", paper_value="~0 transfer except SNLI->RTE 46.2%", n=len(diag) + len(off),
                           seed=seed, rule=job.rule))
write_csv(pd.DataFrame(crow, columns=claims.COLUMNS), smk.output.claims, prov)
