"""The one evaluation loop: full-vocabulary argmax at N (and p(answer), log p(answer), log p(label
set)) of every prompt under each of several conditions, with one result type (`Eval`) for every
"accuracy under condition X" of T5-T7, L1-L7 and Y5-Y8.

A condition is a list of intervention values and of batch-dependent items (objects with
`resolve(model, batch, start) -> [interventions]` and `first_column(batch) -> int`, such as an
LTV injection). How the conditions of a batch share work (`share`):
- "none": each condition runs its own full pass;
- "layers": the batch runs clean once, recording every block's output; a condition whose
  earliest intervention is at block l replays blocks < l from that record (exact: they see
  the same inputs as in the clean pass) and computes only blocks l..L-1;
- "columns": the columns no condition touches run once into a key/value prefix shared by
  every condition (exact by causality);
- "both": the two together: the untouched columns run once into a prefix, the later columns
  run clean once over it recording every block's output, and a condition whose earliest
  intervention is at block l computes only blocks l..L-1 of the later columns (a residual
  addition at N of layer l costs L - l blocks of one column). Where a condition touches
  column 0 (an ablation at every position) it is "layers".

Conditions that start at the same block (the same first column and, when layers are shared,
the same first touched block) run stacked: one pass over the batch repeated k times, row
r * k + j being prompt r under condition j, each condition's interventions acting on its own
rows only (`stack_rows` caps B * k). Stacking computes exactly the blocks and columns the
conditions would compute one by one, in fewer, larger operations: the one-column passes of a
steering sweep are dominated by per-operation overhead, not arithmetic. Stacked conditions that
change only the final column over a shared prefix run as branches of it
(`HookedModel.run(branches=True)`): the k rows of a prompt read its cached keys and values
without copying them.

A condition may run on the first n prompts only (`limits`, e.g. a table cell that carries no
claim beside the conditions that do): the prompts are cut into ranges at every limit, and each
range runs once with the conditions that reach it.

Conditions that are the same interventions run once (`condition_key`): head ablations of the
same set of heads, with the same mode, norm handling and reference tensor (the one `means`
object), e.g. Y5's "IH excluding FV" set where no top FV head is among the top induction heads,
or every condition without an intervention. Each name still gets its own `Eval`.
"""
from __future__ import annotations

import sys
from collections import defaultdict
from dataclasses import dataclass

import torch
from tqdm import tqdm

from ..counting import limit_ranges
from .hooked import HookedModel, left_pad
from .interventions import HeadAblation, first_touched_layer

SHARING = ("none", "layers", "columns", "both")


@dataclass
class Eval:
    correct: torch.Tensor   # [n] float 0/1: argmax == answer token
    in_set: torch.Tensor    # [n] float 0/1: argmax in the label token set (nan without a label set)
    argmax: torch.Tensor    # [n]
    p_answer: torch.Tensor  # [n] probability of the answer token
    # Continuous partners of the 0/1 fields, for claims where accuracy or TR ratio sits at a floor
    # (icl_heads.claims); None where the result did not come from `evaluate`.
    logp_answer: torch.Tensor | None = None     # [n] log p(answer token), from log_softmax (no underflow)
    logp_label_set: torch.Tensor | None = None  # [n] log of the probability mass on the label token set (nan without one)


def length_batches(prompts, batch_size: int) -> list[list[int]]:
    """Prompt indices sorted by length, in batches (little padding per batch)."""
    order = sorted(range(len(prompts)), key=lambda i: len(prompts[i].input_ids))
    return [order[s:s + batch_size] for s in range(0, len(order), batch_size)]


def _resolve(model, cond, batch, start):
    out = []
    for item in cond:
        out.extend(item.resolve(model, batch, start) if hasattr(item, "resolve") else [item])
    return out


class _Rows:
    """An intervention acting on rows j, j + k, j + 2k, ... of a stacked batch only (condition j
    of k), with its own per-pass state, so that two stacked conditions never share a key."""

    def __init__(self, iv, j: int, k: int):
        self.iv, self.j, self.k, self.state = iv, j, k, {}

    def points(self, n_layers):
        return self.iv.points(n_layers)

    def first_layer(self, n_layers):
        return self.iv.first_layer(n_layers)

    def apply(self, point, x, run):
        sub = _SubPass(run, self.state)
        rows = slice(self.j, None, self.k)
        part = x[rows]
        y = self.iv.apply(point, part, sub)
        if y is None or y is part:
            return x
        out = x.clone()
        out[rows] = y.to(out.dtype)
        return out


