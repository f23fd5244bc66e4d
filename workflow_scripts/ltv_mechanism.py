"""Rule ltv_mechanism (L3, L4, F5 data) on the baseline LTV of one dataset: L3 = full LTV vs
the packed OV vector theta_OV injected once in place of theta vs a norm-matched random direction
vs the MLP path vs zero-shot (plus two labelled path-patching OV controls); head saliency,
ablation of the key heads vs random heads, and the attention-sink share of key heads."""
from common import Job  # noqa: I001

import pandas as pd
import torch

from icl_heads import claims, ltv
from icl_heads.config import job_seed
from icl_heads.model import ABLATION_NORM_TEXT, HeadAblation, evaluate_one, left_pad
from icl_heads.interventions import random_heads
from icl_heads.io import write_csv
from icl_heads.scores import top_set
from ltv_common import acc_row, ltv_cfg, read_vectors, task_and_queries

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
w, cfg = job.wildcards, ltv_cfg(job)
model = job.load_model()  # attention weights for the sink share
task, sets, labels = task_and_queries(job, model, w["dataset"], icl=False)
seed = job_seed(job.cfg, "ltv_mechanism", w["model"], w["dataset"])
bs = cfg["batch_size"]
site, theta = read_vectors(smk.input.vectors)["baseline"]
layer = site.layers[0]
th = theta[0, 0]
ev = sets["eval_zs"]
base = {"model": w["model"], "dataset": w["dataset"], "layer": layer, "seed": seed}

# L3 as in the paper: theta is replaced by its packed OV vector theta_OV (one vector, "formally
# isomorphic to a function vector", per query) injected ONCE at the LTV's own site; next to it full
# LTV, a random direction with theta_OV's norm, the MLP path and zero-shot. The two "control:" rows
# are a different, path-patching experiment (theta removed; its OV term re-enters the attention
# output at N of every later layer at full strength), kept as labelled controls; no claim uses them.
ov_att = cfg["ov_attention"]
inj = ltv.Injection(site, theta)
packed = ltv.PackedOV(site, theta, ov_att)
rnd_seed = seed
random_ov = ltv.PackedOV(site, theta, ov_att, direction=ltv.random_direction(theta.shape, rnd_seed))
OV, RND = "OV reconstruction: packed theta_OV at the LTV site", "random direction, norm of theta_OV"
CONTROL = {"one": "control: theta to V at N of every layer (c_NN = 1)",
           "actual": "control: theta to V at N of every layer (c_NN of the pass)"}
terms = ltv.ov_terms(model, th, layer, per_head=True)
runs = {"full LTV": evaluate_one(model, ev, labels, [inj], batch_size=bs),
        OV: evaluate_one(model, ev, labels, [packed], batch_size=bs),
        RND: evaluate_one(model, ev, labels, [random_ov], batch_size=bs),
        "MLP path only": evaluate_one(model, ev, labels, ltv.mlp_path(model, th, layer), batch_size=bs),
        "zero-shot": evaluate_one(model, ev, labels, [], batch_size=bs),
        **{CONTROL[a]: evaluate_one(model, ev, labels, [ltv.ov_reconstruction(terms, layer, a)], batch_size=bs)
           for a in ltv.OV_ATTENTION}}
ov_norm = float(ltv.packed_ov_norms(model, ev, packed, batch_size=bs).mean())
norms = {"full LTV": float(theta.norm()), OV: ov_norm, RND: ov_norm, "MLP path only": float(th.norm())}
rows = [acc_row({**base, "artifact": "L3", "condition": k, "p_answer": float(r.p_answer.mean()),
                 "vector_norm": norms.get(k, float("nan"))}, r.correct) for k, r in runs.items()]
job.log.info("L3 %s", {k: (float(r.correct.mean()), float(r.p_answer.mean())) for k, r in runs.items()})

