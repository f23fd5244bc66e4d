"""Rule ltv_mechanism (L3, L4, F5 data) on the baseline LTV of one dataset: OV-circuit and
MLP-path reconstructions, head saliency, ablation of the key heads vs random heads, and the
attention-sink share of key heads."""
from common import Job  # noqa: I001

import numpy as np
import pandas as pd
import torch

from icl_heads import claims, ltv
from icl_heads.config import job_seed
from icl_heads.model import ABLATION_NORM_TEXT, HeadAblation, evaluate_one, left_pad
from icl_heads.interventions import random_heads
from icl_heads.io import write_csv
from icl_heads.scores import top_set
from icl_heads.stats import paired_bootstrap
from ltv_common import acc_row, ltv_cfg, read_vectors, task_and_queries

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
w, cfg = job.wildcards, ltv_cfg(job)
model = job.load_model()  # attention weights for the sink share
task, sets, labels = task_and_queries(job, model, w["dataset"], icl=False)
seed = job_seed(job.config, "ltv_mechanism", w["model"], w["dataset"])
bs = cfg["batch_size"]
site, theta = read_vectors(smk.input.vectors)["baseline"]
layer = site.layers[0]
th = theta[0, 0]
ev = sets["eval_zs"]
base = {"model": w["model"], "dataset": w["dataset"], "layer": layer, "seed": seed}

# L3
# Both readings of the packed OV sum are evaluated; ltv.ov_attention names the one the claims use.
terms = ltv.ov_terms(model, th, layer, per_head=True)
ov = {a: evaluate_one(model, ev, labels, [ltv.ov_reconstruction(terms, layer, a)], batch_size=bs)
      for a in ltv.OV_ATTENTION}
OV_NAME = {"one": "OV reconstruction (c_NN = 1)", "actual": "OV reconstruction (c_NN of the pass)"}
inj = ltv.Injection(site, theta)
runs = {"full LTV": evaluate_one(model, ev, labels, [inj], batch_size=bs),
        "OV reconstruction": ov[cfg["ov_attention"]],
        **{OV_NAME[a]: r for a, r in ov.items()},
        "MLP path only": evaluate_one(model, ev, labels, ltv.mlp_path(model, th, layer), batch_size=bs),
        "zero-shot": evaluate_one(model, ev, labels, [], batch_size=bs)}
rows = [acc_row({**base, "artifact": "L3", "condition": k}, r.correct) for k, r in runs.items()]

# L4: saliency on the training queries selects the key heads; ablations run on the evaluation queries
sal = ltv.head_saliency(model, sets["train_zs"], site, theta, batch_size=bs).mean(0)
key = top_set(sal.double(), cfg["key_head_percent"])
k = len(key)
abl = {"LTV, key heads ablated": evaluate_one(model, ev, labels, [inj, HeadAblation(sorted(key), norm=job.params["ablation_norm"])], batch_size=bs)}
rand = []
for i in range(cfg["random_seeds"]):
    hs = random_heads(model.n_layers, model.n_heads, k, seed + i)
    rand.append(evaluate_one(model, ev, labels, [inj, HeadAblation(hs, norm=job.params["ablation_norm"])], batch_size=bs))
    rows.append(acc_row({**base, "artifact": "L4", "condition": "LTV, random heads ablated", "random_seed": seed + i},
                        rand[-1].correct))
rows.append(acc_row({**base, "artifact": "L4", "condition": "LTV, key heads ablated"}, abl["LTV, key heads ablated"].correct))
rows.append(acc_row({**base, "artifact": "L4", "condition": "full LTV"}, runs["full LTV"].correct))
for r in rows:
    r["n_heads_ablated"] = k if r["artifact"] == "L4" and "ablated" in r["condition"] else 0

# attention-sink share: attention from N to the first real token, with LTV applied
sink = torch.zeros(model.n_layers, model.n_heads)
for s in range(0, len(ev), bs):
    ps = ev[s:s + bs]
    b = left_pad([p.input_ids for p in ps], model.pad_id)
    att = model.run(b, want=("attn",), ivs=ltv.injection(model, site, theta, b)).attn  # [B, L, H, T]
    first = att[torch.arange(len(ps)), :, :, b.offsets]  # [B, L, H]
    sink += first.sum(0)
