"""Deterministic n-shot prompts that remember where their parts are.

A prompt is `demo_1 sep demo_2 sep ... demo_k sep query`, each demo being
`template.query.format(**x) + " " + answer`; the model is asked for the answer
token after the final query (position N = the last token). Label token = the first
token of " " + label word (leading space included).

Each prompt records, in token positions of its own (unpadded) tokenisation:
demonstration label tokens, query-field tokens and the final position.
"""
from __future__ import annotations

import random
import string
from dataclasses import asdict, dataclass, field
from typing import Sequence

from .data import TaskData
from .errors import ConfigError

PERTURBATIONS = ("none", "shuffle_text", "labels_01", "flip_labels", "shuffle_labels")


@dataclass
class Prompt:
    index: int              # index of the query in its split
    # answer: the label the demonstrations teach (the gold label unless labels are perturbed)
    text: str
    input_ids: list[int]
    answer: str
    answer_token: int
    label_positions: list[int] = field(default_factory=list)
    query_positions: list[int] = field(default_factory=list)
    demo_indices: list[int] = field(default_factory=list)

    @property
    def final(self) -> int:
        return len(self.input_ids) - 1

    def to_json(self) -> dict:
        d = asdict(self)
        d["final"] = self.final
        return d


def format_query(template: str, example: dict) -> tuple[str, list[tuple[int, int]]]:
    """Fill `template` with the example's fields; return the text and the char spans of the fields."""
    out, spans = [], []
    pos = 0
    for literal, fname, spec, conv in string.Formatter().parse(template):
        out.append(literal)
        pos += len(literal)
        if fname is None:
            continue
        if fname not in example:
            raise ConfigError(f"template field {{{fname}}} not in example fields {sorted(example)}; "
                              "fix datasets.*.template.query or datasets.*.fields")
        val = format(example[fname], spec or "")
        out.append(val)
        spans.append((pos, pos + len(val)))
        pos += len(val)
    return "".join(out), spans


def answer_token(tokenizer, word: str, where: str = "?") -> tuple[int, bool]:
    """The token the model must predict at N for answer `word`: the first token of " " + word,
    or, where the tokenizer splits the space off as a token of its own (SmolLM2 does for
    digits: " 0" -> [" ", "0"]), the first token after it. The flag says the space was split off."""
    ids = tokenizer(" " + word, add_special_tokens=False)["input_ids"]
    if not ids:
        raise ConfigError(f"answer {word!r} of {where} tokenises to nothing; "
                          f"give datasets.{where}.label_words non-empty words")
    if len(ids) > 1 and not tokenizer.decode(ids[:1]).strip():
        return ids[1], True
    return ids[0], False


def space_split(tokenizer, words: list[str], where: str = "?") -> bool:
    """Whether the label words' leading space is a token of its own (then the prompt ends
    with that space); mixed cases are refused."""
    flags = {w: answer_token(tokenizer, w, where)[1] for w in words}
    if len(set(flags.values())) > 1:
        split = sorted(w for w, f in flags.items() if f)
        raise ConfigError(f"the tokenizer splits the leading space off {split} but not off the other labels of "
                          f"{where}; choose label words of one kind in datasets.{where}.label_words")
    return bool(flags) and next(iter(flags.values()))


def label_tokens(tokenizer, words: list[str], dataset: str = "?") -> list[int]:
    """The answer token (see answer_token) of each label word; a clear error if two collide."""
    space_split(tokenizer, words, dataset)
    toks = [answer_token(tokenizer, w, dataset)[0] for w in words]
    seen = {}
    for w, t in zip(words, toks):
        if t in seen:
            raise ConfigError(
                f"labels {seen[t]!r} and {w!r} of dataset {dataset!r} share their first token "
                f"{tokenizer.convert_ids_to_tokens(t)!r}: predictions could not tell them apart. "
                f"Choose other words in datasets.{dataset}.label_words")
        seen[t] = w
    return toks


