"""Rule tsla_ablation (T5, F3 ablation half): accuracy and TR ratio on held-out queries with
the top TR / TL / IH / DLA-TL / random heads ablated at every position."""
from common import Job  # noqa: I001

import pandas as pd

from common_tsla import metric_rows
from icl_heads.prompts import read_prompt_set as read_prompts
from icl_heads import claims
from icl_heads.config import job_seed, sweep_n
from icl_heads.interventions import ablation, mean_z, random_heads
from icl_heads.model import ABLATION_NORM_TEXT, evaluate
from icl_heads.io import save_tensors, write_csv
from icl_heads.tsla import top_heads

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
w, cfg = job.wildcards, job.cfg["tsla"]
scores = pd.read_csv(smk.input.scores)
prompts, payload = read_prompts(smk.input.prompts)
n_held_out = len(prompts)
prompts = prompts[:sweep_n(n_held_out, cfg["ablation_n_eval"])]   # T5 and T6: the first tsla.ablation_n_eval
labels = payload["label_tokens"]
model = job.load_model(attn="sdpa")  # logits only: the fused attention kernel
mode = cfg["ablation"]
means = mean_z(model, read_prompts(smk.input.score_prompts)[0]) if mode == "mean" else None
bs = job.cfg["prompts"]["batch_size"]
seed = job_seed(job.cfg, "tsla_ablation", w["model"], w["dataset"])
L, H = model.n_layers, model.n_heads

# The conditions no claim reads run on fewer of the same queries, in the one call with the rest
# (each range of queries shares one clean pass): the other thresholds (F3 only) on the first
# tsla.sweep_n_eval, w/o IH and w/o DLA-TL at top_percent (T5's table only) on the first
# tsla.table_n_eval; null: all of them.
n_sweep = sweep_n(len(prompts), cfg["sweep_n_eval"])
n_table = sweep_n(len(prompts), cfg["table_n_eval"])
TABLE_ONLY = ("w/o IH", "w/o DLA-TL")
conds, limits = {("ICL baseline", 0.0, -1): []}, {}
for pct in cfg["threshold_sweep"]:
    sets = {"w/o TR": top_heads(scores, "tr", pct), "w/o TL": top_heads(scores, "tl", pct)}
    if pct == cfg["top_percent"]:
        sets["w/o IH"] = top_heads(scores, "induction", pct)
        sets["w/o DLA-TL"] = top_heads(scores, "dla_tl", pct)
    k = len(sets["w/o TR"])
    for i in range(cfg["random_seeds"] if pct == cfg["top_percent"] else cfg["sweep_random_seeds"]):
        sets[f"w/o random#{i}"] = random_heads(L, H, k, seed + i)
    for name, heads in sets.items():
        key = (name, float(pct), len(heads))
        conds[key] = [ablation(heads, mode, means, norm=job.cfg["interventions"]["post_attention_norm"])]
        if pct != cfg["top_percent"]:
            limits[key] = n_sweep
        elif name in TABLE_ONLY:
            limits[key] = n_table
# One clean pass per batch feeds every condition (blocks before the first ablated head are replayed).
runs = evaluate(model, prompts, labels, conds, share="layers", batch_size=bs, progress=True, desc="T5 conditions",
                limits=limits)

rows = []
for (name, pct, k), res in runs.items():
    cond, rseed = (name.split("#")[0], seed + int(name.split("#")[1])) if "#" in name else (name, None)
    rows += metric_rows({"model": w["model"], "dataset": w["dataset"], "condition": cond, "top_percent": pct,
                         "n_heads_ablated": max(k, 0), "random_seed": rseed, "ablation": mode}, res)
df = pd.DataFrame(rows)
# The random condition's mean and spread over seeds, one row per (threshold, metric).
rnd = df[df.condition == "w/o random"]
summary = (rnd.groupby(["model", "dataset", "top_percent", "n_heads_ablated", "ablation", "metric"], as_index=False)
           .agg(value=("value", "mean"), seed_sd=("value", "std"), seed_min=("value", "min"), seed_max=("value", "max"),
                n_seeds=("value", "size"), n=("n", "first")))
summary["condition"] = "w/o random (mean over seeds)"
df = pd.concat([df, summary], ignore_index=True)
df["random_seed"] = df["random_seed"].astype("Int64")
df["seed"] = seed
# A dataset whose clean n-shot accuracy is at floor is flagged, and its claims rows are left out.
base_correct = runs[("ICL baseline", 0.0, -1)].correct.numpy()
floor = job.cfg["claims"]["floor_accuracy"]
df["clean_at_floor"] = claims.at_floor(base_correct, floor)
excluded = claims.floor_text(float(base_correct.mean()), floor) if df["clean_at_floor"].iloc[0] else ""
prov = job.provenance(seed=seed, model=job.model_record(),
                      choices={"post_attention_norm": ABLATION_NORM_TEXT[job.cfg["interventions"]["post_attention_norm"]], "ablation": f"{mode} ablation of z at every position", "eval_queries": f"held-out (prompt set eval): the first {len(prompts)} of {n_held_out} (tsla.ablation_n_eval) at top_percent {cfg['top_percent']}, of them the first {n_table} for {' and '.join(TABLE_ONLY)} (no claim; tsla.table_n_eval), the first {n_sweep} at the other thresholds (tsla.sweep_n_eval; column n)",
                               "random_heads": "uniform over all heads, one draw per seed"})
write_csv(df, smk.output.table, prov)

# Claims (S2) at the main threshold, from the per-query results of each compared condition
# (config/claims.yaml names the contrasts, metrics and tests; random heads: mean over seeds).
main = cfg["top_percent"]
get = {name: res for (name, pct, _), res in runs.items() if pct in (0.0, main)}
rand = [r for (n_, p, _), r in runs.items() if n_.startswith("w/o random") and p == main]
arrays = claims.eval_arrays({"base": get["ICL baseline"], "tr": get["w/o TR"], "tl": get["w/o TL"], "rnd": rand})
cl = claims.Claims(job.params["claims"], model=w["model"], dataset=w["dataset"], rule=job.rule, seed=seed, excluded=excluded)
cl.judge(["T5.tr_ablation_lowers_tr_ratio", "T5.tl_ablation_hits_accuracy_not_tr_ratio", "T5.tr_ablation_beats_random",
          "T5.tl_ablation_beats_random", "T5.random_ablation_harmless"], arrays)
write_csv(cl.table(), smk.output.claims, prov)
save_tensors({f"{n_}|{p}|{field}": getattr(r, field) for (n_, p, _), r in runs.items()
              for field in ("correct", "in_set", "logp_answer", "logp_label_set")}, smk.output.per_query, prov)
