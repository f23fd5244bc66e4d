"""The claims registry and its verdicts (icl_heads.claims, config/claims.yaml) on constructed
arrays whose answers are known independently: computed by hand here, with the closed-form
normal distribution of the standard library instead of scipy."""
from __future__ import annotations

import math
import re
from pathlib import Path
from statistics import NormalDist

import numpy as np
import pytest
import torch
import yaml

from icl_heads import claims
from icl_heads.errors import ConfigError
from icl_heads.model import Eval, evaluate
from icl_heads.prompts import Prompt
from icl_heads.stats import n_for_equivalence, n_for_nonequivalence, overlap_test, tost

ROOT = Path(__file__).resolve().parent.parent
REG = claims.load_registry()
CTX = {"model": "toy", "dataset": "d", "rule": "r", "seed": 3}
Z95 = NormalDist().inv_cdf(0.95)   # one-sided 5%: the 90% CI of TOST


def _judge(cid, arrays, **kw):
    return claims.judge(REG[cid], arrays, **{**CTX, **kw})


# ------------------------------------------------------------------ the registry
def test_registry_loads_with_defaults_and_closed_vocabularies():
    assert len(REG) >= 40
    for cid, e in REG.items():
        assert e["id"] == cid and cid.startswith(e["artifact"] + ".")
        assert e["test"] in claims.TESTS and e["metric"] in claims.METRICS
        assert e["level"] == 0.95 and e["alpha"] == 0.05 and e["min_n"] == 10 and e["n_boot"] == 1000
        assert ("direction" in e) != (e["test"] in ("tost", "hypergeometric_overlap"))
        assert e["paper"] in ("TSLA", "LTV", "Yin & Steinhardt") and e["claim"]
    # the rows the audit named: the TR vector's TR ratio is a claim; the equivalence claims use TOST
    assert REG["T7.tr_vector_raises_tr_ratio"]["metric"] == "tr_ratio"
    assert REG["T5.random_ablation_harmless"]["test"] == REG["Y5.excl_ih_as_random"]["test"] == "tost"
    assert REG["Y3.ih_fv_distinct"]["test"] == "hypergeometric_overlap"
    # every row has a reported value now (the two T5 random-head rows had none)
    assert all(e["paper_value"] for e in REG.values())


def test_rule_claims_are_the_entries_naming_the_rule():
    t5 = claims.rule_claims("tsla_ablation")
    assert set(t5) == {cid for cid, e in REG.items() if e["rule"] == "tsla_ablation"}
    assert t5 and all(cid.startswith("T5.") for cid in t5)
    assert claims.rule_claims("no_such_rule") == {}


def _raw():
    return yaml.safe_load(claims.REGISTRY_PATH.read_text())


@pytest.mark.parametrize(("edit", "message"), [
    (lambda e: e.update(test="t_test"), "test 't_test'"),
    (lambda e: e.pop("direction"), "needs `direction`"),
    (lambda e: e.update(metric="acuracy"), "metric 'acuracy'"),
    (lambda e: e.update(colour="red"), "unknown keys"),
    (lambda e: e.update(contrast={"tr": 0}), "needs `contrast`"),
    (lambda e: e.update(contrast={"acuracy:tr": 1, "zs": -1}), "contrast term"),
    (lambda e: e.update(test="tost"), "takes a `margin`"),
])
def test_registry_rejects_a_bad_entry_naming_it(edit, message):
    raw = _raw()
    edit(raw["claims"]["T7.tr_vector_raises_accuracy"])
    with pytest.raises(ConfigError, match=re.escape(message)) as e:
        claims.validate_registry(raw, "claims.yaml")
    assert "T7.tr_vector_raises_accuracy" in str(e.value)


def test_registry_rejects_a_tost_margin_that_misses_the_floor_partner():
    raw = _raw()
    raw["claims"]["T5.random_ablation_harmless"]["margin"] = {"accuracy": 0.05, "tr_ratio": 0.05}
    with pytest.raises(ConfigError, match="logp_answer"):
        claims.validate_registry(raw)


def _rule_scripts() -> dict[str, str]:
    """rule name -> the script it runs, from rules/*.smk."""
    out = {}
    for smk in (ROOT / "rules").glob("*.smk"):
        for name, body in re.findall(r"^rule (\w+):\n(.*?)(?=^rule |\Z)", smk.read_text(), re.M | re.S):
            m = re.search(r'script:\s*\n\s*"\.\./workflow_scripts/(\w+)\.py"', body)
            if m:
                out[name] = m.group(1)
    return out