def perturb_demos(demos: list[dict], perturbation: str, label_words: list[str] | None, rng: random.Random):
    """Return demos (copies) changed as the TSLA perturbations require."""
    if perturbation == "none":
        return [dict(d) for d in demos]
    if perturbation not in PERTURBATIONS:
        raise ConfigError(f"perturbation {perturbation!r} is not one of {PERTURBATIONS}")
    if perturbation == "shuffle_labels":
        # Todd et al.'s corrupted prompts: the demonstrations' answers permuted among them.
        outs = [d["output"] for d in demos]
        rng.shuffle(outs)
        return [dict(d, output=o) for d, o in zip(demos, outs)]
    if not label_words:
        raise ConfigError(f"perturbation {perturbation!r} needs a classification dataset")
    out = []
    for d in demos:
        d = dict(d)
        if perturbation == "shuffle_text":
            for key in d:
                if key in ("output", "label"):
                    continue
                words = str(d[key]).split()
                rng.shuffle(words)
                d[key] = " ".join(words)
        else:
            d["output"] = demonstrated_label(d["output"], label_words, perturbation)
        out.append(d)
    return out


def demonstrated_label(word: str, label_words: list[str], perturbation: str) -> str:
    """What the demonstrations teach for a query whose gold label is `word`."""
    if perturbation == "labels_01":
        return str(label_words.index(word))
    if perturbation == "flip_labels":
        return label_words[(label_words.index(word) + 1) % len(label_words)]
    return word


def demonstrated_label_set(label_words: list[str] | None, perturbation: str) -> list[str] | None:
    """The label set the prompts of a perturbation demonstrate (labels_01: '0', '1', ...)."""
    if not label_words:
        return label_words
    return [demonstrated_label(w, label_words, perturbation) for w in label_words]


def sample_demos(train: list[dict], k: int, rng: random.Random, balanced: bool,
                 label_words: list[str] | None) -> list[int]:
    if k == 0:
        return []
    if k > len(train):
        raise ConfigError(f"n_shot={k} exceeds the {len(train)} training examples; lower the n_shot this rule "
                          "uses (prompts.n_shot, fv.n_shot or ltv.n_shot) or give the dataset a larger train split")
    if balanced and label_words:
        by_label = {w: [i for i, r in enumerate(train) if r["output"] == w] for w in label_words}
        order = list(label_words)
        rng.shuffle(order)
        pools = {w: rng.sample(v, len(v)) for w, v in by_label.items()}
        picked = []
        j = 0
        while len(picked) < k:
            w = order[j % len(order)]
            if pools[w]:
                picked.append(pools[w].pop())
            j += 1
            if j > 10 * k + len(train):
                break
        rng.shuffle(picked)
        return picked
    return rng.sample(range(len(train)), k)


