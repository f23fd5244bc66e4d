"""Atomic writers: each writes to a temporary file beside the target, writes the
provenance sidecar, then renames the temporary file into place. A job killed at
any point leaves either nothing or a complete file with its record."""
from __future__ import annotations

import contextlib
import glob as _glob
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
    # Temporary files of an earlier writer of this same file that was killed (SIGKILL runs no
    # cleanup): only one job ever writes a given output, so they are stale by now.
    for stale in path.parent.glob(_glob.escape("." + path.name + ".") + "*.part" + _glob.escape(path.suffix)):
        stale.unlink(missing_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + path.name + ".", suffix=".part" + path.suffix, dir=path.parent)
    os.close(fd)
    tmp = Path(tmp)
    try:
        yield tmp
        # mkstemp makes 0600 files, and some writers (safetensors) replace the file they are given:
        # set the user's umask mode on what was written, so outputs are readable like any other file
        os.chmod(tmp, 0o666 & ~_UMASK)
        if prov is not None:
            rec = prov.record(path, extra)
            rec["sha256"] = sha256_file(tmp)
            rec["bytes"] = tmp.stat().st_size
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


_META_KEY = "icl_heads"


def save_tensors(tensors: dict, path, prov: Provenance | None = None, metadata: dict | None = None,
                 extra: dict | None = None):
    from safetensors.torch import save_file

    tensors = {k: v.detach().contiguous().cpu() for k, v in tensors.items()}
    # safetensors writes its string-to-string metadata map in hash order, which changes from
    # process to process: all metadata goes into one key, as JSON with sorted keys, so the same
    # tensors and metadata give the same bytes (load_tensors unpacks it)
    meta = {k: (v if isinstance(v, str) else json.dumps(v, sort_keys=True)) for k, v in (metadata or {}).items()}
    meta = {_META_KEY: json.dumps(meta, sort_keys=True)} if meta else None
    with atomic_path(path, prov, extra) as tmp:
        save_file(tensors, str(tmp), metadata=meta)


def load_tensors(path) -> tuple[dict, dict]:
    """Tensors and metadata of a save_tensors file; a damaged file raises DamagedFile naming it."""
    from safetensors import SafetensorError, safe_open

    from .integrity import DamagedFile

    out = {}
    try:
        with safe_open(str(path), framework="pt") as f:
            meta = f.metadata() or {}
            for k in f.keys():
                out[k] = f.get_tensor(k)
    except (SafetensorError, OSError, ValueError) as e:
        if not Path(path).is_file():
            raise
        raise DamagedFile(path, f"does not decode as safetensors ({e})") from e
    if _META_KEY in meta:
        meta = json.loads(meta[_META_KEY])
    parsed = {}
    for k, v in meta.items():
        try:
            parsed[k] = json.loads(v)
        except (TypeError, ValueError):
            parsed[k] = v
    return out, parsed


# Fixed metadata (no creation dates, no library version strings that vary): the same figure,
# the same bytes.
_FIGURE_METADATA = {"pdf": {"Creator": "icl_heads", "Producer": "icl_heads", "CreationDate": None},
                    "svg": {"Date": None, "Creator": "icl_heads"},
                    "png": {"Software": "icl_heads"}}


def save_figure(fig, paths, prov: Provenance | None = None, extra: dict | None = None, dpi: int = 200):
    """Save one matplotlib figure to every path (PDF, PNG, ...) atomically; `dpi` sets the
    resolution of raster formats (config plots.dpi, passed by the plotting rules as a param)."""
    import matplotlib
    import matplotlib.pyplot as plt

    matplotlib.rcParams["svg.hashsalt"] = "icl_heads"   # fixed SVG element ids
    for p in paths:
        with atomic_path(p, prov, extra) as tmp:
            fig.savefig(tmp, format=Path(p).suffix.lstrip("."), bbox_inches="tight", dpi=dpi,
                        metadata=_FIGURE_METADATA.get(Path(p).suffix.lstrip(".")))
    plt.close(fig)
