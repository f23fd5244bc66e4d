"""Synthesis across the three papers (in none of them).

S1: one head map per model, the membership of every head in the TR, TL (Paper A),
IH, FV (Paper C) and LTV-key (Paper B) sets, and the pairwise overlaps of those sets
against the overlap two random sets of the same sizes would have.
S2: the claims rows every paper rule writes, gathered into one table whose rows keep
the file (and row) they came from, so a cell can be traced back to its model and data.
"""
from __future__ import annotations

import itertools
import pandas as pd

from .claims import COLUMNS as CLAIM_COLUMNS, LEFT_OUT
from .scores import top_set
from .tsla import rank_percentile, score_matrix

SETS = ("TR", "TL", "IH", "FV", "LTV_key")
MEMBERSHIP = {s: f"in_{s}" for s in SETS}


# ------------------------------------------------------------------ S1: sets
def mean_rank_percentile(tables: list[pd.DataFrame], col: str) -> pd.DataFrame:
    """Per head, the mean over tables (datasets) of its position in the ranking by `col`
    ('top p%': best head 100/n). Ranks rather than raw scores, so a dataset whose scores
    are larger does not dominate the aggregate."""
    if not tables:
        raise ValueError("no score tables to aggregate")
    parts = [t[["layer", "head"]].assign(pct=rank_percentile(t, col).to_numpy()) for t in tables]
    return pd.concat(parts).groupby(["layer", "head"], as_index=False).pct.mean()


def top_by_mean_rank(tables: list[pd.DataFrame], col: str, percent: float) -> set[tuple[int, int]]:
    """Top `percent`% heads by mean rank percentile across tables (ties broken by position)."""
    agg = mean_rank_percentile(tables, col)
    return top_set(score_matrix(agg.assign(neg=-agg.pct), "neg"), percent)


def top_by_score(df: pd.DataFrame, col: str, percent: float) -> set[tuple[int, int]]:
    return top_set(score_matrix(df, col), percent)


def ltv_key_set(key_heads: pd.DataFrame) -> set[tuple[int, int]]:
    """LTV key heads across datasets: the rows of dataset "all" where the LTV rule writes them
    (key by mean saliency over its datasets); otherwise as many heads as a dataset marks key on
    average, chosen by mean saliency rank over the datasets."""
    is_key = key_heads["is_key"].astype(str).str.lower().isin(["true", "1", "1.0"])
    if (key_heads["dataset"] == "all").any():
        sel = (key_heads["dataset"] == "all") & is_key
        return {(int(l), int(h)) for l, h in zip(key_heads.loc[sel, "layer"], key_heads.loc[sel, "head"])}
    key_heads = key_heads.assign(is_key=is_key)
    per_ds = [g for _, g in key_heads.groupby("dataset")]
    share = 100.0 * float(pd.Series([g.is_key.mean() for g in per_ds]).mean())
    if share <= 0:
        return set()
    return top_by_mean_rank(per_ds, "saliency", share)


# ------------------------------------------------------------------ S1: tables
def head_map(n_layers: int, n_heads: int, sets: dict[str, set | None], model: str) -> pd.DataFrame:
    """One row per head: model, layer, head, in_<SET> for every set of SETS (True/False; empty
    where the set was not computed for this config), and n_sets, how many sets hold the head."""
    rows = pd.DataFrame([(l, h) for l in range(n_layers) for h in range(n_heads)], columns=["layer", "head"])
    rows.insert(0, "model", model)
    key = list(zip(rows["layer"], rows["head"]))
    for name in SETS:
        s = sets.get(name)
        rows[MEMBERSHIP[name]] = pd.array([x in s for x in key], dtype="boolean") if s is not None \
            else pd.array([pd.NA] * len(rows), dtype="boolean")
    rows["n_sets"] = rows[[MEMBERSHIP[n] for n in SETS]].fillna(False).astype(int).sum(axis=1)
    return rows


