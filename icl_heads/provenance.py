"""Provenance: every output F has a sidecar F.prov.json saying which rule, code
version, parameters, config values, inputs (with sha256), model file, data files
and seed made it. The sidecar is written before F appears (F is renamed into
place last), so an existing F always has its record.

    python -m icl_heads.provenance results/smollm2-135m/tsla/scores/sentiment_lexicon.csv --row 3 --col tr
prints the cell's value and the chain of records back to the raw data and model file.
"""
from __future__ import annotations

import argparse
import datetime as _dt
import functools
import hashlib
import os
import json
import platform
import subprocess
import sys
from pathlib import Path

SUFFIX = ".prov.json"


def sidecar(path: str | Path) -> Path:
    path = Path(path)
    return path.with_name(path.name + SUFFIX)


_SHA256: dict = {}


def sha256_file(path: str | Path) -> str:
    """The file's sha256, computed once per (file, size, mtime) in a process: a job checks its
    inputs against their records (icl_heads.integrity) and then records the same hashes."""
    st = os.stat(path)
    key = (os.path.realpath(path), st.st_size, st.st_mtime_ns)
    if key not in _SHA256:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        _SHA256[key] = h.hexdigest()
    return _SHA256[key]


@functools.lru_cache(maxsize=None)
def code_version(repo: str | None = None) -> dict:
    repo = repo or str(Path(__file__).resolve().parent.parent)
    from . import __version__

    info = {"package_version": __version__, "git_commit": None, "git_dirty": None}
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, timeout=10)
        if commit.returncode == 0:
            info["git_commit"] = commit.stdout.strip()
            st = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=repo,
                                capture_output=True, text=True, timeout=10)
            info["git_dirty"] = bool(st.stdout.strip())
    except (OSError, subprocess.SubprocessError):
        pass
    return info


