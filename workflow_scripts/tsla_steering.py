"""Rule tsla_steering (T7, F3 steering half): the mean output of the top TR / TL / random
heads over ICL prompts, added to the zero-shot hidden state at N at an intermediate layer."""
from common import Job  # noqa: I001

import pandas as pd
import torch

from common_tsla import metric_rows
from icl_heads.prompts import read_prompt_set as read_prompts
from icl_heads import claims
from icl_heads.cache import accuracy_and_tr_ratio
from icl_heads.config import job_seed
from icl_heads.interventions import random_heads, steer
from icl_heads.model import Eval, evaluate
from icl_heads.io import load_tensors, write_csv
from icl_heads.stats import paired_bootstrap
from icl_heads.tsla import head_set_vector, top_heads

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
w, cfg = job.wildcards, job.config["tsla"]
scores = pd.read_csv(smk.input.scores)
score_cache, _ = load_tensors(smk.input.score_cache)
head_out = score_cache["head_out"]
prompts, payload = read_prompts(smk.input.zeroshot_prompts)
labels = payload["label_tokens"]
model = job.load_model(attn="sdpa")
layer = cfg["steer_layer"] if cfg["steer_layer"] >= 0 else model.n_layers // 2
if layer >= model.n_layers:
    raise SystemExit(f"tsla.steer_layer={layer} but {w['model']} has {model.n_layers} layers")
seed = job_seed(job.config, "tsla_steering", w["model"], w["dataset"])
bs = job.config["prompts"]["batch_size"]

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
runs.update(evaluate(model, prompts, labels, conds, share="layers", batch_size=bs, progress=True, desc="T7 conditions"))
rows = []
for (name, pct), res in runs.items():
    cond, rseed = (name.split("#")[0], seed + int(name.split("#")[1])) if "#" in name else (name, None)
    rows += metric_rows({"model": w["model"], "dataset": w["dataset"], "condition": cond, "top_percent": pct,
                         "layer": layer if pct else None, "random_seed": rseed}, res)
prov = job.provenance(seed=seed, model=job.model_record(),
                      choices={"vector": "sum over the head set of each head's mean output at N over the scoring ICL prompts",
                               "injection": f"added to resid_pre of layer {layer} at N of zero-shot prompts"},
                      config_keys=["tsla.top_percent", "tsla.threshold_sweep", "tsla.random_seeds", "tsla.sweep_random_seeds", "tsla.steer_layer"])
table = pd.DataFrame(rows)
table["random_seed"] = table["random_seed"].astype("Int64")
write_csv(table, smk.output.table, prov)

main = cfg["top_percent"]
main = float(main)
rnd = [r for (n_, p), r in runs.items() if n_.startswith("random") and p == main]
vals = {"zs": runs[("zero-shot", 0.0)].correct, "tr": runs[("TR vector", main)].correct,
        "tl": runs[("TL vector", main)].correct, "rnd": torch.stack([r.correct for r in rnd]).mean(0)}
vals = {k: v.numpy() for k, v in vals.items()}
crow = []
for claim, metric, fn, direction, ref in [
    ("TR-head task vectors raise zero-shot accuracy", "acc(TR vector) - acc(zero-shot)",
     lambda m: m["tr"] - m["zs"], "positive", "9.2% -> 40.4%"),
    ("TR-head task vectors help more than TL-head vectors", "acc(TR vector) - acc(TL vector)",
     lambda m: m["tr"] - m["tl"], "positive", "40.4% vs 11.2%"),
    ("TR-head task vectors help more than random-head vectors", "acc(TR vector) - acc(random vector)",
     lambda m: m["tr"] - m["rnd"], "positive", "40.4% vs 9.5%"),
]:
    v, lo, hi = paired_bootstrap(vals, fn, seed=seed % 2**31)
    crow.append(claims.row(artifact="T7", claim=claim, model=w["model"], dataset=w["dataset"], metric=metric, value=v,
                           ci=(lo, hi), direction=direction, paper_value=ref, n=len(prompts), seed=seed, rule=job.rule))
write_csv(pd.DataFrame(crow, columns=claims.COLUMNS), smk.output.claims, prov)
