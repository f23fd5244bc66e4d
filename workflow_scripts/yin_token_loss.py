"""Rule yin_token_loss (Y6): token-loss difference, loss at token `early` minus loss at token
`late` of long documents, with the Y5 head sets mean-ablated."""
from common import Job  # noqa: I001

import pandas as pd

from icl_heads import claims
from icl_heads.config import job_seed
from icl_heads.errors import ConfigError
from icl_heads.model import ABLATION_NORM_TEXT, HeadAblation
from icl_heads.interventions import mean_z
from icl_heads.io import write_csv
from icl_heads.prompts import Prompt
from icl_heads.tsla import score_matrix
from icl_heads.yin import head_sets, long_documents, token_losses_shared

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
w, cfg = job.wildcards, job.cfg["fv"]
tcfg, acfg = cfg["token_loss"], cfg["ablation"]
model = job.load_model(attn="sdpa")
data = job.load_task(tcfg["dataset"])
texts = [r["input"] for split in sorted(data.splits) for r in data.splits[split]]
early, late, win = tcfg["early"], tcfg["late"], tcfg["window"]
docs = long_documents(model.tokenizer, texts, late + win + 1, tcfg["n_docs"])
if len(docs) == 0:
    raise ConfigError(f"fv.token_loss.dataset {tcfg['dataset']!r} has no document of {late + win + 1} tokens; "
                      "choose a dataset of long texts or lower fv.token_loss.late")
positions = list(range(early - win, early + win + 1)) + list(range(late - win, late + win + 1))
seed = job_seed(job.cfg, "yin_token_loss", w["model"])
heads = pd.read_csv(smk.input.heads)
sets = head_sets(score_matrix(heads, "induction"), score_matrix(heads, "fv"), acfg["percents"],
                 range(acfg["random_seeds"]), exclude_percent=cfg["top_percent"], seed_base=seed)
bs = max(1, job.cfg["prompts"]["batch_size"] // 4)
# Mean ablation: each head's mean z over every token of these documents.
pseudo = [Prompt(index=i, text="", input_ids=d.tolist(), answer="", answer_token=0) for i, d in enumerate(docs)]
means = mean_z(model, pseudo, batch_size=bs)
conds = [({"family": "clean", "percent": 0.0, "seed": None, "k": 0}, [])]
conds += [({k: s[k] for k in ("family", "percent", "seed", "k")}, [HeadAblation(s["heads"], mode="mean", means=means, norm=job.cfg["interventions"]["post_attention_norm"])])
          for s in sets]
rows = []
nw = 2 * win + 1
# one clean pass per batch of documents; each condition runs from its earliest ablated block on
losses = token_losses_shared(model, docs, positions, {j: ivs for j, (_, ivs) in enumerate(conds)}, batch_size=bs,
                             desc="Y6 conditions")
for j, (meta, _) in enumerate(conds):
    loss = losses[j]
    for i in range(len(docs)):
        e, l_ = float(loss[i, :nw].mean()), float(loss[i, nw:].mean())
        rows.append({"model": w["model"], **meta, "doc": i, "loss_early": e, "loss_late": l_, "token_loss_diff": e - l_})
df = pd.DataFrame(rows)
df["seed"] = df["seed"].astype("Int64")
df["n"], df["early"], df["late"], df["window"], df["dataset"] = len(docs), early, late, win, tcfg["dataset"]
prov = job.provenance(seed=seed, model=job.model_record(), data=data.provenance(),
                      choices={"post_attention_norm": ABLATION_NORM_TEXT[job.cfg["interventions"]["post_attention_norm"]], "loss": f"cross-entropy of token t given tokens < t; mean over t in [{early}-{win}, {early}+{win}] "
                                       f"minus mean over [{late}-{win}, {late}+{win}] (window 0 = the paper's single tokens)",
                               "ablation": "mean ablation: z := the head's mean z over every token of these documents"})
write_csv(df, smk.output.table, prov)

# Claims (S2, config/claims.yaml): per document, each family's token-loss difference averaged over
# the ablated shares (and the random family over its seeds).
wide = df.pivot_table(index="doc", columns="family", values="token_loss_diff", aggfunc="mean")
cl = claims.Claims(job.params["claims"], model=w["model"], dataset=tcfg["dataset"], rule=job.rule, seed=seed)
cl.judge(["Y6.ih_lowers_tld_more_than_fv", "Y6.ih_lowers_tld_more_than_random"],
         {"token_loss_diff": {f: wide[f].to_numpy() for f in wide.columns}})
write_csv(cl.table(), smk.output.claims, prov)
