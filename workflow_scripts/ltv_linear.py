"""Rule ltv_linear (L5, F6 data): per sweep layer l, the linear map W_l from noisy copies of the
layer's LTV to the change of the final hidden state at N; accuracy of the linearly
reconstructed effect; polar decomposition W = Q Sigma; cos(theta, Q theta) and the alignment
of theta and Q theta with the task's label unembeddings."""
from common import Job  # noqa: I001

import pandas as pd
import torch

from icl_heads import ltv
from icl_heads.config import job_seed
from icl_heads.model import evaluate_one
from icl_heads.io import write_csv
from ltv_common import ltv_cfg, read_vectors, task_and_queries

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
w, cfg = job.wildcards, ltv_cfg(job)
model = job.load_model(attn="sdpa")
task, sets, labels = task_and_queries(job, model, w["dataset"], icl=False)
seed = job_seed(job.cfg, "ltv_linear", w["model"], w["dataset"])
lcfg = cfg["linear"]
fit_q = sets["train_zs"][:lcfg["n_queries"]]
ev = sets["eval_zs"]
answers = torch.tensor([p.answer_token for p in ev])
label_ids = sorted(set(labels)) if labels else sorted({p.answer_token for p in sets["train_zs"] + ev})
W_U = model.unembed().float()
W_Y = W_U[label_ids]
rows = []


def r2(X, Y, W):
    """1 - SSE / SST of Y ~ X W^T (SST about the column means of Y)."""
    Y = Y.double()
    return 1 - float(((X.double() @ W.T - Y) ** 2).sum() / ((Y - Y.mean(0)) ** 2).sum())


sweep = {c: v for c, v in read_vectors(smk.input.vectors).items() if c.startswith("layer")}
for conf, (site, theta_full) in sorted(sweep.items(), key=lambda kv: kv[1][0].layers[0]):
    layer = site.layers[0]
    theta = theta_full[0, 0].float()
    # theta itself (row 0 of noisy_copies) is left out of the fit: W theta is then a prediction
    X = ltv.noisy_copies(theta, lcfg["n_noise"] + 1, lcfg["noise_scale"], seed + layer)[1:]
    Y, _ = ltv.final_state_change(model, fit_q, layer, X)
    W = ltv.fit_linear_map(X, Y)
    Q, S = ltv.polar(W)
    # accuracy on the evaluation queries: LTV itself vs its effect replaced by W theta at the final state
    _, base_ev = ltv.final_state_change(model, ev, layer, theta[None])
    res = evaluate_one(model, ev, labels, [ltv.Injection(site, theta_full)], batch_size=cfg["batch_size"])
    rec = ltv.logits_from_final(model, base_ev + (W.float() @ theta)[None]).argmax(-1)
    fit_r2 = r2(X, Y, W)
    # held out: fresh noisy copies (another seed, theta itself left out), the same fit queries
    Xh = ltv.noisy_copies(theta, max(2, lcfg["n_noise"] // 2) + 1, lcfg["noise_scale"], seed + layer + 1_000_003)[1:]
    Yh, _ = ltv.final_state_change(model, fit_q, layer, Xh)
    heldout_r2 = r2(Xh, Yh, W)
    Qt = (Q @ theta.double()).float()
    rows.append({"model": w["model"], "dataset": w["dataset"], "layer": layer,
                 "acc_ltv": float(res.correct.mean()), "acc_linear": float((rec == answers).float().mean()),
                 "fit_r2": fit_r2, "heldout_r2": heldout_r2, "n_heldout": len(Xh), "rank_W": int(torch.linalg.matrix_rank(W)),
                 "cos_theta_Qtheta": float(torch.nn.functional.cosine_similarity(theta, Qt, dim=0)),
                 "align_theta": ltv.label_alignment(theta, W_Y), "align_Qtheta": ltv.label_alignment(Qt, W_Y),
                 "align_random": float(len(label_ids) / model.d_model),
                 "top_tokens_theta": " ".join(ltv.top_tokens(model, theta)),
                 "top_tokens_Qtheta": " ".join(ltv.top_tokens(model, Qt)),
                 "stretch_mean_eig": float(torch.linalg.eigvalsh(S).clamp(min=0).mean()),
                 "n": len(ev), "n_fit_queries": len(fit_q), "n_noise": lcfg["n_noise"], "seed": seed + layer})
    job.log.info("layer %d: acc LTV %.3f linear %.3f cos %.3f", layer, rows[-1]["acc_ltv"], rows[-1]["acc_linear"],
                 rows[-1]["cos_theta_Qtheta"])
prov = job.provenance(seed=seed, model=job.model_record(), data=task.provenance(),
                      choices={"noise": "theta_i = theta + lambda_i eps_i, eps ~ N(0, I) * ||theta|| / sqrt(d), lambda ~ U(0, noise_scale)",
                               "target": "mean over the fit queries of the change of the final hidden state (pre final norm) at N",
                               "fit": "least squares without intercept on n_noise noisy copies (theta itself left out, so acc_linear "
                                      "tests W theta as a prediction), minimum-norm where n_noise < d (rank_W column); fit_r2 "
                                      "in sample (1 whenever n_noise <= d), heldout_r2 on n_noise/2 fresh noisy copies",
                               "reconstruction": "evaluation queries: zero-shot final state + W theta, through the final norm and unembedding",
                               "alignment": "||Proj_span(label unembeddings) v|| / ||v|| (align_random = expected value for a random v); "
                                            "labels: the label set (classification) or every answer token (generation)"})
write_csv(pd.DataFrame(rows), smk.output[0], prov)