# L4: saliency on the training queries selects the key heads; ablations run on the evaluation queries
sal = ltv.head_saliency(model, sets["train_zs"], site, theta, batch_size=bs).mean(0)
key = top_set(sal.double(), cfg["key_head_percent"])
k = len(key)
abl = {"LTV, key heads ablated": evaluate_one(model, ev, labels, [inj, HeadAblation(sorted(key), norm=job.cfg["interventions"]["post_attention_norm"])], batch_size=bs)}
rand = []
for i in range(cfg["random_seeds"]):
    hs = random_heads(model.n_layers, model.n_heads, k, seed + i)
    rand.append(evaluate_one(model, ev, labels, [inj, HeadAblation(hs, norm=job.cfg["interventions"]["post_attention_norm"])], batch_size=bs))
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
                      choices={"post_attention_norm": ABLATION_NORM_TEXT[job.cfg["interventions"]["post_attention_norm"]], "ov_reconstruction": f"row {OV!r} (the paper's L3; the claims use it): theta replaced by ONE vector "
                                                    "theta_OV = sum_{l' >= l} P_l'( sum_k c_k W_O^{l',k} W_V^{l',k} (g_l' * theta) / rms_l' ), "
                                                    "added once at theta's own site (resid_pre of layer l at N) through the LTV injection; "
                                                    "g_l' = layer l''s attention-input norm gain (LayerNorm: applied to the centred theta), "
                                                    "rms_l' = that norm's scale (1/rms; 1/std for LayerNorm) of resid_pre^{l'} at N in the "
                                                    "clean pass of the same query (per query, not a mean over queries); P_l' = identity, or "
                                                    "the post-attention norm (Gemma 2/3, OLMo 2) linearised at the clean pass's scale; "
                                                    f"c_k = {'1 (the paper packed sum)' if ov_att == 'one' else 'head k attention of N on itself in the clean pass'} "
                                                    f"(ltv.ov_attention={ov_att!r})",
                               "random_direction": f"row {RND!r}: per query the norm of theta_OV along one fixed direction, a "
                                                   f"standard normal draw (torch.Generator seeded with the job seed {rnd_seed}) normalised",
                               "ov_control": f"rows {list(CONTROL.values())!r}: a path-patching control, not the paper's L3 and "
                                             "in no claim: theta removed; at N of every layer l' >= l the attention output gains "
                                             "sum_k c_k W_O^k W_V^k (g * theta) / rms(resid_pre^{l'}[N]) of the current pass, "
                                             "c_k = 1 or the head's attention of N on itself in the pass",
                               "mlp_path": "theta added at N to the input of every MLP (its pre-norm) of layers >= l only",
                               "saliency": "|z . dp/dz| = |a . dp/da| at N with LTV applied, p = prob. of the answer token, "
                                           "mean over the training queries",
                               "ablation": "key heads = top ltv.key_head_percent% by saliency, z zeroed at every position",
                               "attn_sink": "attention from N to the first real token (BOS), mean over evaluation queries"})
table = pd.DataFrame(rows)
table["random_seed"] = table["random_seed"].astype("Int64")
write_csv(table, smk.output.table, prov)
write_csv(heads, smk.output.heads, prov)

# Claims (S2, config/claims.yaml): per evaluation query (random heads: mean over seeds); F5 over
# heads, key heads against the others.
cl = claims.Claims(job.params["claims"], model=w["model"], dataset=w["dataset"], rule=job.rule, seed=seed)
cl.judge(["L3.ov_above_zero_shot", "L3.ov_beats_mlp_path", "L4.key_heads_matter_more"],
         claims.eval_arrays({"ltv": runs["full LTV"], "ov": runs[OV], "mlp": runs["MLP path only"], "zs": runs["zero-shot"],
                             "key": abl["LTV, key heads ablated"], "rnd": rand}))
cl.judge("F5.key_heads_less_sink", {"attention": {"other": heads.attn_sink[~heads.is_key].to_numpy(),
                                                  "key": heads.attn_sink[heads.is_key].to_numpy()}})
write_csv(cl.table(), smk.output.claims, prov)
