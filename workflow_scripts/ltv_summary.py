"""Rule ltv_summary: the L1 method x configuration table (dataset average and per dataset)
and the L1 claims (paired bootstrap over queries pooled across datasets)."""
from common import Job  # noqa: I001

from pathlib import Path

import numpy as np
import pandas as pd

from icl_heads import claims
from icl_heads.config import job_seed
from icl_heads.io import load_tensors, write_csv

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
w = job.wildcards
seed = job_seed(job.cfg, "ltv_summary", w["model"])
tables = pd.concat([pd.read_csv(p) for p in smk.input.tables], ignore_index=True)
l1 = tables[tables.kind != "sweep"].copy()
# A dataset whose clean n-shot (ICL) accuracy is at floor is flagged and left out of the average
# and of the pooled claims (claims.floor_accuracy; every dataset at floor: the verdicts are left out).
floor = job.cfg["claims"]["floor_accuracy"]
icl = l1[(l1.method == "ICL")].set_index("dataset")["value"]
at_floor = {d: bool(a <= floor) for d, a in icl.items()}
floor_sets = sorted(d for d, f in at_floor.items() if f)
pool = sorted(d for d, f in at_floor.items() if not f) or floor_sets
note = (f"left out, clean ICL accuracy at floor (<= claims.floor_accuracy {floor:g}): "
        + ", ".join(f"{d} {icl[d]:.3g}" for d in floor_sets)) if floor_sets else ""
job.log.info(note or "no dataset at floor")
l1["clean_at_floor"] = l1.dataset.map(at_floor).fillna(False).astype(bool)
avg = (l1[l1.dataset.isin(pool)].groupby(["model", "method", "configuration"], as_index=False)
       .agg(value=("value", "mean"), n=("n", "sum"), n_datasets=("dataset", "nunique")))
avg["dataset"] = "average"
avg["clean_at_floor"] = False
per = l1[["model", "method", "configuration", "dataset", "value", "ci_low", "ci_high", "n", "clean_at_floor"]].copy()
per["n_datasets"] = 1
out = pd.concat([avg, per], ignore_index=True)
out["seed"] = seed
prov = job.provenance(seed=seed, choices={"average": "unweighted mean of the per-dataset accuracies, datasets at floor left out"})
extra = {"floor_datasets": floor_sets, "datasets_pooled": pool}
write_csv(out[["model", "dataset", "method", "configuration", "value", "ci_low", "ci_high", "n", "n_datasets",
               "clean_at_floor", "seed"]], smk.output.table, prov, extra)

pq = {}
for p in smk.input.per_query:
    if Path(p).name.split(".per_query")[0] not in pool:
        continue
    t, _ = load_tensors(p)
    for k, v in t.items():
        pq.setdefault(k, []).append(v.numpy())
pooled = {k: np.concatenate(v) for k, v in pq.items() if "/" not in k}
logp = {k.split("/", 1)[1]: np.concatenate(v) for k, v in pq.items() if k.startswith("logp_answer/")}
# Claims (S2, config/claims.yaml), paired over the queries of every dataset; the late-layer claim
# on the last F4 sweep layer. A claim whose configuration was not run is left out.
sweep = sorted((k for k in pooled if k.startswith("LTV|layer")), key=lambda k: int(k.split("layer")[1]))
if sweep:
    pooled["LTV|late layer"] = pooled[sweep[-1]]
    if sweep[-1] in logp:
        logp["LTV|late layer"] = logp[sweep[-1]]
# accuracy with log p(answer) as its floor partner (evaluations written before it was recorded have none)
arrays = {"accuracy": pooled, **({"logp_answer": logp} if logp else {})}
cl = claims.Claims(job.params["claims"], model=w["model"], dataset="all", rule=job.rule, seed=seed, note=note,
                   excluded="every dataset's clean ICL accuracy is at floor" if not set(pool) - set(floor_sets) else "")
cl.judge(["L1.ltv_beats_vanilla_baseline", "L1.ltv_raises_zero_shot", "L1.ltv_works_at_pos4", "L1.ltv_in_icl_beats_icl"],
         arrays, missing="skip")
cl.judge("F4.ltv_late_layer_beats_zero_shot", arrays, missing="skip",
         qualifier=sweep[-1].split("|")[1] if sweep else "")
write_csv(cl.table(), smk.output.claims, prov, extra)