def test_every_claim_id_a_script_names_is_registered_and_every_entry_is_used_by_its_rule():
    ids = re.compile(r'"((?:T|L|Y|F|S)\d+\.[a-z0-9_]+)"')
    used = {}
    for script in (ROOT / "workflow_scripts").glob("*.py"):
        text = script.read_text()
        for cid in ids.findall(text):
            used.setdefault(cid, set()).add(script.stem)
        # verdicts are decided in icl_heads.claims only
        assert "claims.row(" not in text and '["holds"]' not in text, script.name
    assert set(used) - set(REG) == set(), "claim ids named by a script but not in config/claims.yaml"
    assert set(REG) - set(used) == set(), "registry entries no script writes"
    scripts = _rule_scripts()
    for cid, e in REG.items():
        assert used[cid] == {scripts[e["rule"]]}, f"{cid}: written by {used[cid]}, registry says rule {e['rule']}"


def test_every_claims_rule_gets_its_entries_as_a_param():
    for smk in (ROOT / "rules").glob("*.smk"):
        for name, body in re.findall(r"^rule (\w+):\n(.*?)(?=^rule |\Z)", smk.read_text(), re.M | re.S):
            if 'claims="results/{model}/claims/' in body:
                assert f'claims=rule_claims("{name}")' in body, f"rule {name} writes claims without its registry entries"
    assert {e["rule"] for e in REG.values()} <= set(_rule_scripts())


# ------------------------------------------------------------------ effect claims
def test_a_clear_positive_effect_is_yes_with_the_mean_difference():
    n = 40
    zs = np.zeros(n)
    tr = np.r_[np.ones(30), np.zeros(10)]
    rows = _judge("T7.tr_vector_raises_accuracy", {"accuracy": {"tr": tr, "zs": zs}})
    assert len(rows) == 1   # no log p(answer) supplied: no companion row
    r = rows[0]
    assert r["value"] == pytest.approx(0.75) and r["holds"] == "yes" and r["n"] == n
    assert r["metric_kind"] == "accuracy" and r["role"] == "claim" and r["claim_id"] == "T7.tr_vector_raises_accuracy"
    assert r["metric"] == "acc[TR vector] - acc[zero-shot]"
    assert r["ci_low"] > 0 and "CI lies above 0" in r["verdict_reason"]
    assert set(r) == set(claims.COLUMNS) and r["holds"] in claims.VERDICTS


def test_an_effect_in_the_opposite_direction_is_no_and_a_touching_ci_is_not():
    n = 40
    a, b = np.r_[np.ones(30), np.zeros(10)], np.zeros(n)
    assert _judge("T7.tr_vector_raises_accuracy", {"accuracy": {"tr": b, "zs": a}})[0]["holds"] == "no"
    assert claims.verdict(-0.19, 0.0, "positive") == "unclear"   # was "no"
    assert claims.verdict(0.0, 0.0, "positive") == "unclear"     # a degenerate CI decides nothing
    assert claims.verdict(-0.03, 0.04, "positive") == "unclear"
    assert claims.verdict(-0.03, 0.04, "positive", negligible=0.05) == "no"
    assert claims.verdict(-0.3, -0.1, "negative") == "yes" and claims.verdict(0.1, 0.3, "negative") == "no"


def test_an_unclear_reason_says_which_way_the_estimate_points():
    """Per-query differences +1 and -1 in equal numbers: mean exactly 0, a CI straddling 0, and
    the reason says the estimate is 0 (not that it points the other way); with more -1 than +1
    it does point the other way. On a metric without a negligible effect size (alignment) an
    estimate of 0 names no n."""
    tr, zs = np.tile([1.0, 0.0], 20), np.tile([0.0, 1.0], 20)
    r = _judge("T7.tr_vector_raises_accuracy", {"accuracy": {"tr": tr, "zs": zs}})[0]
    assert r["value"] == 0 and r["holds"] == "unclear" and r["ci_low"] < 0 < r["ci_high"]
    assert "; the estimate is 0" in r["verdict_reason"] and "other way" not in r["verdict_reason"]
    tr[0] = 0.0   # one +1 difference becomes 0: mean -1/40
    r = _judge("T7.tr_vector_raises_accuracy", {"accuracy": {"tr": tr, "zs": zs}})[0]
    assert r["value"] == pytest.approx(-1 / 40) and r["holds"] == "unclear"
    assert "; the estimate points the other way" in r["verdict_reason"]
    a, b = np.tile([1.0, 0.0], 20), np.tile([0.0, 1.0], 20)
    r = _judge("T8.tr_alignment_beats_tl", {"subspace_alignment": {"tr": a, "tl": b}})[0]
    assert r["value"] == 0 and r["holds"] == "unclear" and r["verdict_reason"].endswith("; the estimate is 0")
    assert math.isnan(r["n_needed"]) and r["decides_as"] == ""


