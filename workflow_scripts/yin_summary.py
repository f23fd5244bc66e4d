"""Rule yin_summary (Y5, Y7, Y8 per model): ablation curves and add-back accuracies over the
evaluation tasks, and their claims rows (figures: rule plot_yin)."""
from common import Job  # noqa: I001
import numpy as np
import pandas as pd

from icl_heads import claims
from icl_heads.io import write_csv
from icl_heads.stats import paired_bootstrap

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
m = job.wildcards["model"]
df = pd.concat([pd.read_csv(p) for p in smk.input.per_task], ignore_index=True)
prov = job.provenance(config_keys=["fv.eval_tasks", "fv.ablation", "fv.top_percent", "fv.addback_layer"])

# Curves: accuracy over every (task, query); the random family also per seed, then averaged.
keys = ["model", "ablation", "family", "percent"]
per_seed = df.groupby(keys + ["seed"], dropna=False, as_index=False).agg(accuracy=("correct", "mean"), n=("correct", "size"), k=("k", "first"))
curves = per_seed.groupby(keys, as_index=False).agg(accuracy=("accuracy", "mean"), seed_sd=("accuracy", "std"),
                                                     n_seeds=("accuracy", "size"), n=("n", "first"), k=("k", "first"))
curves["n_tasks"] = df.task.nunique()
write_csv(curves, smk.output.curves, prov)

# Y7: accuracy per (task, condition), random vectors averaged over seeds.
ab = pd.concat([pd.read_csv(p) for p in smk.input.addback], ignore_index=True)
per_seed_ab = ab.groupby(["model", "task", "condition", "random_seed"], dropna=False, as_index=False).agg(
    accuracy=("correct", "mean"), n=("correct", "size"), layer=("layer", "first"), n_fv_heads=("n_fv_heads", "first"))
addback = per_seed_ab.groupby(["model", "task", "condition"], as_index=False).agg(
    accuracy=("accuracy", "mean"), seed_sd=("accuracy", "std"), n_seeds=("accuracy", "size"), n=("n", "first"),
    layer=("layer", "first"), n_fv_heads=("n_fv_heads", "first"))
write_csv(addback, smk.output.addback, prov)

# Claims: per ablation type, paired bootstrap over (task, query), effects averaged over the percents.
crow = []
for mode in sorted(set(df.ablation) - {"none"}):
    d = df[df.ablation == mode]
    wide = d.assign(fam=np.where(d.family == "random", "random", d.family)).pivot_table(
        index=["task", "query"], columns=["fam", "percent"], values="correct", aggfunc="mean")  # random: mean over seeds

    def fam_mean(fam):
        return wide[fam].mean(axis=1).to_numpy()

    vals = {f: fam_mean(f) for f in ("IH", "FV", "IH_excl", "FV_excl", "random")}
    art = "Y5" if mode == "mean" else "Y8"
    spec = [("Ablating FV heads hurts few-shot accuracy more than ablating induction heads",
             "acc(IH ablated) - acc(FV ablated), mean over the ablated shares", lambda v: v["IH"] - v["FV"], "positive",
             "FV ablation hurts more, growing with size"),
            ("With exclusion, ablating FV heads still hurts accuracy more than ablating induction heads",
             "acc(IH_excl) - acc(FV_excl), mean over the ablated shares", lambda v: v["IH_excl"] - v["FV_excl"], "positive",
             "yes (models > 1B)"),
            ("Ablating FV heads hurts accuracy more than ablating random heads",
             "acc(random) - acc(FV ablated), mean over the ablated shares", lambda v: v["random"] - v["FV"], "positive", "yes")]
    for claim, metric, fn, direction, ref in spec:
        v, lo, hi = paired_bootstrap(vals, fn)
        crow.append(claims.row(paper="Yin & Steinhardt", artifact=art, claim=f"{claim} ({mode} ablation)", model=m,
                               dataset="eval tasks", metric=metric, value=v, ci=(lo, hi), direction=direction,
                               paper_value=ref, n=len(wide), rule=job.rule))
    v, lo, hi = paired_bootstrap(vals, lambda v: v["random"] - v["IH_excl"])
    r = claims.row(paper="Yin & Steinhardt", artifact=art,
                   claim=f"With exclusion, ablating induction heads is about as harmful as random ({mode} ablation)",
                   model=m, dataset="eval tasks", metric="acc(random) - acc(IH_excl) (holds if CI within +-0.05)",
                   value=v, ci=(lo, hi), direction="positive", paper_value="~0 (models > 1B)", n=len(wide), rule=job.rule)
    r["holds"] = "yes" if (lo > -0.05 and hi < 0.05) else ("no" if (hi < -0.05 or lo > 0.05) else "unclear")
    crow.append(r)

wide = ab.pivot_table(index=["task", "query"], columns="condition", values="correct", aggfunc="mean")
vals = {c: wide[c].to_numpy() for c in wide.columns}
spec = [("Adding the function vector to shuffled-label prompts raises accuracy", "acc(shuffled + FV) - acc(shuffled)",
         lambda v: v["shuffled + FV"] - v["shuffled"], "recovers most of the clean accuracy"),
        ("The function vector helps shuffled-label prompts more than a random-heads vector",
         "acc(shuffled + FV) - acc(shuffled + random)", lambda v: v["shuffled + FV"] - v["shuffled + random"], "yes"),
        ("Adding the function vector to zero-shot prompts raises accuracy", "acc(zero-shot + FV) - acc(zero-shot)",
         lambda v: v["zero-shot + FV"] - v["zero-shot"], "yes (Todd et al.)")]
for claim, metric, fn, ref in spec:
    v, lo, hi = paired_bootstrap(vals, fn)
    crow.append(claims.row(paper="Yin & Steinhardt", artifact="Y7", claim=claim, model=m, dataset="eval tasks",
                           metric=metric, value=v, ci=(lo, hi), direction="positive", paper_value=ref, n=len(wide),
                           rule=job.rule))
clean, sh, shfv = (float(np.mean(vals[c])) for c in ("clean 10-shot", "shuffled", "shuffled + FV"))
v, lo, hi = paired_bootstrap(vals, lambda v: (v["shuffled + FV"] - v["shuffled"]) - 0.5 * (v["clean 10-shot"] - v["shuffled"]))
crow.append(claims.row(paper="Yin & Steinhardt", artifact="Y7", claim="The function vector recovers most (over half) of the clean accuracy lost by shuffling labels",
                       model=m, dataset="eval tasks", metric="gain from FV - half the shuffling loss", value=v, ci=(lo, hi),
                       direction="positive", paper_value="recovers most (all models but Pythia 2.8B)", n=len(wide), rule=job.rule))
write_csv(pd.DataFrame(crow, columns=claims.COLUMNS), smk.output.claims, prov)