@functools.lru_cache(maxsize=None)
def versions() -> dict:
    from importlib import metadata

    out = {"python": platform.python_version()}
    for pkg in ("torch", "transformers", "transformer-lens", "snakemake", "numpy", "pandas", "safetensors"):
        try:
            out[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            out[pkg] = None
    return out


def _jsonable(obj):
    if isinstance(obj, dict):
        return {str(k): _jsonable(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_jsonable(v) for v in obj]
    if isinstance(obj, Path):
        return str(obj)
    if isinstance(obj, (str, int, float, bool)) or obj is None:
        return obj
    if hasattr(obj, "item"):
        return obj.item()
    return str(obj)


class Provenance:
    """What a job knows about how its outputs are made; `record(path)` adds the file's own hash."""

    def __init__(self, rule: str, *, wildcards: dict | None = None, params: dict | None = None,
                 config: dict | None = None, inputs=(), seed: int | None = None,
                 model: dict | None = None, data: dict | None = None, choices: dict | None = None):
        self.rule = rule
        self.wildcards = dict(wildcards or {})
        self.params = _jsonable(params or {})
        self.config = _jsonable(config or {})
        self.inputs = [str(p) for p in inputs]
        self.seed = seed
        self.model = model
        self.data = data
        self.choices = _jsonable(choices or {})
        self._input_hashes = None

    def input_hashes(self) -> list[dict]:
        if self._input_hashes is None:
            self._input_hashes = [{"path": p, "sha256": sha256_file(p) if Path(p).is_file() else None}
                                  for p in self.inputs]
        return self._input_hashes

    def record(self, path: str | Path, extra: dict | None = None) -> dict:
        rec = {
            "file": str(path),
            "rule": self.rule,
            "wildcards": self.wildcards,
            "code": code_version(),
            "params": self.params,
            "config": self.config,
            "choices": self.choices,
            "seed": self.seed,
            "inputs": self.input_hashes(),
            "model": self.model,
            "data": self.data,
            "versions": versions(),
            "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        }
        if extra:
            rec.update(_jsonable(extra))
        return rec


def read(path: str | Path) -> dict | None:
    sc = sidecar(path)
    if not sc.is_file():
        return None
    return json.loads(sc.read_text())


def trace(path: str | Path, depth: int = 0, seen=None, out=None, follow=None) -> list[str]:
    """Lines describing `path`'s record and, recursively, its inputs' records. `follow`: follow
    only these inputs of `path` (every input is still listed with its hash), e.g. the one file a
    row of a gathered table came from."""
    seen = set() if seen is None else seen
    out = [] if out is None else out
    pad = "  " * depth
    path = str(path)
    if path in seen:
        out.append(f"{pad}- {path} (see above)")
        return out
    seen.add(path)
    rec = read(path)
    if rec is None:
        kind = "raw input" if Path(path).exists() else "missing"
        out.append(f"{pad}- {path} [{kind}]")
        return out
    code = rec.get("code", {})
    out.append(f"{pad}- {path}")
    out.append(f"{pad}    rule: {rec.get('rule')}  wildcards: {json.dumps(rec.get('wildcards'))}")
    out.append(f"{pad}    code: commit {code.get('git_commit')} dirty={code.get('git_dirty')} "
               f"icl_heads {code.get('package_version')}")
    if rec.get("seed") is not None:
        out.append(f"{pad}    seed: {rec['seed']}")
    if rec.get("params"):
        out.append(f"{pad}    params: {json.dumps(rec['params'], sort_keys=True)}")
    if rec.get("choices"):
        out.append(f"{pad}    choices: {json.dumps(rec['choices'], sort_keys=True)}")
    if rec.get("config"):
        out.append(f"{pad}    config: {json.dumps(rec['config'], sort_keys=True)}")
    if rec.get("model"):
        m = rec["model"]
        out.append(f"{pad}    model: {m.get('name')} file {m.get('source_file')} sha256 {m.get('source_sha256')}")
    if rec.get("data"):
        d = rec["data"]
        files = d.get("files", {})
        out.append(f"{pad}    data: {d.get('name')} ({d.get('source')})")
        for f, h in files.items():
            out.append(f"{pad}      {f} sha256 {h}")
    v = rec.get("versions", {})
    out.append(f"{pad}    versions: " + ", ".join(f"{k} {v[k]}" for k in sorted(v)))
    for inp in rec.get("inputs", []):
        out.append(f"{pad}    input {inp['path']} sha256 {inp.get('sha256')}")
    for inp in rec.get("inputs", []):
        if follow is None or inp["path"] in follow:
            trace(inp["path"], depth + 1, seen, out)
    return out


def origins(path: str | Path) -> dict:
    """Every model file and data file reached from `path` through the records of its inputs:
    {"models": {source_file: sha256}, "data": {file: sha256}, "rules": [...]}."""
    models, data, rules, seen, todo = {}, {}, [], set(), [str(path)]
    while todo:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        rec = read(p)
        if rec is None:
            continue
        if rec.get("rule") and rec["rule"] not in rules:
            rules.append(rec["rule"])
        m = rec.get("model") or {}
        if m.get("source_sha256"):
            models[f"{m.get('name')}: {m.get('source_file')}"] = m["source_sha256"]
        data.update((rec.get("data") or {}).get("files", {}))
        todo += [i["path"] for i in rec.get("inputs", [])]
    return {"models": models, "data": data, "rules": rules}


def describe_cell(path: str | Path, row: int, col: str) -> list[str]:
    import pandas as pd

    df = pd.read_csv(path)
    if col not in df.columns:
        raise SystemExit(f"column {col!r} not in {path}; columns: {', '.join(df.columns)}")
    if not 0 <= row < len(df):
        raise SystemExit(f"row {row} out of range: {path} has {len(df)} rows (0-based)")
    r = df.iloc[row]
    def show(v):
        return repr(v.item() if hasattr(v, "item") else v)

    lines = [f"cell [{row}, {col}] of {path} = {show(r[col])}",
             "row: " + ", ".join(f"{k}={show(r[k])}" for k in df.columns)]
    return lines


def row_source(path, row: int, col: str, lines: list[str]) -> set[str] | None:
    """A gathered table (e.g. results/claims.csv) names in `source` / `source_row` the input file
    and row each of its rows was copied from: describe that cell too and return {source}, the one
    input to follow; None for an ordinary table."""
    import pandas as pd

    df = pd.read_csv(path)
    if "source" not in df.columns:
        return None
    src = str(df["source"].iloc[row])
    inputs = {i["path"] for i in (read(path) or {}).get("inputs", [])}
    if src not in inputs:
        raise SystemExit(f"row {row} of {path} names source {src}, which is not an input in its provenance record")
    src_row = int(df["source_row"].iloc[row]) if "source_row" in df.columns else None
    lines.append(f"row {row} was copied from {src}" + (f" row {src_row}" if src_row is not None else ""))
    if src_row is not None and Path(src).is_file():
        sdf = pd.read_csv(src)
        if col in sdf.columns and 0 <= src_row < len(sdf):
            lines += describe_cell(src, src_row, col)
    return {src}


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m icl_heads.provenance",
                                 description="Where did this file, or this cell of a table, come from?")
    ap.add_argument("file")
    ap.add_argument("--row", type=int, help="0-based row of a CSV table")
    ap.add_argument("--col", help="column name of a CSV table")
    ap.add_argument("--json", action="store_true", help="print the file's own record as JSON")
    a = ap.parse_args(argv)
    if not Path(a.file).exists():
        raise SystemExit(f"{a.file} does not exist")
    if a.json:
        rec = read(a.file)
        if rec is None:
            raise SystemExit(f"{a.file} has no provenance record ({sidecar(a.file)})")
        print(json.dumps(rec, indent=2))
        return
    lines = []
    if (a.row is None) != (a.col is None):
        raise SystemExit("give both --row and --col to describe one cell")
    follow = None
    if a.row is not None:
        lines += describe_cell(a.file, a.row, a.col)
        follow = row_source(a.file, a.row, a.col, lines)
    if read(a.file) is None:
        raise SystemExit(f"{a.file} has no provenance record ({sidecar(a.file)} is missing)")
    lines.append("made by:")
    lines += trace(a.file, follow=follow)
    print("\n".join(lines))


if __name__ == "__main__":
    main(sys.argv[1:])
