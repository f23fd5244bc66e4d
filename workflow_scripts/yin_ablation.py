"""Rule yin_ablation (Y5, Y8; one evaluation task): 10-shot accuracy with the top k% induction,
FV, exclusion and random heads ablated (mean, zero and random-replacement ablation)."""
from common import Job  # noqa: I001

import pandas as pd

from icl_heads.config import job_seed
from icl_heads.interventions import mean_z
from icl_heads.model import ABLATION_NORM_TEXT, evaluate
from icl_heads.io import write_csv
from icl_heads.prompts import build_prompts
from icl_heads.tsla import score_matrix
from icl_heads.yin import ablation_for, condition_name, head_sets, token_z_sample

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
w, cfg = job.wildcards, job.cfg["fv"]
acfg = cfg["ablation"]
model = job.load_model(attn="sdpa")
task = job.load_task(w["dataset"])
seed = job_seed(job.cfg, "yin_ablation", w["model"], w["dataset"])
prompts = build_prompts(task, model.tokenizer, n_shot=cfg["n_shot"], n_queries=cfg["n_eval"], seed=seed, balanced=False)
heads = pd.read_csv(smk.input.heads)
sets = head_sets(score_matrix(heads, "induction"), score_matrix(heads, "fv"), acfg["percents"],
                 range(acfg["random_seeds"]), exclude_percent=cfg["top_percent"], seed_base=seed)
bs = job.cfg["prompts"]["batch_size"]
# The task mean of every head's z over every token of the task's prompts (mean ablation), and
# one random token's z per replaced condition (random-replacement ablation).
means = mean_z(model, prompts, batch_size=bs) if "mean" in acfg["modes"] else None
repl = (token_z_sample(model, [p.input_ids for p in prompts], len(sets), seed=seed, batch_size=bs)
        if "replace" in acfg["modes"] else None)
conds, meta = {"clean": []}, {"clean": {"ablation": "none", "family": "clean", "percent": 0.0, "seed": None, "k": 0}}
for mode in acfg["modes"]:
    for i, s in enumerate(sets):
        name = condition_name(mode, s)
        conds[name] = [ablation_for(s["heads"], mode, means, repl[i] if repl is not None else None,
                                    norm=job.cfg["interventions"]["post_attention_norm"])]
        meta[name] = {"ablation": mode, "family": s["family"], "percent": float(s["percent"]), "seed": s["seed"],
                      "k": s["k"], "heads": ";".join(f"{l}.{h}" for l, h in s["heads"])}
answers = sorted({p.answer_token for p in prompts})
runs = evaluate(model, prompts, answers, conds, share="layers", batch_size=bs, progress=True, desc=f"Y5 {w['dataset']}")
rows = []
for name, res in runs.items():
    for q, (p, c, lp) in enumerate(zip(prompts, res.correct.tolist(), res.logp_answer.tolist())):
        rows.append({"model": w["model"], "task": w["dataset"], "condition": name, **meta[name], "query": p.index,
                     "correct": int(c), "logp_answer": lp})
df = pd.DataFrame(rows)
df["seed"] = df["seed"].astype("Int64")
df["n"] = len(prompts)
df["job_seed"] = seed
prov = job.provenance(seed=seed, model=job.model_record(), data=task.provenance(),
                      choices={"post_attention_norm": ABLATION_NORM_TEXT[job.cfg["interventions"]["post_attention_norm"]], "accuracy": "argmax of the full vocabulary at N equals the answer's first token",
                               "mean": "head z := its mean z over every real token of this task's 10-shot prompts, at every position",
                               "zero": "head z := 0 at every position",
                               "replace": "head z := its z at one (prompt, token) drawn at random from this task's prompts, "
                                          "one draw per condition, at every position",
                               "exclusion": f"IH_excl: top k by induction outside the top {cfg['top_percent']}% FV set; "
                                            "FV_excl: vice versa"})
write_csv(df, smk.output[0], prov)
