"""Rule plot_head_map (S1 figure): the head sets on the layer x head grid."""
from common import Job  # noqa: I001
import pandas as pd

from icl_heads.io import save_figure
from icl_heads.plotting import head_map

job = Job(snakemake)  # noqa: F821
hm = pd.read_csv(snakemake.input.head_map, dtype={c: "boolean" for c in  # noqa: F821
                 ("in_TR", "in_TL", "in_IH", "in_FV", "in_LTV_key")})
fig = head_map(hm, f"{job.wildcards['model']}: TR, TL (Paper A), IH, FV (Paper C) and LTV-key (Paper B) heads",
               palette=job.palette())
save_figure(fig, job.outputs, job.provenance(),  # noqa: F821
            dpi=job.cfg["plots"]["dpi"])
