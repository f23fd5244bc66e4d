"""Rule yin_addback (Y7; one evaluation task): the task's function vector (sum of the top FV
heads' mean outputs) added at layer L/3 of shuffled-label and zero-shot prompts, against
clean 10-shot accuracy and a vector of as many random heads; and the sweep over injection layer
and scale (relative to the residual stream's RMS there) of the FV of the top-% heads, of the top
`fv.addback_sweep.n_heads` heads (Todd et al.'s fixed 10), and of norm-matched random heads."""
from common import Job  # noqa: I001
import random

import pandas as pd

from icl_heads.config import addback_n_eval, job_seed, sweep_n
from icl_heads.model import evaluate
from icl_heads.io import write_csv
from icl_heads.prompts import build_prompts
from icl_heads.counting import sweep_layers
from icl_heads.tsla import top_heads
from icl_heads.yin import (add_back, function_vector, mean_head_outputs, ranked, resid_rms_at_final, rms,
                           sweep_vector)
from icl_heads.tsla import score_matrix

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
w, cfg = job.wildcards, job.cfg["fv"]
model = job.load_model(attn="sdpa")
task = job.load_task(w["dataset"])
seed = job_seed(job.cfg, "yin_addback", w["model"], w["dataset"])
bs = job.cfg["prompts"]["batch_size"]
kw = dict(n_queries=addback_n_eval(cfg), seed=seed, balanced=False)
sets = {"clean 10-shot": build_prompts(task, model.tokenizer, n_shot=cfg["n_shot"], **kw),
        "shuffled": build_prompts(task, model.tokenizer, n_shot=cfg["n_shot"], perturbation="shuffle_labels", **kw),
        "zero-shot": build_prompts(task, model.tokenizer, n_shot=0, **kw)}
# Mean head outputs over clean prompts whose queries come from the training split (not evaluated).
ref = build_prompts(task, model.tokenizer, n_shot=cfg["n_shot"], query_split="train", n_queries=cfg["n_prompts"],
                    seed=seed + 1, balanced=False)
means = mean_head_outputs(model, ref, batch_size=bs)
heads = pd.read_csv(smk.input.heads)
fv_heads = top_heads(heads, "fv", cfg["top_percent"])
layer = cfg["addback_layer"] if cfg["addback_layer"] >= 0 else model.n_layers // 3
pool = [(l, h) for l in range(model.n_layers) for h in range(model.n_heads)]
vectors = {"FV": function_vector(means, fv_heads)}
for s in range(cfg["ablation"]["random_seeds"]):
    vectors[f"random#{s}"] = function_vector(means, random.Random(f"{seed}/{s}").sample(pool, len(fv_heads)))
rows = []
for base in ("clean 10-shot", "shuffled", "zero-shot"):
    prompts = sets[base]
    conds = {base: []}
    if base != "clean 10-shot":
        conds.update({f"{base} + {name}": [add_back(layer, v)] for name, v in vectors.items()})
    answers = sorted({p.answer_token for p in prompts})
    runs = evaluate(model, prompts, answers, conds, share="both", batch_size=bs, progress=True, desc=f"Y7 {base}")
    for name, res in runs.items():
        cond, rseed = (name.split("#")[0], int(name.split("#")[1])) if "#" in name else (name, None)
        for p, c, lp in zip(prompts, res.correct.tolist(), res.logp_answer.tolist()):
            rows.append({"model": w["model"], "task": w["dataset"], "condition": cond, "random_seed": rseed,
                         "query": p.index, "correct": int(c), "logp_answer": lp})
df = pd.DataFrame(rows)
df["random_seed"] = df["random_seed"].astype("Int64")
df["layer"], df["n_fv_heads"], df["n"], df["seed"] = layer, len(fv_heads), len(sets["shuffled"]), seed
prov = job.provenance(seed=seed, model=job.model_record(), data=task.provenance(),
                      choices={"vector": f"sum over the top {cfg['top_percent']}% FV heads of their mean output at N "
                                         f"(residual space) over {len(ref)} clean {cfg['n_shot']}-shot prompts with training-split queries",
                               "injection": f"added to the input of block {layer} (L/3 unless fv.addback_layer) at the final position",
                               "random": "as many heads drawn uniformly, one draw per seed"})
