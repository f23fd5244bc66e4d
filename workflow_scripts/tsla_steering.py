"""Rule tsla_steering (T7, F3 steering half): the mean output of the top TR / TL / random
heads over ICL prompts, added to the zero-shot hidden state at N at an intermediate layer."""
from common import Job  # noqa: I001

import pandas as pd

from common_tsla import metric_rows
from icl_heads.prompts import read_prompt_set as read_prompts
from icl_heads import claims
from icl_heads.cache import accuracy_and_tr_ratio
from icl_heads.config import job_seed
from icl_heads.interventions import random_heads, steer
from icl_heads.model import Eval, evaluate
from icl_heads.io import load_tensors, write_csv
from icl_heads.tsla import head_set_vector, top_heads

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
w, cfg = job.wildcards, job.cfg["tsla"]
scores = pd.read_csv(smk.input.scores)
score_cache, _ = load_tensors(smk.input.score_cache)
head_out = score_cache["head_out"]
prompts, payload = read_prompts(smk.input.zeroshot_prompts)
labels = payload["label_tokens"]
model = job.load_model(attn="sdpa")
layer = cfg["steer_layer"] if cfg["steer_layer"] >= 0 else model.n_layers // 2
if layer >= model.n_layers:
    raise SystemExit(f"tsla.steer_layer={layer} but {w['model']} has {model.n_layers} layers")
seed = job_seed(job.cfg, "tsla_steering", w["model"], w["dataset"])
bs = job.cfg["prompts"]["batch_size"]

icl, _ = load_tensors(smk.input.icl_cache)
icl_acc, icl_tr = accuracy_and_tr_ratio(icl["argmax"], icl["answer_token"], icl["label_tokens"])
conds = {("zero-shot", 0.0): []}
for pct in cfg["threshold_sweep"]:
    sets = {"TR vector": top_heads(scores, "tr", pct), "TL vector": top_heads(scores, "tl", pct)}
    for i in range(cfg["random_seeds"] if pct == cfg["top_percent"] else cfg["sweep_random_seeds"]):
        sets[f"random vector#{i}"] = random_heads(model.n_layers, model.n_heads, len(sets["TR vector"]), seed + i)
    for name, heads in sets.items():
        conds[(name, float(pct))] = [steer(layer, head_set_vector(head_out, heads))]
runs = {("ICL", 0.0): Eval(icl_acc, icl_tr, icl["argmax"], None)}
runs.update(evaluate(model, prompts, labels, conds, share="both", batch_size=bs, progress=True, desc="T7 conditions"))
rows = []
for (name, pct), res in runs.items():
    cond, rseed = (name.split("#")[0], seed + int(name.split("#")[1])) if "#" in name else (name, None)
    rows += metric_rows({"model": w["model"], "dataset": w["dataset"], "condition": cond, "top_percent": pct,
                         "layer": layer if pct else None, "random_seed": rseed}, res)
prov = job.provenance(seed=seed, model=job.model_record(),
                      choices={"vector": "sum over the head set of each head's mean output at N over the scoring ICL prompts",
                               "injection": f"added to resid_pre of layer {layer} at N of zero-shot prompts"})
table = pd.DataFrame(rows)
table["random_seed"] = table["random_seed"].astype("Int64")
write_csv(table, smk.output.table, prov)

# Claims (S2) at the main threshold, per query (config/claims.yaml; random vectors: mean over seeds).
main = float(cfg["top_percent"])
rnd = [r for (n_, p), r in runs.items() if n_.startswith("random") and p == main]
arrays = claims.eval_arrays({"zs": runs[("zero-shot", 0.0)], "tr": runs[("TR vector", main)],
                             "tl": runs[("TL vector", main)], "rnd": rnd})
cl = claims.Claims(job.params["claims"], model=w["model"], dataset=w["dataset"], rule=job.rule, seed=seed)
cl.judge(["T7.tr_vector_raises_accuracy", "T7.tr_vector_beats_tl_vector", "T7.tr_vector_beats_random_vector",
          "T7.tr_vector_raises_tr_ratio", "T7.tr_vector_tr_ratio_beats_tl_vector"], arrays)
write_csv(cl.table(), smk.output.claims, prov)
