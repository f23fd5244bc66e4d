"""Synthesis S1 (head map, overlaps of head sets) and S2 (claims table) with known answers,
and the provenance CLI following a gathered row to its source file."""
from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from icl_heads import claims as claims_mod
from icl_heads.io import write_csv
from icl_heads.provenance import Provenance, origins
from icl_heads.synthesis import (SETS, UNCLEAR_KINDS, UNCLEAR_WAYS, expected_overlap, gather_claims, head_map, ltv_key_set,
                                 mean_rank_percentile, overlap_p_value, pairwise_overlaps, top_by_mean_rank,
                                 unclear_rows, unclear_summary)

ROOT = Path(__file__).resolve().parent.parent

# 4 layers x 5 heads = 20 heads
A = {(0, 0), (0, 1), (1, 0), (1, 1)}
B = {(0, 0), (0, 1), (3, 4)}
C = {(2, 2)}


def test_expected_overlap_and_p_value_by_hand():
    assert expected_overlap(4, 3, 20) == pytest.approx(0.6)
    # X ~ hypergeometric(N=20, K=4, n=3): P(X=2) = C(4,2)C(16,1)/C(20,3), P(X=3) = C(4,3)/C(20,3)
    c = math.comb(20, 3)
    assert overlap_p_value(2, 4, 3, 20) == pytest.approx((6 * 16 + 4) / c)
    assert overlap_p_value(0, 4, 3, 20) == pytest.approx(1.0)
    assert overlap_p_value(3, 4, 3, 20) == pytest.approx(4 / c)


def test_pairwise_overlaps_of_hand_made_sets():
    ov = pairwise_overlaps({"TR": A, "TL": B, "IH": C, "FV": None, "LTV_key": set()}, 20, "toy")
    # FV is not computed: every pair with FV is left out; LTV_key is computed but empty
    assert list(zip(ov.set_a, ov.set_b)) == [("TR", "TL"), ("TR", "IH"), ("TR", "LTV_key"), ("TL", "IH"),
                                             ("TL", "LTV_key"), ("IH", "LTV_key")]
    r = ov.iloc[0]
    assert (r.model, r.n_heads, r.size_a, r.size_b, r.overlap) == ("toy", 20, 4, 3, 2)
    assert r.expected_overlap == pytest.approx(0.6)
    assert r.overlap_ratio == pytest.approx(2 / 0.6)
    assert r.jaccard == pytest.approx(2 / 5)
    assert r.p_value == pytest.approx(100 / math.comb(20, 3))
    r = ov.iloc[1]  # TR-IH: disjoint
    assert r.overlap == 0 and r.expected_overlap == pytest.approx(4 * 1 / 20) and r.p_value == pytest.approx(1.0)
    r = ov.iloc[2]  # with an empty set: overlap 0 expected 0, ratio and p undefined
    assert r.overlap == 0 and r.expected_overlap == 0 and math.isnan(r.overlap_ratio) and math.isnan(r.p_value)


def test_head_map_membership_and_missing_sets():
    hm = head_map(4, 5, {"TR": A, "TL": B, "IH": C, "FV": None, "LTV_key": None}, "toy")
    assert list(hm.columns) == ["model", "layer", "head"] + [f"in_{s}" for s in SETS] + ["n_sets"]
    assert len(hm) == 20 and hm[["layer", "head"]].drop_duplicates().shape[0] == 20
    row = hm[(hm.layer == 0) & (hm["head"] == 1)].iloc[0]
    assert bool(row.in_TR) and bool(row.in_TL) and not bool(row.in_IH) and row.n_sets == 2
    assert hm.in_FV.isna().all() and hm.in_LTV_key.isna().all()
    assert int(hm.in_TR.sum()) == 4 and int(hm.in_TL.sum()) == 3 and int(hm.in_IH.sum()) == 1
    assert int(hm.n_sets.sum()) == 4 + 3 + 1


def _scores(values, col="tr"):
    """A 2-layer x 2-head score table from values in (layer, head) order."""
    return pd.DataFrame({"layer": [0, 0, 1, 1], "head": [0, 1, 0, 1], col: values})


