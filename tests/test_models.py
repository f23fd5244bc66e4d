"""Model registry: local directories, the hub code path (tested with a local directory),
clear errors, and the one loader."""
import json

import pytest
import torch

from conftest import make_tokenizer, tiny_llama_model
from icl_heads.errors import ConfigError
from icl_heads.model import left_pad
from icl_heads.models import load_hooked, materialise, model_entry, sha256_dir


@pytest.fixture
def hf_dir(tmp_path):
    model, tok = tiny_llama_model(), make_tokenizer()
    d = tmp_path / "tiny-hf"
    model.save_pretrained(d)
    tok.save_pretrained(d)
    return d, model


def _logits(hooked, model):
    b = left_pad([[1, 5, 6, 7]], 0)
    with torch.no_grad():
        ref = model(input_ids=b.input_ids).logits[:, -1]
    return hooked.run(b).logits, ref


def test_local_directory_source(hf_dir, tmp_path):
    d, model = hf_dir
    cfg = {"models": {"tiny": {"source": "local", "path": str(d)}}}
    man = materialise(cfg, "tiny", tmp_path / "res" / "tiny", log=lambda *_: None)
    assert man["source_sha256"] == sha256_dir(d)
    assert json.loads((tmp_path / "res" / "tiny" / "manifest.json").read_text())["path"] == str(d.resolve())
    hooked = load_hooked(tmp_path / "res" / "tiny")
    ours, ref = _logits(hooked, model)
    torch.testing.assert_close(ours, ref, atol=1e-5, rtol=1e-5)


def test_a_local_source_that_moved_is_named_with_the_fix(hf_dir, tmp_path):
    d, _ = hf_dir
    cfg = {"models": {"tiny": {"source": "local", "path": str(d)}}}
    materialise(cfg, "tiny", tmp_path / "res" / "tiny", log=lambda *_: None)
    d.rename(tmp_path / "moved")
    with pytest.raises(ConfigError, match="no longer exists.*materialise_model"):
        load_hooked(tmp_path / "res" / "tiny")


def test_hub_source_code_path_with_a_local_directory(hf_dir, tmp_path):
    """from_pretrained treats a path like a hub id: the real hub code runs, offline."""
    d, model = hf_dir
    cfg = {"models": {"tiny": {"source": "hub", "repo_id": str(d)}}}
    man = materialise(cfg, "tiny", tmp_path / "res" / "tiny", log=lambda *_: None)
    assert man["path"] == "hf" and (tmp_path / "res" / "tiny" / "hf" / "config.json").is_file()
    ours, ref = _logits(load_hooked(tmp_path / "res" / "tiny"), model)
    torch.testing.assert_close(ours, ref, atol=1e-5, rtol=1e-5)


def test_unreachable_hub_says_how_to_use_a_local_directory(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    cfg = {"models": {"big": {"source": "hub", "repo_id": "no-such-org/no-such-model", "revision": "main"}}}
    with pytest.raises(ConfigError) as e:
        materialise(cfg, "big", tmp_path / "big", log=lambda *_: None)
    msg = str(e.value)
    assert "no-such-org/no-such-model" in msg and "source: local" in msg and "models.big.path" in msg
    assert not (tmp_path / "big" / "manifest.json").exists()


def test_unknown_model_lists_known_ones():
    with pytest.raises(ConfigError, match="known models: a, b"):
        model_entry({"models": {"a": {}, "b": {}}}, "c")


def test_gguf_hash_mismatch_is_refused(tmp_path):
    f = tmp_path / "x.gguf"
    f.write_bytes(b"not really a gguf")
    cfg = {"models": {"g": {"source": "gguf", "path": str(f), "sha256": "0" * 64}}}
    with pytest.raises(ConfigError, match="models.g.sha256"):
        materialise(cfg, "g", tmp_path / "g", log=lambda *_: None)
    assert not (tmp_path / "g" / "manifest.json").exists()


def test_local_directory_without_model_files_names_the_key(tmp_path):
    cfg = {"models": {"m": {"source": "local", "path": str(tmp_path / "empty")}}}
    with pytest.raises(ConfigError, match="models.m.path"):
        materialise(cfg, "m", tmp_path / "m", log=lambda *_: None)


def test_loading_an_unmaterialised_model_says_how(tmp_path):
    with pytest.raises(ConfigError, match="materialise the model first"):
        load_hooked(tmp_path / "nothing")


def test_materialised_tokenizer_is_read_from_its_tokenizer_json_only_when_it_tokenises_the_same(hf_dir, tmp_path):
    """load_hooked reads a materialised tokenizer.json directly (no class rebuilding the vocabulary)
    only where materialise checked that it tokenises the probe as the model's own tokenizer does."""
    from icl_heads.models import _check_fast_tokenizer

    d, _ = hf_dir
    cfg = {"models": {"tiny": {"source": "hub", "repo_id": str(d)}}}
    man = materialise(cfg, "tiny", tmp_path / "res" / "tiny", log=lambda *_: None)
    assert man["tokenizer"]["load"] == "tokenizer.json" and man["tokenizer"]["checked_strings"] > 1000
    hooked = load_hooked(tmp_path / "res" / "tiny")
    ref = make_tokenizer()
    for text in ("the cat sat on the mat .", "dog , bird", ""):
        assert hooked.tokenizer(text)["input_ids"] == ref(text)["input_ids"]
    assert hooked.pad_id == ref.pad_token_id
    # a tokenizer.json that splits differently from the tokenizer it came with is refused
    hf = tmp_path / "res" / "tiny" / "hf"
    spec = json.loads((hf / "tokenizer.json").read_text())
    spec["pre_tokenizer"] = {"type": "Whitespace"}
    spec["normalizer"] = {"type": "Lowercase"}
    (hf / "tokenizer.json").write_text(json.dumps(spec))
    rec = _check_fast_tokenizer(hf, ref)
    assert rec["load"] == "auto" and "differently" in rec["why"]
    # and a manifest without the record loads through AutoTokenizer, as before
    mf = tmp_path / "res" / "tiny" / "manifest.json"
    m = json.loads(mf.read_text())
    m["tokenizer"] = rec
    mf.write_text(json.dumps(m))
    assert load_hooked(tmp_path / "res" / "tiny").tokenizer("The Cat")["input_ids"] == ref("the cat")["input_ids"]