def test_an_unclear_row_names_the_n_at_which_it_would_be_decided_no():
    """Accuracy has a negligible effect size of 0.05: an estimate of 0, or one pointing the other
    way, would be decided "no" once the CI's upper end falls below 0.05, i.e. at
    N = ceil((z_0.975 sd / (0.05 - d))^2), by hand; on alignment (no negligible effect) an
    estimate pointing the other way is decided "no" once the CI lies below 0, N = ceil((z sd / |d|)^2).
    A small positive estimate (d = 0.02 < 0.05 / 2) reaches the negligible bound before 0."""
    z = NormalDist().inv_cdf(0.975)

    def need(diff, gap):
        sd = math.sqrt(((diff - diff.mean()) ** 2).sum() / (diff.size - 1))
        return math.ceil((z * sd / gap) ** 2)

    tr, zs = np.tile([1.0, 0.0], 20), np.tile([0.0, 1.0], 20)
    r = _judge("T7.tr_vector_raises_accuracy", {"accuracy": {"tr": tr, "zs": zs}})[0]
    assert r["n_needed"] == need(tr - zs, 0.05) and r["decides_as"] == "no"
    assert f"needs n of about {r['n_needed']} at the observed effect and sd, where it would be expected to decide 'no'" \
        in r["verdict_reason"]
    tr[0] = 0.0   # d = -1/40: the negligible bound is 0.075 away, 0 only 0.025
    r = _judge("T7.tr_vector_raises_accuracy", {"accuracy": {"tr": tr, "zs": zs}})[0]
    assert r["n_needed"] == need(tr - zs, 0.05 + 1 / 40) and r["decides_as"] == "no"
    a, b = tr.copy(), zs.copy()
    r = _judge("T8.tr_alignment_beats_tl", {"subspace_alignment": {"tr": a, "tl": b}})[0]
    assert r["holds"] == "unclear" and r["n_needed"] == need(a - b, 1 / 40) and r["decides_as"] == "no"
    # d = 0.02: 2 more gains than losses among 100 queries, 40 changed
    tr = np.r_[np.ones(21), np.zeros(19), np.zeros(60)]
    zs = np.r_[np.zeros(21), np.ones(19), np.zeros(60)]
    r = _judge("T7.tr_vector_raises_accuracy", {"accuracy": {"tr": tr, "zs": zs}})[0]
    assert r["value"] == pytest.approx(0.02) and r["holds"] == "unclear"
    assert r["n_needed"] == need(tr - zs, 0.03) and r["decides_as"] == "no"


def test_an_unclear_effect_names_the_n_its_interval_would_need():
    """40 queries, 12 gained and 8 lost (+1 / -1 per query, 20 unchanged): d = 0.1, sd by hand;
    the 95% CI would exclude 0 from N = ceil((z_0.975 sd / d)^2), the number in the reason and in
    n_needed; a decided row has none."""
    tr = np.r_[np.ones(12), np.zeros(8), np.zeros(20)]
    zs = np.r_[np.zeros(12), np.ones(8), np.zeros(20)]
    diff = tr - zs
    sd = math.sqrt(((diff - 0.1) ** 2).sum() / 39)
    need = math.ceil((NormalDist().inv_cdf(0.975) * sd / 0.1) ** 2)
    r = _judge("T7.tr_vector_raises_accuracy", {"accuracy": {"tr": tr, "zs": zs}})[0]
    assert r["value"] == pytest.approx(0.1) and r["holds"] == "unclear"
    assert r["n_needed"] == need and f"needs n of about {need} at the observed effect" in r["verdict_reason"]
    assert r["decides_as"] == "yes"   # d = 0.1 lies further from 0.05 than from 0: "yes" comes first
    decided = _judge("T7.tr_vector_raises_accuracy", {"accuracy": {"tr": np.ones(40), "zs": np.zeros(40)}})[0]
    assert decided["holds"] == "yes" and math.isnan(decided["n_needed"]) and decided["decides_as"] == ""


def test_a_negligible_effect_is_no_on_accuracy():
    """CI wholly below the registry's 0.05 of accuracy: the data exclude the claimed effect."""
    rng = np.random.default_rng(0)
    base = (rng.random(4000) < 0.5).astype(float)
    tr = base.copy()
    flip = rng.choice(4000, 40, replace=False)
    tr[flip] = 1 - tr[flip]
    r = _judge("T7.tr_vector_raises_accuracy", {"accuracy": {"tr": tr, "zs": base}})[0]
    assert r["ci_high"] < 0.05 and r["holds"] == "no" and "excludes an effect of 0.05" in r["verdict_reason"]


