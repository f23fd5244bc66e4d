"""The cost model: from the config alone, when the DAG is built, the work of every model job of
`figures/`, the `runtime` (minutes) each model rule asks a scheduler for, and the predicted hours:

    python -m icl_heads.cost config/paper.yaml --model llama-3-8b --config data_dir=../shared/data

Unit: full-model token equivalents. A forward pass through every block over T token columns is
T; one that starts at block l of L (the blocks below replayed from a recorded clean pass) is
T (L - l) / L; a single-position continuation over a cached key/value prefix is 1 per row. A
backward pass is counted as 2 x the forward tokens of the blocks it runs back through, and
reported apart (`backward`). A training step's logits (LTV and L2: every row's K label positions
over the whole vocabulary) are counted too, forward and backward: one unembedded position is
`unembed_ratio` token equivalents (vocabulary x width over the blocks' weights a token; Gemma 3
270M 1.7, SmolLM2 0.27), known where the model's config.json is materialised. Not counted:
attention over a long cached prefix, the final norm and unembedding of the evaluation and FV rows,
padding inside a batch, Python overhead; the throughput (tokens/s) and the runtime's safety factor
absorb them.

Each rule's count follows its script (workflow_scripts/<rule>.py) and the library calls it makes
(named in each function below). Where the count depends on what is known only when the job runs
(which heads a ranked set holds, how long each prompt is), the approximation is stated where it is
made. Prompt lengths come from the data where it can be read at DAG build (built-in tasks, local
files), else from `cost.example_tokens`. Imports no torch: the Snakefile calls it at DAG build
(rules/common.smk, `job_runtime`).
"""
from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from .config import (addback_n_eval, artifact_models, checkpoint_models, dataset_size, deep_merge, ltv_sweep_layers, sweep_n,
                     validate)
from .counting import layer_groups, limit_ranges, n_of_percent, sweep_layers

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_CONFIG = ROOT / "config" / "config.yaml"

# Layers x heads where neither a materialised config.json, a `shape` key, a `train` block nor
# ltv.n_layers_hint gives them: a 7-8B decoder (Llama-2-7B, Llama-3-8B).
DEFAULT_LAYERS, DEFAULT_HEADS = 32, 32

# Every rule that runs a model, in the order of the printed table.
MODEL_RULES = ("train_model", "cache", "induction_scores", "fv_scores", "tsla_ablation", "tsla_perturbation",
               "tsla_steering", "tsla_steering_sweep", "yin_ablation", "yin_addback", "yin_token_loss", "ltv_train",
               "ltv_evaluate", "ltv_mechanism", "ltv_linear", "ltv_transfer", "ltv_composition", "ltv_peft")

# The `share=` of each icl_heads.model.evaluate call of a rule's script, in the order of the
# script (tests/test_cost.py reads the scripts and checks this table against them).
SHARES = {"tsla_ablation": ("layers",), "tsla_perturbation": ("layers",), "tsla_steering": ("both",),
          "tsla_steering_sweep": ("both",), "yin_ablation": ("layers",), "yin_addback": ("both", "both"),
          "ltv_evaluate": ("both",), "ltv_transfer": ("both",), "ltv_composition": ("both", "both")}


# ------------------------------------------------------------------ token counts of text
_PIECE = re.compile(r"[^\W_]+|\n+|\S", re.UNICODE)


class CharCounter:
    """Tokens of a text without a tokenizer: each word (a run of letters and digits, with the
    space before it) is max(1, len / chars_per_token) tokens, each other visible character and
    each run of newlines one token; `special` (a BOS) is added once per sequence. On SmolLM2's
    tokenizer over every dataset of config.yaml and paper.yaml (5 characters a token) this gives
    0.88-1.14 of the true count; total characters / 4 gives 0.51-1.06 (short Q:/A: demonstrations
    are mostly punctuation and newlines)."""

    special = 1

    def __init__(self, chars_per_token: float):
        self.chars_per_token = float(chars_per_token)
        self.key = ("chars", self.chars_per_token)

    def __call__(self, text: str) -> float:
        c = self.chars_per_token
        return sum(max(1.0, len(p) / c) if p[0].isalnum() else 1.0 for p in _PIECE.findall(text))


class TokenizerCounter:
    """Tokens of a text by a real tokenizer (`special`: what it adds to a sequence, e.g. BOS)."""

    def __init__(self, tokenizer):
        self.tokenizer = tokenizer
        self.special = len(tokenizer("")["input_ids"])
        self.key = ("tokenizer", id(tokenizer))

    def __call__(self, text: str) -> float:
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])


@dataclass(frozen=True)
class Lengths:
    """Token lengths of one dataset's prompts (means over its examples), and its split sizes."""

    demo: float            # one demonstration, train split: query + " " + answer + separator
    query: float           # one query, test split (the prompt's last part)
    answer: float          # " " + answer: the label tokens LTV trains on
    special: float         # what the tokenizer adds to a sequence (BOS)
    sizes: dict | None     # examples per split, where the data were read
    source: str = "data"   # "data" or "cost.example_tokens"

    def prompt(self, n_shot: int) -> float:
        """Tokens of an n-shot prompt (icl_heads.prompts.build_prompts: demos, then the query)."""
        return self.special + n_shot * self.demo + self.query

    def count(self, split: str, start: int, n: int) -> int:
        """Queries [start, start + n) of `split` that exist (build_prompts stops at the split's end)."""
        if self.sizes is None or split not in self.sizes:
            return int(n)
        return max(0, min(self.sizes[split], start + n) - start)


_CACHE: dict = {}


def _key(config: dict, name: str, *more) -> tuple:
    entry = config["datasets"][name]
    return (name, json.dumps(entry, sort_keys=True, default=str), str(config.get("data_dir")), *more)


def _task(config: dict, name: str):
    """Dataset `name` as the rules load it, where that needs no download (built-in, local files,
    prompt sets); None for a hub dataset or one whose files cannot be read here."""
    from .data import _load
    from .errors import ConfigError, DataError

    key = ("task", *_key(config, name))
    if key not in _CACHE:
        task = None
        if config["datasets"][name].get("source", "builtin") != "hub":
            try:
                task = _load(name, config, config.get("data_dir"), hashes=False)
            except (ConfigError, DataError, OSError, ValueError):
                task = None
        _CACHE[key] = task
    return _CACHE[key]


