"""Figures of Paper B (F4-F6), in the style of icl_heads.plotting."""
from __future__ import annotations

import numpy as np

from .plotting import DEFAULT_PALETTE, plt, style

METHOD_COLOURS = {"LTV": "#ff7f0e", "Vanilla TV": "#1f77b4", "FV": "fv"}


def _colour(method, palette):
    c = METHOD_COLOURS.get(method, "#333333")
    return palette.get(c, c)


def accuracy_vs_layer(df, title: str, palette: dict | None = None):
    """F4: dataset-average accuracy of each method against the injection layer (sweep sites),
    with ICL and zero-shot as horizontal lines."""
    style()
    palette = {**DEFAULT_PALETTE, **(palette or {})}
    fig, ax = plt.subplots(figsize=(5.5, 3.0))
    sweep = df[df.kind == "sweep"].copy()
    sweep["layer"] = sweep["layers"].astype(int)
    for method, g in sweep.groupby("method"):
        m = g.groupby("layer")["value"].mean()
        ax.plot(m.index, m.values, marker="o", ms=3, color=_colour(method, palette), label=method)
    for ref, ls in (("ICL", ":"), ("zero-shot", "--")):
        v = df[df.method == ref]["value"].mean()
        ax.axhline(v, color="k", lw=0.8, ls=ls, label=ref)
    ax.set_xlabel("injection layer")
    ax.set_ylabel(f"accuracy (mean over {df.dataset.nunique()} datasets)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title)
    ax.legend(fontsize=7)
    fig.tight_layout()
    return fig


def key_heads(heads, n_layers: int, title: str, palette: dict | None = None):
    """F5: share of key heads per layer (all datasets pooled) and attention-sink share of key
    heads vs the other heads."""
    style()
    palette = {**DEFAULT_PALETTE, **(palette or {})}
    h = heads[heads.dataset == "all"] if (heads.dataset == "all").any() else heads
    fig, axes = plt.subplots(1, 2, figsize=(8.0, 2.8), gridspec_kw={"width_ratios": [3, 1]})
    key = h[h.is_key.astype(bool)]
    counts = np.bincount(key["layer"].astype(int), minlength=n_layers)[:n_layers]
    axes[0].bar(np.arange(n_layers), counts / max(1, counts.sum()), color="#ff7f0e")
    axes[0].set_xlabel("layer")
    axes[0].set_ylabel("share of key heads")
    axes[0].set_title(f"LTV key heads (n={len(key)})")
    other = h[~h.is_key.astype(bool)]
    means = [key.attn_sink.mean(), other.attn_sink.mean()]
    sems = [key.attn_sink.sem(), other.attn_sink.sem()]
    axes[1].bar([0, 1], means, yerr=sems, capsize=2, color=["#ff7f0e", palette["random"]])
    axes[1].set_xticks([0, 1], ["key", "other"])
    axes[1].set_ylabel("attention from N to the first token")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def rotation_vs_layer(df, title: str, palette: dict | None = None):
    """F6: cos(theta_l, Q theta_l) and label alignment of theta_l and Q theta_l against layer;
    accuracy of LTV vs its linear reconstruction."""
    style()
    fig, axes = plt.subplots(1, 3, figsize=(9.5, 2.8))
    g = df.groupby("layer").mean(numeric_only=True)
    axes[0].plot(g.index, g.cos_theta_Qtheta, marker="o", ms=3, color="#ff7f0e")
    axes[0].set_ylabel("cos(theta, Q theta)")
    axes[1].plot(g.index, g.align_theta, marker="o", ms=3, label="theta")
    axes[1].plot(g.index, g.align_Qtheta, marker="s", ms=3, label="Q theta")
    axes[1].plot(g.index, g.align_random, color="k", lw=0.8, ls="--", label="random vector")
    axes[1].set_ylabel("alignment with label unembeddings")
    axes[1].legend(fontsize=7)
    axes[2].plot(g.index, g.acc_ltv, marker="o", ms=3, label="LTV")
    axes[2].plot(g.index, g.acc_linear, marker="s", ms=3, label="linear reconstruction")
    axes[2].set_ylabel("accuracy")
    axes[2].set_ylim(-0.02, 1.02)
    axes[2].legend(fontsize=7)
    for ax in axes:
        ax.set_xlabel("injection layer")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig
