"""Rule tsla_overlap (T2): Jaccard / Kendall / Spearman between TR, TL and IH rankings."""
from common import Job  # noqa: I001
import pandas as pd

from icl_heads.io import write_csv
from icl_heads.tsla import overlap_rows

job = Job(snakemake)  # noqa: F821
top = job.cfg["tsla"]["top_percent"]
rows = []
for path in snakemake.input.scores:  # noqa: F821
    df = pd.read_csv(path)
    for r in overlap_rows(df, top):
        rows.append({"model": job.wildcards["model"], "dataset": df.dataset.iloc[0], **r,
                     "top_percent": top, "n": int(df.n.iloc[0]), "seed": df.seed.iloc[0]})
out = pd.DataFrame(rows)
write_csv(out, snakemake.output[0], job.provenance())  # noqa: F821
