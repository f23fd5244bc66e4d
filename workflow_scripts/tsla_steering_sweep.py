"""Rule tsla_steering_sweep (T7 sweep): the TR, TL and norm-matched random task vectors of the
top tsla.top_percent% heads added to the zero-shot hidden state at N, over injection layers and
scales (the vector as it is, or rescaled to a share of the residual stream's RMS there)."""
from common import Job  # noqa: I001
import random

import pandas as pd

from icl_heads.config import job_seed, sweep_n
from icl_heads.interventions import steer
from icl_heads.io import load_tensors, write_csv
from icl_heads.model import evaluate
from icl_heads.prompts import read_prompt_set as read_prompts
from icl_heads.tsla import head_set_vector, top_heads
from icl_heads.counting import sweep_layers
from icl_heads.yin import resid_rms_at_final, rms, sweep_vector

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
w, cfg, sw = job.wildcards, job.cfg["tsla"], job.cfg["tsla"]["steer_sweep"]
scores = pd.read_csv(smk.input.scores)
head_out = load_tensors(smk.input.score_cache)[0]["head_out"]
prompts, payload = read_prompts(smk.input.zeroshot_prompts)
labels = payload["label_tokens"]
n_all = len(prompts)
prompts = prompts[:sweep_n(n_all, cfg["sweep_n_eval"])]   # a figure only: the first tsla.sweep_n_eval queries
model = job.load_model(attn="sdpa")
seed = job_seed(job.cfg, "tsla_steering_sweep", w["model"], w["dataset"])
bs = job.cfg["prompts"]["batch_size"]
pct = cfg["top_percent"]

layers = sweep_layers(model.n_layers, sw["layer_fractions"])
resid = resid_rms_at_final(model, prompts, batch_size=bs)
tr, tl = top_heads(scores, "tr", pct), top_heads(scores, "tl", pct)
vecs = {("TR vector", None): head_set_vector(head_out, tr), ("TL vector", None): head_set_vector(head_out, tl)}
pool = [(l, h) for l in range(model.n_layers) for h in range(model.n_heads)]
ref = vecs[("TR vector", None)]
for s in range(sw["random_seeds"]):
    r = head_set_vector(head_out, random.Random(f"{seed}/{s}").sample(pool, len(tr)))
    vecs[("random vector (norm-matched)", s)] = r * (ref.norm() / r.norm())   # the TR vector's norm
scales = ["raw"] + [float(a) for a in sw["relative_scales"]]
conds, meta = {"zero-shot": []}, {"zero-shot": {"vector": "none (zero-shot)", "random_seed": None, "layer": -1,
                                                "scale": "none", "vector_rms_over_resid_rms": 0.0}}
for (name, rseed), v in vecs.items():
    for l in layers:
        for a in scales:
            key = f"{name}|{rseed}|{l}|{a}"
            vv = sweep_vector(v, a, float(resid[l]))
            conds[key] = [steer(l, vv)]
            meta[key] = {"vector": name, "random_seed": rseed, "layer": l, "scale": a if a == "raw" else f"{a:g}",
                         "vector_rms_over_resid_rms": float(rms(vv) / resid[l])}
# every vector is added at N only: the earlier columns run once into a shared key/value prefix
runs = evaluate(model, prompts, labels, conds, share="both", batch_size=bs, progress=True, desc="T7 sweep")
rows = []
for key, res in runs.items():
    for p, c, t, pa in zip(prompts, res.correct.tolist(), res.in_set.tolist(), res.p_answer.tolist()):
        rows.append({"model": w["model"], "dataset": w["dataset"], **meta[key], "query": p.index, "correct": int(c),
                     "tr_ratio": t, "p_answer": pa})
df = pd.DataFrame(rows)
df["random_seed"] = df["random_seed"].astype("Int64")
df["top_percent"], df["n_heads"], df["n"], df["seed"] = pct, len(tr), len(prompts), seed
df["resid_rms"] = df["layer"].map(lambda l: float(resid[l]) if l >= 0 else float("nan"))
prov = job.provenance(seed=seed, model=job.model_record(),
                      choices={"vector": f"sum over the top {pct}% TR / TL heads (or as many random heads, rescaled to "
                                         "the TR vector's norm) of each head's mean output at N over the scoring ICL prompts",
                               "scale": "raw = the vector as it is (the paper); a number a = rescaled so that its RMS over "
                                        "d_model is a x the mean RMS of resid_pre of the injection layer at N over these "
                                        "zero-shot prompts (clean pass)",
                               "layers": f"round(f x L) for f in {sw['layer_fractions']}, added at N of zero-shot prompts",
                               "metrics": "accuracy (argmax = answer), TR ratio (argmax in the label set), p(answer), per query",
                               "queries": f"the first {len(prompts)} of the {n_all} held-out zero-shot queries (tsla.sweep_n_eval)"})
write_csv(df, smk.output[0], prov)
