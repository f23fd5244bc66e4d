"""Atomic writers: each writes to a temporary file beside the target, writes the
provenance sidecar, then renames the temporary file into place. A job killed at
any point leaves either nothing or a complete file with its record."""
from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path

from .provenance import Provenance, sha256_file, sidecar

_UMASK = os.umask(0)
os.umask(_UMASK)


@contextlib.contextmanager
def atomic_path(path: str | Path, prov: Provenance | None = None, extra: dict | None = None):
    """Yield a temporary path; on success write the sidecar and move the file to `path`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=".part" + path.suffix, dir=path.parent)
    os.close(fd)
    tmp = Path(tmp)
    os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600 files; outputs should be readable like any other
    try:
        yield tmp
        if prov is not None:
            rec = prov.record(path, extra)
            rec["sha256"] = sha256_file(tmp)
            sc = sidecar(path)
            sc_tmp = sc.with_name("." + sc.name + ".part")
            sc_tmp.write_text(json.dumps(rec, indent=2, sort_keys=False))
            os.replace(sc_tmp, sc)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_csv(df, path, prov: Provenance | None = None, extra: dict | None = None):
    with atomic_path(path, prov, extra) as tmp:
        df.to_csv(tmp, index=False, float_format="%.6g")


def write_json(obj, path, prov: Provenance | None = None, extra: dict | None = None):
    with atomic_path(path, prov, extra) as tmp:
        tmp.write_text(json.dumps(obj, indent=2, sort_keys=True, default=str))


def write_text(text: str, path, prov: Provenance | None = None, extra: dict | None = None):
    with atomic_path(path, prov, extra) as tmp:
        tmp.write_text(text)


def save_tensors(tensors: dict, path, prov: Provenance | None = None, metadata: dict | None = None,
                 extra: dict | None = None):
    from safetensors.torch import save_file

    tensors = {k: v.detach().contiguous().cpu() for k, v in tensors.items()}
    meta = {k: (v if isinstance(v, str) else json.dumps(v)) for k, v in (metadata or {}).items()}
    with atomic_path(path, prov, extra) as tmp:
        save_file(tensors, str(tmp), metadata=meta)


def load_tensors(path) -> tuple[dict, dict]:
    from safetensors import safe_open

    out = {}
    with safe_open(str(path), framework="pt") as f:
        meta = f.metadata() or {}
        for k in f.keys():
            out[k] = f.get_tensor(k)
    parsed = {}
    for k, v in meta.items():
        try:
            parsed[k] = json.loads(v)
        except (TypeError, ValueError):
            parsed[k] = v
    return out, parsed


def save_figure(fig, paths, prov: Provenance | None = None, extra: dict | None = None, dpi: int = 200):
    """Save one matplotlib figure to every path (PDF, PNG, ...) atomically; `dpi` sets the
    resolution of raster formats (config plots.dpi, passed by the plotting rules as a param)."""
    import matplotlib.pyplot as plt

    for p in paths:
        with atomic_path(p, prov, extra) as tmp:
            fig.savefig(tmp, format=Path(p).suffix.lstrip("."), bbox_inches="tight", dpi=dpi,
                        metadata={"Creator": "icl_heads"} if str(p).endswith(".pdf") else None)
    plt.close(fig)