class _SubPass:
    """`run` as an intervention sees it, with a state dict of its own."""

    def __init__(self, run, state: dict):
        self._run, self.state = run, state

    def __getattr__(self, name):
        return getattr(self._run, name)


def condition_key(cond):
    """A key that two conditions share only if they are the same interventions: head ablations
    (`HeadAblation`) of the same heads (in any order) with the same mode, norm and reference
    tensor object. None for a condition holding anything else: it is never merged."""
    key = []
    for item in cond:
        if type(item) is not HeadAblation:
            return None
        ref = None if item.means is None else id(item.means)
        key.append((tuple(sorted((int(l), int(h)) for l, h in item.heads)), item.mode, ref, item.norm))
    return tuple(key)


def _first_column(cond, batch) -> int:
    T = batch.input_ids.shape[1]
    if not cond:
        return T - 1
    return min(item.first_column(batch) if hasattr(item, "first_column") else 0 for item in cond)


def evaluate(model: HookedModel, prompts, label_tokens, conditions: dict, *, share: str = "none",
             batch_size: int = 8, progress: bool = False, desc: str = "eval",
             stack_rows: int = 64, limits: dict | None = None) -> dict[str, Eval]:
    """{condition name: Eval} for the prompts under every condition (see the module doc);
    stack_rows 0 or 1 runs every condition alone.

    limits: {condition name: n}: that condition runs on the first n prompts only (its Eval has n
    entries), e.g. a table cell that carries no claim beside conditions that do. The prompts are
    cut at every distinct limit into consecutive ranges, and each range runs once with the
    conditions that reach it, so conditions of a range share its clean pass and prefixes as in one
    call; the result equals one call per condition on its own first n prompts (up to the padding
    of differently composed batches)."""
    if share not in SHARING:
        raise ValueError(f"share={share!r}: use one of {SHARING}")
    n = len(prompts)
    limits = {k: int(v) for k, v in (limits or {}).items() if v is not None and int(v) < n}
    unknown = sorted(set(limits) - set(conditions), key=str)
    if unknown:
        raise ValueError(f"limits name conditions that are not evaluated: {unknown}")
    if any(v < 1 for v in limits.values()):
        raise ValueError(f"limits must be at least 1 prompt: {limits}")
    if not limits:
        return _evaluate(model, prompts, label_tokens, conditions, share=share, batch_size=batch_size,
                         progress=progress, desc=desc, stack_rows=stack_rows)
    parts: dict = defaultdict(list)
    for a, b, active in limit_ranges(n, list(conditions), limits):
        got = _evaluate(model, prompts[a:b], label_tokens, {k: conditions[k] for k in active}, share=share,
                        batch_size=batch_size, progress=progress, desc=f"{desc} [{a}:{b}]", stack_rows=stack_rows)
        for k, e in got.items():
            parts[k].append(e)
    return {k: _concat(parts[k]) for k in conditions}


def _concat(evals: list) -> Eval:
    if len(evals) == 1:
        return evals[0]
    fields = ("correct", "in_set", "argmax", "p_answer", "logp_answer", "logp_label_set")
    return Eval(*(torch.cat([getattr(e, f) for e in evals]) for f in fields))