def document_tokens(config: dict, name: str, tokens) -> tuple | None:
    """Tokens of each document of a text dataset (Y6 reads every split's rows), None where the
    texts cannot be read here."""
    key = ("docs", *_key(config, name, tokens.key))
    if key not in _CACHE:
        task = _task(config, name)
        _CACHE[key] = None if task is None else tuple(
            tokens.special + tokens(r["input"]) for rows in task.splits.values() for r in rows)
    return _CACHE[key]


def dataset_lengths(config: dict, name: str, tokens) -> Lengths:
    """Lengths of dataset `name`: measured on its examples where they can be read without a
    download (built-in, local files, prompt sets), else cost.example_tokens for a demonstration
    and for a query (a hub dataset, or a file that is missing here)."""
    from .prompts import format_query

    key = ("lengths", *_key(config, name, tokens.key, config["cost"]["example_tokens"]))
    if key in _CACHE:
        return _CACHE[key]
    task = _task(config, name)
    if task is None:
        ex = float(config["cost"]["example_tokens"])
        out = Lengths(ex, ex, 1.0, tokens.special, None, "cost.example_tokens")
    else:
        tmpl, sep = task.template["query"], task.template.get("separator", "\n\n")

        def mean(xs):
            xs = list(xs)
            return sum(xs) / len(xs) if xs else 0.0

        def rendered(r):
            return format_query(tmpl, r)[0]

        train, test = task.splits.get("train") or [], task.splits.get("test") or []
        demo = mean(tokens(rendered(r) + " " + r["output"] + sep) for r in train)
        query = mean(tokens(rendered(r)) for r in test)
        answer = mean(tokens(" " + r["output"]) for r in test + train)
        out = Lengths(demo, query, answer, tokens.special, {k: len(v) for k, v in task.splits.items()})
    _CACHE[key] = out
    return out


# ------------------------------------------------------------------ model shapes
@dataclass(frozen=True)
class Shape:
    n_layers: int
    n_heads: int
    source: str   # where the numbers came from


def _config_json(config: dict, model: str) -> dict | None:
    res = Path(config.get("resources_dir", "resources")) / model
    for cand in (res / "hf" / "config.json", res / "config.json"):
        if cand.is_file():
            try:
                c = json.loads(cand.read_text())
            except (OSError, ValueError):
                continue
            return c.get("text_config", c)
    return None


def model_shape(config: dict, model: str) -> Shape:
    """Layers and heads of `model`: its materialised config.json; else the entry's `shape`; else
    a trained model's `train` block (a checkpoint's: its parent's); else ltv.n_layers_hint and
    DEFAULT_HEADS; else DEFAULT_LAYERS x DEFAULT_HEADS."""
    c = _config_json(config, model)
    if c and "num_hidden_layers" in c and "num_attention_heads" in c:
        return Shape(int(c["num_hidden_layers"]), int(c["num_attention_heads"]), "config.json")
    entry = config["models"].get(model, {})
    parent = config["models"].get(entry.get("checkpoint_of"), {})
    for where, e in ((model, entry), (entry.get("checkpoint_of"), parent)):
        if e.get("shape"):
            return Shape(int(e["shape"]["n_layers"]), int(e["shape"]["n_heads"]), f"models.{where}.shape")
        if e.get("train"):
            t = e["train"]
            return Shape(int(t.get("n_layers", 2)), int(t.get("n_heads", 4)), f"models.{where}.train")
    hint = config.get("ltv", {}).get("n_layers_hint", {})
    if model in hint:
        return Shape(int(hint[model]), DEFAULT_HEADS, f"ltv.n_layers_hint.{model}, {DEFAULT_HEADS} heads assumed")
    return Shape(DEFAULT_LAYERS, DEFAULT_HEADS, "assumed (no config.json, shape or hint)")


