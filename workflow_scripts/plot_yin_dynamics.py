"""Rule plot_yin_dynamics: figure Y9."""
from common import Job  # noqa: I001
import pandas as pd

from icl_heads.io import save_figure
from icl_heads.plotting import training_dynamics

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
m = job.wildcards["model"]
fig = training_dynamics(pd.read_csv(smk.input.summary), f"{m}: top-head scores over training (Y9)", job.palette())
save_figure(fig, job.outputs, job.provenance(), dpi=job.cfg["plots"]["dpi"])
