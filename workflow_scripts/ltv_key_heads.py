"""Rule ltv_key_heads: the key heads of every mechanism dataset in one table, plus rows with
dataset "all" (mean saliency over datasets; key = top ltv.key_head_percent % of it)."""
from common import Job  # noqa: I001

import pandas as pd

from icl_heads.io import write_csv
from icl_heads.scores import top_set
from icl_heads.tsla import score_matrix

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
per = pd.concat([pd.read_csv(p) for p in smk.input], ignore_index=True)
mean = per.groupby(["model", "layer", "head"], as_index=False).agg(saliency=("saliency", "mean"), attn_sink=("attn_sink", "mean"),
                                                                     n=("n", "sum"), seed=("seed", "first"))
key = top_set(score_matrix(mean, "saliency"), job.cfg["ltv"]["key_head_percent"])
mean["is_key"] = [(l, h) in key for l, h in zip(mean["layer"], mean["head"])]
mean["dataset"] = "all"
cols = ["model", "dataset", "layer", "head", "saliency", "is_key", "attn_sink", "n", "seed"]
write_csv(pd.concat([per[cols], mean[cols]], ignore_index=True), smk.output[0],
          job.provenance(choices={"all": "mean saliency over the mechanism datasets, top ltv.key_head_percent %"}))