def test_top_sets_aggregate_ranks_not_raw_scores():
    # dataset 1 has a huge scale: by mean raw score head (0,0) would come first, by mean rank (1,1)
    d1 = _scores([100.0, 1.0, 2.0, 50.0])   # ranks: (0,0)=1, (1,1)=2, (1,0)=3, (0,1)=4
    d2 = _scores([0.1, 0.3, 0.2, 0.4])       # ranks: (1,1)=1, (0,1)=2, (1,0)=3, (0,0)=4
    agg = mean_rank_percentile([d1, d2], "tr").set_index(["layer", "head"]).pct
    assert agg[(1, 1)] == pytest.approx(100 * (2 + 1) / 2 / 4)
    assert agg[(0, 0)] == pytest.approx(100 * (1 + 4) / 2 / 4)
    assert agg[(0, 1)] == agg[(1, 0)] == pytest.approx(100 * 3 / 4)
    assert top_by_mean_rank([d1, d2], "tr", 25) == {(1, 1)}
    assert top_by_mean_rank([d1, d2], "tr", 50) == {(1, 1), (0, 0)}


def test_ltv_key_set_size_and_choice():
    rows = []
    for ds, sal, key in (("a", [0.9, 0.1, 0.5, 0.2], [1, 0, 1, 0]), ("b", [0.3, 0.1, 0.9, 0.2], [0, 0, 1, 0])):
        for (l, h), s, k in zip([(0, 0), (0, 1), (1, 0), (1, 1)], sal, key):
            rows.append({"model": "toy", "dataset": ds, "layer": l, "head": h, "saliency": s, "is_key": bool(k)})
    # on average 1.5 of 4 heads are key -> top 37.5% -> 2 heads; mean saliency ranks: (1,0) 1.5, (0,0) 2
    assert ltv_key_set(pd.DataFrame(rows)) == {(1, 0), (0, 0)}
    # the LTV rule's own aggregate (dataset "all") wins where it is there
    rows += [{"model": "toy", "dataset": "all", "layer": l, "head": h, "saliency": 0.0, "is_key": (l, h) == (1, 1)}
             for l, h in [(0, 0), (0, 1), (1, 0), (1, 1)]]
    assert ltv_key_set(pd.DataFrame(rows)) == {(1, 1)}


# ------------------------------------------------------------------ S2
def _claims_file(path, model, dataset, values, prov=None):
    rows = [claims_mod.row(artifact="T5", claim=f"claim {i}", model=model, dataset=dataset, metric="m",
                           value=v, ci=(v - 0.1, v + 0.1), direction="positive", n=10, seed=7, rule="r")
            for i, v in enumerate(values)]
    write_csv(pd.DataFrame(rows, columns=claims_mod.COLUMNS), path, prov)
    return path


def test_gather_claims_keeps_order_and_sources(tmp_path):
    f1 = _claims_file(tmp_path / "m1" / "T5" / "d.csv", "m1", "d", [0.5, -0.5])
    f2 = _claims_file(tmp_path / "m2" / "T5" / "d.csv", "m2", "d", [0.05])
    empty = tmp_path / "empty.csv"
    pd.DataFrame(columns=claims_mod.COLUMNS).to_csv(empty, index=False)
    df = gather_claims([f1, empty, f2])
    assert list(df.columns) == claims_mod.COLUMNS + ["source", "source_row"]
    assert list(df.model) == ["m1", "m1", "m2"]
    assert list(df.value) == [0.5, -0.5, 0.05]
    assert list(df.holds) == ["yes", "no", "unclear"]
    assert list(df.source) == [str(f1), str(f1), str(f2)] and list(df.source_row) == [0, 1, 0]
    assert list(df.paper_value) == ["", "", ""]
    assert gather_claims([]).empty


