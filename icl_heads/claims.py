"""The claims table (S2): a paper's claim in one sentence, the value measured on this model with
an interval, and whether the claim holds.

Claims are data: config/claims.yaml (the registry, validated by `load_registry`) names per claim
the paper, artifact, statement, reported value, the metric that carries it, the contrast of
conditions it compares, its direction or equivalence margin, and its test. A rule script
supplies per-query arrays and a claim id; `judge` returns the rows (estimate, interval, verdict
and the reason for the verdict). No verdict is decided anywhere else.

Verdicts (column `holds`): "yes", "no" or "unclear" ("unclear" is the undecided class: the data
cannot decide, and `verdict_reason` says why, e.g. "undecided: needs n of about 240"). Rules:

- Too little data: fewer than `min_n` observations (registry default 10), or no finite
  estimate, is "unclear", whatever the interval.
- Floor rule: a row on a 0/1 metric (accuracy, tr_ratio) in which no query differs between
  the compared conditions (the per-query contrast is 0 everywhere: e.g. accuracy 0 in every
  compared condition, the floor of the built-in tasks' zero-shot runs, or 1 in all of them) has
  a degenerate interval [0, 0] that says nothing about the claim. It is judged instead on the
  metric's continuous partner, accuracy -> logp_answer (log p(answer)), tr_ratio ->
  logp_label_set (log of the probability mass on the label set), when the script supplies it;
  `metric_kind` names the metric used and `verdict_reason` says that the floor rule applied.
  Without the partner the row is "unclear".
- Effect claims (direction positive; negative is the mirror image), the `level` (95%) CI:
  "yes" when the CI lies strictly above 0 and reaches the negligible effect size (below);
  "no" when it lies strictly below 0, or strictly
  below the claim's `negligible` effect size for the metric, whether or not it also lies above 0
  (a real but negligible effect does not replicate the claim; registry default: 0.05 of accuracy
  or TR ratio; a claim that gives `paper_effect`, the paper's own effect on its metric, has a
  tenth of it (defaults.negligible_share_of_paper) on that metric: the data exclude an effect
  that large); "unclear" otherwise (a CI touching 0,
  such as [-0.19, 0], is not "no"). An unclear row names the n at which its interval would be
  expected to decide it, and which way (columns n_needed, decides_as): the smallest n at which
  the CI, at the observed estimate d (signed so that the claim's direction is positive) and sd,
  would lie above 0 ("yes", for d > 0), below 0 ("no", for d < 0), or below the negligible
  effect g ("no", for d < g). For a gap t between d and that boundary, a paired row needs
  N = ceil((z sd / t)^2) (stats.n_for_effect), a row from bootstrap resamples of n prompts
  N = n ((hi - lo) / 2 / t)^2 (its interval shrinks as 1/sqrt(n)). A row that would be decided
  "no" is a non-replication at the observed effect, not noise.
- Equivalence claims (test tost, margin m): two one-sided t-tests at alpha (0.05), i.e. the
  90% CI d +- t se: "yes" when it lies inside (-m, m); "no" when it lies wholly outside it;
  otherwise "unclear", with "undecided: needs n of about N" where
  N = ceil((z_{1-alpha} sd / (m - |d|))^2) (stats.n_for_equivalence) for |d| < m ("yes"), and
  N = ceil((z_{1-alpha} sd / (|d| - m))^2) for |d| > m (the CI would lie outside: "no"). A 0/1 row where no query changes has sd 0: the floor
  rule applies; without a partner it is "unclear" and needs n of about 3/m such queries (rule
  of three).
- Overlap claims (test hypergeometric_overlap, margin m in % of the first set): "yes" when the
  overlap share and the upper end of its CI are at most m; "no" when the share and the lower
  end exceed m and the overlap exceeds that of random sets (hypergeometric P(shared >= x) <
  alpha); "unclear" otherwise.
"""
from __future__ import annotations

import copy
import functools
import math
from pathlib import Path

import numpy as np

from .errors import ConfigError

REGISTRY_PATH = Path(__file__).resolve().parent.parent / "config" / "claims.yaml"

COLUMNS = ["paper", "artifact", "claim", "model", "dataset", "metric", "value", "ci_low", "ci_high",
           "paper_value", "holds", "rule", "n", "seed",
           # claim_id: the registry entry; metric_kind: the metric the row was judged on (after the
           # floor rule); role: "claim" (the row that carries the verdict) or "companion" (the same
           # contrast on another metric); verdict_reason: why the verdict, in words; n_needed: for an
           # "unclear" row, the n at which its interval would be expected to decide it, from the
           # observed effect and sd (the number the reason names; empty where more observations
           # would not be expected to decide it: an estimate of 0 with no negligible effect size,
           # a row left out, a degenerate interval, or a test without a power estimate);
           # decides_as: the verdict ("yes" / "no") it would be expected to reach at n_needed.
           "claim_id", "metric_kind", "role", "verdict_reason", "n_needed", "decides_as"]
