"""Model source `train` (icl_heads/model/train.py): a tiny GPT-NeoX trained from scratch on a
tiny corpus in seconds; deterministic, checkpointed, reloadable; and its config expansion."""
from __future__ import annotations

import json

import pytest
import yaml

from icl_heads import config as cfgmod
from icl_heads.errors import ConfigError
from icl_heads.model.train import train_model
from icl_heads.models import sha256_dir

ROOT = cfgmod.SCHEMA_PATH.parent.parent
SPEC = {"n_layers": 2, "d_model": 32, "n_heads": 2, "d_mlp": 64, "context": 48, "vocab_size": 300, "steps": 30,
        "batch_size": 4, "lr": 3e-3, "warmup": 5, "seed": 3, "threads": 1, "eval_every": 10,
        "checkpoint_steps": [0, 10, 30], "corpus": {"builtin": "english_essays"}, "repeat_len": [4, 16],
        "repeat_warmup": 5,
        "induction_probe": {"n_sequences": 4, "seq_len": 20}}


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    out = tmp_path_factory.mktemp("train")
    return out, train_model(SPEC, out, log=lambda *a: None)


def test_checkpoints_at_the_asked_steps_and_reloadable(trained):
    from transformers import AutoModelForCausalLM, AutoTokenizer, GPTNeoXForCausalLM

    out, rec = trained
    assert [c["step"] for c in rec["checkpoints"]] == [0, 10, 30]
    assert sorted(p.name for p in (out / "checkpoints").iterdir()) == ["step0", "step10", "step30"]
    for d in [out / "checkpoints" / "step10", out / "hf"]:
        assert (d / "model.safetensors").is_file()
        tok = AutoTokenizer.from_pretrained(d)
        ids = tok("Good bread")["input_ids"]
        assert ids[0] == tok.bos_token_id and tok.pad_token_id is not None and tok.eos_token_id is not None
        assert tok.decode(ids[1:]) == "Good bread"
        m = AutoModelForCausalLM.from_pretrained(d, attn_implementation="eager")
        assert isinstance(m, GPTNeoXForCausalLM)
        assert m.config.num_hidden_layers == 2 and m.config.use_parallel_residual
        assert m.config.rope_parameters["partial_rotary_factor"] == 0.25
        assert m.config.vocab_size == len(tok) <= 300
    # the final weights are those of the last checkpoint
    assert (out / "hf" / "model.safetensors").read_bytes() == (out / "checkpoints" / "step30" / "model.safetensors").read_bytes()
    saved = json.loads((out / "training.json").read_text())
    assert saved["corpus"]["sha256"] == rec["corpus"]["sha256"] and saved["seed"] == 3 and saved["steps"] == 30
    assert len(saved["checkpoints"][0]["induction"]) == 2 and len(saved["checkpoints"][0]["induction"][0]) == 2


def test_loss_decreases(trained):
    _, rec = trained
    losses = [c["eval_loss"] for c in rec["checkpoints"]]
    assert losses[-1] < losses[0] - 0.5
    assert rec["loss"][-1]["train_loss"] < rec["loss"][0]["train_loss"]


def test_same_seed_same_weights_bytes(trained, tmp_path):
    out, _ = trained
    train_model(SPEC, tmp_path / "a", log=lambda *a: None)
    for ck in ("step0", "step10", "step30"):
        for name in ("model.safetensors", "tokenizer.json", "config.json"):
            assert (tmp_path / "a" / "checkpoints" / ck / name).read_bytes() == \
                (out / "checkpoints" / ck / name).read_bytes()
    assert sha256_dir(tmp_path / "a" / "hf") == sha256_dir(out / "hf")
    other = {**SPEC, "seed": 4, "steps": 10, "checkpoint_steps": [10]}
    train_model(other, tmp_path / "b", log=lambda *a: None)
    assert (tmp_path / "b" / "hf" / "model.safetensors").read_bytes() != \
        (out / "checkpoints" / "step10" / "model.safetensors").read_bytes()


