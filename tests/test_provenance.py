"""Provenance sidecars, atomic writes and the `python -m icl_heads.provenance` CLI."""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from icl_heads.io import atomic_path, write_csv, write_json
from icl_heads.provenance import Provenance

ROOT = Path(__file__).resolve().parent.parent


def sha(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def test_write_csv_writes_file_and_sidecar(tmp_path):
    import torch
    import transformers

    raw = tmp_path / "raw.txt"
    raw.write_bytes(b"some raw input\n")
    other = tmp_path / "other.bin"
    other.write_bytes(bytes(range(256)))
    prov = Provenance("score_heads", wildcards={"model": "tiny"}, params={"n_shot": 8, "top": 0.03},
                      inputs=[raw, other], seed=1234)
    df = pd.DataFrame({"layer": [0, 1], "score": [0.5, 0.25]})
    out = tmp_path / "sub" / "scores.csv"
    write_csv(df, out, prov)

    assert out.read_text().splitlines() == ["layer,score", "0,0.5", "1,0.25"]
    side = tmp_path / "sub" / "scores.csv.prov.json"
    rec = json.loads(side.read_text())
    assert rec["rule"] == "score_heads"
    assert rec["wildcards"] == {"model": "tiny"}
    assert rec["params"] == {"n_shot": 8, "top": 0.03}
    assert rec["seed"] == 1234
    assert rec["inputs"] == [
        {"path": str(raw), "sha256": hashlib.sha256(b"some raw input\n").hexdigest()},
        {"path": str(other), "sha256": hashlib.sha256(bytes(range(256))).hexdigest()},
    ]
    assert rec["versions"]["torch"] == torch.__version__
    assert rec["versions"]["transformers"] == transformers.__version__
    assert rec["versions"]["python"] == ".".join(map(str, sys.version_info[:3]))
    assert rec["sha256"] == sha(out)
    assert rec["file"] == str(out)
    # nothing else left beside the outputs (no temporary files)
    assert sorted(p.name for p in out.parent.iterdir()) == ["scores.csv", "scores.csv.prov.json"]


def test_missing_input_recorded_without_hash(tmp_path):
    prov = Provenance("r", inputs=[tmp_path / "not_there.csv"])
    write_json({"a": 1}, tmp_path / "o.json", prov)
    rec = json.loads((tmp_path / "o.json.prov.json").read_text())
    assert rec["inputs"] == [{"path": str(tmp_path / "not_there.csv"), "sha256": None}]
    assert json.loads((tmp_path / "o.json").read_text()) == {"a": 1}


def test_extra_fields_and_non_json_params(tmp_path):
    prov = Provenance("r", params={"path": tmp_path / "x", "tuple": (1, 2)})
    write_json([1], tmp_path / "o.json", prov, extra={"n_rows": 1})
    rec = json.loads((tmp_path / "o.json.prov.json").read_text())
    assert rec["params"] == {"path": str(tmp_path / "x"), "tuple": [1, 2]}
    assert rec["n_rows"] == 1


def test_exception_leaves_nothing_behind(tmp_path):
    target = tmp_path / "t.csv"
    prov = Provenance("r", params={"a": 1})
    with pytest.raises(RuntimeError, match="boom"):
        with atomic_path(target, prov) as tmp:
            tmp.write_text("half written")
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


def test_exception_keeps_older_file_intact(tmp_path):
    target = tmp_path / "t.csv"
    prov = Provenance("r", params={"version": 1})
    write_csv(pd.DataFrame({"x": [1]}), target, prov)
    old_bytes = target.read_bytes()
    old_side = (tmp_path / "t.csv.prov.json").read_bytes()
    with pytest.raises(ValueError):
        with atomic_path(target, Provenance("r", params={"version": 2})) as tmp:
            tmp.write_text("x\n2\n")
            raise ValueError("fail before the rename")
    assert target.read_bytes() == old_bytes == b"x\n1\n"
    assert (tmp_path / "t.csv.prov.json").read_bytes() == old_side
    assert json.loads(old_side)["params"] == {"version": 1}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.csv", "t.csv.prov.json"]


def test_exception_without_provenance_and_no_prior_file(tmp_path):
    target = tmp_path / "deep" / "t.txt"
    with pytest.raises(KeyError):
        with atomic_path(target) as tmp:
            assert tmp.parent == target.parent and tmp != target
            tmp.write_text("x")
            raise KeyError("k")
    assert list((tmp_path / "deep").iterdir()) == []


def test_success_without_provenance_writes_no_sidecar(tmp_path):
    target = tmp_path / "t.txt"
    with atomic_path(target) as tmp:
        tmp.write_text("hello")
    assert target.read_text() == "hello"
    assert [p.name for p in tmp_path.iterdir()] == ["t.txt"]


# ------------------------------------------------------------------ CLI
def _cli(*args):
    return subprocess.run([sys.executable, "-m", "icl_heads.provenance", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture
def chain(tmp_path):
    """raw.txt (no record) -> mid.json (rule make_mid) -> table.csv (rule make_table)."""
    raw = tmp_path / "raw.txt"
    raw.write_text("raw data\n")
    mid = tmp_path / "mid.json"
    write_json({"v": [1, 2]}, mid, Provenance("make_mid", inputs=[raw], seed=11, params={"k": "v"}))
    table = tmp_path / "table.csv"
    df = pd.DataFrame({"head": ["L0H1", "L2H3", "L1H0"], "tr": [0.125, 0.75, 0.5]})
    write_csv(df, table, Provenance("make_table", wildcards={"model": "tiny"}, inputs=[mid], seed=22))
    return raw, mid, table


def test_cli_cell_and_chain(chain):
    raw, mid, table = chain
    r = _cli(table, "--row", 1, "--col", "tr")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    cell = next(l for l in lines if l.startswith("cell "))
    assert f"[1, tr] of {table}" in cell
    assert "0.75" in cell
    row = next(l for l in lines if l.startswith("row:"))
    assert "L2H3" in row and "0.75" in row
    assert "L0H1" not in row and "0.125" not in r.stdout
    out = r.stdout
    # the chain: table -> mid -> raw input, each with its rule, seed and input hash
    assert f"- {table}" in out
    assert "rule: make_table" in out and "seed: 22" in out
    assert f"input {mid} sha256 {sha(mid)}" in out
    assert f"- {mid}" in out
    assert "rule: make_mid" in out and "seed: 11" in out
    assert f"input {raw} sha256 {sha(raw)}" in out
    assert f"- {raw} [raw input]" in out
    # the order is the chain order
    assert out.index(f"- {table}") < out.index(f"- {mid}") < out.index(f"- {raw} [raw input]")


def test_cli_whole_file_and_json(chain):
    raw, mid, table = chain
    r = _cli(mid)
    assert r.returncode == 0, r.stderr
    assert "rule: make_mid" in r.stdout and f"- {raw} [raw input]" in r.stdout
    assert "cell " not in r.stdout
    r = _cli(table, "--json")
    assert r.returncode == 0, r.stderr
    rec = json.loads(r.stdout)
    assert rec["rule"] == "make_table" and rec["sha256"] == sha(table)


def test_cli_row_without_col_is_an_error(chain):
    _, _, table = chain
    r = _cli(table, "--row", 1)
    assert r.returncode != 0
    assert "--col" in r.stderr
    r = _cli(table, "--col", "tr")
    assert r.returncode != 0
    assert "--row" in r.stderr


def test_cli_bad_cell_and_missing_record(chain, tmp_path):
    raw, _, table = chain
    r = _cli(table, "--row", 3, "--col", "tr")
    assert r.returncode != 0 and "3 rows" in r.stderr
    r = _cli(table, "--row", 0, "--col", "tl")
    assert r.returncode != 0 and "'tl'" in r.stderr and "tr" in r.stderr
    r = _cli(raw)
    assert r.returncode != 0 and "no provenance record" in r.stderr
    r = _cli(tmp_path / "absent.csv")
    assert r.returncode != 0 and "does not exist" in r.stderr