def expected_overlap(size_a: int, size_b: int, n: int) -> float:
    """Mean overlap of two independent uniformly random head sets of these sizes: |A||B|/n."""
    return size_a * size_b / n


def overlap_p_value(overlap: int, size_a: int, size_b: int, n: int) -> float:
    """P(overlap >= observed) for random sets (hypergeometric upper tail)."""
    from scipy.stats import hypergeom

    return float(hypergeom.sf(overlap - 1, n, size_a, size_b))


def pairwise_overlaps(sets: dict[str, set | None], n_heads: int, model: str) -> pd.DataFrame:
    """One row per pair of computed sets: sizes, overlap, the random expectation, their ratio,
    Jaccard and the hypergeometric p-value of an overlap at least this large."""
    names = [s for s in SETS if sets.get(s) is not None]
    rows = []
    for a, b in itertools.combinations(names, 2):
        A, B = sets[a], sets[b]
        k, exp = len(A & B), expected_overlap(len(A), len(B), n_heads)
        rows.append({"model": model, "set_a": a, "set_b": b, "n_heads": n_heads, "size_a": len(A),
                     "size_b": len(B), "overlap": k, "expected_overlap": exp,
                     "overlap_ratio": k / exp if exp > 0 else float("nan"),
                     "jaccard": k / len(A | B) if (A or B) else float("nan"),
                     "p_value": overlap_p_value(k, len(A), len(B), n_heads) if (A and B) else float("nan")})
    cols = ["model", "set_a", "set_b", "n_heads", "size_a", "size_b", "overlap", "expected_overlap",
            "overlap_ratio", "jaccard", "p_value"]
    return pd.DataFrame(rows, columns=cols)


# ------------------------------------------------------------------ S2
SOURCE_COLUMNS = ["source", "source_row"]


def gather_claims(paths) -> pd.DataFrame:
    """Concatenate claims files (columns icl_heads.claims.COLUMNS) in the order given, adding
    `source` (the file) and `source_row` (0-based row in it), which the provenance CLI follows."""
    parts = []
    for p in map(str, paths):
        df = _with_power_columns(pd.read_csv(p, dtype={"paper_value": str, "holds": str, "decides_as": str}))
        missing = [c for c in CLAIM_COLUMNS if c not in df.columns]
        if missing:
            raise ValueError(f"{p}: not a claims table, missing columns {', '.join(missing)} "
                             "(claims files are written with icl_heads.claims.COLUMNS)")
        df = df[CLAIM_COLUMNS].copy()
        df["source"], df["source_row"] = p, range(len(df))
        parts.append(df)
    if not parts:
        return pd.DataFrame(columns=CLAIM_COLUMNS + SOURCE_COLUMNS)
    out = pd.concat([d for d in parts if len(d)] or parts[:1], ignore_index=True)
    out["paper_value"] = out["paper_value"].fillna("")
    return out


def _with_power_columns(df: pd.DataFrame) -> pd.DataFrame:
    """A claims table read from a file written before the columns n_needed / decides_as existed
    gets them empty; decides_as is "" where empty."""
    if "n_needed" not in df.columns:
        df["n_needed"] = float("nan")
    df["decides_as"] = df["decides_as"].fillna("") if "decides_as" in df.columns else ""
    return df


def claims_summary(df: pd.DataFrame) -> pd.DataFrame:
    """Counts of verdicts per model and paper (for logs and captions)."""
    return df.groupby(["model", "paper", "holds"]).size().unstack("holds", fill_value=0).reset_index()


UNCLEAR_KINDS = ("n_needed <= 2n", "2n < n_needed <= 10n", "n_needed > 10n", "left out", "no estimate")
UNCLEAR_WAYS = ("would be yes", "would be no")