sink /= len(ev)
heads = pd.DataFrame([{"model": w["model"], "dataset": w["dataset"], "layer": l, "head": h, "saliency": float(sal[l, h]),
                       "is_key": (l, h) in key, "attn_sink": float(sink[l, h])}
                      for l in range(model.n_layers) for h in range(model.n_heads)])
heads["n"], heads["seed"] = len(sets["train_zs"]), seed

prov = job.provenance(seed=seed, model=job.model_record(), data=task.provenance(),
                      choices={"post_attention_norm": ABLATION_NORM_TEXT[job.params["ablation_norm"]], "ov_reconstruction": "theta removed; at N of every layer l' >= l the attention output gains "
                                                    "sum_k c_k W_O^k W_V^k (g * theta) / rms(resid_pre^{l'}[N]) (g: input-norm gain); "
                                                    "c_k = 1 (the paper's packed sum) in the row 'OV reconstruction (c_NN = 1)', "
                                                    "c_k = the head's attention of N on itself in the pass in '... (c_NN of the pass)'; "
                                                    f"the row 'OV reconstruction' and the claims use ltv.ov_attention={cfg['ov_attention']!r}",
                               "mlp_path": "theta added at N to the input of every MLP (its pre-norm) of layers >= l only",
                               "saliency": "|z . dp/dz| = |a . dp/da| at N with LTV applied, p = prob. of the answer token, "
                                           "mean over the training queries",
                               "ablation": "key heads = top ltv.key_head_percent% by saliency, z zeroed at every position",
                               "attn_sink": "attention from N to the first real token (BOS), mean over evaluation queries"},
                      config_keys=["ltv.ov_attention", "ltv.key_head_percent", "ltv.random_seeds", "ltv.n_eval", "interventions.post_attention_norm"])
table = pd.DataFrame(rows)
table["random_seed"] = table["random_seed"].astype("Int64")
write_csv(table, smk.output.table, prov)
write_csv(heads, smk.output.heads, prov)

vals = {"ltv": runs["full LTV"].correct.numpy(), "ov": runs["OV reconstruction"].correct.numpy(),
        "mlp": runs["MLP path only"].correct.numpy(), "zs": runs["zero-shot"].correct.numpy(),
        "key": abl["LTV, key heads ablated"].correct.numpy(), "rnd": torch.stack([r.correct for r in rand]).mean(0).numpy()}
specs = [("L3", "The OV-circuit reconstruction alone recovers accuracy above zero-shot", "acc(OV reconstruction) - acc(zero-shot)",
          lambda m: m["ov"] - m["zs"], "positive", "52% vs 0%"),
         ("L3", "The OV path carries more than the MLP path", "acc(OV reconstruction) - acc(MLP path)",
          lambda m: m["ov"] - m["mlp"], "positive", "52% vs small"),
         ("L4", "Ablating the key heads hurts LTV more than ablating random heads",
          "acc(random heads ablated) - acc(key heads ablated)", lambda m: m["rnd"] - m["key"], "positive", "78% vs 51%")]
crow = []
for art, claim, metric, fn, direction, ref in specs:
    v, lo, hi = paired_bootstrap(vals, fn, seed=seed % 2**31)
    crow.append(claims.row(paper="LTV", artifact=art, claim=claim, model=w["model"], dataset=w["dataset"], metric=metric,
                           value=v, ci=(lo, hi), direction=direction, paper_value=ref, n=len(ev), seed=seed, rule=job.rule))
kh, other = heads[heads.is_key], heads[~heads.is_key]
d = float(other.attn_sink.mean() - kh.attn_sink.mean())
boot = np.random.default_rng(seed % 2**31)
bs_d = [boot.choice(other.attn_sink.to_numpy(), len(other)).mean() - boot.choice(kh.attn_sink.to_numpy(), len(kh)).mean()
        for _ in range(1000)]
crow.append(claims.row(paper="LTV", artifact="F5", claim="Key heads put less attention on the sink (first token) than other heads",
                       model=w["model"], dataset=w["dataset"], metric="mean sink attention(other heads) - (key heads)", value=d,
                       ci=(float(np.quantile(bs_d, 0.025)), float(np.quantile(bs_d, 0.975))), direction="positive",
                       paper_value="key heads less sink-bound", n=len(heads), seed=seed, rule=job.rule))
write_csv(pd.DataFrame(crow, columns=claims.COLUMNS), smk.output.claims, prov)