VERDICTS = ("yes", "no", "unclear")
# How the reason of a row left out (Claims(excluded=...)) begins: its dataset cannot test the claim
# on this model (the task is at floor, a perturbation changed no prompt); more data would not help.
LEFT_OUT = "left out: "

# Metric kinds a claim may be carried by, with the label used in the metric text.
METRICS = {
    "accuracy": "acc", "tr_ratio": "TR ratio", "p_answer": "p(answer)", "logp_answer": "log p(answer)",
    "logp_label_set": "log p(label set)", "subspace_alignment": "alignment", "logit_difference": "logit diff",
    "spearman_rho": "Spearman rho", "rank_percentile": "rank %", "layer": "layer", "attention": "attention",
    "token_loss_diff": "TLD", "overlap_share": "overlap % of the IH set",
}
_PROSE = {**METRICS, "accuracy": "accuracy"}
# 0/1 metrics and their continuous partner (the floor rule).
PARTNER = {"accuracy": "logp_answer", "tr_ratio": "logp_label_set"}
TESTS = ("paired_bootstrap", "two_sample_bootstrap", "bootstrap_samples", "tost", "hypergeometric_overlap")
DEFAULTS = {"level": 0.95, "alpha": 0.05, "n_boot": 1000, "min_n": 10, "negligible": {}, "negligible_share_of_paper": 0.1}

_REQUIRED = ("paper", "artifact", "rule", "claim", "paper_value", "metric", "test")
_OPTIONAL = ("contrast", "labels", "direction", "margin", "companions", "ci", "note", "negligible", "paper_effect")
_CONTRAST_TESTS = ("paired_bootstrap", "two_sample_bootstrap", "tost")
_EFFECT_TESTS = ("paired_bootstrap", "two_sample_bootstrap", "bootstrap_samples")


# ------------------------------------------------------------------ the registry
def load_registry(path: str | Path = REGISTRY_PATH) -> dict[str, dict]:
    """{claim id: entry} of the registry file, validated, every entry with the file's defaults
    filled in (level, alpha, n_boot, min_n, negligible) and its own `id`. ConfigError names the
    file, the claim and the key that is wrong."""
    p = Path(path)
    if not p.is_file():
        raise ConfigError(f"claims registry {p} not found (the workflow's config/claims.yaml)")
    return copy.deepcopy(_load(str(p.resolve()), p.stat().st_mtime_ns))


@functools.lru_cache(maxsize=8)
def _load(path: str, _mtime: int) -> dict[str, dict]:
    import yaml

    try:
        raw = yaml.safe_load(Path(path).read_text())
    except yaml.YAMLError as e:
        raise ConfigError(f"{path}: not valid YAML ({e})") from e
    return validate_registry(raw, path)


