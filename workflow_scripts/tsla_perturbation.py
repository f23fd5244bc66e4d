"""Rule tsla_perturbation (T6): under shuffled demonstration text, 0/1 labels and flipped
labels, accuracy and TR ratio of the clean run and with TR / TL heads ablated."""
from common import Job  # noqa: I001

import pandas as pd

from common_tsla import metric_rows
from icl_heads.prompts import changed_share
from icl_heads.prompts import read_prompt_set as read_prompts
from icl_heads import claims
from icl_heads.config import sweep_n
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
unperturbed = read_prompts(smk.input.eval_prompts)[0]
n_held_out = len(unperturbed)
n_t5 = sweep_n(n_held_out, cfg["ablation_n_eval"])   # T5's queries: the first tsla.ablation_n_eval held-out ones
if len(t5["ICL baseline|0.0|correct"]) != n_t5:
    raise ValueError(f"{smk.input.t5_per_query} holds {len(t5['ICL baseline|0.0|correct'])} queries, not the first "
                     f"{n_t5} of the {n_held_out} held-out ones (tsla.ablation_n_eval): rerun rule tsla_ablation")
n_abl = sweep_n(n_t5, cfg["perturbation_n_eval"])   # T6's: the first tsla.perturbation_n_eval of T5's
unperturbed = unperturbed[:n_abl]
t5 = {k: v[:n_abl] for k, v in t5.items()}
clean = {"clean": Eval(t5["ICL baseline|0.0|correct"], t5["ICL baseline|0.0|in_set"], None, None)}
for name in heads:
    clean[name] = Eval(t5[f"{name}|{float(pct)}|correct"], t5[f"{name}|{float(pct)}|in_set"], None, None)
# T5's per-query results of every field, for the claims and for a perturbation that changes no prompt.
t5_runs = {c: Eval(*(t5.get(f"{k}|{f}") for f in ("correct", "in_set", "argmax", "p_answer", "logp_answer", "logp_label_set")))
           for c, k in (("clean", "ICL baseline|0.0"), ("tr", f"w/o TR|{float(pct)}"), ("tl", f"w/o TL|{float(pct)}"))}
runs, changed = {"none": clean}, {"none": 0.0}
# The cells a claim reads (config/claims.yaml: e.g. "shuffle_text_tl", "labels_01_clean") run on the
# first tsla.perturbation_n_eval queries; the other cells of the T6 table (the flipped labels, TR
# ablated under shuffled text, TL under 0/1 labels) on the first tsla.table_n_eval of those.
n_table = sweep_n(n_abl, cfg["table_n_eval"])
CELLS = {"clean": "clean", "tr": "w/o TR", "tl": "w/o TL"}
claimed = claims.contrast_conditions(job.params["claims"])
for pert, path in zip(cfg["perturbations"], smk.input.prompts):
    prompts, payload = read_prompts(path)
    prompts = prompts[:n_abl]
    changed[pert] = changed_share(prompts, unperturbed)
    if changed[pert] == 0:
        # every prompt equals its unperturbed one (e.g. shuffled words of single-word inputs):
        # its runs are T5's, and its claims are left out below
        runs[pert] = {"clean": t5_runs["clean"], "w/o TR": t5_runs["tr"], "w/o TL": t5_runs["tl"]}
        continue
    labels = payload["label_tokens"]
    limits = {name: n_table for c, name in CELLS.items() if f"{pert}_{c}" not in claimed}
    runs[pert] = evaluate(model, prompts, labels,
                          {"clean": [], **{name: [ablation(hs, mode, means, norm=job.cfg["interventions"]["post_attention_norm"])] for name, hs in heads.items()}},
                          share="layers", batch_size=bs, progress=True, desc=pert, limits=limits)
rows = []
for pert, conds in runs.items():
    for cond, res in conds.items():
        rows += [dict(r, prompts_changed=changed[pert]) for r in metric_rows(
            {"model": w["model"], "dataset": w["dataset"], "perturbation": pert, "condition": cond,
             "top_percent": pct, "ablation": mode}, res)]
prov = job.provenance(model=job.model_record(),
                      choices={"post_attention_norm": ABLATION_NORM_TEXT[job.cfg["interventions"]["post_attention_norm"]], "accuracy": "against the label the demonstrations teach (0/1 or flipped mapping)",
                               "tr_ratio": "argmax in the demonstrated label set",
                               "eval_queries": f"the first {n_abl} of the {n_held_out} held-out queries: the first "
                                               f"{n_abl} of T5's {n_t5} (tsla.perturbation_n_eval of tsla.ablation_n_eval); "
                                               f"the cells no claim reads (flipped labels, TR ablated under shuffled text, TL under "
                                               f"0/1 labels) on the first {n_table} of them (tsla.table_n_eval; column n)",
                               "prompts_changed": "share of evaluation prompts whose tokens the perturbation changed; "
                                                  "a perturbation that changed none reuses T5's runs and its claims are left out"})
write_csv(pd.DataFrame(rows), smk.output.table, prov)


# Claims (S2): the drop an ablation causes under a perturbation against the drop without one,
# per query (config/claims.yaml); the unperturbed runs with their log-probabilities from T5.
arrays = claims.eval_arrays({**t5_runs, **{f"{pert}_{c}": runs[pert][name] for pert in cfg["perturbations"]
                                           for c, name in (("clean", "clean"), ("tr", "w/o TR"), ("tl", "w/o TL"))}})
tables = []
for cid, pert in (("T6.shuffled_text_tl_matters_less", "shuffle_text"), ("T6.labels01_tr_matters_less", "labels_01")):
    share = changed.get(pert)
    excluded = (f"the {pert} perturbation changed none of the {len(unperturbed)} evaluation prompts (e.g. shuffled words "
                "of single-word inputs), so this dataset cannot test the claim; more queries would not decide it"
                if share == 0 else "")
    note = f"{pert} changed {share:.0%} of the evaluation prompts" if share is not None and 0 < share < 1 else ""
    cl = claims.Claims(job.params["claims"], model=w["model"], dataset=w["dataset"], rule=job.rule,
                       excluded=excluded, note=note)
    cl.judge(cid, arrays, missing="skip")
    tables.append(cl.table())
write_csv(pd.concat(tables, ignore_index=True), smk.output.claims, prov)
