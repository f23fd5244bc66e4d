"""Damaged workflow files are detected, not trusted.

Every output written by `icl_heads.io` has a provenance sidecar (`X.prov.json`) holding the
sha256 of the file as written. `check(path)` compares a file with that record (and, where a
file has none, decodes it fully: JSON, safetensors headers). A rule script checks its inputs
before it does any work (`workflow_scripts/common.Job`); a damaged input is marked incomplete in
Snakemake's records, so that the next run of the same snakemake command rebuilds it first, and the
job fails with a message that names the file and says so.
"""
from __future__ import annotations

import json
import os
import struct
from pathlib import Path

from .provenance import sha256_file, sidecar


class DamagedFile(RuntimeError):
    """A workflow file that does not match its provenance record or does not decode."""

    def __init__(self, path, why: str, healed: bool = False):
        self.path, self.why, self.healed = Path(path), why, healed
        fix = ("it has been marked for a rebuild: run the same snakemake command again and it is rebuilt"
               if healed else "delete it (and its .prov.json) and run the same snakemake command again to rebuild it")
        super().__init__(f"damaged file {path}: {why}; {fix}")


def _decode(path: Path) -> str | None:
    """Why `path` does not decode as its type, or None (types without a cheap full check pass)."""
    suffix = path.suffix
    try:
        if suffix == ".json":
            json.loads(path.read_text())
        elif suffix == ".safetensors":
            size = path.stat().st_size
            with open(path, "rb") as f:
                head = f.read(8)
                if len(head) < 8:
                    return "shorter than a safetensors header"
                n = struct.unpack("<Q", head)[0]
                if n > size - 8:
                    return "truncated (the header is longer than the file)"
                header = json.loads(f.read(n))
            end = max([v["data_offsets"][1] for k, v in header.items() if k != "__metadata__"] or [0])
            if 8 + n + end != size:
                return f"truncated or padded: {size} bytes, the header describes {8 + n + end}"
    except (ValueError, UnicodeDecodeError, KeyError, TypeError) as e:
        return f"does not decode as {suffix[1:]} ({type(e).__name__}: {e})"
    return None


def check(path: str | Path) -> str | None:
    """Why the file at `path` is damaged, or None when it matches its sidecar's sha256 (or, with
    no sidecar, decodes). A missing file is not checked here (Snakemake reports it)."""
    path = Path(path)
    if not path.is_file():
        return None
    sc = sidecar(path)
    if sc.is_file():
        try:
            rec = json.loads(sc.read_text())
        except (ValueError, UnicodeDecodeError) as e:
            return f"its provenance record {sc} does not decode ({e})"
        want = rec.get("sha256") if isinstance(rec, dict) else None
        if want:
            got = sha256_file(path)
            if got != want:
                return f"sha256 {got[:12]}... differs from the {want[:12]}... its provenance record holds (truncated or edited)"
            return None
    return _decode(path)


def remove(path: str | Path):
    """Remove a damaged file and its sidecar, so that Snakemake plans its rule again."""
    path = Path(path)
    for p in (path, sidecar(path)):
        if p.is_file():
            p.unlink()


def verify_inputs(paths, heal: bool = True):
    """Check every path; on the first damaged one mark it incomplete in Snakemake's records
    (heal: the next run rebuilds it first, rerun-incomplete being on in profiles/default) and
    raise DamagedFile naming it. (Removing it would not do: a missing intermediate whose other
    consumers are up to date is not remade.)"""
    for p in paths:
        why = check(p)
        if why is not None:
            if heal:
                mark_incomplete(p)
            raise DamagedFile(p, why, healed=heal)


def mark_incomplete(path: str | Path, workdir: str | Path = "."):
    """Record `path` as an incomplete output in Snakemake's own bookkeeping of the working
    directory (.snakemake/incomplete/<urlsafe base64 of the path>, the record a killed job leaves):
    with rerun-incomplete (on in profiles/default) this very run rebuilds it, then everything made
    from it; without, Snakemake stops and says to add --rerun-incomplete."""
    from base64 import urlsafe_b64encode

    d = Path(workdir) / ".snakemake" / "incomplete"
    d.mkdir(parents=True, exist_ok=True)
    (d / urlsafe_b64encode(str(path).encode()).decode()).write_text(json.dumps({"external_jobid": None}))


def sweep(roots, remove_damaged: bool = True, log=print, records_required=()) -> list[Path]:
    """At DAG build: every output under `roots` whose size differs from the `bytes` its sidecar
    recorded (a truncated or cut file), or whose sidecar does not decode, is marked incomplete
    (`mark_incomplete`; unless remove_damaged is False, e.g. in a dry run), so this very run
    rebuilds it and what is made from it. (Deleting it would not do: Snakemake does not remake a
    missing intermediate file whose consumers are up to date.) An unreadable sidecar is removed.
    Under `records_required` (results/, where every file is written with its record) a file
    whose record is missing is marked the same way: Snakemake reruns a job for a missing output
    only when something asks for that output, and no rule reads a record as its input.
    Cheap: one stat and one small JSON read per output; the full sha256 check happens when a job
    reads its inputs (`verify_inputs`). Returns the damaged paths."""
    bad = []
    for root in records_required:
        root = Path(root)
        if not root.is_dir():
            continue
        for path in root.rglob("*"):
            if path.name.startswith(".") or path.name.endswith(".prov.json") or not path.is_file():
                continue
            if not sidecar(path).exists():
                bad.append(path)
                if remove_damaged:
                    mark_incomplete(path)
                    log(f"damaged output {path}: its provenance record {sidecar(path).name} is missing; "
                        "marked incomplete, this run rebuilds it")
                else:
                    log(f"damaged output {path}: its provenance record {sidecar(path).name} is missing; "
                        "a real run rebuilds it")
    for root in roots:
        root = Path(root)
        if not root.is_dir():
            continue
        for sc in root.rglob("*.prov.json"):
            if sc.name.startswith("."):
                continue
            path = sc.with_name(sc.name[: -len(".prov.json")])
            try:
                rec = json.loads(sc.read_text())
                rec = rec if isinstance(rec, dict) else None
            except (ValueError, UnicodeDecodeError, OSError):
                rec = None
            if rec is None:
                why = "its provenance record does not decode"
            elif rec.get("bytes") is not None and path.is_file() and path.stat().st_size != rec["bytes"]:
                why = f"{path.stat().st_size} bytes, its provenance record says {rec['bytes']} (truncated or cut)"
            else:
                continue
            if not path.is_file():
                continue
            bad.append(path)
            if remove_damaged:
                if rec is None:
                    sc.unlink()
                mark_incomplete(path)
                log(f"damaged output {path}: {why}; marked incomplete, this run rebuilds it")
            else:
                log(f"damaged output {path}: {why}; a real run rebuilds it")
    return bad