def test_a_real_but_negligible_effect_is_no_not_yes():
    """A CI strictly above 0 but wholly below the negligible effect (0.05 of accuracy): the effect is
    real and too small to replicate the claim, so "no" (the same verdict a CI straddling 0 below
    0.05 gets); the verdict no longer flips from "no" to "yes" as the CI moves off 0. Constructed:
    4000 queries, 120 gained and 0 lost, d = 0.03 with a CI about +-0.005 around it."""
    assert claims.verdict(0.01, 0.04, "positive", negligible=0.05) == "no"
    assert claims.verdict(-0.04, -0.01, "negative", negligible=0.05) == "no"
    assert claims.verdict(0.01, 0.06, "positive", negligible=0.05) == "yes"   # reaches 0.05: may be large
    assert claims.verdict(0.01, 0.04, "positive") == "yes"                    # no negligible effect size
    zs = np.zeros(4000)
    tr = zs.copy()
    tr[:120] = 1.0
    r = _judge("T7.tr_vector_raises_accuracy", {"accuracy": {"tr": tr, "zs": zs}})[0]
    assert 0 < r["ci_low"] and r["ci_high"] < 0.05 and r["value"] == pytest.approx(0.03)
    assert r["holds"] == "no" and "a real but negligible effect" in r["verdict_reason"]


def test_a_positive_estimate_below_half_the_negligible_effect_decides_no():
    """d in (0, g / 2): where the CI would first clear 0 it is [0, 2d], wholly below g, so the row
    is expected to decide "no" at N = ceil((z sd / (g - d))^2); d in [g / 2, g) decides "yes" at
    N = ceil((z sd / d)^2) first. Checked on _to_decide with n_at(t) = (1 / t)^2."""
    n_at = lambda t: (1 / t) ** 2   # noqa: E731
    need, way = claims._to_decide(0.02, 0.05, n_at)
    assert way == "no" and need == pytest.approx(n_at(0.03))
    need, way = claims._to_decide(0.03, 0.05, n_at)
    assert way == "yes" and need == pytest.approx(n_at(0.03))
    need, way = claims._to_decide(0.02, None, n_at)
    assert way == "yes" and need == pytest.approx(n_at(0.02))


def test_paper_effect_sets_a_tenth_of_it_as_the_negligible_effect():
    """T8: the paper's logit difference rises 3.92 -> 5.28 (paper_effect 1.36): an added TL output
    whose effect the data bound below 0.136 does not replicate it ("no"); one whose CI reaches
    0.136 stays unclear. Metrics the default names keep their default."""
    e = REG["T8.tl_raises_logit_difference"]
    assert e["paper_effect"] == 1.36 and e["negligible"]["logit_difference"] == pytest.approx(0.136)
    assert e["negligible"]["accuracy"] == 0.05 and "logit_difference" not in REG["T5.tr_ablation_beats_random"]["negligible"]
    rng = np.random.default_rng(3)
    before = rng.normal(2.0, 1.0, 400)
    tight = _judge("T8.tl_raises_logit_difference", {"logit_difference": {"tl": before + rng.normal(0.0, 0.2, 400), "before": before}})[0]
    assert tight["ci_low"] < 0 < tight["ci_high"] < 0.136 and tight["holds"] == "no"
    assert "excludes an effect of 0.136" in tight["verdict_reason"]
    wide = _judge("T8.tl_raises_logit_difference", {"logit_difference": {"tl": before + rng.normal(0.0, 2.0, 400), "before": before}})[0]
    assert wide["ci_low"] < 0 and wide["ci_high"] > 0.136 and wide["holds"] == "unclear"


@pytest.mark.parametrize("value", [0, -1.36, "large", True])
def test_registry_rejects_a_paper_effect_that_is_not_a_positive_number(value):
    raw = _raw()
    raw["claims"]["T8.tl_raises_logit_difference"]["paper_effect"] = value
    with pytest.raises(ConfigError, match="paper_effect"):
        claims.validate_registry(raw)


def test_registry_share_of_paper_and_an_explicit_negligible():
    raw = _raw()
    raw["defaults"]["negligible_share_of_paper"] = 0.25
    assert claims.validate_registry(raw)["T8.tl_raises_logit_difference"]["negligible"]["logit_difference"] == pytest.approx(0.34)
    raw["claims"]["T8.tl_raises_logit_difference"]["negligible"] = {"logit_difference": 0.5}
    assert claims.validate_registry(raw)["T8.tl_raises_logit_difference"]["negligible"] == {"logit_difference": 0.5}
    raw["defaults"]["negligible_share_of_paper"] = 1.5
    with pytest.raises(ConfigError, match="negligible_share_of_paper"):
        claims.validate_registry(raw)


def test_too_few_queries_is_unclear_whatever_the_ci():
    r = _judge("T7.tr_vector_raises_accuracy", {"accuracy": {"tr": np.ones(6), "zs": np.zeros(6)}})[0]
    assert (r["ci_low"], r["ci_high"]) == (1.0, 1.0) and r["holds"] == "unclear"
    assert "n = 6 is below the minimum of 10" in r["verdict_reason"]
    one = _judge("T7.tr_vector_raises_accuracy", {"accuracy": {"tr": np.zeros(1), "zs": np.ones(1)}})[0]
    assert one["holds"] == "unclear"     # one query is never "no"


