"""Damaged workflow files are detected, named and removed for a rebuild (icl_heads/integrity.py),
and identical inputs give identical bytes (io writers)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pandas as pd
import pytest
import torch

from icl_heads import integrity
from icl_heads.integrity import DamagedFile
from icl_heads.io import load_tensors, save_figure, save_tensors, write_csv, write_json
from icl_heads.provenance import Provenance, sidecar

ROOT = integrity.Path(__file__).resolve().parent.parent


def _prov():
    return Provenance("test_rule", params={"a": 1})


def test_intact_files_pass_and_record_their_size(tmp_path):
    p = tmp_path / "t.csv"
    write_csv(pd.DataFrame({"x": [1, 2, 3]}), p, _prov())
    rec = json.loads(sidecar(p).read_text())
    assert rec["bytes"] == p.stat().st_size
    assert integrity.check(p) is None
    integrity.verify_inputs([p, tmp_path / "missing.csv"])   # missing: Snakemake's business


def test_an_edited_file_is_named_removed_and_its_record_too(tmp_path):
    p = tmp_path / "scores.csv"
    write_csv(pd.DataFrame({"x": [1, 2, 3]}), p, _prov())
    p.write_text(p.read_text().replace("2", "7"))      # same size, different content
    assert "sha256" in integrity.check(p)
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        with pytest.raises(DamagedFile, match=r"scores\.csv.*sha256.*run the same snakemake command again"):
            integrity.verify_inputs([p])
    finally:
        os.chdir(cwd)
    from base64 import urlsafe_b64encode
    assert (tmp_path / ".snakemake" / "incomplete" / urlsafe_b64encode(str(p).encode()).decode()).is_file()


def test_a_csv_cut_at_a_line_boundary_is_caught(tmp_path):
    p = tmp_path / "heads.csv"
    write_csv(pd.DataFrame({"x": range(100)}), p, _prov())
    lines = p.read_text().splitlines(keepends=True)
    p.write_text("".join(lines[:40]))                  # still a valid CSV
    assert integrity.check(p) is not None
    cwd = os.getcwd()
    os.chdir(tmp_path)                               # the Snakemake working directory
    try:
        bad = integrity.sweep([tmp_path], log=lambda m: None)
    finally:
        os.chdir(cwd)
    assert bad == [p] and p.exists()
    from base64 import urlsafe_b64encode
    assert (tmp_path / ".snakemake" / "incomplete" / urlsafe_b64encode(str(p).encode()).decode()).is_file()


def test_truncated_safetensors_without_a_record_and_load_tensors(tmp_path):
    p = tmp_path / "cache.safetensors"
    save_tensors({"a": torch.arange(100.0)}, p)           # no provenance record
    assert integrity.check(p) is None
    data = p.read_bytes()
    p.write_bytes(data[:-40])
    assert "truncated" in integrity.check(p)
    with pytest.raises(DamagedFile, match=r"cache\.safetensors"):
        load_tensors(p)


def test_unreadable_sidecar_and_json(tmp_path):
    p = tmp_path / "score.json"
    write_json({"a": 1}, p, _prov())
    sidecar(p).write_text("{not json")
    assert "provenance record" in integrity.check(p)
    q = tmp_path / "plain.json"
    q.write_text('{"a": ')
    assert "JSON" in integrity.check(q)
    bad = integrity.sweep([tmp_path], remove_damaged=False, log=lambda m: None)
    assert bad == [p] and p.exists() and not (tmp_path / ".snakemake").exists()   # a dry run only reports


def test_corrupt_manifest_is_removed_so_the_model_is_materialised_again(tmp_path):
    from icl_heads.models import read_manifest

    d = tmp_path / "m"
    d.mkdir()
    (d / "manifest.json").write_text('{"name": "x", ')
    with pytest.raises(DamagedFile, match=r"manifest\.json.*rebuil"):
        read_manifest(d)
    assert not (d / "manifest.json").exists()


def test_truncated_materialised_weights_name_the_file_and_drop_the_manifest(tmp_path):
    from transformers import LlamaConfig, LlamaForCausalLM

    from icl_heads.models import load_hooked
    from tests.conftest import make_tokenizer

    d = tmp_path / "tiny"
    m = LlamaForCausalLM(LlamaConfig(vocab_size=64, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                     num_attention_heads=2, num_key_value_heads=2))
    m.save_pretrained(d / "hf")
    make_tokenizer().save_pretrained(d / "hf")
    (d / "manifest.json").write_text(json.dumps({"name": "tiny", "source": "pypi_gguf", "path": "hf", "dtype": "float32",
                                                 "source_sha256": "0" * 64, "source_file": "x.gguf"}))
    assert load_hooked(d).n_layers == 1
    w = d / "hf" / "model.safetensors"
    w.write_bytes(w.read_bytes()[: w.stat().st_size // 2])
    with pytest.raises(DamagedFile, match=r"hf.*do not load.*rebuil"):
        load_hooked(d)
    assert not (d / "manifest.json").exists()


def test_same_inputs_same_bytes_across_processes_and_umask_modes(tmp_path):
    """safetensors keeps its metadata in hash order, different in every process: two processes
    writing the same tensors and metadata must still give the same bytes; files get the umask mode."""
    code = ("import sys, torch; sys.path.insert(0, sys.argv[2]); from icl_heads.io import save_tensors; "
            "save_tensors({'b': torch.zeros(3), 'a': torch.ones(2)}, sys.argv[1], "
            "metadata={k: str(i) for i, k in enumerate('zyxwvutsrq')})")
    outs = []
    for i in range(3):
        p = tmp_path / f"t{i}.safetensors"
        subprocess.run([sys.executable, "-c", code, str(p), str(ROOT)], check=True,
                       env={**os.environ, "PYTHONHASHSEED": str(i)})
        outs.append(p.read_bytes())
    assert outs[0] == outs[1] == outs[2]
    assert load_tensors(tmp_path / "t0.safetensors")[1]["z"] == 0
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "t0.safetensors").stat().st_mode & 0o777 == 0o666 & ~umask


def test_figures_are_byte_identical(tmp_path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    got = []
    for i in range(2):
        fig, ax = plt.subplots()
        ax.plot([0, 1], [1, 0])
        paths = [tmp_path / f"f{i}.pdf", tmp_path / f"f{i}.png", tmp_path / f"f{i}.svg"]
        save_figure(fig, paths)
        got.append([p.read_bytes() for p in paths])
    assert got[0] == got[1]
    assert b"CreationDate" not in got[0][0]


def test_a_table_without_its_record_is_marked_for_a_rebuild(tmp_path, monkeypatch):
    """Under results/ every file is written with its record: one without (the record deleted) is
    marked incomplete at DAG build; hidden temporary files and the records themselves are not."""
    from base64 import urlsafe_b64encode
    from pathlib import Path

    import pandas as pd

    from icl_heads.integrity import sweep
    from icl_heads.io import write_csv

    monkeypatch.chdir(tmp_path)
    res = Path("results")
    write_csv(pd.DataFrame({"a": [1]}), res / "kept.csv", Provenance("r"))
    write_csv(pd.DataFrame({"a": [2]}), res / "bare.csv", Provenance("r"))
    (res / "bare.csv.prov.json").unlink()
    (res / ".kept.csv.x.part.csv").write_text("")
    logs = []
    assert sweep([res], records_required=[res], remove_damaged=False, log=logs.append) == [res / "bare.csv"]
    assert not Path(".snakemake").exists() and "a real run rebuilds it" in logs[0]
    assert sweep([res], records_required=[res], log=logs.append) == [res / "bare.csv"]
    assert (Path(".snakemake/incomplete") / urlsafe_b64encode(b"results/bare.csv").decode()).is_file()
    assert sweep([res], log=logs.append) == []   # without records_required: only size / decoding checks