@pytest.mark.parametrize("dropped", [["n_needed", "decides_as"], ["decides_as"]])
def test_a_claims_file_from_before_n_needed_is_read_with_it_empty(tmp_path, dropped):
    f = _claims_file(tmp_path / "old.csv", "m1", "d", [0.5])
    pd.read_csv(f).drop(columns=dropped).to_csv(f, index=False)
    df = gather_claims([f])
    assert list(df.columns) == claims_mod.COLUMNS + ["source", "source_row"] and df.n_needed.isna().all()
    assert list(df.decides_as) == [""]


def test_unclear_summary_sorts_unclear_claim_rows_by_the_n_they_need():
    """Hand-made rows at n 10: unclear ones needing 15 (within 2n), 20 (2n, still within),
    50 (within 10n), 500 (beyond) and none; a decided row and an unclear companion do not count.
    Of the four with an estimate, three would be decided "yes" and one "no". One more unclear row
    is left out (its reason begins with claims.LEFT_OUT, as Claims(excluded=...) writes it): it
    counts as unclear, but not among the testable rows."""
    def r(holds, need, role="claim", model="m", way="", reason=""):
        return {**claims_mod.row(artifact="T5", claim="c", model=model, dataset="d", metric="m", value=0.0,
                                 ci=(-1, 1), n=10, holds=holds, role=role, verdict_reason=reason),
                "n_needed": need, "decides_as": way}
    nan = float("nan")
    excluded = claims_mod.Claims(claims_mod.rule_claims("tsla_steering"), model="m", dataset="d",
                                 rule="tsla_steering", excluded=claims_mod.floor_text(0.0, 0.0))
    (left_row,) = [x for x in excluded.judge("T7.tr_vector_raises_accuracy",
                                             {"accuracy": {"tr": np.ones(12), "zs": np.zeros(12)}})
                   if x["role"] == "claim"]
    left_reason = left_row["verdict_reason"]
    rows = [r("unclear", 15, way="yes"), r("unclear", 20, way="no"), r("unclear", 50, way="yes"),
            r("unclear", 500, way="yes"), r("unclear", nan), r("yes", nan), r("unclear", 15, role="companion", way="no"),
            r("no", nan, model="m2"), r("unclear", nan, reason=left_reason)]
    got = unclear_summary(pd.DataFrame(rows, columns=claims_mod.COLUMNS)).set_index("model")
    assert got.loc["m", "claims"] == 7 and got.loc["m", "unclear"] == 6
    assert got.loc["m", "unclear_share"] == pytest.approx(6 / 7)
    assert got.loc["m", "unclear_share_testable"] == pytest.approx(5 / 6)
    assert [got.loc["m", k] for k in UNCLEAR_KINDS] == [2, 1, 1, 1, 1]
    assert [got.loc["m", k] for k in UNCLEAR_WAYS] == [3, 1]
    listed = unclear_rows(pd.DataFrame(rows, columns=claims_mod.COLUMNS))
    assert list(listed.n_needed.fillna(-1)) == [15, 20, 50, 500, -1, -1]   # nearest first, companions and m2 out
    assert list(listed.ratio.fillna(-1)) == [1.5, 2, 5, 50, -1, -1]
    assert list(listed.decides_as) == ["yes", "no", "yes", "yes", "", ""]
    assert got.loc["m2", "unclear"] == 0 and got.loc["m2", "unclear_share"] == 0


def test_gather_claims_rejects_a_non_claims_table(tmp_path):
    bad = tmp_path / "bad.csv"
    pd.DataFrame({"model": ["m"], "value": [1]}).to_csv(bad, index=False)
    with pytest.raises(ValueError, match="bad.csv.*missing columns paper, artifact"):
        gather_claims([bad])