def test_an_accuracy_floor_is_judged_on_log_p_answer_and_labelled():
    n = 32
    rng = np.random.default_rng(1)
    zero = np.zeros(n)
    lp_zs = np.log(1e-6) + rng.normal(0, 0.3, n)
    lp_tr = lp_zs + np.log(100.0) + rng.normal(0, 0.3, n)     # p(answer) x100, accuracy still 0
    rows = _judge("T7.tr_vector_raises_accuracy",
                  {"accuracy": {"tr": zero, "zs": zero}, "logp_answer": {"tr": lp_tr, "zs": lp_zs}})
    assert len(rows) == 1    # the companion log p(answer) is the row itself
    r = rows[0]
    assert r["metric_kind"] == "logp_answer" and r["metric"] == "log p(answer)[TR vector] - log p(answer)[zero-shot]"
    assert r["value"] == pytest.approx(float(np.mean(lp_tr - lp_zs)))
    assert r["holds"] == "yes"
    assert r["verdict_reason"].startswith("floor rule: accuracy is 0 in every compared condition (floor); "
                                          "judged on log p(answer)")
    # the same floor without log p(answer): undecided, never "no"
    r = _judge("T7.tr_vector_raises_accuracy", {"accuracy": {"tr": zero, "zs": zero}})[0]
    assert (r["ci_low"], r["ci_high"]) == (0.0, 0.0) and r["holds"] == "unclear" and r["metric_kind"] == "accuracy"
    assert "no continuous partner" in r["verdict_reason"]


def test_a_tr_ratio_ceiling_is_judged_on_the_label_set_mass():
    n = 30
    ones = np.ones(n)
    rng = np.random.default_rng(2)
    ls_tl = np.log(0.9) + rng.normal(0, 0.01, n)
    ls_tr = np.log(0.3) + rng.normal(0, 0.01, n)
    r = _judge("T5.tr_ablation_lowers_tr_ratio",
               {"tr_ratio": {"tr": ones, "tl": ones}, "logp_label_set": {"tr": ls_tr, "tl": ls_tl}})[0]
    assert r["metric_kind"] == "logp_label_set" and r["holds"] == "yes" and "ceiling" in r["verdict_reason"]


def test_companions_report_the_same_contrast_on_other_metrics():
    rng = np.random.default_rng(3)
    n = 50
    tr, rnd = (rng.random(n) < 0.2).astype(float), (rng.random(n) < 0.8).astype(float)
    arrays = claims.eval_arrays({"tr": Eval(torch.tensor(tr), torch.ones(n), None, None, torch.tensor(tr - 3), None),
                                 "rnd": Eval(torch.tensor(rnd), torch.ones(n), None, None, torch.tensor(rnd - 3), None)})
    rows = _judge("T5.tr_ablation_beats_random", arrays)
    assert [(r["role"], r["metric_kind"]) for r in rows] == [("claim", "accuracy"), ("companion", "logp_answer"),
                                                            ("companion", "tr_ratio")]
    assert rows[1]["value"] == pytest.approx(rows[0]["value"])   # log p = accuracy - 3 here
    assert rows[2]["value"] == 0 and rows[2]["holds"] == "unclear"  # TR ratio 1 everywhere: degenerate, not "no"


def test_a_mixed_metric_contrast_switches_every_term_at_a_floor():
    n = 20
    zero = np.zeros(n)
    rng = np.random.default_rng(4)
    lp = {"tl": -5 + rng.normal(0, 0.1, n), "base": -4 + rng.normal(0, 0.1, n)}
    ls = {"tl": -1 + rng.normal(0, 0.1, n), "base": -1 + rng.normal(0, 0.1, n)}
    r = _judge("T5.tl_ablation_hits_accuracy_not_tr_ratio",
               {"accuracy": {"tl": zero, "base": zero}, "tr_ratio": {"tl": zero, "base": zero},
                "logp_answer": lp, "logp_label_set": ls})[0]
    by_hand = np.mean(lp["tl"] - lp["base"] - ls["tl"] + ls["base"])
    assert r["value"] == pytest.approx(by_hand) and r["holds"] == "yes"
    assert r["metric"] == ("log p(answer)[w/o TL] - log p(answer)[ICL] - log p(label set)[w/o TL] "
                           "+ log p(label set)[ICL]")


def test_paired_queries_with_nan_are_dropped():
    a, b = np.r_[np.ones(20), np.nan], np.r_[np.zeros(20), 1.0]
    r = _judge("T7.tr_vector_raises_accuracy", {"accuracy": {"tr": a, "zs": b}})[0]
    assert r["n"] == 20 and r["value"] == 1.0


