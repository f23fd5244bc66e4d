"""Rules plot_ltv_layers (F4), plot_ltv_key_heads (F5), plot_ltv_linear (F6)."""
from common import Job  # noqa: I001

import pandas as pd

from icl_heads import plotting
from icl_heads.io import save_figure

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
m = job.wildcards["model"]
pal = job.palette()
if job.rule == "plot_ltv_layers":
    df = pd.concat([pd.read_csv(p) for p in smk.input.tables], ignore_index=True)
    fig = plotting.accuracy_vs_layer(df, f"F4 accuracy vs injection layer ({m})", pal)
elif job.rule == "plot_ltv_key_heads":
    heads = pd.read_csv(smk.input.heads)
    fig = plotting.key_heads(heads, int(heads["layer"].max()) + 1, f"F5 LTV key heads ({m})", pal)
else:
    df = pd.concat([pd.read_csv(p) for p in smk.input.tables], ignore_index=True)
    fig = plotting.rotation_vs_layer(df, f"F6 rotation and stretch of LTVs ({m})", pal)
save_figure(fig, job.outputs, job.provenance(), dpi=job.cfg["plots"]["dpi"])