def unembed_ratio(config: dict, model: str) -> tuple[float, str]:
    """Token equivalents of one position's logits: vocabulary x width (the unembedding's
    multiply-adds) over the multiply-adds of one token through every block (attention's four
    projections, the MLP's two or three). From the materialised config.json; 0 where there is none,
    or where it names these sizes otherwise (the logits of training steps are then left to the
    throughput)."""
    c = _config_json(config, model)
    keys = ("vocab_size", "hidden_size", "num_hidden_layers", "num_attention_heads", "intermediate_size")
    if not c:
        return 0.0, "not known (no materialised config.json)"
    missing = [k for k in keys if c.get(k) is None]
    if missing:   # e.g. GPT-2's n_embd / n_layer names
        return 0.0, f"not known (config.json has no {', '.join(missing)})"
    V, d, L, H, ff = (int(c[k]) for k in keys)
    hd = int(c.get("head_dim") or d // H)
    kv = int(c.get("num_key_value_heads") or H)
    gated = c.get("model_type") not in ("gpt2", "gpt_neox", "gptj", "opt", "phi")   # up and gate, or up only
    body = L * (2 * d * H * hd + 2 * d * kv * hd + (3 if gated else 2) * d * ff)
    return V * d / body, "config.json"


def planned_n_layers(config: dict, model: str) -> int:
    """The layer count the DAG plans the F4 sweep with (rule ltv_train's `configurations`): the
    materialised config.json, else ltv.n_layers_hint, else 32. Not `shape`: the sweep is a param
    of ltv_train, and `shape` must rerun nothing."""
    c = _config_json(config, model)
    if c and "num_hidden_layers" in c:
        return int(c["num_hidden_layers"])
    return int(config.get("ltv", {}).get("n_layers_hint", {}).get(model, 32))


def ltv_configurations(config: dict, model: str, dataset: str) -> list[str]:
    """Rule ltv_train's configurations: every L1 site and F4 sweep layer for ltv.datasets; only the
    baseline for a dataset used by L3-L5 or L7 alone (rules/common.smk delegates here)."""
    ltv = config["ltv"]
    if dataset in ltv["datasets"]:
        return list(ltv["configurations"]) + [f"layer{l}" for l in
                                              ltv_sweep_layers(planned_n_layers(config, model), ltv["sweep_stride"])]
    return ["baseline"]


# ------------------------------------------------------------------ shared pieces of the library
def expected_first_layer(n_layers: int, n_heads: int, k: int) -> float:
    """E[lowest layer] of k heads drawn uniformly without replacement from L x H (a random head
    set, whose ablation `evaluate(share="layers")` starts at that layer): sum over l >= 1 of
    P(min >= l) = C((L - l) H, k) / C(L H, k)."""
    total = math.comb(n_layers * n_heads, k)
    return sum(math.comb((n_layers - l) * n_heads, k) / total for l in range(1, n_layers))


# A ranked head set (top TR, TL, IH, FV, ...): which layers it holds is known only once the
# scores exist, so its ablation is counted from block 0 (an upper bound; for the 8B models' 31
# heads at 3% the lowest layer is near 0 anyway).
RANKED = 0


def evaluate_tokens(n: float, T: float, conds: list, share: str, n_layers: int) -> float:
    """Forward tokens of icl_heads.model.evaluate over n prompts of T tokens under `conds`, each
    None (no intervention) or (first_layer, first_column): the earliest block and column it changes
    (column 0: every position, as a head ablation; T - 1: the final position only).
    - none: every condition, the empty one too, is a full pass;
    - layers: one clean pass; a condition from its first block on over every column;
    - columns: the columns before the earliest touched one run once into a prefix, then every
      condition is a full pass over the rest;
    - both: that prefix, one clean pass over the rest, then each condition from its first block
      on over the rest (a residual addition at N of layer l: (L - l) / L of one column)."""
    L = n_layers
    if share == "none":
        return n * T * len(conds)
    start = 0.0
    if share in ("columns", "both"):
        start = max(0.0, min([T - 1] + [c[1] for c in conds if c is not None]))
    rest = T - start
    if share == "columns":
        return n * start + n * rest * len(conds)
    return n * start + n * rest + sum(n * rest * max(0, L - c[0]) / L for c in conds if c is not None)


def evaluate_tokens_limited(n: float, T: float, conds: list, share: str, n_layers: int) -> float:
    """evaluate_tokens of one evaluate call with `limits`: conds is [(condition, limit)], a
    condition running on the first `limit` prompts only (None: all n), split into ranges as
    evaluate splits them (counting.limit_ranges)."""
    ranges = limit_ranges(n, range(len(conds)), {i: lim for i, (_, lim) in enumerate(conds)})
    return sum(evaluate_tokens(b - a, T, [conds[i][0] for i in active], share, n_layers) for a, b, active in ranges)


# ------------------------------------------------------------------ LTV sites (icl_heads.ltv.site)
def ltv_site(name: str, n_layers: int, layer_stride: int) -> tuple[tuple[int, ...], tuple[int, ...], str]:
    """(layers, positions, prompt) of an LTV configuration, as icl_heads.ltv.site makes it."""
    mid, every, last5 = n_layers // 2, tuple(range(0, n_layers, layer_stride)), (-5, -4, -3, -2, -1)
    table = {"baseline": ((mid,), (-1,), "zeroshot"), "pos4": ((mid,), (4,), "zeroshot"),
             "multipos": ((mid,), last5, "zeroshot"), "multilayer": (every, (-1,), "zeroshot"),
             "multi": (every, last5, "zeroshot"), "icl": ((mid,), (-1,), "icl")}
    if name in table:
        return table[name]
    return ((min(int(name[5:]), n_layers - 1),), (-1,), "zeroshot")   # layer<l>: the F4 sweep


def first_column(positions, T: float) -> float:
    """icl_heads.ltv.first_column for a prompt of T tokens: a negative position counts from the
    end; p >= 0 is the p-th token of the longest row (offset 0)."""
    return max(0.0, min(min(T + p if p < 0 else p for p in positions), T - 1))


# ------------------------------------------------------------------ the jobs and their work
@dataclass
class JobCost:
    rule: str
    model: str
    wildcards: dict = field(default_factory=dict)
    forward: float = 0.0    # full-model token equivalents
    backward: float = 0.0   # 2 x the forward tokens of the blocks a backward pass runs through

    @property
    def tokens(self) -> float:
        return self.forward + self.backward


class _Ctx:
    def __init__(self, config: dict, tokens=None):
        self.cfg = config
        self.tokens = tokens or CharCounter(config["cost"]["chars_per_token"])

    def len(self, dataset: str) -> Lengths:
        return dataset_lengths(self.cfg, dataset, self.tokens)

    def shape(self, model: str) -> tuple[int, int]:
        s = model_shape(self.cfg, model)
        return s.n_layers, s.n_heads

    def ltv_queries(self, dataset: str) -> tuple[int, int]:
        """(training, evaluation) queries of icl_heads.ltv.query_sets: the first n_train of the test
        split, then the next ltv.n_eval (fewer where the split ends)."""
        n_train = dataset_size(self.cfg, dataset, "ltv_n_train")
        ln = self.len(dataset)
        return ln.count("test", 0, n_train), ln.count("test", n_train, self.cfg["ltv"]["n_eval"])

    def label_tokens(self, dataset: str) -> int:
        """K of an LTV training batch: the label's tokens (the mean, rounded up, for the batch's
        longest), or 1 with ltv.label_tokens first."""
        if self.cfg["ltv"]["label_tokens"] == "first":
            return 1
        return max(1, math.ceil(self.len(dataset).answer - 1e-9))


def _rows_per_step(n: int, batch_size: int) -> float:
    """Mean rows of a training step: the steps cycle over ceil(n / batch_size) batches."""
    return n / max(1, math.ceil(n / batch_size)) if n else 0.0


def _cache(c: _Ctx, m: str, w: dict):
    """build_cache: one pass over the prompt set (icl_heads.cache.prompt_set)."""
    p, d, pset = c.cfg["prompts"], w["dataset"], w["pset"]
    n_score, n_eval = dataset_size(c.cfg, d, "n_score"), dataset_size(c.cfg, d, "n_eval")
    ln = c.len(d)
    n = ln.count("test", 0, n_score) if pset == "score" else ln.count("test", n_score, n_eval)
    return n * ln.prompt(0 if pset == "eval_zeroshot" else p["n_shot"]), 0.0


def _induction_scores(c: _Ctx, m: str, w: dict):
    """heads.induction_scores: one pass over each [BOS] + r + r."""
    ic = c.cfg["induction"]
    n, r = ic["n_sequences"], ic["seq_len"]
    if ic["sequences"]:
        p = Path(ic["sequences"]).expanduser()
        p = p if p.is_absolute() else Path(c.cfg["data_dir"]) / p
        try:
            seqs = json.loads(p.read_text())
            n, r = len(seqs), len(seqs[0])
        except (OSError, ValueError, TypeError, IndexError):
            pass
    return n * (2 * r + 1), 0.0


def _fv_scores(c: _Ctx, m: str, w: dict):
    """fv.mean_head_z over the clean prompts; fv.fv_scores_fast per corrupted prompt: the prefix
    (T - 1), then per pass of layers [a, b) its unpatched row through every block and the rows
    of layer l from block l (L - l of the L blocks), counted in whole-model columns."""
    L, H = c.shape(m)
    f, ln = c.cfg["fv"], c.len(w["dataset"])
    n, T = ln.count("test", 0, f["n_prompts"]), ln.prompt(f["n_shot"])
    rows = sum(1 + H * sum(L - l for l in range(a, b)) / L for a, b in layer_groups(L, H, f["chunk"]))
    return n * T + n * (T - 1 + rows), 0.0


def _random_first(L: int, H: int, k: int):
    return (expected_first_layer(L, H, k), 0)


def _tsla_eval(c: _Ctx, d: str) -> tuple[float, float, float]:
    """T5 / T6's held-out queries (the first tsla.ablation_n_eval), their n-shot prompt length, and
    the tokens of the mean-z pass over the score prompts (tsla.ablation mean; 0 otherwise)."""
    ln = c.len(d)
    n_score, n_eval = dataset_size(c.cfg, d, "n_score"), dataset_size(c.cfg, d, "n_eval")
    T = ln.prompt(c.cfg["prompts"]["n_shot"])
    fwd = ln.count("test", 0, n_score) * T if c.cfg["tsla"]["ablation"] == "mean" else 0.0
    return sweep_n(ln.count("test", n_score, n_eval), c.cfg["tsla"]["ablation_n_eval"]), T, fwd


def _tsla_ablation(c: _Ctx, m: str, w: dict):
    """T5: mean z over the score prompts (tsla.ablation mean); one evaluate(share="layers") call on
    the eval prompts: per threshold TR, TL (and IH, DLA-TL at top_percent) and random sets, at
    every position; the other thresholds on the first tsla.sweep_n_eval queries, IH and DLA-TL on
    the first tsla.table_n_eval (`limits`)."""
    L, H = c.shape(m)
    t = c.cfg["tsla"]
    n, T, fwd = _tsla_eval(c, w["dataset"])
    n_sweep, n_table = sweep_n(n, t["sweep_n_eval"]), sweep_n(n, t.get("table_n_eval"))
    conds = [(None, None)]
    for pct in t["threshold_sweep"]:
        top = pct == t["top_percent"]
        rnd = _random_first(L, H, n_of_percent(L * H, pct))
        lim = None if top else n_sweep
        conds += [((RANKED, 0), lim)] * 2 + ([((RANKED, 0), n_table)] * 2 if top else [])
        conds += [(rnd, lim)] * (t["random_seeds"] if top else t["sweep_random_seeds"])
    return fwd + evaluate_tokens_limited(n, T, conds, SHARES["tsla_ablation"][0], L), 0.0


def _t6_claimed() -> set:
    """The T6 cells ("{perturbation}_{clean|tr|tl}") a claim of config/claims.yaml reads: they run
    on every T6 query, the others on the first tsla.table_n_eval."""
    from .claims import contrast_conditions, rule_claims
    return contrast_conditions(rule_claims("tsla_perturbation"))


def _tsla_perturbation(c: _Ctx, m: str, w: dict):
    """T6: per perturbation, clean and the TR / TL sets ablated, on the first tsla.perturbation_n_eval
    of T5's queries (the unperturbed runs come from T5); the cells no claim reads on the first
    tsla.table_n_eval of them."""
    L, _ = c.shape(m)
    t = c.cfg["tsla"]
    n, T, fwd = _tsla_eval(c, w["dataset"])
    n = sweep_n(n, t.get("perturbation_n_eval"))   # the first tsla.perturbation_n_eval of T5's queries
    n_table, claimed = sweep_n(n, t.get("table_n_eval")), _t6_claimed()
    out = fwd
    for pert in t["perturbations"]:
        conds = [(cond, None if f"{pert}_{cell}" in claimed else n_table)
                 for cell, cond in (("clean", None), ("tr", (RANKED, 0)), ("tl", (RANKED, 0)))]
        out += evaluate_tokens_limited(n, T, conds, SHARES["tsla_perturbation"][0], L)
    return out, 0.0


def _tsla_steering(c: _Ctx, m: str, w: dict):
    """T7: zero-shot prompts; TR, TL and random vectors of every threshold added at N of the
    steering layer."""
    L, _ = c.shape(m)
    t, d = c.cfg["tsla"], w["dataset"]
    ln = c.len(d)
    n = ln.count("test", dataset_size(c.cfg, d, "n_score"), dataset_size(c.cfg, d, "n_eval"))
    T = ln.prompt(0)
    layer = t["steer_layer"] if t["steer_layer"] >= 0 else L // 2
    k = sum(2 + (t["random_seeds"] if pct == t["top_percent"] else t["sweep_random_seeds"])
            for pct in t["threshold_sweep"])
    return evaluate_tokens(n, T, [None] + [(layer, T - 1)] * k, SHARES["tsla_steering"][0], L), 0.0


def _tsla_steering_sweep(c: _Ctx, m: str, w: dict):
    """T7 sweep: yin.resid_rms_at_final (one pass), then every (vector, layer, scale) at N."""
    L, _ = c.shape(m)
    t, d = c.cfg["tsla"], w["dataset"]
    sw = t["steer_sweep"]
    ln = c.len(d)
    n = ln.count("test", dataset_size(c.cfg, d, "n_score"), dataset_size(c.cfg, d, "n_eval"))
    n = sweep_n(n, t["sweep_n_eval"])
    T = ln.prompt(0)
    scales, vectors = 1 + len(sw["relative_scales"]), 2 + sw["random_seeds"]
    conds = [None] + [(l, T - 1) for l in sweep_layers(L, sw["layer_fractions"]) for _ in range(scales * vectors)]
    return n * T + evaluate_tokens(n, T, conds, SHARES["tsla_steering_sweep"][0], L), 0.0


def _yin_sets(c: _Ctx, L: int, H: int) -> list:
    """yin.head_sets: per share, IH, FV, IH_excl, FV_excl (ranked) and the random sets."""
    a = c.cfg["fv"]["ablation"]
    out = []
    for p in a["percents"]:
        out += [(RANKED, 0)] * 4 + [_random_first(L, H, n_of_percent(L * H, p))] * a["random_seeds"]
    return out


def _yin_ablation(c: _Ctx, m: str, w: dict):
    """Y5 / Y8: mean z (mean mode), one pass over the prompts holding the replacement draws
    (replace mode: the expected number of distinct prompts among len(sets) uniform draws), then
    every (mode, set) ablated at every position."""
    L, H = c.shape(m)
    f, ln = c.cfg["fv"], c.len(w["dataset"])
    modes = f["ablation"]["modes"]
    n, T = ln.count("test", 0, f["n_eval"]), ln.prompt(f["n_shot"])
    sets = _yin_sets(c, L, H)
    fwd = n * T if "mean" in modes else 0.0
    if "replace" in modes and n:
        fwd += n * (1 - (1 - 1 / n) ** len(sets)) * T
    conds = [None] + sets * len(modes)
    return fwd + evaluate_tokens(n, T, conds, SHARES["yin_ablation"][0], L), 0.0


def _yin_addback(c: _Ctx, m: str, w: dict):
    """Y7: yin.mean_head_outputs over the reference prompts (train-split queries); clean 10-shot,
    shuffled and zero-shot prompts with the FV and random vectors at N of layer L/3; the sweep:
    resid_rms_at_final, then every (variant, vector, layer, scale) on the shuffled prompts."""
    L, _ = c.shape(m)
    f, ln = c.cfg["fv"], c.len(w["dataset"])
    n, n_ref = ln.count("test", 0, addback_n_eval(f)), ln.count("train", 0, f["n_prompts"])
    T, T0 = ln.prompt(f["n_shot"]), ln.prompt(0)
    layer = f["addback_layer"] if f["addback_layer"] >= 0 else L // 3
    vectors = 1 + f["ablation"]["random_seeds"]
    share, sweep_share = SHARES["yin_addback"]
    fwd = n_ref * T
    fwd += evaluate_tokens(n, T, [None], share, L)
    fwd += evaluate_tokens(n, T, [None] + [(layer, T - 1)] * vectors, share, L)
    fwd += evaluate_tokens(n, T0, [None] + [(layer, T0 - 1)] * vectors, share, L)
    sw = f["addback_sweep"]
    per_layer = 2 * vectors * (1 + len(sw["relative_scales"]))   # FV top-% and top-n, each with its random controls
    conds = [None] + [(l, T - 1) for l in sweep_layers(L, sw["layer_fractions"]) for _ in range(per_layer)]
    n_sw = sweep_n(n, sw["n_eval"])
    return fwd + n_sw * T + evaluate_tokens(n_sw, T, conds, sweep_share, L), 0.0


def _yin_token_loss(c: _Ctx, m: str, w: dict):
    """Y6: the documents of at least late + window + 1 tokens (at most n_docs; all n_docs where the
    texts cannot be read here): mean z (a full pass), the clean run, then every head set from its
    earliest ablated block on (yin.token_losses_shared)."""
    L, H = c.shape(m)
    tl = c.cfg["fv"]["token_loss"]
    D = tl["late"] + tl["window"] + 1
    docs = document_tokens(c.cfg, tl["dataset"], c.tokens)
    n = tl["n_docs"] if docs is None else min(tl["n_docs"], sum(1 for x in docs if x >= D))
    return n * D + evaluate_tokens(n, D, [None] + _yin_sets(c, L, H), "layers", L), 0.0


def _ltv_train(c: _Ctx, m: str, w: dict):
    """ltv.train_ltv per configuration: step_scale (resid_rms: one pass over the training prompts),
    the prefix of the columns theta cannot reach (once per batch), then per step a forward pass
    over the rest of the prompt and the label tokens, and a backward pass from the logits down to
    the site's lowest layer."""
    L, _ = c.shape(m)
    lv, d = c.cfg["ltv"], w["dataset"]
    ln = c.len(d)
    n, _ = c.ltv_queries(d)
    K, r = c.label_tokens(d), _rows_per_step(n, lv["batch_size"])
    u = unembed_ratio(c.cfg, m)[0] * lv["steps"] * r * K   # a step's logits: K positions a row
    fwd = bwd = 0.0
    for conf in ltv_configurations(c.cfg, m, d):
        layers, positions, prompt = ltv_site(conf, L, lv["layer_stride"])
        Wq = ln.prompt(lv["n_shot"] if prompt == "icl" else 0)
        start = first_column(positions, Wq)
        cols = Wq + K - 1 - start
        fwd += (n * Wq if lv["lr_scale"] == "resid_rms" else 0.0) + n * start + lv["steps"] * r * cols + u
        bwd += 2 * lv["steps"] * r * cols * (L - min(layers)) / L + 2 * u
    return fwd, bwd


def _ltv_evaluate(c: _Ctx, m: str, w: dict):
    """L1 / F4: extraction_means (one pass over the n-shot and one over the zero-shot training
    prompts), then per prompt kind LTV, Vanilla TV (and FV) at every site."""
    L, _ = c.shape(m)
    lv, d = c.cfg["ltv"], w["dataset"]
    ln = c.len(d)
    n_train, n_eval = c.ltv_queries(d)
    T_icl, T_zs = ln.prompt(lv["n_shot"]), ln.prompt(0)
    methods = 3 if c.cfg["fv"]["scoring_tasks"] else 2
    fwd = n_train * (T_icl + T_zs)
    for kind, T in (("zeroshot", T_zs), ("icl", T_icl)):
        conds = [None]
        for conf in ltv_configurations(c.cfg, m, d):
            layers, positions, prompt = ltv_site(conf, L, lv["layer_stride"])
            if prompt == kind:
                conds += [(min(layers), first_column(positions, T))] * methods
        fwd += evaluate_tokens(n_eval, T, conds, SHARES["ltv_evaluate"][0], L)
    return fwd, 0.0


def _ltv_mechanism(c: _Ctx, m: str, w: dict):
    """L3 / L4 on the evaluation prompts, each evaluate_one a full pass (share none): full LTV, the
    packed OV vector and the random direction (each also a clean pass inside packed_ov), MLP path,
    zero-shot, two OV controls, packed_ov_norms, key heads and each random set ablated, the sink
    pass; head_saliency on the training prompts: forward and backward to block 0 (z of every layer)."""
    lv, d = c.cfg["ltv"], w["dataset"]
    T = c.len(d).prompt(0)
    n_train, n_eval = c.ltv_queries(d)
    passes = 9 + 1 + 1 + lv["random_seeds"] + 1
    return n_eval * T * passes + n_train * T, 2 * n_train * T


def _ltv_linear(c: _Ctx, m: str, w: dict):
    """L5 per sweep layer: final_state_change on the fit queries (prefix T - 1, the base column,
    one column per noisy copy), the same for theta on the evaluation queries, evaluate_one of the
    LTV, and the held-out copies."""
    lv, d = c.cfg["ltv"], w["dataset"]
    T = c.len(d).prompt(0)
    n_train, n_eval = c.ltv_queries(d)
    nq, noise = min(lv["linear"]["n_queries"], n_train), lv["linear"]["n_noise"]
    layers = [conf for conf in ltv_configurations(c.cfg, m, d) if conf.startswith("layer")]
    per = (nq * T + noise * nq) + (n_eval * T + n_eval) + n_eval * T + (nq * T + max(2, noise // 2) * nq)
    return len(layers) * per, 0.0


def _ltv_transfer(c: _Ctx, m: str, w: dict):
    """L6: per target dataset, its zero-shot evaluation prompts with every dataset's baseline LTV."""
    L, _ = c.shape(m)
    sources = c.cfg["ltv"]["datasets"]
    fwd = 0.0
    for target in sources:
        T = c.len(target).prompt(0)
        conds = [(L // 2, T - 1)] * len(sources) + [None]
        fwd += evaluate_tokens(c.ltv_queries(target)[1], T, conds, SHARES["ltv_transfer"][0], L)
    return fwd, 0.0


def _ltv_composition(c: _Ctx, m: str, w: dict):
    """L7: the composed task's every test query (training + evaluation), zero-shot with each
    vector alone and their sum; then the n-shot prompts (ICL)."""
    L, _ = c.shape(m)
    comp, lv = c.cfg["ltv"]["composition"], c.cfg["ltv"]
    ln = c.len(comp["composed"])
    n = sum(c.ltv_queries(comp["composed"]))
    T, T_icl = ln.prompt(0), ln.prompt(lv["n_shot"])
    zs, icl = SHARES["ltv_composition"]
    conds = [(L // 2, T - 1)] * (len(comp["tasks"]) + 1) + [None]
    return evaluate_tokens(n, T, conds, zs, L) + evaluate_tokens(n, T_icl, [None], icl, L), 0.0


def _ltv_peft(c: _Ctx, m: str, w: dict):
    """L2 per method: `steps` training steps over the whole zero-shot prompt and label (no prefix
    cache), backward from the logits to the middle layer (LTV, LoRA there) or to the input
    (prefix and prompt tuning); step_scale for LTV with resid_rms; the evaluation pass."""
    L, _ = c.shape(m)
    lv = c.cfg["ltv"]
    d = lv["peft"]["dataset"]
    T = c.len(d).prompt(0)
    n_train, n_eval = c.ltv_queries(d)
    K, r = c.label_tokens(d), _rows_per_step(n_train, lv["batch_size"])
    cols = T + K - 1
    u = unembed_ratio(c.cfg, m)[0] * lv["steps"] * r * K   # a step's logits: K positions a row
    fwd = bwd = 0.0
    for method in lv["peft"]["methods"]:
        extra = 1 if method == "prompt" else 0   # one virtual input token
        depth = (L - L // 2) / L if method in ("ltv", "lora") else 1.0
        fwd += lv["steps"] * r * (cols + extra) + n_eval * (T + extra) + u
        fwd += n_train * T if method == "ltv" and lv["lr_scale"] == "resid_rms" else 0.0
        bwd += 2 * lv["steps"] * r * (cols + extra) * depth + 2 * u
    return fwd, bwd


def _train_model(c: _Ctx, m: str, w: dict):
    """model.train.train_model: steps x batch_size x context, forward and backward through every
    block; at each checkpoint the induction probe and the held-out loss (32 rows)."""
    t = c.cfg["models"][m]["train"]
    probe = t["induction_probe"]
    tokens = t["steps"] * t["batch_size"] * t["context"]
    checks = len(set(t["checkpoint_steps"])) * (probe["n_sequences"] * (2 * probe["seq_len"] + 1) + 32 * t["context"])
    return tokens + checks, 2 * tokens


RULE_COST = {name: globals()[f"_{name}"] for name in MODEL_RULES}


def job_cost(config: dict, rule: str, wildcards: dict, tokens=None) -> JobCost:
    """The work of one job of a model rule (wildcards: the job's, e.g. {model, dataset, pset})."""
    w = dict(wildcards)
    fwd, bwd = RULE_COST[rule](_Ctx(config, tokens), w["model"], w)
    return JobCost(rule, w["model"], {k: v for k, v in w.items() if k != "model"}, float(fwd), float(bwd))


def model_jobs(config: dict, models=None) -> list[tuple[str, dict]]:
    """Every model job of the DAG of `figures/` (rules/common.smk all_tables and all_figures), as
    (rule, wildcards); `models`: the models to cost as if they were run_models (default: the DAG's
    run_models and the models outside it that run their `artifacts`)."""
    cfg = config
    run = list(models) if models else list(cfg["run_models"])
    art = [] if models else artifact_models(cfg)
    fv, ltv = cfg["fv"], cfg["ltv"]
    out: list[tuple[str, dict]] = []

    def add(rule, model, **wc):
        job = (rule, {"model": model, **wc})
        if job not in out:
            out.append(job)

    def scores_y1_y2(model):
        add("induction_scores", model)
        for t in fv["scoring_tasks"]:
            add("fv_scores", model, dataset=t)

    for m in run:
        for d in cfg["classification_datasets"]:
            for pset in ("score", "eval", "eval_zeroshot"):
                add("cache", m, dataset=d, pset=pset)
        add("induction_scores", m)
        for d in cfg["classification_datasets"]:
            for rule in ("tsla_ablation", "tsla_perturbation", "tsla_steering", "tsla_steering_sweep"):
                add(rule, m, dataset=d)
        if fv["scoring_tasks"]:
            scores_y1_y2(m)
            if fv["eval_tasks"]:
                for t in fv["eval_tasks"]:
                    add("yin_ablation", m, dataset=t)
                    add("yin_addback", m, dataset=t)
                add("yin_token_loss", m)
            for ck in checkpoint_models(cfg, m):
                scores_y1_y2(ck)
        if ltv["datasets"]:
            mech = list(ltv["mechanism_datasets"]) or ltv["datasets"][:1]
            comp = ltv["composition"]["tasks"]
            for d in dict.fromkeys([*ltv["datasets"], *mech, *comp]):
                add("ltv_train", m, dataset=d)
            for d in ltv["datasets"]:
                add("ltv_evaluate", m, dataset=d)
            add("ltv_transfer", m)
            for d in mech:
                add("ltv_mechanism", m, dataset=d)
                add("ltv_linear", m, dataset=d)
            if ltv["peft"]["dataset"]:
                add("ltv_peft", m)
            if comp:
                add("ltv_composition", m)
    for m in art:
        arts = cfg["models"][m]["artifacts"]
        if "Y1" in arts:
            add("induction_scores", m)
        if "Y2" in arts and fv["scoring_tasks"]:
            scores_y1_y2(m)
        if "Y9" in arts and fv["scoring_tasks"]:
            for ck in checkpoint_models(cfg, m):
                scores_y1_y2(ck)
    # a model trained here (or a checkpoint of one) is materialised from rule train_model's record
    loaded = dict.fromkeys(w["model"] for _, w in out)
    for m in loaded:
        parent = cfg["models"][m].get("checkpoint_of", m)
        if cfg["models"][parent].get("source") == "train":
            add("train_model", parent)
    return out


def estimate(config: dict, models=None, tokens=None) -> list[JobCost]:
    """One JobCost per model job of the DAG of `figures/` (see model_jobs), from the config alone."""
    return [job_cost(config, rule, w, tokens) for rule, w in model_jobs(config, models)]


# ------------------------------------------------------------------ runtime resource
def throughput(config: dict, model: str) -> tuple[float, str]:
    """Tokens per second of a job of `model`, and the config key it came from."""
    entry = config["models"].get(model, {})
    if entry.get("throughput"):
        return float(entry["throughput"]), f"models.{model}.throughput"
    measured = _manifest(config, model).get("throughput")   # measured once by rule materialise_model
    tps = measured.get("tokens_per_s") if isinstance(measured, dict) else None
    if tps:
        return float(tps), f"measured at materialisation ({_manifest_path(config, model)})"
    return float(config["cost"]["throughput"]["default"]), "cost.throughput.default"


def _manifest_path(config: dict, model: str) -> Path:
    return Path(config.get("resources_dir", "resources")) / model / "manifest.json"


def _manifest(config: dict, model: str) -> dict:
    """The materialised model's manifest, or {} where there is none (yet) or it does not decode."""
    man = _manifest_path(config, model)
    try:
        rec = json.loads(man.read_text()) if man.is_file() else {}
    except (OSError, ValueError):
        return {}
    return rec if isinstance(rec, dict) else {}


def startup_seconds(config: dict, model: str) -> tuple[float, str]:
    """Seconds a job of `model` spends before its first forward pass, and where they came from:
    cost.python_startup_s (a cold interpreter importing torch and transformers) plus loading the
    model: models.<m>.load_s, else what rule materialise_model measured (its manifest's
    load_seconds), else 0 (not known yet)."""
    py = float(config["cost"]["python_startup_s"])
    entry = config["models"].get(model, {})
    if entry.get("load_s") is not None:
        return py + float(entry["load_s"]), f"cost.python_startup_s + models.{model}.load_s"
    load = _manifest(config, model).get("load_seconds")
    if isinstance(load, (int, float)):
        return py + float(load), "cost.python_startup_s + the load time measured at materialisation"
    return py, "cost.python_startup_s (model load not measured yet)"


def predicted_minutes(config: dict, rule: str, wildcards: dict, throughput_: float | None = None,
                      tokens=None) -> float:
    """Minutes the job takes: its tokens at `throughput_` (default: the model's, see throughput())
    plus its start-up (startup_seconds)."""
    job = job_cost(config, rule, wildcards, tokens)
    tps = throughput_ or throughput(config, job.model)[0]
    return (job.tokens / tps + startup_seconds(config, job.model)[0]) / 60.0


def runtime_minutes(config: dict, rule: str, wildcards: dict, throughput_: float | None = None, tokens=None) -> int:
    """The job's `runtime` resource (minutes, Slurm's -t): the predicted minutes times
    cost.safety_factor, rounded up, and at least cost.min_minutes."""
    c = config["cost"]
    return max(int(c["min_minutes"]),
               math.ceil(c["safety_factor"] * predicted_minutes(config, rule, wildcards, throughput_, tokens) - 1e-9))


# ------------------------------------------------------------------ the CLI
def load_config(path: str | Path, overrides: dict | None = None, base: str | Path | None = DEFAULT_CONFIG) -> dict:
    """`path` laid over `base` (as `snakemake --configfile path` lays it over the Snakefile's
    config/config.yaml), then `overrides` (as --config), validated with the schema's defaults."""
    import yaml

    path = Path(path)
    if not path.is_file():
        from .errors import ConfigError

        raise ConfigError(f"config file {path} does not exist")
    cfg = yaml.safe_load(path.read_text()) or {}
    if base is not None and Path(base).resolve() != path.resolve():
        cfg = deep_merge(yaml.safe_load(Path(base).read_text()) or {}, cfg)
    return validate(deep_merge(cfg, overrides or {}), log=lambda msg: None)


def _overrides(items) -> dict:
    """--config KEY=VALUE pairs (KEY may be dotted; VALUE is YAML) as a nested mapping."""
    import yaml

    out: dict = {}
    for item in items or []:
        key, sep, value = item.partition("=")
        if not sep:
            raise SystemExit(f"--config {item!r}: write KEY=VALUE, e.g. data_dir=../shared/data")
        node = out
        parts = key.split(".")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = yaml.safe_load(value)
    return out


def _fmt(tokens: float) -> str:
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if tokens >= scale:
            return f"{tokens / scale:,.2f}{unit}"
    return f"{tokens:.0f}"


def report(config: dict, models=None, throughput_: float | None = None, tokens=None, out=None) -> dict:
    """Print, per model (a checkpoint's jobs count to its parent), one row per rule: jobs, forward
    and backward tokens, predicted hours and the hours the runtime resources request; and a
    total per model. Returns {model: predicted hours}."""
    out = out or sys.stdout
    jobs = estimate(config, models, tokens)
    owner = {}
    for j in jobs:
        owner.setdefault(config["models"][j.model].get("checkpoint_of", j.model), []).append(j)
    totals = {}
    for m, js in owner.items():
        tps, where = (throughput_, "--throughput") if throughput_ else throughput(config, m)
        s = model_shape(config, m)
        kids = sorted({j.model for j in js} - {m})
        up, up_where = startup_seconds(config, m)
        print(f"\n{m}: {s.n_layers} layers x {s.n_heads} heads ({s.source}); throughput {tps:,.0f} tokens/s ({where})"
              + (f"; with its {len(kids)} checkpoint models" if kids else "")
              + f"; start-up {up:.0f} s a job ({up_where})", file=out)
        head = (f"{'rule':<20} {'jobs':>5} {'forward':>12} {'backward':>12} {'model h':>9} {'start-up h':>11} "
                f"{'hours':>9} {'requested h':>12}")
        print(head, file=out)
        print("-" * len(head), file=out)
        tot = {"jobs": 0, "f": 0.0, "b": 0.0, "h": 0.0, "u": 0.0, "r": 0.0}
        for rule in MODEL_RULES:
            rj = [j for j in js if j.rule == rule]
            if not rj:
                continue
            f, b = sum(j.forward for j in rj), sum(j.backward for j in rj)
            h = (f + b) / tps / 3600
            u = sum(startup_seconds(config, j.model)[0] for j in rj) / 3600
            req = sum(runtime_minutes(config, j.rule, {"model": j.model, **j.wildcards}, tps, tokens) for j in rj) / 60
            print(f"{rule:<20} {len(rj):>5} {_fmt(f):>12} {_fmt(b):>12} {h:>9.2f} {u:>11.2f} {h + u:>9.2f} "
                  f"{req:>12.1f}", file=out)
            for k, v in (("jobs", len(rj)), ("f", f), ("b", b), ("h", h), ("u", u), ("r", req)):
                tot[k] += v
        print("-" * len(head), file=out)
        print(f"{'total':<20} {tot['jobs']:>5} {_fmt(tot['f']):>12} {_fmt(tot['b']):>12} {tot['h']:>9.2f} "
              f"{tot['u']:>11.2f} {tot['h'] + tot['u']:>9.2f} {tot['r']:>12.1f}", file=out)
        totals[m] = tot["h"] + tot["u"]
    if len(totals) > 1:
        print(f"\nall models: {sum(totals.values()):.2f} predicted hours, each model at its own throughput", file=out)
    return totals


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m icl_heads.cost",
        description="Predicted work (full-model token equivalents) and hours of every model job of `figures/`, "
                    "from the config alone (no model, no network). Forward = tokens through every block; "
                    "backward = 2 x the tokens of the blocks a backward pass runs through; hours = "
                    "(forward + backward) / throughput; requested h = the jobs' runtime resources "
                    "(x cost.safety_factor, at least cost.min_minutes each).")
    ap.add_argument("config", help="a config file, laid over config/config.yaml as snakemake --configfile does")
    ap.add_argument("--throughput", type=float, help="tokens/s for every model (default: models.<m>.throughput, "
                                                     "else cost.throughput.default)")
    ap.add_argument("--model", action="append", help="cost this model as if it were in run_models (repeatable); "
                                                     "default: the models the DAG runs")
    ap.add_argument("--config", dest="overrides", nargs="+", metavar="KEY=VALUE",
                    help="overrides, as snakemake --config (KEY may be dotted)")
    ap.add_argument("--alone", action="store_true", help="do not lay the file over config/config.yaml")
    ap.add_argument("--tokenizer", help="a directory of Hugging Face tokenizer files to count prompt tokens with "
                                        "(default: the rule of cost.chars_per_token)")
    args = ap.parse_args(argv)
    cfg = load_config(args.config, _overrides(args.overrides), None if args.alone else DEFAULT_CONFIG)
    for m in args.model or []:
        if m not in cfg["models"]:
            raise SystemExit(f"--model {m}: not in the config's models ({', '.join(sorted(cfg['models']))})")
    tokens = None
    if args.tokenizer:
        from transformers import AutoTokenizer

        tokens = TokenizerCounter(AutoTokenizer.from_pretrained(args.tokenizer, local_files_only=True))
    counted = (f"prompt tokens counted by the tokenizer in {args.tokenizer}" if tokens else
               f"prompt tokens estimated from the data, {cfg['cost']['chars_per_token']:g} characters a token "
               "of a word")
    over = args.alone or Path(args.config).resolve() == DEFAULT_CONFIG.resolve()
    print(f"Cost model of {args.config}{'' if over else ' (over config/config.yaml)'}: {counted}; "
          "tokens are full-model token equivalents")
    report(cfg, args.model, args.throughput, tokens)
    return 0


if __name__ == "__main__":
    sys.exit(main())