def build_prompts(task: TaskData, tokenizer, *, n_shot: int, query_split: str = "test", start: int = 0,
                  n_queries: int | None = None, seed: int = 0, balanced: bool = True,
                  perturbation: str = "none", demo_split: str = "train") -> list[Prompt]:
    """Prompts for queries [start, start+n_queries) of `query_split`.

    Demonstrations of query i depend only on (seed, dataset, i), so clean, perturbed
    and zero-shot prompt sets of the same query share their demonstrations."""
    queries = task.split(query_split)
    stop = len(queries) if n_queries is None else min(len(queries), start + n_queries)
    if start >= len(queries):
        raise ConfigError(f"dataset {task.name!r} has {len(queries)} {query_split} examples; queries start at {start}: "
                          f"lower prompts.n_score (the scoring queries come first) or datasets.{task.name}.sizes")
    train = task.split(demo_split)
    words = task.label_set or None
    shown = demonstrated_label_set(words, perturbation)
    label_ids = label_tokens(tokenizer, shown, task.name) if words else None
    # Where the tokenizer makes the leading space a token of its own, the prompt ends with it.
    trailing = " " if (shown and space_split(tokenizer, shown, task.name)) else ""
    tmpl, sep = task.template["query"], task.template.get("separator", "\n\n")
    prompts = []
    for qi in range(start, stop):
        given = queries[qi].get("_demos")  # source prompt_set: the prompt's own demonstrations
        if queries[qi].get("_text"):  # source prompt_set: the prompt as written
            if perturbation != "none" or n_shot == 0:
                raise ConfigError(f"dataset {task.name!r} gives its prompts as text (datasets.{task.name}.path): a "
                                  f"{'zero-shot' if n_shot == 0 else perturbation} variant needs prompts given as "
                                  "demonstrations + input; give them so, or leave the dataset out of that analysis")
            text = queries[qi]["input"]
            q_start = text.rfind(sep) + len(sep) if sep in text else 0
            label_spans, query_spans, demo_idx = [], [(q_start, len(text))], []
            text += trailing
        else:
            if given is not None:
                if n_shot > len(given):
                    raise ConfigError(f"prompt {qi} of dataset {task.name!r} (datasets.{task.name}.path) gives {len(given)} "
                                      f"demonstrations, fewer than the {n_shot} a prompt asks for (n_shot); give more, "
                                      "or lower the n_shot key of the analysis")
                chosen = [dict(d) for d in given[:n_shot]]
                demo_idx = [next((j for j, t in enumerate(train) if t["input"] == d["input"]), -1) for d in chosen]
            else:
                rng = random.Random(f"{seed}/{task.name}/{qi}")
                demo_idx = sample_demos(train, n_shot, rng, balanced, words)
                chosen = [train[i] for i in demo_idx]
            demos = perturb_demos(chosen, perturbation, words, random.Random(f"{seed}/{qi}/p"))
            label_spans, text = [], ""
            for d in demos:
                q, _ = format_query(tmpl, d)
                text += q + " "
                label_spans.append((len(text), len(text) + len(d["output"])))
                text += d["output"] + sep
            q, spans = format_query(tmpl, queries[qi])
            base = len(text)
            text += q + trailing
            query_spans = [(base + a, base + b) for a, b in spans]
        enc = tokenizer(text, return_offsets_mapping=True)
        ids, offsets = enc["input_ids"], enc["offset_mapping"]
        if len(ids) > 1 and ids[-1] == tokenizer.eos_token_id and offsets[-1][0] == offsets[-1][1]:
            ids, offsets = ids[:-1], offsets[:-1]  # a tokenizer that appends EOS: N must be the query's last token

        def covering(span):
            return [t for t, (a, b) in enumerate(offsets) if a < span[1] and b > span[0]]

        label_pos = []
        for sp in label_spans:
            toks = covering(sp)
            if not toks:
                raise ConfigError(f"could not locate a demonstration label in the tokens of dataset {task.name}")
            label_pos.append(toks[0])
        query_pos = sorted({t for sp in query_spans for t in covering(sp)})
        answer = queries[qi]["output"]
        if words and perturbation != "none":
            answer = demonstrated_label(answer, words, perturbation)  # accuracy follows the demonstrated mapping
        ans_tok, _ = answer_token(tokenizer, answer, task.name)
        prompts.append(Prompt(index=qi, text=text, input_ids=list(ids), answer=answer, answer_token=ans_tok,
                              label_positions=label_pos, query_positions=query_pos, demo_indices=demo_idx))
    if label_ids is not None:
        for p in prompts:
            if p.answer_token not in label_ids:
                raise ConfigError(f"answer token of {p.answer!r} is not in the label token set of {task.name}")
    return prompts


def read_prompt_set(path) -> tuple[list[Prompt], dict]:
    """Prompts and metadata of a prompt-set JSON written by the prompts rule."""
    import json
    from pathlib import Path

    payload = json.loads(Path(path).read_text())
    return [Prompt(**{k: v for k, v in p.items() if k != "final"}) for p in payload["prompts"]], payload



def changed_share(perturbed: Sequence[Prompt], unperturbed: Sequence[Prompt]) -> float:
    """Share of prompts a perturbation changed: a perturbed prompt counts as unchanged when its
    tokens and its answer token equal those of the unperturbed prompt of the same query (the two
    sets hold the same queries in the same order). 0 says the perturbation tests nothing on these
    prompts, e.g. shuffling the words of single-word demonstration inputs."""
    if len(perturbed) != len(unperturbed):
        raise ValueError(f"{len(perturbed)} perturbed prompts against {len(unperturbed)} unperturbed ones: "
                         "the two sets must hold the same queries")
    if not perturbed:
        return float("nan")
    for a, b in zip(perturbed, unperturbed):
        if a.index != b.index:
            raise ValueError(f"query {a.index} against query {b.index}: the two sets must hold the same queries in the same order")
    same = sum(a.input_ids == b.input_ids and a.answer_token == b.answer_token for a, b in zip(perturbed, unperturbed))
    return 1.0 - same / len(perturbed)
