"""Rule tsla_rankings (T3, T4, F2 data, and the claims of T2, T3, T4, F1, F2): everything
that compares head rankings across scores and datasets. Reads T1 tables and caches only."""
from common import Job  # noqa: I001
import numpy as np
import pandas as pd
import torch

from icl_heads import claims
from icl_heads.io import load_tensors, write_csv
from icl_heads.scores import rank_correlations, tl_score, top_set, tr_score
from icl_heads.tsla import conditional_mean_percentage, consistency_rows, score_matrix, top_heads

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
w, cfg = job.wildcards, job.cfg["tsla"]
pct = cfg["top_percent"]
B_BOOT = 200
rng = np.random.default_rng(0)
tables = {pd.read_csv(p).dataset.iloc[0]: pd.read_csv(p) for p in smk.input.scores}
caches = {}
for p in smk.input.caches:
    t, meta = load_tensors(p)
    caches[meta["dataset"]] = t
ih = next(iter(tables.values()))
ih = score_matrix(ih, "induction")

per_prompt = {}
for d, t in caches.items():
    ok = t["answer_index"] >= 0
    a, yy = t["head_out"][ok], t["answer_index"][ok]
    per_prompt[d] = {"tr": tr_score(a, t["W_Y"]).double(), "tl": tl_score(a, t["W_Y"], yy).double(),
                     "attn_labels": t["attn_labels_sum"][ok].double(), "attn_query": t["attn_query_sum"][ok].double()}


def resample(d, idx=None):
    pp = per_prompt[d]
    idx = torch.arange(len(pp["tr"])) if idx is None else idx
    return {k: v[idx].mean(0) for k, v in pp.items()}


def boot_idx(d):
    n = len(per_prompt[d]["tr"])
    return torch.as_tensor(rng.integers(0, n, n))


cl = claims.Claims(job.params["claims"], model=w["model"], dataset="all", rule=job.rule)
t3_rows, att_rows = [], []
for d in sorted(tables):
    n = len(per_prompt[d]["tr"])

    def t2(m):
        r = {k: rank_correlations(x, y)["spearman_rho"] for k, (x, y) in
             {"tr_ih": (m["tr"], ih), "tr_tl": (m["tr"], m["tl"]), "tl_ih": (m["tl"], ih)}.items()}
        return r["tr_ih"] - max(r["tr_tl"], r["tl_ih"])

    def t3(m):
        df = tables[d].copy()
        df["tr"], df["tl"] = m["tr"].flatten().numpy(), m["tl"].flatten().numpy()
        c = conditional_mean_percentage(df, 10)
        return c["tl"] - c["tr"]

    def f1(m):
        tr_l = np.mean([l for l, _ in top_set(m["tr"], pct)])
        tl_l = np.mean([l for l, _ in top_set(m["tl"], pct)])
        return tr_l - tl_l

    def f2(m, key, first, second):
        s1, s2 = top_set(m[first], pct), top_set(m[second], pct)
        return float(np.mean([m[key][l, h] for l, h in s1]) - np.mean([m[key][l, h] for l, h in s2]))

    point = resample(d)
    boots = [resample(d, boot_idx(d)) for _ in range(B_BOOT)]
    # Claims (S2): each statistic on all prompts and on bootstrap resamples of them (config/claims.yaml).
    for cid, fn in (("T2.tr_ih_agree_most", t2), ("T3.ih_rank_higher_in_tr", t3), ("F1.tr_deeper_than_tl", f1),
                    ("F2.tr_attends_labels", lambda m: f2(m, "attn_labels", "tr", "tl")),
                    ("F2.tl_attends_query", lambda m: f2(m, "attn_query", "tl", "tr"))):
        cl.judge(cid, {"estimate": float(fn(point)), "samples": [fn(b) for b in boots]}, dataset=d, n=n)
    c = conditional_mean_percentage(tables[d], 10)
    t3_rows.append({"model": w["model"], "dataset": d, "ih_top_percent": 10, "n_ih_heads": c["n_ih_heads"],
                    "mean_top_percent_in_TR": c["tr"], "mean_top_percent_in_TL": c["tl"], "n": n})
    for fam in ("tr", "tl"):
        for l, h in top_heads(tables[d], fam, pct):
            att_rows.append({"model": w["model"], "dataset": d, "family": fam.upper(), "layer": l, "head": h,
                             "attn_labels_sum": float(point["attn_labels"][l, h]),
                             "attn_query_sum": float(point["attn_query"][l, h]), "top_percent": pct, "n": n})

# T4: consistency across datasets, with a bootstrap over each dataset's prompts for the claim.
t4 = pd.DataFrame(consistency_rows(tables, pct))
t4.insert(0, "model", w["model"])


def t4_claim(ms):
    names = sorted(ms)
    rt = [rank_correlations(ms[a]["tr"], ms[b]["tr"])["spearman_rho"] for i, a in enumerate(names) for b in names[i + 1:]]
    rl = [rank_correlations(ms[a]["tl"], ms[b]["tl"])["spearman_rho"] for i, a in enumerate(names) for b in names[i + 1:]]
    return float(np.mean(rt) - np.mean(rl))


if len(tables) > 1:
    pt = t4_claim({d: resample(d) for d in tables})
    bs = [t4_claim({d: resample(d, boot_idx(d)) for d in tables}) for _ in range(B_BOOT // 2)]
    cl.judge("T4.tr_more_consistent", {"estimate": pt, "samples": bs}, n=sum(len(v["tr"]) for v in per_prompt.values()))
prov = job.provenance(choices={"ci": f"bootstrap over scoring prompts ({B_BOOT} resamples; T4: {B_BOOT // 2})",
                               "ci_t4": "percentile interval shifted by (point estimate - bootstrap median): resampled "
                                        "prompt means are noisier, which lowers the TL correlations more than the TR "
                                        "ones and biases the bootstrap distribution of the difference upwards",
                               "attention": "sum over the positions of the demonstration labels / the query tokens",
                               "IH": "Y1 induction score (dataset independent)"})
write_csv(pd.DataFrame(t3_rows), smk.output.t3, prov)
write_csv(t4, smk.output.t4, prov)
write_csv(pd.DataFrame(att_rows), smk.output.attention, prov)
write_csv(cl.table(), smk.output.claims, prov)