write_csv(df, smk.output.table, prov)

# The sweep (shuffled-label prompts): every (vector, layer, scale). Vectors: the FV of the top-%
# heads (as above), the FV of the top n heads by FV score, and for each a norm-matched control of
# as many random heads (rescaled to the FV's norm for "raw"; at a relative scale every vector has
# the same RMS anyway).
sw = job.cfg["fv"]["addback_sweep"]
base = sets["shuffled"][:sweep_n(len(sets["shuffled"]), sw["n_eval"])]   # a figure only: the first fv.addback_sweep.n_eval
layers = sweep_layers(model.n_layers, sw["layer_fractions"])
resid = resid_rms_at_final(model, base, batch_size=bs)
top_n = ranked(score_matrix(heads, "fv"))[: sw["n_heads"]]
variants = {f"FV top {cfg['top_percent']:g}%": fv_heads, f"FV top {len(top_n)} heads": top_n}
vecs = {}
for name, hs in variants.items():
    fv = function_vector(means, hs)
    vecs[(name, "FV", None, len(hs))] = fv
    for s in range(cfg["ablation"]["random_seeds"]):
        r = function_vector(means, random.Random(f"{seed}/sweep/{name}/{s}").sample(pool, len(hs)))
        vecs[(name, "random (norm-matched)", s, len(hs))] = r * (fv.norm() / r.norm())
scales = ["raw"] + [float(a) for a in sw["relative_scales"]]
conds, meta = {"shuffled": []}, {"shuffled": {}}
for (name, kind, rseed, k), v in vecs.items():
    for l in layers:
        for a in scales:
            key = f"{name}|{kind}|{rseed}|{l}|{a}"
            vv = sweep_vector(v, a, float(resid[l]))
            conds[key] = [add_back(l, vv)]
            meta[key] = {"heads": name, "vector": kind, "random_seed": rseed, "n_heads": k, "layer": l,
                         "scale": a if a == "raw" else f"{a:g}", "vector_rms_over_resid_rms": float(rms(vv) / resid[l])}
answers = sorted({p.answer_token for p in base})
# every vector is added at N only: the columns before N run once into a key/value prefix that
# every condition continues (exact by causality; tests/test_conformance.py check 6)
runs = evaluate(model, base, answers, conds, share="both", batch_size=bs, progress=True, desc="Y7 sweep")
srows = []
for key, res in runs.items():
    m = meta[key] or {"heads": "none", "vector": "none (shuffled)", "random_seed": None, "n_heads": 0, "layer": -1,
                      "scale": "none", "vector_rms_over_resid_rms": 0.0}
    for p, c, pa in zip(base, res.correct.tolist(), res.p_answer.tolist()):
        srows.append({"model": w["model"], "task": w["dataset"], **m, "query": p.index, "correct": int(c), "p_answer": pa})
sweep = pd.DataFrame(srows)
sweep["random_seed"] = sweep["random_seed"].astype("Int64")
sweep["n"], sweep["seed"] = len(base), seed
sweep["resid_rms"] = sweep["layer"].map(lambda l: float(resid[l]) if l >= 0 else float("nan"))
sprov = job.provenance(seed=seed, model=job.model_record(), data=task.provenance(),
                       choices={"prompts": f"the first {len(base)} of the {len(sets['shuffled'])} shuffled-label {cfg['n_shot']}-shot prompts of the Y7 table (fv.addback_sweep.n_eval)",
                                "vectors": f"FV of the top {cfg['top_percent']}% FV heads and of the top {sw['n_heads']} "
                                           "heads by FV score (sum of their mean outputs at N, residual space); random: as "
                                           "many uniformly drawn heads, rescaled to the FV's norm",
                                "scale": "raw = the vector as it is (the papers); a number a = rescaled so that its RMS over "
                                         "d_model is a x the mean RMS of resid_pre of the injection layer at N over these "
                                         "prompts (clean pass)",
                                "layers": f"round(f x L) for f in {sw['layer_fractions']}, added at the final position"})
write_csv(sweep, smk.output.sweep, sprov)