def test_missing_arrays_name_the_claim():
    with pytest.raises(ConfigError, match="T7.tr_vector_raises_accuracy.*accuracy:zs"):
        _judge("T7.tr_vector_raises_accuracy", {"accuracy": {"tr": np.ones(12)}})
    jobs = claims.Claims(claims.rule_claims("tsla_steering"), **CTX)
    assert jobs.judge("T7.tr_vector_raises_accuracy", {"accuracy": {"tr": np.ones(12)}}, missing="skip") == []
    with pytest.raises(ConfigError, match="not among the registry entries"):
        jobs.judge("T5.random_ablation_harmless", {})


def test_a_task_at_floor_is_flagged_and_its_claims_are_left_out_with_the_reason():
    # at floor: no query right (floor 0), or at most the configured share; nan (no answer) ignored
    assert claims.at_floor(np.zeros(16)) and claims.at_floor([0, 0, np.nan])
    assert not claims.at_floor(np.r_[np.zeros(15), 1.0])
    assert claims.at_floor(np.r_[np.zeros(15), 1.0], floor=1 / 16) and not claims.at_floor([], 0.5)
    # a clear effect (every query 1 vs 0): "yes" from the data, left out all the same
    arrays = {"accuracy": {"tr": np.ones(12), "zs": np.zeros(12)}}
    kept = claims.Claims(claims.rule_claims("tsla_steering"), **CTX, note="left out: antonym 0")
    out = claims.Claims(claims.rule_claims("tsla_steering"), **CTX, excluded=claims.floor_text(0.0, 0.0))
    (r_kept,) = [r for r in kept.judge("T7.tr_vector_raises_accuracy", arrays) if r["role"] == "claim"]
    (r_out,) = [r for r in out.judge("T7.tr_vector_raises_accuracy", arrays) if r["role"] == "claim"]
    assert r_kept["holds"] == "yes" and r_kept["verdict_reason"].endswith("; left out: antonym 0")
    assert r_out["holds"] == "unclear" and r_out["value"] == r_kept["value"] == 1.0
    assert r_out["verdict_reason"].startswith("left out: clean n-shot accuracy 0 is at floor")
    assert "the data alone: yes" in r_out["verdict_reason"]
    # data that alone would ask for more queries: left out, no n is named as needed
    weak = {"accuracy": {"tr": np.r_[np.ones(12), np.zeros(28)], "zs": np.r_[np.zeros(12), np.ones(8), np.zeros(20)]}}
    assert math.isfinite(_judge("T7.tr_vector_raises_accuracy", weak)[0]["n_needed"])
    out = claims.Claims(claims.rule_claims("tsla_steering"), **CTX, excluded=claims.floor_text(0.0, 0.0))
    (r_out,) = [r for r in out.judge("T7.tr_vector_raises_accuracy", weak) if r["role"] == "claim"]
    assert r_out["holds"] == "unclear" and math.isnan(r_out["n_needed"]) and "needs n of about" in r_out["verdict_reason"]


# ------------------------------------------------------------------ equivalence (TOST)
def test_tost_matches_the_closed_form_normal_case():
    """At n = 100,000 the t distribution is the normal one: p_low = 1 - Phi((d + m) / se),
    p_high = Phi((d - m) / se), and the 90% CI is d +- z_0.95 se."""
    n, d, s, m = 100_000, 0.01, 3.0, 0.02
    rng = np.random.default_rng(5)
    x = rng.normal(size=n)
    x = d + s * (x - x.mean()) / x.std(ddof=1)   # mean d and sd s exactly
    t = tost(x, m)
    se = s / math.sqrt(n)
    assert t["estimate"] == pytest.approx(d) and t["sd"] == pytest.approx(s) and t["se"] == pytest.approx(se)
    assert t["p_low"] == pytest.approx(1 - NormalDist().cdf((d + m) / se), abs=1e-4)
    assert t["p_high"] == pytest.approx(NormalDist().cdf((d - m) / se), abs=1e-4)
    assert t["p"] == max(t["p_low"], t["p_high"])
    assert t["ci"] == pytest.approx((d - Z95 * se, d + Z95 * se), abs=1e-4)


@pytest.mark.parametrize("shift", [0.0, 0.02, 0.04, 0.06, -0.05])
def test_tost_equivalence_is_the_90_percent_ci_inside_the_margin(shift):
    rng = np.random.default_rng(6)
    x = rng.normal(shift, 0.1, 40)
    t = tost(x, 0.05)
    assert (t["p"] < 0.05) == (-0.05 < t["ci"][0] and t["ci"][1] < 0.05)


