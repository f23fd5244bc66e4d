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


def attention_bars(att, title: str, palette: dict | None = None):
    """F2: attention from N of the top TR vs TL heads to demonstration labels and to the query."""
    style()
    palette = {**DEFAULT_PALETTE, **(palette or {})}
    datasets = sorted(att["dataset"].unique())
    fig, axes = plt.subplots(1, 2, figsize=(7.0, 2.8), sharey=False)
    for ax, (col, name) in zip(axes, (("attn_labels_sum", "to demonstration labels"), ("attn_query_sum", "to query tokens"))):
        x = np.arange(len(datasets))
        for i, fam in enumerate(("TR", "TL")):
            sub = att[att.family == fam].groupby("dataset")[col]
            means = [sub.mean().get(d, np.nan) for d in datasets]
            sems = [sub.sem().get(d, 0.0) for d in datasets]
            ax.bar(x + (i - 0.5) * 0.38, means, 0.38, yerr=sems, capsize=2, color=palette[fam.lower()],
                   label=f"{fam} heads")
        ax.set_xticks(x, datasets, rotation=20, ha="right")
        ax.set_title(f"attention from N {name}")
        ax.set_ylabel("attention weight (sum), mean ± s.e.m. over heads", fontsize=7)
    axes[0].legend()
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def threshold_sweep(abl, steer, title: str, palette: dict | None = None):
    """F3: T5 (ablation) and T7 (steering) as the top-% threshold varies; means over datasets,
    random conditions averaged over seeds."""
    style()
    palette = {**DEFAULT_PALETTE, **(palette or {})}
    fig, axes = plt.subplots(1, 3, figsize=(9.5, 2.8))
    fam_of = {"w/o TR": "tr", "w/o TL": "tl", "w/o random": "random",
              "TR vector": "tr", "TL vector": "tl", "random vector": "random"}
    panels = ((axes[0], abl, "accuracy", "T5 accuracy with heads ablated", "ICL baseline"),
              (axes[1], abl, "tr_ratio", "T5 TR ratio with heads ablated", "ICL baseline"),
              (axes[2], steer, "accuracy", "T7 zero-shot accuracy with task vectors", "zero-shot"))
    for ax, df, metric, name, ref in panels:
        d = df[df.metric == metric]
        for cond, fam in fam_of.items():
            sub = d[d.condition == cond]
            if sub.empty:
                continue
            g = sub.groupby("top_percent")["value"].mean()
            ax.plot(g.index, g.values, marker="o", ms=3, color=palette[fam], label=cond)
        base = d[d.condition == ref]["value"].mean()
        ax.axhline(base, color="k", lw=0.8, ls="--", label=ref)
        if ref == "zero-shot":
            icl = d[d.condition == "ICL"]["value"].mean()
            ax.axhline(icl, color="k", lw=0.8, ls=":", label="ICL")
        ax.set_xlabel("top % of heads")
        ax.set_ylabel(metric.replace("_", " "))
        ax.set_title(name, fontsize=9)
        ax.set_ylim(-0.02, 1.02)
        ax.legend(fontsize=6)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig
