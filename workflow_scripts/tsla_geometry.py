"""Rule tsla_geometry (T8): subspace alignment and logit difference of the zero-shot hidden
state before/after adding TR vs TL head outputs; layerwise correlations on ICL prompts.
Reads caches only: no model run."""
from common import Job  # noqa: I001
import numpy as np
import pandas as pd
import torch
from scipy.stats import spearmanr

from icl_heads import claims
from icl_heads.io import load_tensors, write_csv
from icl_heads.stats import bootstrap_ci
from icl_heads.tsla import (best_head_per_layer, head_set_vector, layerwise_per_prompt, layerwise_table, logit_difference,
                            rms_normalise, subspace_alignment, top_heads)

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
w, cfg = job.wildcards, job.cfg["tsla"]
scores = pd.read_csv(smk.input.scores)
icl, _ = load_tensors(smk.input.score_cache)
zs, _ = load_tensors(smk.input.zeroshot_cache)
pct = cfg["top_percent"]
W_Y = icl["W_Y"]
ok = zs["answer_index"] >= 0
h0 = zs["resid"][ok][:, -1]
y = zs["answer_index"][ok]
vecs = {"TR outputs": head_set_vector(icl["head_out"], top_heads(scores, "tr", pct)),
        "TL outputs": head_set_vector(icl["head_out"], top_heads(scores, "tl", pct))}
per_query = {"before": (subspace_alignment(rms_normalise(h0), W_Y), logit_difference(rms_normalise(h0), W_Y, y))}
for name, v in vecs.items():
    h = rms_normalise(h0 + v)
    per_query[name] = (subspace_alignment(h, W_Y), logit_difference(h, W_Y, y))
rows = []
for state, (al, ld) in per_query.items():
    for metric, vals in (("subspace_alignment", al), ("logit_difference", ld)):
        lo, hi = bootstrap_ci(vals.numpy())
        rows.append({"model": w["model"], "dataset": w["dataset"], "hidden_state": f"zero-shot + {state}" if state != "before" else "zero-shot",
                     "metric": metric, "value": float(vals.mean()), "ci_low": lo, "ci_high": hi, "n": int(ok.sum()),
                     "top_percent": pct})

# Layerwise: per layer, the best TR head's output alignment and best TL head's logit difference
# against the change of the hidden state across the block, on every cached ICL prompt of the
# dataset: the scoring prompts and the held-out ones (prompts.n_score + prompts.n_eval; both caches
# are there already, so the second set costs no forward pass).
held, _ = load_tensors(smk.input.icl_cache)
if not torch.equal(held["W_Y"], W_Y):
    raise ValueError(f"{smk.input.icl_cache} and {smk.input.score_cache} hold different label unembeddings: "
                     "rebuild both caches (rule cache)")
layer_sets = [icl, held]
okc = [c["answer_index"] >= 0 for c in layer_sets]
resid = torch.cat([c["resid"][o] for c, o in zip(layer_sets, okc)])
head_out = torch.cat([c["head_out"][o] for c, o in zip(layer_sets, okc)])
yc = torch.cat([c["answer_index"][o] for c, o in zip(layer_sets, okc)])
n_layer_prompts = {"scoring": int(okc[0].sum()), "held-out": int(okc[1].sum())}
tr_best, tl_best = best_head_per_layer(scores, "tr"), best_head_per_layer(scores, "tl")
per_prompt = layerwise_per_prompt(resid, head_out, W_Y, yc, tr_best, tl_best)   # [prompts, L] each, computed once
lw = layerwise_table(per_prompt, tr_best, tl_best)
lw.insert(0, "dataset", w["dataset"])
lw.insert(0, "model", w["model"])


def rhos(idx):
    """Spearman's rho of the layerwise means over the prompts idx (a resample of the rows)."""
    m = {k: v[idx].mean(0).double().numpy() for k, v in per_prompt.items()}
    return (spearmanr(m["tr_output_alignment"], m["hidden_alignment_change"]).statistic,
            spearmanr(m["tl_output_logit_diff"], m["hidden_logit_diff_change"]).statistic)


rng = np.random.default_rng(0)
point = rhos(torch.arange(len(yc)))
boots = np.array([rhos(torch.as_tensor(rng.integers(0, len(yc), len(yc)))) for _ in range(200)])
for i, (name, ref) in enumerate((("rho(TR-head output alignment, hidden alignment change)", "0.94"),
                                 ("rho(TL-head output logit diff, hidden logit diff change)", "0.53"))):
    rows.append({"model": w["model"], "dataset": w["dataset"], "hidden_state": "ICL, layerwise", "metric": name,
                 "value": float(point[i]), "ci_low": float(np.nanquantile(boots[:, i], 0.025)),
                 "ci_high": float(np.nanquantile(boots[:, i], 0.975)), "n": len(yc), "top_percent": pct})
prov = job.provenance(choices={"hidden_state": "final residual stream at N, RMS-normalised; final-norm gain folded into W_Y",
                               "vectors": "sum of the top heads' mean outputs over the scoring ICL prompts",
                               "layerwise": "per layer, its highest-TR / highest-TL head; Spearman across layers, "
                                            "bootstrap over prompts (200); prompts: the ICL scoring and held-out "
                                            f"prompts pooled ({n_layer_prompts})"})
table = pd.DataFrame(rows)
write_csv(table, smk.output.table, prov)
write_csv(lw, smk.output.layerwise, prov)

# Claims (S2): per-query alignment and logit difference of each hidden state; the layerwise
# correlations from their bootstrap over prompts above (config/claims.yaml).
states = {"before": "before", "tr": "TR outputs", "tl": "TL outputs"}
arrays = {m: {c: per_query[k][i].numpy() for c, k in states.items()}
          for i, m in enumerate(("subspace_alignment", "logit_difference"))}
cl = claims.Claims(job.params["claims"], model=w["model"], dataset=w["dataset"], rule=job.rule)
cl.judge(["T8.tr_raises_alignment", "T8.tr_alignment_beats_tl", "T8.tl_raises_logit_difference"], arrays)
cl.judge("T8.tr_alignment_tracks_layers", {"estimate": point[0], "samples": boots[:, 0]}, n=len(yc))
cl.judge("T8.tl_logit_difference_tracks_layers", {"estimate": point[1], "samples": boots[:, 1]}, n=len(yc))
write_csv(cl.table(), smk.output.claims, prov)