def _evaluate(model: HookedModel, prompts, label_tokens, conditions: dict, *, share: str, batch_size: int,
              progress: bool, desc: str, stack_rows: int) -> dict[str, Eval]:
    same, first_of = {}, {}   # a repeated condition: its name -> the name of its first occurrence
    for name, cond in conditions.items():
        key = condition_key(cond)
        if key is not None and key in first_of:
            same[name] = first_of[key]
        elif key is not None:
            first_of[key] = name
    named, conditions = conditions, {k: c for k, c in conditions.items() if k not in same}
    n = len(prompts)
    args = {k: torch.empty(n, dtype=torch.long) for k in conditions}
    pas = {k: torch.empty(n) for k in conditions}
    lpa = {k: torch.empty(n) for k in conditions}
    lps = {k: torch.full((n,), float("nan")) for k in conditions}
    labs = torch.as_tensor(list(label_tokens), dtype=torch.long) if label_tokens is not None and len(label_tokens) else None
    for idx in tqdm(length_batches(prompts, batch_size), desc=desc, file=sys.stderr, disable=not progress, unit="batch"):
        b = left_pad([prompts[i].input_ids for i in idx], model.pad_id)
        rows = torch.tensor(idx)
        ans = torch.tensor([prompts[i].answer_token for i in idx])
        prefix, start, clean, outs = None, 0, None, None
        if share in ("columns", "both"):
            start = min([_first_column(c, b) for c in conditions.values()] + [b.input_ids.shape[1] - 1])
            prefix = model.prefix(b, start)
            start = start if prefix is not None else 0
        if share in ("layers", "both"):
            clean = model.run(b, want=("logits", "block_out"), prefix=prefix)
            outs = clean.extras["block_out"]
        B = b.input_ids.shape[0]
        resolved = {name: _resolve(model, cond, b, start) for name, cond in conditions.items()}
        groups: dict = defaultdict(list)   # conditions that start at the same block run stacked
        for name, ivs in resolved.items():
            if share in ("layers", "both") and not ivs:
                groups[("clean",)].append(name)
            else:
                first = first_touched_layer(ivs, model.n_layers) if share in ("layers", "both") else 0
                groups[("run", first)].append(name)
        per = max(1, stack_rows // B) if stack_rows > 1 else 1
        for key, names in groups.items():
            if key == ("clean",):
                for name in names:
                    _record(clean.logits, name, rows, ans, labs, args, pas, lpa, lps)
                continue
            first = key[1]
            for s0 in range(0, len(names), per):
                part = names[s0:s0 + per]
                k = len(part)
                ivs = [iv if k == 1 else _Rows(iv, j, k) for j, name in enumerate(part) for iv in resolved[name]]
                sb, pre, replay = b, prefix, None
                # stacked conditions that change only the final column run as branches of the one
                # prefix (no per-row copy of its keys and values); others copy the prefix per row
                branch = k > 1 and prefix is not None and prefix.start == b.input_ids.shape[1] - 1
                if k > 1:
                    sb = b.repeat_interleave(k)
                    if prefix is not None and not branch:
                        pre = prefix.repeat_interleave(k)
                if share in ("layers", "both"):
                    # a replayed block ignores its input: only block first - 1's record feeds block first
                    last = outs[first - 1] if first > 0 else None
                    if last is not None and k > 1:
                        last = last.repeat_interleave(k, 0)
                    replay = ([last] * first, first)
                logits = model.run(sb, want=("logits",), ivs=ivs, replay=replay, prefix=pre,
                                   consume_prefix=pre is not prefix, branches=branch).logits
                for j, name in enumerate(part):
                    _record(logits[j::k], name, rows, ans, labs, args, pas, lpa, lps)
    answers = torch.tensor([p.answer_token for p in prompts])
    out = {}
    for name in named:
        src = same.get(name, name)
        in_set = torch.isin(args[src], labs).float() if labs is not None else torch.full((n,), float("nan"))
        out[name] = Eval((args[src] == answers).float(), in_set, args[src].clone(), pas[src].clone(), lpa[src].clone(),
                         lps[src].clone())
    return out


def _record(logits, name, rows, ans, labs, args, pas, lpa, lps):
    args[name][rows] = logits.argmax(-1)
    pas[name][rows] = torch.softmax(logits, -1).gather(-1, ans[:, None])[:, 0]
    logp = torch.log_softmax(logits.float(), -1)
    lpa[name][rows] = logp.gather(-1, ans[:, None])[:, 0]
    if labs is not None:
        lps[name][rows] = torch.logsumexp(logp[:, labs.unique()], -1)


def evaluate_one(model: HookedModel, prompts, label_tokens, condition=(), **kw) -> Eval:
    """`evaluate` of a single condition."""
    return evaluate(model, prompts, label_tokens, {"_": list(condition)}, **kw)["_"]