def validate_registry(raw, path="claims registry") -> dict[str, dict]:
    """The checks of `load_registry` on an already parsed registry (a dict with `defaults` and
    `claims`)."""
    def bad(cid, msg):
        return ConfigError(f"{path}: claim {cid!r}: {msg}")

    if not isinstance(raw, dict) or not isinstance(raw.get("claims"), dict) or not raw["claims"]:
        raise ConfigError(f"{path}: expected a mapping with `defaults` and a non-empty `claims` mapping")
    unknown = set(raw) - {"defaults", "claims"}
    if unknown:
        raise ConfigError(f"{path}: unknown top-level keys {sorted(unknown)} (allowed: defaults, claims)")
    defaults = {**DEFAULTS, **(raw.get("defaults") or {})}
    if set(defaults) - set(DEFAULTS):
        raise ConfigError(f"{path}: unknown keys in defaults {sorted(set(defaults) - set(DEFAULTS))} "
                          f"(allowed: {', '.join(DEFAULTS)})")
    if not (0 < defaults["level"] < 1 and 0 < defaults["alpha"] < 0.5):
        raise ConfigError(f"{path}: defaults.level must lie in (0, 1) and defaults.alpha in (0, 0.5)")
    share = defaults["negligible_share_of_paper"]
    if not isinstance(share, (int, float)) or not 0 < share < 1:
        raise ConfigError(f"{path}: defaults.negligible_share_of_paper must lie in (0, 1) (0.1: a tenth of the paper's effect)")
    out = {}
    for cid, e in raw["claims"].items():
        if not isinstance(e, dict):
            raise bad(cid, "must be a mapping of the keys " + ", ".join(_REQUIRED))
        if not isinstance(cid, str) or not cid.startswith(f"{e.get('artifact')}."):
            raise bad(cid, "the id must read '<artifact>.<name>' with the entry's artifact")
        missing = [k for k in _REQUIRED if k not in e]
        if missing:
            raise bad(cid, f"missing keys {missing}")
        extra = set(e) - set(_REQUIRED) - set(_OPTIONAL)
        if extra:
            raise bad(cid, f"unknown keys {sorted(extra)} (allowed: {', '.join(_REQUIRED + _OPTIONAL)})")
        test, metric = e["test"], e["metric"]
        if test not in TESTS:
            raise bad(cid, f"test {test!r}: use one of {', '.join(TESTS)}")
        if metric not in METRICS:
            raise bad(cid, f"metric {metric!r}: use one of {', '.join(METRICS)}")
        for k in ("claim", "paper", "artifact", "rule"):
            if not isinstance(e[k], str) or not e[k].strip():
                raise bad(cid, f"`{k}` must be a non-empty string")
        e = {**e, "paper_value": "" if e["paper_value"] is None else str(e["paper_value"])}
        if test in _CONTRAST_TESTS:
            c = e.get("contrast")
            if not isinstance(c, dict) or not c or not all(isinstance(v, (int, float)) and v != 0 for v in c.values()):
                raise bad(cid, f"test {test} needs `contrast`: {{condition: non-zero coefficient}}")
            for key in c:
                m, _, cond = str(key).rpartition(":")
                if (m and m not in METRICS) or not cond:
                    raise bad(cid, f"contrast term {key!r}: write 'condition' or 'metric:condition' "
                                   f"with a metric of {', '.join(METRICS)}")
            if test == "two_sample_bootstrap" and sorted(c.values()) != [-1, 1]:
                raise bad(cid, "two_sample_bootstrap compares two groups: contrast {a: 1, b: -1}")
        elif "contrast" in e:
            raise bad(cid, f"test {test} takes no `contrast`")
        for k in e.get("companions", []) or []:
            if k not in METRICS or k == metric:
                raise bad(cid, f"companion {k!r}: a metric of {', '.join(METRICS)} other than {metric!r}")
            if test not in _CONTRAST_TESTS:
                raise bad(cid, f"test {test} takes no companions")
        if test in ("tost", "hypergeometric_overlap"):
            if "direction" in e:
                raise bad(cid, f"test {test} takes a `margin`, not a `direction`")
            m = e.get("margin")
            if test == "tost":
                need = {metric, *(e.get("companions") or [])} | ({PARTNER[metric]} if metric in PARTNER else set())
                if isinstance(m, (int, float)):
                    m = {k: float(m) for k in need}
                if not isinstance(m, dict) or not need <= set(m) or not all(isinstance(v, (int, float)) and v > 0 for v in m.values()):
                    raise bad(cid, f"tost needs `margin`: a positive number or {{metric: margin}} covering {sorted(need)}")
                e["margin"] = {k: float(v) for k, v in m.items()}
            elif not isinstance(m, (int, float)) or not 0 <= m <= 100:
                raise bad(cid, "hypergeometric_overlap needs `margin`: the largest overlap share (0-100, % of the first set)")
        else:
            if e.get("direction") not in ("positive", "negative"):
                raise bad(cid, "an effect claim needs `direction`: positive or negative")
            if "margin" in e:
                raise bad(cid, f"test {test} takes no `margin` (use `negligible` for an effect size of no interest)")
        if "ci" in e and (test != "bootstrap_samples" or e["ci"] not in ("percentile", "centred")):
            raise bad(cid, "`ci` (percentile | centred) applies to test bootstrap_samples only")
        neg = e.get("negligible", defaults["negligible"]) or {}
        if not isinstance(neg, dict) or not all(isinstance(v, (int, float)) and v > 0 for v in neg.values()):
            raise bad(cid, "`negligible` must map metrics to positive effect sizes")
        neg = dict(neg)
        if "paper_effect" in e:
            pe = e["paper_effect"]
            if test not in _EFFECT_TESTS or isinstance(pe, bool) or not isinstance(pe, (int, float)) or not pe > 0:
                raise bad(cid, "`paper_effect` (an effect claim's effect in the paper, on its metric, in the claimed "
                               "direction) must be a positive number")
            # An effect under this share of the paper's own is no replication of it: the metric's
            # negligible effect size, unless `negligible` names the metric itself.
            neg.setdefault(metric, round(share * float(pe), 12))
        out[cid] = {"id": cid, **{k: v for k, v in defaults.items() if k not in ("negligible", "negligible_share_of_paper")},
                    **e, "negligible": {k: float(v) for k, v in neg.items()}}
    return out


