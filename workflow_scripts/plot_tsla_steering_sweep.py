"""Rule plot_tsla_steering_sweep: figure T7_steering_sweep (TR ratio and accuracy gain over
zero-shot by injection layer and scale, per task vector, averaged over datasets)."""
from common import Job  # noqa: I001
import pandas as pd

from icl_heads.io import save_figure
from icl_heads.plotting import steering_sweep

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
df = pd.concat([pd.read_csv(p) for p in smk.input], ignore_index=True)
save_figure(steering_sweep(df, f"{job.wildcards['model']}: T7 sweep, gain over zero-shot by injection layer and scale"),
            job.outputs, job.provenance(), dpi=job.cfg["plots"]["dpi"])
