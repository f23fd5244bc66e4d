"""One plotting module, one style."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

# The one palette (config key plots.palette overrides it; config/schema.yaml holds the same default).
DEFAULT_PALETTE = {"tr": "#d62728", "tl": "#1f77b4", "ih": "#2ca02c", "fv": "#9467bd", "random": "#7f7f7f",
                   "ltv": "#ff7f0e", "vanilla_tv": "#8c564b"}
LABELS = {"tr": "TR heads", "tl": "TL heads", "ih": "induction heads", "fv": "FV heads", "random": "random heads",
          "ltv": "learned task vector", "vanilla_tv": "vanilla task vector"}


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


def ablation_curves(curves, modes, title: str, palette: dict | None = None):
    """Y5 / Y8: accuracy against the share of heads ablated; one row of panels per ablation
    type, direct sets on the left and exclusion sets on the right, random (mean over seeds,
    ± sd) and clean in both."""
    style()
    palette = {**DEFAULT_PALETTE, **(palette or {})}
    modes = list(modes)
    fig, axes = plt.subplots(len(modes), 2, figsize=(7.0, 2.5 * len(modes)), squeeze=False, sharey=True)
    clean = curves[curves.family == "clean"]["accuracy"].mean()
    for r, mode in enumerate(modes):
        d = curves[curves.ablation == mode]
        for c, (fams, name) in enumerate(((("IH", "FV"), "direct"), (("IH_excl", "FV_excl"), "with exclusion"))):
            ax = axes[r][c]
            for fam in fams + ("random",):
                sub = d[d.family == fam].sort_values("percent")
                if sub.empty:
                    continue
                col = palette["random" if fam == "random" else fam.split("_")[0].lower()]
                ax.plot(sub.percent, sub.accuracy, marker="o", ms=3, color=col, ls="--" if "excl" in fam else "-",
                        label=fam.replace("_excl", " (excl.)"))
                if fam == "random" and sub.seed_sd.notna().any():
                    ax.fill_between(sub.percent, sub.accuracy - sub.seed_sd.fillna(0), sub.accuracy + sub.seed_sd.fillna(0),
                                    color=col, alpha=0.2, lw=0)
            ax.axhline(clean, color="k", lw=0.8, ls=":", label="clean")
            ax.set_title(f"{mode} ablation, {name}", fontsize=9)
            ax.set_xlabel("% of heads ablated")
            ax.set_ylim(-0.02, 1.02)
            if c == 0:
                ax.set_ylabel("10-shot accuracy")
            ax.legend(fontsize=6)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def token_loss_bars(df, title: str, palette: dict | None = None):
    """Y6: token-loss difference (loss at token 50 - loss at token 500; higher = more in-context
    learning) against the share of heads ablated."""
    style()
    palette = {**DEFAULT_PALETTE, **(palette or {})}
    fig, ax = plt.subplots(figsize=(4.8, 2.8))
    clean = df[df.family == "clean"]["token_loss_diff"].mean()
    for fam in ("IH", "FV", "IH_excl", "FV_excl", "random"):
        sub = df[df.family == fam].groupby("percent", as_index=False)["token_loss_diff"].mean()
        if sub.empty:
            continue
        col = palette["random" if fam == "random" else fam.split("_")[0].lower()]
        ax.plot(sub.percent, sub.token_loss_diff, marker="o", ms=3, color=col, ls="--" if "excl" in fam else "-",
                label=fam.replace("_excl", " (excl.)"))
    ax.axhline(clean, color="k", lw=0.8, ls=":", label="clean")
    ax.set_xlabel("% of heads mean-ablated")
    ax.set_ylabel("loss(tok 50) - loss(tok 500)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=6)
    fig.tight_layout()
    return fig


def addback_bars(df, title: str, palette: dict | None = None):
    """Y7: accuracy of shuffled-label and zero-shot prompts with the FV / a random-heads vector
    added at layer L/3, against clean 10-shot accuracy; one group per task."""
    style()
    palette = {**DEFAULT_PALETTE, **(palette or {})}
    order = ["clean 10-shot", "shuffled", "shuffled + FV", "shuffled + random", "zero-shot", "zero-shot + FV",
             "zero-shot + random"]
    colours = {"clean 10-shot": "k", "shuffled": "#bbbbbb", "zero-shot": "#dddddd"}
    tasks = sorted(df.task.unique()) + ["mean"]
    fig, ax = plt.subplots(figsize=(max(5.0, 1.3 * len(tasks) + 1) + 1.6, 2.8))
    width = 0.8 / len(order)
    x = np.arange(len(tasks))
    for i, cond in enumerate(order):
        sub = df[df.condition == cond].groupby("task")["accuracy"].mean()
        vals = [sub.get(t, np.nan) for t in tasks[:-1]] + [sub.mean() if len(sub) else np.nan]
        col = colours.get(cond) or (palette["fv"] if "FV" in cond else palette["random"])
        ax.bar(x + (i - (len(order) - 1) / 2) * width, vals, width, color=col, label=cond,
               hatch="//" if cond.startswith("zero") and cond != "zero-shot" else None, edgecolor="white", lw=0.3)
    ax.set_xticks(x, tasks, rotation=20, ha="right")
    ax.set_ylabel("accuracy")
    ax.set_ylim(0, 1.02)
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    fig.tight_layout()
    return fig


def addback_sweep(df, title: str, palette: dict | None = None):
    """Y7 sweep: accuracy of shuffled-label prompts with a vector added at N of a layer, minus
    accuracy without, averaged over tasks (and random seeds); one panel per (head set, vector),
    injection layer across, scale (raw = the vector as it is; a = RMS a x the residual's) down."""
    style()
    base = df[df.vector == "none (shuffled)"].groupby("task")["correct"].mean()
    sub = df[df.vector != "none (shuffled)"].copy()
    sub["gain"] = sub["correct"] - sub["task"].map(base)
    sub["panel"] = sub["heads"] + "\n" + sub["vector"]
    pairs = sorted({(h, v) for h, v in zip(sub["heads"], sub["vector"])}, key=lambda t: (t[0], t[1] != "FV"))
    panels = [f"{h}\n{v}" for h, v in pairs]
    fig, axes = plt.subplots(1, len(panels), figsize=(2.3 * len(panels) + 1.2, 3.0), squeeze=False,
                             constrained_layout=True)
    _sweep_panels(fig, axes[0], sub, panels, "panel", "gain", "scale (vector RMS / residual RMS)",
                  "accuracy gain over shuffled", ylabel_size=None)
    fig.suptitle(title, fontsize=9)
    return fig


def _sweep_panels(fig, axes_row, sub, panels, key, value, ylabel, cbar_label, ylabel_size=7):
    """One heatmap per panel (rows of `sub` with sub[key] == panel): mean `value` by scale (rows:
    raw, then the relative scales) and injection layer (columns), each cell written in it."""
    layers = sorted(sub.layer.unique())
    scales = ["raw"] + sorted({s for s in sub.scale.unique() if s != "raw"}, key=float)
    im = None
    for ax, p in zip(axes_row, panels):
        g = sub[sub[key] == p].groupby(["scale", "layer"])[value].mean()
        mat = np.array([[g.get((s, l), np.nan) for l in layers] for s in scales])
        im = ax.imshow(mat, cmap="RdBu_r", vmin=-1, vmax=1, aspect="auto")
        for i in range(len(scales)):
            for j in range(len(layers)):
                if not np.isnan(mat[i, j]):
                    ax.text(j, i, f"{mat[i, j]:+.2f}", ha="center", va="center", fontsize=6)
        ax.set_xticks(range(len(layers)), [str(l) for l in layers])
        ax.set_yticks(range(len(scales)), scales if ax is axes_row[0] else [])
        ax.set_xlabel("injection layer")
        ax.set_title(str(p), fontsize=7)
    axes_row[0].set_ylabel(ylabel, fontsize=ylabel_size)
    fig.colorbar(im, ax=list(axes_row), shrink=0.8, label=cbar_label)


def steering_sweep(df, title: str):
    """T7 sweep: TR ratio (top row) and accuracy (bottom row) of zero-shot prompts with a task
    vector added at N of a layer, minus zero-shot, averaged over datasets (and random seeds);
    one column per vector, injection layer across, scale down (raw = the vector as it is)."""
    style()
    base = df[df.vector == "none (zero-shot)"].groupby("dataset")[["tr_ratio", "correct"]].mean()
    sub = df[df.vector != "none (zero-shot)"].copy()
    for m in ("tr_ratio", "correct"):
        sub[f"gain_{m}"] = sub[m] - sub["dataset"].map(base[m])
    panels = sorted(sub.vector.unique())
    fig, axes = plt.subplots(2, len(panels), figsize=(2.3 * len(panels) + 1.4, 5.0), squeeze=False,
                             constrained_layout=True)
    for row, (value, name) in zip(axes, (("gain_tr_ratio", "TR ratio"), ("gain_correct", "accuracy"))):
        _sweep_panels(fig, row, sub, panels, "vector", value, f"{name}\nscale (RMS / residual RMS)", "gain over zero-shot")
    fig.suptitle(title, fontsize=9)
    return fig


def training_dynamics(df, title: str, palette: dict | None = None):
    """Y9: mean induction and FV score of the top heads over training checkpoints."""
    style()
    palette = {**DEFAULT_PALETTE, **(palette or {})}
    fig, axes = plt.subplots(1, 2, figsize=(7.0, 2.6))
    for ax, col, fam, name in ((axes[0], "top_induction", "ih", "induction score"), (axes[1], "top_fv", "fv", "FV score")):
        ax.plot(df["step"], df[col], marker="o", ms=3, color=palette[fam])
        ax.set_xlabel("checkpoint (training step)")
        ax.set_ylabel(f"mean {name} of top heads")
        ax.set_title(name, fontsize=9)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


# ------------------------------------------------------------------ synthesis (S1, S2)
SET_COLOURS = {"TR": "tr", "TL": "tl", "IH": "ih", "FV": "fv", "LTV_key": "ltv"}
VERDICT_COLOURS = {"yes": "#2ca02c", "no": "#d62728", "unclear": "#7f7f7f"}


def head_map(hm, title: str, palette: dict | None = None):
    """S1: small multiples, one layer x head grid per head set (filled cell = member), and a
    last panel with the number of sets each head belongs to."""
    from matplotlib.colors import ListedColormap

    style()
    palette = {**DEFAULT_PALETTE, **(palette or {})}
    sets = [c[3:] for c in hm.columns if c.startswith("in_")]
    L, H = int(hm.layer.max()) + 1, int(hm["head"].max()) + 1
    n_pan = len(sets) + 1
    fig, axes = plt.subplots(1, n_pan, figsize=(1.0 + n_pan * max(1.1, 0.12 * H + 0.5), 1.2 + 0.14 * L),
                             sharey=True, squeeze=False)
    axes = axes[0]
    for ax, name in zip(axes, sets):
        col = hm["in_" + name]
        grid = np.zeros((L, H))
        computed = bool(col.notna().any())
        if computed:
            grid[hm.layer.to_numpy(), hm["head"].to_numpy()] = col.fillna(False).astype(float).to_numpy()
        colour = palette.get(SET_COLOURS.get(name, name.lower()), "#444444")
        ax.imshow(grid, cmap=ListedColormap(["#f2f2f2", colour]), vmin=0, vmax=1, aspect="auto",
                  origin="lower", interpolation="nearest")
        label = name.replace("_", " ")
        ax.set_title(f"{label} (n={int(grid.sum())})" if computed else f"{label}\n(not computed)", fontsize=8)
        ax.set_xlabel("head")
        ax.grid(False)
    count = np.zeros((L, H))
    count[hm.layer.to_numpy(), hm["head"].to_numpy()] = hm.n_sets.to_numpy()
    n_computed = sum(bool(hm["in_" + name].notna().any()) for name in sets)
    im = axes[-1].imshow(count, cmap=plt.get_cmap("magma_r", max(1, n_computed) + 1), vmin=-0.5,
                         vmax=max(1, n_computed) + 0.5, aspect="auto", origin="lower", interpolation="nearest")
    axes[-1].set_title("sets per head", fontsize=8)
    axes[-1].set_xlabel("head")
    axes[-1].grid(False)
    fig.colorbar(im, ax=axes[-1], fraction=0.08, pad=0.04, ticks=range(max(1, n_computed) + 1))
    axes[0].set_ylabel("layer")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def claims_forest(claims, title: str):
    """S2: one row per claim (artifact, dataset), one panel per model. Each row is scaled by its
    largest |value| or |CI bound| so that metrics of different units share an axis; 0 is the
    no-effect line; the measured value and CI are printed beside each row, coloured by verdict."""
    style()
    models = sorted(claims.model.unique())
    keys = claims[["paper", "artifact", "claim", "dataset", "metric"]].drop_duplicates()
    labels = [f"{r.artifact} {r.dataset}: {r.claim}" for r in keys.itertuples()]
    labels = [lab if len(lab) <= 70 else lab[:67] + "..." for lab in labels]
    n = max(1, len(keys))
    height = max(2.5, 1.0 + 0.17 * n)
    fig, axes = plt.subplots(1, max(1, len(models)), figsize=(3.4 + 3.2 * len(models), height),
                             sharey=True, squeeze=False)
    axes = axes[0]
    index = {tuple(k): i for i, k in enumerate(keys.itertuples(index=False))}
    for ax, model in zip(axes, models):
        sub = claims[claims.model == model]
        for r in sub.itertuples():
            y = n - 1 - index[(r.paper, r.artifact, r.claim, r.dataset, r.metric)]
            vals = np.array([r.value, r.ci_low, r.ci_high], dtype=float)
            scale = np.nanmax(np.abs(vals)) if np.isfinite(vals).any() else np.nan
            scale = scale if scale and np.isfinite(scale) else 1.0
            v, lo, hi = vals / scale
            colour = VERDICT_COLOURS.get(str(r.holds), "#000000")
            if np.isfinite(lo) and np.isfinite(hi):
                ax.plot([lo, hi], [y, y], color=colour, lw=1.2)
            ax.plot([v], [y], "o", color=colour, ms=3.5)
            ax.text(1.08, y, f"{r.value:.3g} [{r.ci_low:.3g}, {r.ci_high:.3g}]", fontsize=5.5,
                    va="center", ha="left", color=colour, transform=ax.get_yaxis_transform(), clip_on=False)
        ax.axvline(0, color="k", lw=0.6)
        ax.set_xlim(-1.1, 1.1)
        ax.set_title(model, fontsize=9)
        ax.set_xlabel("value / max(|value|, |CI|)", fontsize=7)
        ax.grid(axis="y", alpha=0.1)
    axes[0].set_yticks(range(n), labels[::-1], fontsize=6)
    axes[0].set_ylim(-0.7, n - 0.3)
    handles = [plt.Line2D([], [], color=c, marker="o", lw=1.2, label=f"holds: {k}") for k, c in VERDICT_COLOURS.items()]
    fig.tight_layout()
    fig.subplots_adjust(top=1 - 0.75 / height, wspace=0.9)
    fig.legend(handles=handles, loc="upper right", fontsize=7, ncol=3, bbox_to_anchor=(1, 1 - 0.3 / height))
    fig.suptitle(title, fontsize=10, x=0.02, y=1 - 0.1 / height, ha="left")
    return fig


# ------------------------------------------------------------------ Paper B (F4-F6)
METHOD_FAMILIES = {"LTV": "ltv", "Vanilla TV": "vanilla_tv", "FV": "fv"}


def _colour(method, palette):
    return palette.get(METHOD_FAMILIES.get(method), "#333333")


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
    axes[0].bar(np.arange(n_layers), counts / max(1, counts.sum()), color=palette["ltv"])
    axes[0].set_xlabel("layer")
    axes[0].set_ylabel("share of key heads")
    axes[0].set_title(f"LTV key heads (n={len(key)})")
    other = h[~h.is_key.astype(bool)]
    means = [key.attn_sink.mean(), other.attn_sink.mean()]
    sems = [key.attn_sink.sem(), other.attn_sink.sem()]
    axes[1].bar([0, 1], means, yerr=sems, capsize=2, color=[palette["ltv"], palette["random"]])
    axes[1].set_xticks([0, 1], ["key", "other"])
    axes[1].set_ylabel("attention from N to the first token")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def rotation_vs_layer(df, title: str, palette: dict | None = None):
    """F6: cos(theta_l, Q theta_l) and label alignment of theta_l and Q theta_l against layer;
    accuracy of LTV vs its linear reconstruction."""
    style()
    palette = {**DEFAULT_PALETTE, **(palette or {})}
    fig, axes = plt.subplots(1, 3, figsize=(9.5, 2.8))
    g = df.groupby("layer").mean(numeric_only=True)
    axes[0].plot(g.index, g.cos_theta_Qtheta, marker="o", ms=3, color=palette["ltv"])
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