def rule_claims(rule: str, path: str | Path = REGISTRY_PATH) -> dict[str, dict]:
    """The registry entries a rule writes rows for (its Snakemake param `claims`): a registry
    edit changes the params of, and so reruns, exactly the rules whose entries changed."""
    return {cid: e for cid, e in load_registry(path).items() if e["rule"] == rule}


# ------------------------------------------------------------------ verdicts
def verdict(ci_low: float, ci_high: float, direction: str, negligible: float | None = None) -> str:
    """Verdict of an effect claim from its CI (module doc): 'yes' when the CI lies strictly on the
    claimed side of 0; 'no' when it lies strictly on the other side, or strictly short of the
    `negligible` effect size; 'unclear' otherwise (a CI of [0, 0] or touching 0 included)."""
    return _effect(ci_low, ci_high, direction, negligible)[0]


def _effect(lo, hi, direction, negligible=None):
    if any(map(math.isnan, (lo, hi))):
        return "unclear", "no finite interval"
    if lo == hi == 0:
        return "unclear", "degenerate CI [0, 0]: no query differs between the compared conditions"
    s = 1.0 if direction == "positive" else -1.0
    a, b = sorted((s * lo, s * hi))   # the CI in the claimed direction
    side = "above" if direction == "positive" else "below"
    other = "below" if direction == "positive" else "above"
    if b < 0:
        return "no", f"CI lies {other} 0 (the opposite direction)"
    if negligible is not None and b < negligible:
        if a > 0:
            return "no", (f"CI lies {side} 0 but excludes an effect of {negligible:g} or more in the claimed "
                          "direction: a real but negligible effect")
        return "no", f"CI excludes an effect of {negligible:g} or more in the claimed direction"
    if a > 0:
        return "yes", f"CI lies {side} 0"
    return "unclear", "CI includes 0"


def row(*, artifact, claim, model, dataset, metric, value, ci, direction=None, paper_value="", n, seed=None,
        paper="TSLA", rule="", holds=None, claim_id="", metric_kind="", role="claim", verdict_reason="",
        n_needed=float("nan"), decides_as="") -> dict:
    """One claims row (COLUMNS); `holds` defaults to `verdict(ci, direction)`."""
    lo, hi = ci
    return {"paper": paper, "artifact": artifact, "claim": claim, "model": model, "dataset": dataset,
            "metric": metric, "value": value, "ci_low": lo, "ci_high": hi, "paper_value": paper_value,
            "holds": holds if holds is not None else verdict(lo, hi, direction), "rule": rule, "n": n, "seed": seed,
            "claim_id": claim_id, "metric_kind": metric_kind, "role": role, "verdict_reason": verdict_reason,
            "n_needed": n_needed, "decides_as": decides_as}


# ------------------------------------------------------------------ judging
def judge(entry: dict, arrays: dict, *, model: str, dataset: str, rule: str, seed: int | None = None,
          n: int | None = None, qualifier: str = "") -> list[dict]:
    """The claims rows of one registry entry (`load_registry` / the rule's `claims` param) from
    the data the script measured:
    - contrast tests (paired_bootstrap, two_sample_bootstrap, tost): arrays =
      {metric: {condition: per-query values}} (or {condition: values} for the entry's metric);
      conditions as named in the entry's contrast; nan values drop that query (paired tests);
    - bootstrap_samples: {"estimate": point, "samples": bootstrap values}, with n;
    - hypergeometric_overlap: {"overlap", "size_a", "size_b", "n_heads"} and optionally
      "samples" (bootstrap values of the overlap share, %).
    Returns the claim's row (role "claim"), then one row per companion metric supplied."""
    ctx = {"model": model, "dataset": dataset, "rule": rule, "seed": seed}
    claim = entry["claim"] + (f" ({qualifier})" if qualifier else "")
    base = {"paper": entry["paper"], "artifact": entry["artifact"], "claim": claim, "paper_value": entry["paper_value"],
            "claim_id": entry["id"], **ctx}
    test = entry["test"]
    if test == "bootstrap_samples":
        return [_samples_row(entry, arrays, n, base)]
    if test == "hypergeometric_overlap":
        return [_overlap_row(entry, arrays, base)]
    arrays = arrays if all(isinstance(v, dict) for v in arrays.values()) else {entry["metric"]: arrays}
    main = _contrast_row(entry, arrays, entry["metric"], base, role="claim", floor_rule=True, seed=seed)
    rows = [main]
    for kind in entry.get("companions") or []:
        if kind != main["metric_kind"] and _supplied(arrays, _terms(entry, kind)):
            rows.append(_contrast_row(entry, arrays, kind, base, role="companion", floor_rule=False, seed=seed))
    return rows


