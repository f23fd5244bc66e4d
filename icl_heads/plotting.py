"""One plotting module, one style."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

DEFAULT_PALETTE = {"tr": "#d62728", "tl": "#1f77b4", "ih": "#2ca02c", "fv": "#9467bd", "random": "#7f7f7f"}
LABELS = {"tr": "TR heads", "tl": "TL heads", "ih": "induction heads", "fv": "FV heads", "random": "random heads"}


def style():
    plt.rcParams.update({
        "figure.dpi": 100, "savefig.dpi": 200, "font.size": 9, "axes.titlesize": 10, "axes.labelsize": 9,
        "axes.spines.top": False, "axes.spines.right": False, "legend.frameon": False,
        "axes.grid": True, "grid.alpha": 0.25, "grid.linewidth": 0.5, "pdf.fonttype": 42,
    })


def layer_distribution(layers_by_family: dict[str, list[int]], n_layers: int, title: str,
                       palette: dict | None = None):
    """F1: how many top heads of each family sit in each layer (counts pooled over datasets)."""
    style()
    palette = {**DEFAULT_PALETTE, **(palette or {})}
    fams = list(layers_by_family)
    fig, ax = plt.subplots(figsize=(6.0, 2.8))
    width = 0.8 / max(1, len(fams))
    x = np.arange(n_layers)
    for i, fam in enumerate(fams):
        layers = layers_by_family[fam]
        counts = np.bincount(np.asarray(layers, dtype=int), minlength=n_layers)[:n_layers]
        share = counts / max(1, counts.sum())
        mean = float(np.mean(layers)) if len(layers) else float("nan")
        ax.bar(x + (i - (len(fams) - 1) / 2) * width, share, width=width, color=palette.get(fam, None),
               label=f"{LABELS.get(fam, fam)} (mean layer {mean:.1f}, n={len(layers)})")
    ax.set_xlabel("layer")
    ax.set_ylabel("share of top heads")
    ax.set_xticks(x[:: max(1, n_layers // 12)])
    ax.set_title(title)
    ax.legend(fontsize=7, loc="upper left")
    fig.tight_layout()
    return fig
