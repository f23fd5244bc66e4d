"""Tiny models and a word-level tokenizer built in the test: no downloads, fast."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SHARED_DATA = Path(os.environ.get("ICL_SHARED_DATA", ROOT.parent / "shared" / "data"))

WORDS = ("the a movie film was great good bad awful terrible fine fun dull boring lovely "
         "Review Sentiment positive negative : ? . , Word Answer yes no cat dog red blue 0 1 2").split()


def make_tokenizer():
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {"<pad>": 0, "<bos>": 1, "<unk>": 2, "<eos>": 3}
    for w in WORDS:
        vocab.setdefault(w, len(vocab))
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<bos>", eos_token="<eos>",
                                   pad_token="<pad>", unk_token="<unk>")
    return fast


def tiny_llama_model(vocab_size=64, seed=0):
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(seed)
    cfg = LlamaConfig(vocab_size=vocab_size, hidden_size=32, intermediate_size=64, num_hidden_layers=3,
                      num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                      attn_implementation="eager", tie_word_embeddings=False)
    m = LlamaForCausalLM(cfg).eval()
    with torch.no_grad():  # non-trivial final-norm gain so folding is exercised
        m.model.norm.weight.uniform_(0.5, 1.5)
    return m


def tiny_gemma_model(vocab_size=64, seed=0):
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig

    torch.manual_seed(seed)
    cfg = Gemma3TextConfig(vocab_size=vocab_size, hidden_size=32, intermediate_size=64, num_hidden_layers=3,
                           num_attention_heads=4, num_key_value_heads=1, head_dim=8, max_position_embeddings=128,
                           sliding_window=16, attn_implementation="eager", query_pre_attn_scalar=8,
                           layer_types=["sliding_attention", "sliding_attention", "full_attention"])
    m = Gemma3ForCausalLM(cfg).eval()
    with torch.no_grad():
        for layer in m.model.layers:
            for norm in (layer.post_attention_layernorm, layer.input_layernorm):
                norm.weight.uniform_(-0.5, 0.5)
        m.model.norm.weight.uniform_(-0.5, 0.5)
    return m


@pytest.fixture
def tokenizer():
    return make_tokenizer()


@pytest.fixture(params=["llama", "gemma"])
def tiny_hooked(request, tokenizer):
    from icl_heads.model import HookedModel

    model = tiny_llama_model() if request.param == "llama" else tiny_gemma_model()
    return HookedModel(model, tokenizer, name=f"tiny-{request.param}")


@pytest.fixture
def shared_data():
    if not (SHARED_DATA / "sst2").is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA} (set ICL_SHARED_DATA)")
    return SHARED_DATA


@pytest.fixture(scope="session")
def test_resources(tmp_path_factory):
    """Where the workflow tests materialise models: once per session (ICL_TEST_RESOURCES reuses a folder)."""
    return os.environ.get("ICL_TEST_RESOURCES") or str(tmp_path_factory.mktemp("resources"))