def test_corpus_file_and_its_pin(tmp_path):
    from icl_heads.model.train import read_corpus

    (tmp_path / "c.txt").write_text("to be or not to be\n\nthat is the question\n")
    text, rec = read_corpus({"path": "c.txt"}, tmp_path)
    assert text.startswith("to be") and len(rec["sha256"]) == 64 and rec["source"] == "c.txt"
    with pytest.raises(ConfigError, match="sha256"):
        read_corpus({"path": "c.txt", "sha256": "0" * 64}, tmp_path)
    with pytest.raises(ConfigError, match="data_dir"):
        read_corpus({"path": "missing.txt"}, tmp_path)


def test_copy_batches_during_the_warmup_then_the_mix():
    """Up to repeat_warmup every batch is BOS + w + w with len(w) in repeat_len (one length per
    batch); after it, with repeat_fraction 0, every batch is a window of the text."""
    import torch

    from icl_heads.model.train import Batches

    ids = torch.arange(1000, 1500)
    vocab = torch.arange(10, 60)
    b = Batches(ids, 0, 40, 0.0, torch.Generator().manual_seed(0), 1.0, vocab, (3, 12), 7)
    for step in range(1, 8):
        x = b(5, step)
        n = (x.shape[1] - 1) // 2
        assert x.shape[1] == 1 + 2 * n and 3 <= n <= 12
        assert (x[:, 0] == 0).all() and torch.equal(x[:, 1:1 + n], x[:, 1 + n:])
        assert torch.isin(x[:, 1:], vocab).all()
    for step in range(8, 12):
        x = b(5, step)
        assert x.shape == (5, 40) and torch.isin(x[:, 1:], ids).all()
    with pytest.raises(ConfigError, match="repeat_len"):
        Batches(ids, 0, 20, 0.5, torch.Generator(), 1.0, vocab, (3, 12))


def test_config_expands_trained_checkpoints():
    cfg = cfgmod.load(ROOT / "config" / "config.yaml")
    assert cfgmod.artifact_models(cfg) == ["tiny-neox"]
    assert cfg["models"]["tiny-neox"]["artifacts"] == ["Y9"]
    assert cfg["models"]["smollm2-135m"]["artifacts"] == []   # run_models run everything
    kids = cfgmod.checkpoint_models(cfg, "tiny-neox")
    steps = cfg["models"]["tiny-neox"]["train"]["checkpoint_steps"]
    assert kids == [f"tiny-neox--step{k}" for k in sorted(steps)]
    last = cfg["models"][kids[-1]]
    assert last["source"] == "local" and last["checkpoint_of"] == "tiny-neox" and "train" not in last
    assert "artifacts" not in last  # checkpoints run through their parent's Y9
    assert last["path"] == f"resources/tiny-neox/trained/checkpoints/step{max(steps)}"
    assert cfg["models"]["tiny-neox"]["train"]["induction_probe"] == {"n_sequences": 20, "seq_len": 50}  # defaults
    assert "train" not in cfg["models"]["smollm2-135m"]  # no train block filled into other sources


def test_config_errors_name_the_key():
    raw = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    bad = json.loads(json.dumps(raw))
    bad["models"]["tiny-neox"]["train"]["checkpoint_steps"] = [0, 10**6]
    with pytest.raises(ConfigError, match="checkpoint_steps"):
        cfgmod.validate(bad)
    bad = json.loads(json.dumps(raw))
    bad["models"]["smollm2-135m"]["artifacts"] = ["Y1", "Y2", "Y9"]   # no checkpoints
    bad["run_models"] = ["gemma-3-270m"]
    with pytest.raises(ConfigError, match="artifacts"):
        cfgmod.validate(bad)
    bad = json.loads(json.dumps(raw))
    bad["models"]["tiny-neox"]["train"]["n_layer"] = 2
    with pytest.raises(ConfigError, match="n_layer"):
        cfgmod.validate(bad)
