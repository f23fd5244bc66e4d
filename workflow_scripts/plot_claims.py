"""Rule plot_claims (S2 figure): each claim's value with its 95% CI and verdict, per model."""
from common import Job  # noqa: I001
import pandas as pd

from icl_heads.io import save_figure
from icl_heads.plotting import claims_forest

job = Job(snakemake)  # noqa: F821
claims = pd.read_csv(snakemake.input.claims, dtype={"holds": str, "paper_value": str})  # noqa: F821
fig = claims_forest(claims, "S2: the papers' claims on each model (95% CI; colour = verdict)")
save_figure(fig, job.outputs, job.provenance(),  # noqa: F821
            dpi=job.cfg["plots"]["dpi"])