def test_provenance_cli_follows_a_gathered_row_to_its_source(tmp_path):
    """results/claims.csv row -> its claims file -> the model file and data hashes, and only that file."""
    raw = tmp_path / "data.txt"
    raw.write_text("queries\n")
    model = {"name": "toy", "source_file": "toy.gguf", "source_sha256": "ab" * 32}
    data = {"name": "d", "source": "builtin", "files": {"builtin:d": "cd" * 32}}
    f1 = _claims_file(tmp_path / "c1.csv", "m1", "d", [0.5],
                      Provenance("rule_one", inputs=[raw], model=model, data=data, seed=1))
    f2 = _claims_file(tmp_path / "c2.csv", "m2", "d", [0.25, 0.75],
                      Provenance("rule_two", inputs=[raw], model={**model, "source_sha256": "ef" * 32},
                                 data=data, seed=2))
    gathered = tmp_path / "claims.csv"
    write_csv(gather_claims([f1, f2]), gathered, Provenance("synthesis_claims", inputs=[f1, f2]))

    r = subprocess.run([sys.executable, "-m", "icl_heads.provenance", str(gathered), "--row", "2", "--col", "value"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert f"cell [2, value] of {gathered} = 0.75" in out
    assert f"row 2 was copied from {f2} row 1" in out
    assert f"cell [1, value] of {f2} = 0.75" in out
    assert "rule: synthesis_claims" in out and "rule: rule_two" in out
    assert "ef" * 32 in out and "cd" * 32 in out and f"- {raw} [raw input]" in out
    assert "rule: rule_one" not in out  # the other source is listed with its hash, not traced
    assert f"input {f1} sha256" in out

    assert set(origins(gathered)["rules"]) == {"synthesis_claims", "rule_one", "rule_two"}
    o = origins(f2)
    assert o["models"] == {"toy: toy.gguf": "ef" * 32} and o["data"] == {"builtin:d": "cd" * 32}
    assert o["rules"] == ["rule_two"]


def test_provenance_cli_rejects_a_source_that_is_not_an_input(tmp_path):
    f1 = _claims_file(tmp_path / "c1.csv", "m1", "d", [0.5], Provenance("r"))
    df = gather_claims([f1])
    df["source"] = str(tmp_path / "elsewhere.csv")
    gathered = tmp_path / "claims.csv"
    write_csv(df, gathered, Provenance("synthesis_claims", inputs=[f1]))
    r = subprocess.run([sys.executable, "-m", "icl_heads.provenance", str(gathered), "--row", "0", "--col", "value"],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode != 0 and "not an input" in r.stderr


# ------------------------------------------------------------------ figures
def test_figures_draw(tmp_path):
    from icl_heads.io import save_figure
    from icl_heads.plotting import claims_forest
    from icl_heads.plotting import head_map as plot_head_map

    hm = head_map(4, 5, {"TR": A, "TL": B, "IH": C, "FV": set(), "LTV_key": None}, "toy")
    save_figure(plot_head_map(hm, "toy"), [tmp_path / "s1.png"])
    f1 = _claims_file(tmp_path / "c1.csv", "m1", "d", [0.5, -0.5])
    f2 = _claims_file(tmp_path / "c2.csv", "m2", "d", [0.05, float("nan")])
    save_figure(claims_forest(gather_claims([f1, f2]), "claims"), [tmp_path / "s2.png"])
    for name in ("s1.png", "s2.png"):
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# ------------------------------------------------------------------ the rules
def test_claims_inputs_of_the_default_config():
    """rules/common.smk CLAIMS_FILES: the S2 rule's inputs are every paper's claims files, per model."""
    import yaml

    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--forceall", "--cores", "1", "results/claims.csv"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    block = proc.stdout[proc.stdout.index("rule synthesis_claims:"):]
    inputs = block.split("input:", 1)[1].splitlines()[0].strip().split(", ")
    expected = []
    for m in cfg["run_models"]:
        expected.append(f"results/{m}/claims/T2/all.csv")
        expected += [f"results/{m}/claims/{a}/{d}.csv" for a in ("T5", "T6", "T7", "T8")
                     for d in cfg["classification_datasets"]]
        expected.append(f"results/{m}/claims/Y3/all.csv")
    assert set(expected) <= set(inputs)
    assert len(inputs) == len(set(inputs))
    # grouped by model, in run_models order
    first = [next(i for i, p in enumerate(inputs) if p.startswith(f"results/{m}/")) for m in cfg["run_models"]]
    assert first == sorted(first)
