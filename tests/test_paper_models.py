"""config/paper.yaml registers the papers' own model families as pinned hub entries, with the
Pythia training checkpoints Yin & Steinhardt plot (Y9). Reads the config only: no model is loaded."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from icl_heads import config as cfgmod

ROOT = Path(__file__).resolve().parent.parent
PAPER = ROOT / "config" / "paper.yaml"

# name in paper.yaml -> (hub repo, dtype)
FAMILIES = {
    "gpt2-small": ("openai-community/gpt2", "float32"),
    "pythia-70m-deduped": ("EleutherAI/pythia-70m-deduped", "float32"),
    "pythia-160m-deduped": ("EleutherAI/pythia-160m-deduped", "float32"),
    "pythia-410m-deduped": ("EleutherAI/pythia-410m-deduped", "float32"),
    "llama-2-7b": ("meta-llama/Llama-2-7b-hf", "bfloat16"),
    "qwen2-7b": ("Qwen/Qwen2-7B", "bfloat16"),
}
PYTHIA = [m for m in FAMILIES if m.startswith("pythia-")]
PYTHIA_STEPS = [1, 64, 256, 1000, 4000, 16000, 64000, 143000]  # Yin & Steinhardt's Y9 checkpoints
COMMIT = re.compile(r"^[0-9a-f]{40}$")
BRANCH = re.compile(r"^step\d+$")  # Pythia's immutable checkpoint branches


@pytest.fixture(scope="module")
def paper():
    return cfgmod.load(PAPER)  # validated against config/schema.yaml, checkpoints expanded


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_family_is_a_pinned_hub_entry(paper, name):
    repo, dtype = FAMILIES[name]
    entry = paper["models"][name]
    assert entry["source"] == "hub" and entry["repo_id"] == repo
    rev = entry.get("revision") or ""
    assert rev, f"{name}: no revision"
    assert COMMIT.match(rev) or BRANCH.match(rev), f"{name}: revision {rev!r} is neither a commit sha nor a step branch"
    assert entry["dtype"] == dtype
    if dtype == "bfloat16":  # the 7B models ask for a GPU and enough memory for their weights
        assert entry["gpu"] == 1 and entry["mem_gb"] >= 32


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_family_is_run_and_planned(paper, name):
    assert name in paper["run_models"]
    assert name in paper["ltv"]["n_layers_hint"]  # F4's layer sweep plans right before materialisation


@pytest.mark.parametrize("name", PYTHIA)
def test_pythia_has_the_papers_checkpoints(paper, name):
    ckpts = paper["models"][name]["checkpoints"]
    assert [c["step"] for c in ckpts] == PYTHIA_STEPS
    assert [c["revision"] for c in ckpts] == [f"step{k}" for k in PYTHIA_STEPS]
    # each becomes a model of its own on the parent's repo at that branch (Y9)
    kids = cfgmod.checkpoint_models(paper, name)
    assert kids == [f"{name}{cfgmod.CKPT_SEP}step{k}" for k in PYTHIA_STEPS]
    for k, kid in zip(PYTHIA_STEPS, kids):
        e = paper["models"][kid]
        assert (e["source"], e["repo_id"], e["revision"], e["step"], e["checkpoint_of"]) == (
            "hub", FAMILIES[name][0], f"step{k}", k, name)
        assert kid not in paper["run_models"]  # checkpoints feed Y9 only, through their parent


def test_only_pythia_and_smollm2_pretraining_have_checkpoints(paper):
    raw_names = [n for n, e in paper["models"].items() if "checkpoint_of" not in e]
    with_ckpts = sorted(n for n in raw_names if paper["models"][n].get("checkpoints"))
    assert with_ckpts == sorted(PYTHIA + ["smollm2-135m-pretraining"])