def unclear_summary(df: pd.DataFrame) -> pd.DataFrame:
    """Per model, of the rows that carry a verdict (role "claim"): how many, how many "unclear"
    and their share, and the unclear ones by what more observations would do, from `n_needed`
    (the n at which the row's interval would be expected to decide it) against the row's n:
    within reach at up to twice the n, at up to ten times, beyond that (an effect this small is
    close to none), left out (the dataset cannot test the claim on this model: its task is at
    floor, or a perturbation changed none of its prompts; the reason begins with
    claims.LEFT_OUT), or no estimate (the estimate is 0 and no negligible effect size is set, the
    interval is degenerate, or the test gives no power estimate); of those with an estimate, how
    many would be expected to be decided "yes" and how many "no" (`decides_as`: a
    non-replication at the observed effect rather than noise); and the unclear share of the
    rows that are not left out (`unclear_share_testable`)."""
    d = df[df["role"] == "claim"] if "role" in df.columns else df
    rows = []
    for model, g in d.groupby("model", sort=False):
        u = g[g["holds"] == "unclear"]
        need = pd.to_numeric(u["n_needed"], errors="coerce") if "n_needed" in u.columns else pd.Series(float("nan"), index=u.index)
        ratio = need / pd.to_numeric(u["n"], errors="coerce")
        left = u["verdict_reason"].fillna("").astype(str).str.startswith(LEFT_OUT) if "verdict_reason" in u.columns \
            else pd.Series(False, index=u.index)
        kinds = [ratio.le(2).sum(), (ratio.gt(2) & ratio.le(10)).sum(), ratio.gt(10).sum(), left.sum(),
                 (ratio.isna() & ~left).sum()]
        way = u["decides_as"].where(ratio.notna(), "") if "decides_as" in u.columns else pd.Series("", index=u.index)
        testable = len(g) - int(left.sum())
        rows.append({"model": model, "claims": len(g), "unclear": len(u),
                     "unclear_share": len(u) / len(g) if len(g) else float("nan"),
                     "unclear_share_testable": (len(u) - int(left.sum())) / testable if testable else float("nan"),
                     **{k: int(v) for k, v in zip(UNCLEAR_KINDS, kinds)},
                     **{k: int((way == w).sum()) for k, w in zip(UNCLEAR_WAYS, ("yes", "no"))}})
    return pd.DataFrame(rows, columns=["model", "claims", "unclear", "unclear_share", "unclear_share_testable",
                                       *UNCLEAR_KINDS, *UNCLEAR_WAYS])


def unclear_rows(df: pd.DataFrame) -> pd.DataFrame:
    """The unclear claim rows (role "claim"), each with its estimate, interval, n, n_needed, the
    ratio n_needed / n and the verdict it would reach (decides_as), nearest to a decision first
    (rows without an estimate last), for reading which rows more queries would decide."""
    d = df[(df["role"] == "claim") & (df["holds"] == "unclear")] if "role" in df.columns else df[df["holds"] == "unclear"]
    d = d.assign(ratio=pd.to_numeric(d["n_needed"], errors="coerce") / pd.to_numeric(d["n"], errors="coerce"))
    cols = ["model", "claim_id", "dataset", "metric_kind", "value", "ci_low", "ci_high", "n", "n_needed", "ratio",
            "decides_as"]
    return d.sort_values(["model", "ratio"], kind="stable", na_position="last")[cols].reset_index(drop=True)


if __name__ == "__main__":
    import argparse

    ap = argparse.ArgumentParser(description="Verdict counts of a claims table (results/claims.csv): per model and "
                                             "paper, and the unclear rows by what more observations would do.")
    ap.add_argument("claims", nargs="?", default="results/claims.csv")
    ap.add_argument("--rows", action="store_true", help="also list every unclear claim row, nearest to a decision first")
    a = ap.parse_args()
    table = _with_power_columns(pd.read_csv(a.claims, dtype={"holds": str, "paper_value": str, "decides_as": str}))
    with pd.option_context("display.width", 200, "display.max_columns", 20):
        print(claims_summary(table[table["role"] == "claim"]).to_string(index=False))
        print()
        print(unclear_summary(table).to_string(index=False, float_format=lambda x: f"{x:.1%}"))
        if a.rows:
            print()
            print(unclear_rows(table).to_string(index=False, float_format=lambda x: f"{x:.3g}"))
