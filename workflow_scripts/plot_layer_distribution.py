"""Rule plot_layer_distribution (F1): layers of the top TR, TL and induction heads."""
from common import Job  # noqa: I001
import pandas as pd

from icl_heads.io import save_figure
from icl_heads.plotting import layer_distribution
from icl_heads.scores import top_set
from icl_heads.tsla import score_matrix

job = Job(snakemake)  # noqa: F821
top = job.cfg["tsla"]["top_percent"]
fams = {"tr": [], "tl": [], "ih": []}
n_layers = None
for i, path in enumerate(snakemake.input.scores):  # noqa: F821
    df = pd.read_csv(path)
    n_layers = int(df.layer.max()) + 1
    for fam, col in (("tr", "tr"), ("tl", "tl")):
        fams[fam] += [l for l, _ in top_set(score_matrix(df, col), top)]
    if i == 0:  # induction scores do not depend on the dataset
        fams["ih"] += [l for l, _ in top_set(score_matrix(df, "induction"), top)]
fig = layer_distribution(fams, n_layers, f"{job.wildcards['model']}: top {top:g}% heads by layer "
                         f"(TR/TL pooled over {len(snakemake.input.scores)} datasets)",  # noqa: F821
                         palette=job.palette())
save_figure(fig, job.outputs, job.provenance(),  # noqa: F821
            dpi=job.cfg["plots"]["dpi"])