class Claims:
    """The claims rows of one job: the rule's registry entries (its param `claims`) and the
    context every row shares; `judge` appends rows, `table` is the claims file."""

    def __init__(self, entries: dict, *, model: str, dataset: str, rule: str, seed: int | None = None,
                 excluded: str = "", note: str = ""):
        """excluded: why this job's data are left out of the claims (e.g. its task's clean n-shot
        accuracy is at floor, `at_floor`): every row keeps its estimate but is "unclear" with that
        reason. note: appended to every row's verdict_reason (e.g. the tasks left out of a pool)."""
        self.entries, self.rows = entries, []
        self.context = {"model": model, "dataset": dataset, "rule": rule, "seed": seed}
        self.excluded, self.note = excluded, note

    def judge(self, ids, arrays: dict, *, missing: str = "error", **context) -> list[dict]:
        """Rows of the claim id (or ids) from `arrays` (see `judge`); context (dataset, n,
        qualifier, ...) overrides the job's. missing='skip' leaves out a claim whose
        conditions the arrays lack (a configuration that was not run)."""
        out = []
        for cid in [ids] if isinstance(ids, str) else ids:
            if cid not in self.entries:
                raise ConfigError(f"claim {cid!r} is not among the registry entries of rule {self.context['rule']!r} "
                                  f"(config/claims.yaml: give it `rule: {self.context['rule']}`)")
            e = self.entries[cid]
            if missing == "skip" and e["test"] in _CONTRAST_TESTS:
                a = arrays if all(isinstance(v, dict) for v in arrays.values()) else {e["metric"]: arrays}
                if not _supplied(a, _terms(e, e["metric"])):
                    continue
            out += judge(e, arrays, **{**self.context, **context})
        for r in out:
            if self.excluded:
                r["verdict_reason"] = f"{LEFT_OUT}{self.excluded} (the data alone: {r['holds']}, {r['verdict_reason']})"
                r["holds"], r["n_needed"], r["decides_as"] = "unclear", float("nan"), ""
            if self.note:
                r["verdict_reason"] = f"{r['verdict_reason']}; {self.note}"
        self.rows += out
        return out

    def table(self):
        import pandas as pd

        return pd.DataFrame(self.rows, columns=COLUMNS)


def at_floor(correct, floor: float = 0.0) -> bool:
    """Whether a task's clean n-shot accuracy (0/1 per query; nan ignored) is at floor: at most
    `floor` (config claims.floor_accuracy; 0: not one query right). On such a task an
    intervention cannot lower accuracy and a raise measures something other than the task: its
    rows are flagged, and it is left out of cross-task averages and claims (recorded)."""
    c = np.asarray(correct, dtype=float)
    c = c[np.isfinite(c)]
    return bool(c.size) and float(c.mean()) <= floor


def floor_text(accuracy: float, floor: float, shots: str = "n-shot") -> str:
    """The recorded reason of a floor exclusion."""
    return f"clean {shots} accuracy {accuracy:.3g} is at floor (<= claims.floor_accuracy {floor:g})"


def eval_arrays(evals: dict, pool: str = "mean") -> dict:
    """{metric: {condition: per-query numpy array}} of evaluation results ({condition: Eval, or a
    list of Evals: averaged per query with pool='mean', e.g. over random seeds; their queries
    put one after the other with pool='concat'}): accuracy (correct), tr_ratio (in_set), p_answer,
    logp_answer, logp_label_set, where the results hold them."""
    if pool not in ("mean", "concat"):
        raise ValueError(f"pool={pool!r}: use 'mean' or 'concat'")
    fields = {"accuracy": "correct", "tr_ratio": "in_set", "p_answer": "p_answer", "logp_answer": "logp_answer",
              "logp_label_set": "logp_label_set"}
    out = {}
    for kind, field in fields.items():
        for cond, ev in evals.items():
            evs = ev if isinstance(ev, (list, tuple)) else [ev]
            vals = [getattr(e, field, None) for e in evs]
            if any(v is None for v in vals):
                continue
            vals = [np.asarray(v, dtype=float) for v in vals]
            out.setdefault(kind, {})[cond] = np.concatenate(vals) if pool == "concat" else np.mean(vals, axis=0)
    return out