def test_a_small_n_equivalence_is_undecided_and_names_the_n_it_needs():
    """30 queries; one prediction gained and one lost by random ablation: the change is 0 with
    sd sqrt(2/29); the 90% CI fits inside +-0.05 from N = ceil((z_0.95 sd / 0.05)^2)."""
    base, rnd = np.zeros(30), np.zeros(30)
    base[1], rnd[0] = 1, 1
    sd = math.sqrt(2 / 29)
    need = math.ceil((Z95 * sd / 0.05) ** 2)
    assert need == 75
    assert n_for_equivalence(sd, 0.0, 0.05) == need
    r = _judge("T5.random_ablation_harmless", {"accuracy": {"rnd": rnd, "base": base}})[0]
    assert r["holds"] == "unclear" and r["value"] == 0
    assert f"undecided: needs n of about {need}" in r["verdict_reason"] and r["n_needed"] == need
    half = NormalDist().inv_cdf(0.95) * sd / math.sqrt(30)   # ~ t_{0.95, 29} se, the reported 90% CI
    assert r["ci_high"] == pytest.approx(half, rel=0.05) and r["ci_low"] == pytest.approx(-r["ci_high"])
    # with an estimate off centre, N uses the room left inside the margin
    assert n_for_equivalence(sd, 0.02, 0.05) == math.ceil((Z95 * sd / 0.03) ** 2)
    assert math.isinf(n_for_equivalence(sd, 0.06, 0.05))
    assert r["decides_as"] == "yes"


def test_a_change_just_beyond_the_margin_names_the_n_at_which_it_would_be_no():
    """40 queries, 4 predictions changed by random ablation (d = 0.1, twice the 0.05 margin):
    the 90% CI 0.1 +- t se straddles 0.05, and would lie wholly outside the margin from
    N = ceil((z_0.95 sd / (0.1 - 0.05))^2) = 100, by hand."""
    base, rnd = np.zeros(40), np.r_[np.ones(4), np.zeros(36)]
    sd = math.sqrt(0.1 * 0.9 * 40 / 39)
    need = math.ceil((Z95 * sd / 0.05) ** 2)
    assert need == 100
    assert n_for_nonequivalence(sd, 0.1, 0.05) == n_for_nonequivalence(sd, -0.1, 0.05) == need
    assert math.isinf(n_for_nonequivalence(sd, 0.04, 0.05))
    r = _judge("T5.random_ablation_harmless", {"accuracy": {"rnd": rnd, "base": base}})[0]
    assert r["holds"] == "unclear" and r["value"] == pytest.approx(0.1) and r["ci_low"] < 0.05 < r["ci_high"]
    assert r["n_needed"] == need and r["decides_as"] == "no"
    assert f"needs n of about {need}" in r["verdict_reason"] and "lies outside the margin" in r["verdict_reason"]


def test_a_large_n_tight_equivalence_is_yes():
    rng = np.random.default_rng(7)
    base = (rng.random(4000) < 0.6).astype(float)
    rnd = base.copy()
    flip = rng.choice(4000, 80, replace=False)   # 2% of predictions change, both ways
    rnd[flip] = 1 - rnd[flip]
    r = _judge("T5.random_ablation_harmless", {"accuracy": {"rnd": rnd, "base": base}})[0]
    assert r["holds"] == "yes" and -0.05 < r["ci_low"] < r["ci_high"] < 0.05 and "TOST p" in r["verdict_reason"]


def test_a_change_beyond_the_margin_is_no_and_unchanged_predictions_are_not_yes():
    base = np.zeros(200)
    rnd = np.r_[np.ones(60), np.zeros(140)]          # 30% of predictions change
    assert _judge("T5.random_ablation_harmless", {"accuracy": {"rnd": rnd, "base": base}})[0]["holds"] == "no"
    # no prediction changed among 30: sd 0, but 30 queries do not show a change rate below 5%
    r = _judge("T5.random_ablation_harmless", {"accuracy": {"rnd": base[:30], "base": base[:30]}})[0]
    assert r["holds"] == "unclear" and "needs n of about 60" in r["verdict_reason"] and r["n_needed"] == 60


# ------------------------------------------------------------------ two samples, samples, overlap
def test_two_sample_claim_resamples_each_group():
    same, other = np.r_[np.ones(15), np.zeros(5)], np.zeros(40)
    r = _judge("L6.transfer_within_label_space", {"accuracy": {"same": same, "other": other}})[0]
    assert r["value"] == pytest.approx(0.75) and r["n"] == 60 and r["holds"] == "yes"


def test_bootstrap_samples_centred_interval_by_hand():
    samples = np.arange(1001) / 1000.0           # median 0.5, 2.5% 0.025, 97.5% 0.975
    r = _judge("T4.tr_more_consistent", {"estimate": 0.6, "samples": samples}, n=50)[0]
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((0.125, 1.075))
    assert r["holds"] == "yes"
    r = _judge("T2.tr_ih_agree_most", {"estimate": 0.6, "samples": samples - 0.5}, n=50)[0]
    assert (r["ci_low"], r["ci_high"]) == pytest.approx((-0.475, 0.475)) and r["holds"] == "unclear"


