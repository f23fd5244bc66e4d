"""Rule plot_yin: figures Y5 (mean-ablation curves), Y6 (token-loss difference), Y7 (FV
add-back) and Y8 (the curves under each ablation type)."""
from common import Job  # noqa: I001
import pandas as pd

from icl_heads.io import save_figure
from icl_heads.plotting import ablation_curves, addback_bars, addback_sweep, token_loss_bars

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
m, pal = job.wildcards["model"], job.palette()
prov = job.provenance()  # the plotting params (palette, dpi) are recorded
curves = pd.read_csv(smk.input.curves)
save_figure(ablation_curves(curves, ["mean"], f"{m}: 10-shot accuracy with heads mean-ablated (Y5)", pal),
            list(smk.output.y5), prov, dpi=job.cfg["plots"]["dpi"])
modes = [x for x in ("mean", "zero", "replace") if x in set(curves.ablation)]
save_figure(ablation_curves(curves, modes, f"{m}: the Y5 curves under each ablation type (Y8)", pal),
            list(smk.output.y8), prov, dpi=job.cfg["plots"]["dpi"])
tl = pd.read_csv(smk.input.token_loss)
save_figure(token_loss_bars(tl, f"{m}: token-loss difference on {tl.dataset.iloc[0]} (Y6)", pal), list(smk.output.y6), prov, dpi=job.cfg["plots"]["dpi"])
save_figure(addback_bars(pd.read_csv(smk.input.addback), f"{m}: function vector added at layer L/3 (Y7)", pal),
            list(smk.output.y7), prov, dpi=job.cfg["plots"]["dpi"])
sweep = pd.concat([pd.read_csv(p) for p in smk.input.sweep], ignore_index=True)
save_figure(addback_sweep(sweep, f"{m}: Y7 sweep, shuffled-label accuracy gain by injection layer and scale", pal),
            list(smk.output.y7s), prov, dpi=job.cfg["plots"]["dpi"])