def _terms(entry, kind):
    """[(metric, condition, coefficient)] of the contrast, the entry's own metric replaced by kind."""
    out = []
    for key, coef in entry["contrast"].items():
        m, _, cond = str(key).rpartition(":")
        out.append((m or kind, cond, float(coef)))
    return out


def contrast_conditions(entries: dict) -> set:
    """The conditions the contrasts of registry entries read (a term "metric:condition" names
    its condition), e.g. the T6 cells that must run on every query."""
    return {str(key).rpartition(":")[2] for e in entries.values() for key in (e.get("contrast") or {})}


def _supplied(arrays, terms) -> bool:
    for m, cond, _ in terms:
        v = arrays.get(m, {}).get(cond)
        if v is None or not np.isfinite(np.asarray(v, dtype=float)).any():
            return False
    return True


def _metric_text(entry, terms):
    labels = entry.get("labels") or {}
    parts = []
    for i, (m, cond, coef) in enumerate(terms):
        name = f"{METRICS[m]}[{labels.get(cond, cond)}]"
        mag = "" if abs(coef) == 1 else f"{abs(coef):g} "
        parts.append((("-" if coef < 0 else "") if i == 0 else (" - " if coef < 0 else " + ")) + mag + name)
    text = "".join(parts)
    return text + (f" ({entry['note']})" if entry.get("note") else "")


def _contrast_row(entry, arrays, kind, base, *, role, floor_rule, seed):
    terms = _terms(entry, kind)
    missing = [f"{m}:{c}" for m, c, _ in terms if c not in arrays.get(m, {})]
    if missing:
        raise ConfigError(f"claim {entry['id']!r}: the script supplied no arrays for {missing} "
                          f"(it gave {sorted((m, sorted(v)) for m, v in arrays.items())})")
    est = _estimate(entry, arrays, terms, kind, seed)
    prefix = ""
    if est["degenerate"] and any(m in PARTNER for m, _, _ in terms):
        what = _floor_text(arrays, terms)
        switched = [(PARTNER.get(m, m), c, k) for m, c, k in terms]
        if floor_rule and _supplied(arrays, switched):
            prefix = f"floor rule: {what}; judged on {' and '.join(sorted({_PROSE[m] for m, _, _ in switched}))}; "
            terms, kind = switched, PARTNER.get(kind, kind)
            est = _estimate(entry, arrays, terms, kind, seed)
        else:
            prefix = f"floor rule: {what}" + (", and no continuous partner was supplied; " if floor_rule else "; ")
            est["undecidable"] = True
    holds, reason = _decide(entry, est, kind)
    return {**base, "metric": _metric_text(entry, terms), "value": est["value"], "ci_low": est["ci"][0],
            "ci_high": est["ci"][1], "holds": holds, "n": est["n"], "metric_kind": kind, "role": role,
            "verdict_reason": prefix + reason, **_power_columns(est)}


def _floor_text(arrays, terms):
    vals = np.concatenate([np.asarray(arrays[m][c], dtype=float) for m, c, _ in terms if m in PARTNER])
    vals = vals[np.isfinite(vals)]
    names = " and ".join(sorted({_PROSE[m] for m, _, _ in terms if m in PARTNER}))
    if vals.size and (vals == 0).all():
        return f"{names} is 0 in every compared condition (floor)"
    if vals.size and (vals == 1).all():
        return f"{names} is 1 in every compared condition (ceiling)"
    return f"no query's {names} differs between the compared conditions"


