"""Rule ltv_summary: the L1 method x configuration table (dataset average and per dataset)
and the L1 claims (paired bootstrap over queries pooled across datasets)."""
from common import Job  # noqa: I001

import numpy as np
import pandas as pd

from icl_heads import claims
from icl_heads.config import job_seed
from icl_heads.io import load_tensors, write_csv

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
w = job.wildcards
seed = job_seed(job.config, "ltv_summary", w["model"])
tables = pd.concat([pd.read_csv(p) for p in smk.input.tables], ignore_index=True)
l1 = tables[tables.kind != "sweep"].copy()
avg = (l1.groupby(["model", "method", "configuration"], as_index=False)
       .agg(value=("value", "mean"), n=("n", "sum"), n_datasets=("dataset", "nunique")))
avg["dataset"] = "average"
per = l1[["model", "method", "configuration", "dataset", "value", "ci_low", "ci_high", "n"]].copy()
per["n_datasets"] = 1
out = pd.concat([avg, per], ignore_index=True)
out["seed"] = seed
prov = job.provenance(seed=seed, choices={"average": "unweighted mean of the per-dataset accuracies"},
                      config_keys=["ltv.datasets", "ltv.configurations"])
write_csv(out[["model", "dataset", "method", "configuration", "value", "ci_low", "ci_high", "n", "n_datasets", "seed"]],
          smk.output.table, prov)

pq = {}
for p in smk.input.per_query:
    t, _ = load_tensors(p)
    for k, v in t.items():
        pq.setdefault(k, []).append(v.numpy())
pooled = {k: np.concatenate(v) for k, v in pq.items()}
# Claims (S2, config/claims.yaml), paired over the queries of every dataset; the late-layer claim
# on the last F4 sweep layer. A claim whose configuration was not run is left out.
sweep = sorted((k for k in pooled if k.startswith("LTV|layer")), key=lambda k: int(k.split("layer")[1]))
if sweep:
    pooled["LTV|late layer"] = pooled[sweep[-1]]
cl = claims.Claims(job.params["claims"], model=w["model"], dataset="all", rule=job.rule, seed=seed)
cl.judge(["L1.ltv_beats_vanilla_baseline", "L1.ltv_raises_zero_shot", "L1.ltv_works_at_pos4", "L1.ltv_in_icl_beats_icl"],
         {"accuracy": pooled}, missing="skip")
cl.judge("F4.ltv_late_layer_beats_zero_shot", {"accuracy": pooled}, missing="skip",
         qualifier=sweep[-1].split("|")[1] if sweep else "")
write_csv(cl.table(), smk.output.claims, prov)
