"""Rule tsla_perturbation (T6): under shuffled demonstration text, 0/1 labels and flipped
labels, accuracy and TR ratio of the clean run and with TR / TL heads ablated."""
from common import Job  # noqa: I001

import pandas as pd

from common_tsla import metric_rows
from icl_heads.prompts import read_prompt_set as read_prompts
from icl_heads import claims
from icl_heads.interventions import ablation, mean_z
from icl_heads.model import ABLATION_NORM_TEXT, Eval, evaluate
from icl_heads.io import load_tensors, write_csv
from icl_heads.tsla import top_heads

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
w, cfg = job.wildcards, job.cfg["tsla"]
scores = pd.read_csv(smk.input.scores)
model = job.load_model(attn="sdpa")
pct, mode = cfg["top_percent"], cfg["ablation"]
means = mean_z(model, read_prompts(smk.input.score_prompts)[0]) if mode == "mean" else None
heads = {"w/o TR": top_heads(scores, "tr", pct), "w/o TL": top_heads(scores, "tl", pct)}
bs = job.cfg["prompts"]["batch_size"]

# The unperturbed runs come from T5's per-query results (same held-out queries, same order).
t5, _ = load_tensors(smk.input.t5_per_query)
clean = {"clean": Eval(t5["ICL baseline|0.0|correct"], t5["ICL baseline|0.0|in_set"], None, None)}
for name in heads:
    clean[name] = Eval(t5[f"{name}|{float(pct)}|correct"], t5[f"{name}|{float(pct)}|in_set"], None, None)
runs = {"none": clean}
for pert, path in zip(cfg["perturbations"], smk.input.prompts):
    prompts, payload = read_prompts(path)
    labels = payload["label_tokens"]
    runs[pert] = evaluate(model, prompts, labels,
                                     {"clean": [], **{name: [ablation(hs, mode, means, norm=job.cfg["interventions"]["post_attention_norm"])] for name, hs in heads.items()}},
                                     share="layers", batch_size=bs, progress=True, desc=pert)
rows = []
for pert, conds in runs.items():
    for cond, res in conds.items():
        rows += metric_rows({"model": w["model"], "dataset": w["dataset"], "perturbation": pert, "condition": cond,
                             "top_percent": pct, "ablation": mode}, res)
prov = job.provenance(model=job.model_record(),
                      choices={"post_attention_norm": ABLATION_NORM_TEXT[job.cfg["interventions"]["post_attention_norm"]], "accuracy": "against the label the demonstrations teach (0/1 or flipped mapping)",
                               "tr_ratio": "argmax in the demonstrated label set"})
write_csv(pd.DataFrame(rows), smk.output.table, prov)


# Claims (S2): the drop an ablation causes under a perturbation against the drop without one,
# per query (config/claims.yaml); the unperturbed runs with their log-probabilities from T5.
t5_runs = {c: Eval(*(t5.get(f"{k}|{f}") for f in ("correct", "in_set", "argmax", "p_answer", "logp_answer", "logp_label_set")))
           for c, k in (("clean", "ICL baseline|0.0"), ("tr", f"w/o TR|{float(pct)}"), ("tl", f"w/o TL|{float(pct)}"))}
arrays = claims.eval_arrays({**t5_runs, **{f"{pert}_{c}": runs[pert][name] for pert in cfg["perturbations"]
                                           for c, name in (("clean", "clean"), ("tr", "w/o TR"), ("tl", "w/o TL"))}})
cl = claims.Claims(job.params["claims"], model=w["model"], dataset=w["dataset"], rule=job.rule)
cl.judge(["T6.shuffled_text_tl_matters_less", "T6.labels01_tr_matters_less"], arrays, missing="skip")
write_csv(cl.table(), smk.output.claims, prov)