def _estimate(entry, arrays, terms, kind, seed) -> dict:
    """Estimate and interval of the contrast (kind: the metric in the entry's own slot, whose
    margin a tost uses): value, ci, n, per-query contrast (paired tests), its sd, and whether it
    is degenerate (0 for every query / both groups constant and equal)."""
    from .stats import bootstrap_ci, tost, two_sample_bootstrap

    seed = 0 if seed is None else int(seed) % 2**31
    test = entry["test"]
    X = [np.asarray(arrays[m][c], dtype=float) for m, c, _ in terms]
    coefs = np.array([k for _, _, k in terms])
    out = {"undecidable": False}
    if test == "two_sample_bootstrap":
        (a, ka), (b, _) = sorted(zip(X, coefs), key=lambda t: -t[1])
        a, b = a[np.isfinite(a)], b[np.isfinite(b)]
        v, lo, hi = two_sample_bootstrap(a, b, n_boot=entry["n_boot"], level=entry["level"], seed=seed)
        degenerate = a.size > 0 and b.size > 0 and np.ptp(a) == 0 and np.ptp(b) == 0 and a[0] == b[0]
        return {**out, "value": v, "ci": (lo, hi), "n": int(a.size + b.size), "degenerate": bool(degenerate),
                "sd": float("nan"), "contrast": None}
    lens = {x.size for x in X}
    if len(lens) != 1:
        raise ConfigError(f"claim {entry['id']!r} ({test}): the arrays of a paired test must hold the same "
                          f"queries, got lengths {[x.size for x in X]}")
    M = np.vstack(X)
    keep = np.isfinite(M).all(0)
    c = coefs @ M[:, keep]
    n = int(c.size)
    sd = float(c.std(ddof=1)) if n > 1 else float("nan")
    degenerate = n > 0 and bool((c == 0).all())
    if test == "tost":
        t = tost(c, entry["margin"][kind], entry["alpha"]) if n else None
        ci = t["ci"] if t else (float("nan"), float("nan"))
        return {**out, "value": float(c.mean()) if n else float("nan"), "ci": ci, "n": n, "sd": sd,
                "degenerate": degenerate, "contrast": c, "tost": t}
    lo, hi = bootstrap_ci(c, n_boot=entry["n_boot"], level=entry["level"], seed=seed) if n else (float("nan"),) * 2
    return {**out, "value": float(c.mean()) if n else float("nan"), "ci": (lo, hi), "n": n, "sd": sd,
            "degenerate": degenerate, "contrast": c}


def _power_columns(est) -> dict:
    return {"n_needed": est.get("n_needed", float("nan")), "decides_as": est.get("decides_as", "")}


def _to_decide(d, negligible, n_at):
    """The smallest n at which an effect claim's interval would be expected to decide it, and the
    verdict it would reach: d is the estimate signed so that the claim's direction is positive;
    n_at(t) the n at which the interval's half-width shrinks to t. "yes" once it excludes 0 from
    above (d > 0; with a negligible effect g only for d >= g / 2, else the CI [0, 2d] there lies
    below g), "no" once it excludes 0 from below (d < 0) or lies below the negligible effect
    (d < negligible). (inf, "") where no boundary is in reach (d = 0 and no negligible effect)."""
    options = []
    if d > 0 and (negligible is None or 2 * d >= negligible):
        # at n_at(d) the CI is [0, 2d]: "yes" unless it then already lies below the negligible effect
        options.append((n_at(d), "yes"))
    if d < 0:
        options.append((n_at(-d), "no"))
    if negligible is not None and d < negligible:
        options.append((n_at(negligible - d), "no"))
    return min(options, default=(float("inf"), ""))


def _decide(entry, est, kind) -> tuple[str, str]:
    from .stats import n_for_effect, n_for_equivalence, n_for_nonequivalence

    n, v, (lo, hi) = est["n"], est["value"], est["ci"]
    interval = f"{100 * entry['level']:g}% CI [{lo:.3g}, {hi:.3g}]" if entry["test"] != "tost" else \
        f"{100 * (1 - 2 * entry['alpha']):g}% CI [{lo:.3g}, {hi:.3g}]"
    if est["undecidable"]:
        if entry["test"] == "tost":
            m = entry["margin"][kind]
            est["n_needed"], est["decides_as"] = math.ceil(3 / m), "yes"
            return "unclear", f"undecided: needs n of about {est['n_needed']} queries without a change (rule of three)"
        return "unclear", "undecided: the interval is degenerate"
    if n == 0 or not np.isfinite(v):
        return "unclear", "no observations"
    if n < entry["min_n"]:
        return "unclear", f"n = {n} is below the minimum of {entry['min_n']} ({interval})"
    if entry["test"] == "tost":
        m = entry["margin"][kind]
        t = est["tost"]
        if lo > -m and hi < m:
            return "yes", f"{interval} lies inside +-{m:g} (TOST p = {t['p']:.3g})"
        if lo >= m or hi <= -m:
            return "no", f"{interval} lies outside +-{m:g}: the change is at least the margin"
        if abs(v) < m:
            need, way = n_for_equivalence(est["sd"], v, m, entry["alpha"]), "yes"
        else:
            need, way = n_for_nonequivalence(est["sd"], v, m, entry["alpha"]), "no"
        if math.isinf(need):
            return "unclear", f"{interval} straddles +-{m:g} and the estimate {v:.3g} lies on the margin"
        est["n_needed"], est["decides_as"] = int(need), way
        lies = "inside" if way == "yes" else "outside"
        return "unclear", (f"undecided: needs n of about {int(need)} ({interval} straddles +-{m:g}; "
                           f"sd {est['sd']:.3g}, TOST p = {t['p']:.3g}); the estimate lies {lies} the margin, "
                           f"so that n would be expected to decide {way!r}")
    negligible = entry["negligible"].get(kind)
    holds, why = _effect(lo, hi, entry["direction"], negligible)
    reason = f"{interval}: {why}"
    if holds != "unclear":
        return holds, reason
    s = 1 if entry["direction"] == "positive" else -1
    if est.get("contrast") is not None:
        need, way = _to_decide(s * v, negligible, lambda t: n_for_effect(est["sd"], t, entry["level"]))
        how = "at the observed effect and sd"
    elif entry["test"] == "bootstrap_samples" and np.isfinite(lo) and np.isfinite(hi) and hi > lo:
        # an interval from bootstrap resamples of the n observations (prompts; two-sample rows
        # resample heads, which more queries do not add): its width shrinks as 1/sqrt(n)
        need, way = _to_decide(s * v, negligible,
                               lambda t: max(n + 1, math.ceil(n * ((hi - lo) / 2 / t) ** 2)))
        how = "(the interval's width scaled as 1/sqrt(n))"
    else:
        return holds, reason
    if s * v < 0:
        reason += "; the estimate points the other way"
    elif v == 0:
        reason += "; the estimate is 0"
    if not math.isinf(need):
        est["n_needed"], est["decides_as"] = int(need), way
        reason += f"; undecided: needs n of about {int(need)} {how}, where it would be expected to decide {way!r}"
    return holds, reason