def test_an_unclear_bootstrap_row_names_the_n_from_its_interval_width():
    """Bootstrap values at the exact normal quantiles around d = 0.1 with sd 0.1 (the se of a
    mean over n = 50 prompts): by normal theory the 95% CI excludes 0 once se * sqrt(50 / N) <
    d / z_0.975, i.e. N = 50 (z_0.975 0.1 / 0.1)^2 = 192.1; pointing the other way, none."""
    nd = NormalDist()
    z = np.array([nd.inv_cdf((i + 0.5) / 4000) for i in range(4000)])
    r = _judge("T2.tr_ih_agree_most", {"estimate": 0.1, "samples": 0.1 + 0.1 * z}, n=50)[0]
    assert r["holds"] == "unclear"
    want = 50 * nd.inv_cdf(0.975) ** 2
    assert r["n_needed"] == pytest.approx(want, rel=0.02) and f"needs n of about {r['n_needed']}" in r["verdict_reason"]
    assert r["decides_as"] == "yes"
    # pointing the other way: by symmetry the interval would lie below 0 from the same N: "no"
    r = _judge("T2.tr_ih_agree_most", {"estimate": -0.1, "samples": -0.1 + 0.1 * z}, n=50)[0]
    assert r["holds"] == "unclear" and "points the other way" in r["verdict_reason"]
    assert r["n_needed"] == pytest.approx(want, rel=0.02) and r["decides_as"] == "no"


def test_hypergeometric_overlap_expectation_by_hand():
    # 72 heads, two sets of 2: E = 2 * 2 / 72; P(X >= 1) = 1 - C(70, 2) / C(72, 2)
    e, p = overlap_test(1, 2, 2, 72)
    assert e == pytest.approx(4 / 72)
    assert p == pytest.approx(1 - (70 * 69) / (72 * 71))
    # P(X >= 2) = C(2,2) / C(72,2)
    assert overlap_test(2, 2, 2, 72)[1] == pytest.approx(1 / math.comb(72, 2))
    assert overlap_test(0, 5, 5, 270)[1] == pytest.approx(1.0)


def test_one_of_two_shared_heads_is_not_mostly_distinct():
    """The audit's case: 1 of 2 induction heads also an FV head, 18x the random expectation."""
    r = _judge("Y3.ih_fv_distinct", {"overlap": 1, "size_a": 2, "size_b": 2, "n_heads": 72, "samples": [50.0] * 20})[0]
    assert r["value"] == 50 and r["holds"] != "yes"
    assert "18x" in r["verdict_reason"] and "margin 20%" in r["verdict_reason"]
    none_shared = _judge("Y3.ih_fv_distinct", {"overlap": 0, "size_a": 5, "size_b": 5, "n_heads": 270,
                                               "samples": [0.0] * 19 + [20.0]})[0]
    assert none_shared["holds"] == "yes"
    most_shared = _judge("Y3.ih_fv_distinct", {"overlap": 4, "size_a": 5, "size_b": 5, "n_heads": 270,
                                               "samples": [60.0, 80.0, 100.0] * 10})[0]
    assert most_shared["holds"] == "no"


# ------------------------------------------------------------------ evaluation fields
@pytest.mark.parametrize("tiny_hooked", ["llama"], indirect=True)
def test_evaluate_gives_log_p_answer_and_label_set_mass(tiny_hooked):
    prompts = [Prompt(index=i, text="", input_ids=s, answer="", answer_token=a)
               for i, (s, a) in enumerate(zip([[1, 5, 6, 7, 8], [1, 9, 10], [1, 11, 12]], [5, 6, 7]))]
    res = evaluate(tiny_hooked, prompts, [5, 6, 6], {"clean": []})["clean"]
    assert torch.allclose(res.logp_answer.exp(), res.p_answer, atol=1e-6)
    logits = torch.stack([tiny_hooked.run(_one_batch(tiny_hooked, p), want=("logits",)).logits[0] for p in prompts])
    mass = torch.softmax(logits.float(), -1)[:, [5, 6]].sum(-1)
    assert torch.allclose(res.logp_label_set, mass.log(), atol=1e-5)
    arrays = claims.eval_arrays({"a": res, "b": [res, res]})
    assert set(arrays) == {"accuracy", "tr_ratio", "p_answer", "logp_answer", "logp_label_set"}
    assert np.allclose(arrays["logp_answer"]["b"], arrays["logp_answer"]["a"])
    assert claims.eval_arrays({"a": [res, res]}, pool="concat")["accuracy"]["a"].shape == (6,)


def _one_batch(h, prompt):
    from icl_heads.model import left_pad

    return left_pad([prompt.input_ids], h.pad_id)


def test_the_loaded_registry_is_a_copy():
    reg = claims.load_registry()
    reg["T7.tr_vector_raises_accuracy"]["claim"] = "changed"
    assert claims.load_registry()["T7.tr_vector_raises_accuracy"]["claim"] != "changed"
