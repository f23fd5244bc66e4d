"""Rules plot_attention (F2) and plot_threshold_sweep (F3)."""
from common import Job  # noqa: I001
import pandas as pd

from icl_heads.io import save_figure
from icl_heads.plotting import attention_bars, threshold_sweep

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
m = job.wildcards["model"]
if job.rule == "plot_attention":
    fig = attention_bars(pd.read_csv(smk.input.attention), f"{m}: where the top TR and TL heads look (F2)",
                         palette=job.palette())
else:
    abl = pd.concat([pd.read_csv(p) for p in smk.input.ablation])
    steer = pd.concat([pd.read_csv(p) for p in smk.input.steering])
    fig = threshold_sweep(abl, steer, f"{m}: threshold sensitivity (F3), mean over datasets", palette=job.palette())
# the plotting params (dpi, the palette colours this figure uses) are in the provenance
save_figure(fig, job.outputs, job.provenance(), dpi=job.cfg["plots"]["dpi"])