def _samples_row(entry, arrays, n, base):
    from .stats import percentile_interval

    if n is None:
        raise ConfigError(f"claim {entry['id']!r} (bootstrap_samples): the script must give n")
    v = float(arrays["estimate"])
    samples = np.asarray(arrays["samples"], dtype=float)
    lo, hi = percentile_interval(samples, entry["level"], centre=v if entry.get("ci") == "centred" else None)
    est = {"value": v, "ci": (lo, hi), "n": int(n), "undecidable": False, "contrast": None, "sd": float("nan")}
    holds, reason = _decide(entry, est, entry["metric"])
    reason += f" (bootstrap, {int(np.isfinite(samples).sum())} resamples{', centred' if entry.get('ci') == 'centred' else ''})"
    text = METRICS[entry["metric"]] + (f": {entry['note']}" if entry.get("note") else "")
    return {**base, "metric": text, "value": v, "ci_low": lo, "ci_high": hi, "holds": holds, "n": int(n),
            "metric_kind": entry["metric"], "role": "claim", "verdict_reason": reason, **_power_columns(est)}


def _overlap_row(entry, arrays, base):
    from .stats import overlap_test, percentile_interval

    x, ka, kb, N = (int(arrays[k]) for k in ("overlap", "size_a", "size_b", "n_heads"))
    m, alpha = float(entry["margin"]), entry["alpha"]
    share = 100.0 * x / ka if ka else float("nan")
    samples = arrays.get("samples")
    lo, hi = percentile_interval(samples, entry["level"]) if samples is not None and len(samples) else (share, share)
    expected, p = overlap_test(x, ka, kb, N)
    ratio = x / expected if expected else float("nan")
    facts = (f"{x} of {ka} shared ({share:.3g}%), random sets would share {expected:.3g} ({100 * expected / ka if ka else 0:.3g}%), "
             f"{ratio:.3g}x that, hypergeometric P(shared >= {x}) = {p:.3g}; margin {m:g}%")
    if not ka or not kb:
        holds, why = "unclear", "an empty head set"
    elif max(share, hi) <= m:
        holds, why = "yes", f"the share and its CI's upper end {hi:.3g}% are within the margin"
    elif min(share, lo) > m and p < alpha:
        holds, why = "no", f"the share and its CI's lower end {lo:.3g}% exceed the margin, and chance"
    elif min(share, lo) > m:
        holds, why = "unclear", "the share exceeds the margin but not what random sets would share"
    else:
        holds, why = "unclear", f"the CI [{lo:.3g}, {hi:.3g}]% straddles the margin"
    text = METRICS["overlap_share"] + " also in the FV set" + (f" ({entry['note']})" if entry.get("note") else "")
    return {**base, "metric": text, "value": share, "ci_low": lo, "ci_high": hi, "holds": holds, "n": N,
            "metric_kind": "overlap_share", "role": "claim", "verdict_reason": f"{why}: {facts}",
            "n_needed": float("nan"), "decides_as": ""}
