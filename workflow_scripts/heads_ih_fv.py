"""Rule heads_ih_fv (Y2 aggregate, Y3, Y4): FV scores averaged over scoring tasks; overlap of
the top IH and FV sets with the random expectation; percentiles; layer positions with a
two-sample test; claims rows."""
from common import Job  # noqa: I001
import numpy as np
import pandas as pd
from scipy.stats import mannwhitneyu

from icl_heads import claims
from icl_heads.io import write_csv
from icl_heads.scores import top_set
from icl_heads.tsla import rank_percentile, score_matrix

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
w, cfg = job.wildcards, job.cfg["fv"]
pct = cfg["top_percent"]
per_task = pd.concat([pd.read_csv(p) for p in smk.input.fv])
fv = per_task.groupby(["model", "layer", "head"], as_index=False).agg(fv=("fv", "mean"), n=("n", "sum"))
fv["n_tasks"] = per_task.task.nunique()
ind = pd.read_csv(smk.input.induction)[["layer", "head", "induction"]]
df = fv.merge(ind, on=["layer", "head"])
prov = job.provenance()
write_csv(df, smk.output.fv, prov)

ih_set, fv_set = top_set(score_matrix(df, "induction"), pct), top_set(score_matrix(df, "fv"), pct)
n_heads, k = len(df), len(ih_set)
df["ih_pct"], df["fv_pct"] = rank_percentile(df, "induction"), rank_percentile(df, "fv")
key = list(zip(df["layer"], df["head"]))
in_ih = np.array([x in ih_set for x in key])
in_fv = np.array([x in fv_set for x in key])
L = int(df.layer.max()) + 1
rows = [{"model": w["model"], "top_percent": pct, "k": k, "n_heads": n_heads,
         "overlap": len(ih_set & fv_set), "overlap_pct_of_ih": 100 * len(ih_set & fv_set) / k,
         "random_expectation_pct": 100 * len(fv_set) / n_heads,
         "ih_heads_median_fv_top_pct": float(df.fv_pct[in_ih].median()),
         "fv_heads_median_ih_top_pct": float(df.ih_pct[in_fv].median()),
         "ih_heads": ";".join(f"{l}.{h}" for l, h in sorted(ih_set)), "fv_heads": ";".join(f"{l}.{h}" for l, h in sorted(fv_set))}]
write_csv(pd.DataFrame(rows), smk.output.overlap, prov)

ih_layers, fv_layers = df.layer[in_ih].to_numpy(), df.layer[in_fv].to_numpy()
test = mannwhitneyu(fv_layers, ih_layers, alternative="two-sided")
pos = pd.DataFrame([{"model": w["model"], "family": fam, "layer": int(l), "relative_depth": l / (L - 1)}
                    for fam, ls in (("IH", ih_layers), ("FV", fv_layers)) for l in ls])
pos["mannwhitney_u"], pos["p_value"] = float(test.statistic), float(test.pvalue)
write_csv(pos, smk.output.layers, prov)

# Claims (S2, config/claims.yaml). Y4: the layers of the two top sets, heads resampled. Y3: the
# overlap against random sets of the same sizes, its CI by a bootstrap over scoring tasks.
cl = claims.Claims(job.params["claims"], model=w["model"], dataset="all", rule=job.rule)
cl.judge("Y4.fv_deeper_than_ih", {"layer": {"FV": fv_layers, "IH": ih_layers}}, qualifier=f"top {pct:g}%")
rng = np.random.default_rng(0)
tasks = sorted(per_task.task.unique())
boots = []
for _ in range(200):
    pick = rng.choice(tasks, len(tasks))
    m = pd.concat([per_task[per_task.task == t] for t in pick]).groupby(["layer", "head"], as_index=False).fv.mean()
    boots.append(100 * len(ih_set & top_set(score_matrix(m, "fv"), pct)) / k)
cl.judge("Y3.ih_fv_distinct", {"overlap": len(ih_set & fv_set), "size_a": k, "size_b": len(fv_set), "n_heads": n_heads,
                               "samples": boots}, qualifier=f"top {pct:g}%")
write_csv(cl.table(), smk.output.claims, prov)
