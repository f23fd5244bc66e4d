"""Rule synthesis_head_map (S1): each head's membership in the TR, TL, IH, FV and LTV-key sets;
pairwise overlaps of the sets against random sets of the same sizes."""
from common import Job  # noqa: I001
import pandas as pd

from icl_heads.io import write_csv
from icl_heads.synthesis import head_map, ltv_key_set, pairwise_overlaps, top_by_mean_rank, top_by_score

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
model = job.wildcards["model"]
p = {"tsla_top_percent": job.cfg["tsla"]["top_percent"], "fv_top_percent": job.cfg["fv"]["top_percent"]}
inputs = dict(smk.input.items())
scores = [pd.read_csv(f) for f in smk.input.scores]
induction = pd.read_csv(smk.input.induction)
n_layers, n_heads = int(induction.layer.max()) + 1, int(induction["head"].max()) + 1
sets = {"TR": top_by_mean_rank(scores, "tr", p["tsla_top_percent"]),
        "TL": top_by_mean_rank(scores, "tl", p["tsla_top_percent"]),
        "IH": top_by_score(induction, "induction", p["fv_top_percent"]),
        "FV": top_by_score(pd.read_csv(smk.input.fv), "fv", p["fv_top_percent"]) if "fv" in inputs else None,
        "LTV_key": ltv_key_set(pd.read_csv(smk.input.ltv)) if "ltv" in inputs else None}
for name, s in sets.items():
    job.log.info("%s: %s", name, "not computed for this config" if s is None else f"{len(s)} heads")
choices = {
    "TR, TL": f"top {p['tsla_top_percent']}% (tsla.top_percent) by the mean over the {len(scores)} classification "
              "datasets of each head's rank percentile (ranks, so no dataset's score scale dominates)",
    "IH, FV": f"top {p['fv_top_percent']}% (fv.top_percent) by induction score and by FV score (mean over the "
              "scoring tasks), as in Paper C's Y3",
    "LTV_key": "is_key of key_heads.csv's dataset 'all' rows (the LTV rule's mean saliency over its datasets); "
               "without them, as many heads as a dataset marks key on average, by mean saliency rank",
    "missing sets": "a set whose analysis is not configured (no fv.scoring_tasks, no ltv.datasets) is left empty "
                    "in head_map.csv and left out of head_overlaps.csv",
    "expected_overlap": "|A||B|/n_heads; p_value: hypergeometric P(overlap >= observed)",
}
prov = job.provenance(choices=choices)
write_csv(head_map(n_layers, n_heads, sets, model), smk.output.head_map, prov)
write_csv(pairwise_overlaps(sets, n_layers * n_heads, model), smk.output.overlaps, prov)
