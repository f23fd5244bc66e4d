"""Build the data of the project's built-in tasks: icl_heads/builtin_data/<task>.json.

The facts come from maintained packages where they exist (pinned in
tools/builtin_data/requirements.txt) and are otherwise written by hand in the
modules beside this one; every filter is written out in those modules. The
JSON files are committed, so a run never needs these packages, and the same
packages give the same bytes:

    pip install --target /tmp/builtin-gen -r tools/builtin_data/requirements.txt
    PYTHONPATH=/tmp/builtin-gen:. python tools/builtin_data/build.py          # write
    PYTHONPATH=/tmp/builtin-gen:. python tools/builtin_data/build.py --check  # compare

Each module (lexical, geo, handwritten) exports TASKS: {task name: builder}; a
builder returns {"kind", "description", "label_words", "test_fraction",
"sources", "examples"} (see icl_heads/builtin_tasks.py for the meaning).
"""
from __future__ import annotations

import argparse
import importlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
OUT = ROOT / "icl_heads" / "builtin_data"
MODULES = ["lexical", "geo", "handwritten"]
KEYS = ("kind", "description", "label_words", "test_fraction", "sources", "examples")


def render(name: str, task: dict) -> str:
    missing = [k for k in KEYS if k not in task]
    if missing:
        raise ValueError(f"builder of {name!r} returned no {missing}")
    body = {"task": name, **{k: task[k] for k in KEYS}}
    return json.dumps(body, ensure_ascii=False, indent=1) + "\n"


def builders(only: list[str] | None = None) -> dict:
    sys.path.insert(0, str(HERE))
    out = {}
    for mod in MODULES:
        try:
            m = importlib.import_module(mod)
        except ModuleNotFoundError as e:
            if e.name == mod:
                continue
            raise
        for name, fn in m.TASKS.items():
            if name in out:
                raise ValueError(f"task {name!r} is built by two modules")
            out[name] = fn
    if only:
        unknown = sorted(set(only) - set(out))
        if unknown:
            raise SystemExit(f"unknown tasks {unknown}; known: {sorted(out)}")
        out = {k: v for k, v in out.items() if k in only}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tasks", nargs="*", help="only these tasks (default: all)")
    ap.add_argument("--check", action="store_true", help="compare with the committed files; write nothing")
    args = ap.parse_args(argv)
    bad = 0
    for name, fn in builders(args.tasks).items():
        text = render(name, fn())
        path = OUT / f"{name}.json"
        if args.check:
            same = path.is_file() and path.read_text(encoding="utf-8") == text
            print(f"{'same' if same else 'DIFFERS'}  {path.relative_to(ROOT)}")
            bad += not same
        else:
            OUT.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(".json.tmp")
            tmp.write_text(text, encoding="utf-8")
            tmp.replace(path)
            n = len(json.loads(text)["examples"])
            print(f"wrote {path.relative_to(ROOT)} ({n} examples)")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
