"""Rule yin_summary (Y5, Y7, Y8 per model): ablation curves and add-back accuracies over the
evaluation tasks, and their claims rows (figures: rule plot_yin)."""
from common import Job  # noqa: I001
import pandas as pd

from icl_heads import claims
from icl_heads.io import write_csv

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
m = job.wildcards["model"]
df = pd.concat([pd.read_csv(p) for p in smk.input.per_task], ignore_index=True)
ab = pd.concat([pd.read_csv(p) for p in smk.input.addback], ignore_index=True)
# Tasks whose clean 10-shot accuracy is at floor (claims.floor_accuracy) are flagged in the
# tables and left out of the curves, the pooled claims and their verdicts (the reason recorded).
floor = job.cfg["claims"]["floor_accuracy"]
clean = df[df.ablation == "none"].groupby("task")["correct"]
at_floor = {t: claims.at_floor(c.to_numpy(), floor) for t, c in clean}
floor_tasks = sorted(t for t, f in at_floor.items() if f)
kept = sorted(t for t, f in at_floor.items() if not f)
note = (f"left out, clean accuracy at floor (<= claims.floor_accuracy {floor:g}): " + ", ".join(
    f"{t} {clean.get_group(t).mean():.3g}" for t in floor_tasks)) if floor_tasks else ""
pool = kept or floor_tasks   # every task at floor: the estimates are kept, the verdicts left out
job.log.info(note or "no evaluation task at floor")
ab_all = ab   # the Y7 table keeps every task, flagged; the claims pool the others
df = df[df.task.isin(pool)]
ab = ab[ab.task.isin(pool)]
prov = job.provenance()
extra = {"floor_tasks": floor_tasks, "tasks_pooled": pool}

# Curves: accuracy over every (task, query); the random family also per seed, then averaged.
keys = ["model", "ablation", "family", "percent"]
per_seed = df.groupby(keys + ["seed"], dropna=False, as_index=False).agg(accuracy=("correct", "mean"), n=("correct", "size"), k=("k", "first"))
curves = per_seed.groupby(keys, as_index=False).agg(accuracy=("accuracy", "mean"), seed_sd=("accuracy", "std"),
                                                     n_seeds=("accuracy", "size"), n=("n", "first"), k=("k", "first"))
curves["n_tasks"] = df.task.nunique()
curves["tasks_at_floor_left_out"] = ";".join(floor_tasks)
write_csv(curves, smk.output.curves, prov, extra)

# Y7: accuracy per (task, condition), random vectors averaged over seeds.
per_seed_ab = ab_all.groupby(["model", "task", "condition", "random_seed"], dropna=False, as_index=False).agg(
    accuracy=("correct", "mean"), n=("correct", "size"), layer=("layer", "first"), n_fv_heads=("n_fv_heads", "first"))
addback = per_seed_ab.groupby(["model", "task", "condition"], as_index=False).agg(
    accuracy=("accuracy", "mean"), seed_sd=("accuracy", "std"), n_seeds=("accuracy", "size"), n=("n", "first"),
    layer=("layer", "first"), n_fv_heads=("n_fv_heads", "first"))
addback["clean_at_floor"] = addback.task.map(at_floor).fillna(False).astype(bool)
write_csv(addback, smk.output.addback, prov, extra)

# Claims (S2, config/claims.yaml), paired over (task, query): each family's accuracy, and its
# log p(answer) where the per-task tables hold one, averaged over the ablated shares (and the
# random family over its seeds); Y7 per add-back condition, random vectors averaged over seeds.
VALUES = {"accuracy": "correct", "logp_answer": "logp_answer"}  # metric: column of the per-task tables
Y5 = ["Y5.fv_hurts_more_than_ih", "Y5.excl_fv_hurts_more_than_ih", "Y5.fv_hurts_more_than_random", "Y5.excl_ih_as_random"]
Y8 = ["Y8.fv_hurts_more_than_ih", "Y8.excl_fv_hurts_more_than_ih", "Y8.fv_hurts_more_than_random", "Y8.excl_ih_as_random"]
cl = claims.Claims(job.params["claims"], model=m, dataset="eval tasks", rule=job.rule, note=note,
                   excluded="every evaluation task's clean accuracy is at floor" if not kept else "")
for mode in sorted(set(df.ablation) - {"none"}):
    d = df[df.ablation == mode]
    cols = [c for c in VALUES.values() if c in d]
    wide = d.pivot_table(index=["task", "query"], columns=["family", "percent"], values=cols, aggfunc="mean")
    arrays = {k: {f: wide[c][f].mean(axis=1).to_numpy() for f in wide[c].columns.get_level_values(0).unique()}
              for k, c in VALUES.items() if c in cols}
    cl.judge(Y5 if mode == "mean" else Y8, arrays, qualifier=f"{mode} ablation")
cols = [c for c in VALUES.values() if c in ab]
wide = ab.pivot_table(index=["task", "query"], columns="condition", values=cols, aggfunc="mean")
arrays = {k: {cond: wide[c][cond].to_numpy() for cond in wide[c].columns} for k, c in VALUES.items() if c in cols}
cl.judge(["Y7.fv_raises_shuffled", "Y7.fv_beats_random_on_shuffled", "Y7.fv_raises_zero_shot", "Y7.fv_recovers_half"],
         arrays)
write_csv(cl.table(), smk.output.claims, prov, extra)
