"""The cost model (icl_heads/cost.py): its counts against what the library really computes, with a
block meter on a tiny model (every decoder block counts the rows x columns it runs; / L = full-model
token equivalents), against prompts the real prompt builder makes, against closed forms, and its
job list against Snakemake's own dry run. No model weights are downloaded; the tiny models are
built in the test."""
from __future__ import annotations

import copy
import io
import re
import subprocess
import sys
from collections import Counter
from contextlib import redirect_stdout

import pytest
import torch
import yaml

import tiny_run
from conftest import ROOT, SHARED_DATA, make_tokenizer, tiny_llama_model
from icl_heads import cost
from icl_heads.config import deep_merge, validate

DEFAULT = ROOT / "config" / "config.yaml"
PAPER = ROOT / "config" / "paper.yaml"


def tiny_config(**over) -> dict:
    """One model (shape given, never loaded) and built-in datasets whose examples are single words."""
    cfg = {"models": {"m": {"source": "local", "path": "/nonexistent", "shape": {"n_layers": 3, "n_heads": 4}}},
           "run_models": ["m"], "resources_dir": "/nonexistent-resources",
           "datasets": {"sentiment_lexicon": {"source": "builtin"}, "capitalize": {"source": "builtin"},
                        "lowercase": {"source": "builtin"}},
           "classification_datasets": ["sentiment_lexicon"],
           "prompts": {"n_shot": 3, "n_score": 5, "n_eval": 7},
           "fv": {"scoring_tasks": ["capitalize"], "eval_tasks": ["lowercase"], "n_shot": 4, "n_prompts": 3,
                  "n_eval": 2, "chunk": 8}}
    return validate(deep_merge(cfg, over), log=lambda m: None)


def word_tokenizer(words):
    """A word-level tokenizer over `words` (plus the templates' words): every word and every
    punctuation mark one token, no BOS; exact counts for prompts of single-word examples."""
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    vocab = {"<pad>": 0, "<bos>": 1, "<unk>": 2, "<eos>": 3}
    for w in ["Input", "Output", "Q", "A", ":", *words]:
        vocab.setdefault(w, len(vocab))
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.WhitespaceSplit(), pre_tokenizers.Punctuation()])
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<bos>", eos_token="<eos>", pad_token="<pad>",
                                   unk_token="<unk>")


# ------------------------------------------------------------------ prompt tokens
@pytest.mark.parametrize("pset", ["score", "eval", "eval_zeroshot"])
def test_cache_tokens_are_the_tokens_of_the_prompts_the_builder_makes(pset):
    from icl_heads.cache import prompt_set
    from icl_heads.data import load_dataset
    from icl_heads.prompts import build_prompts

    cfg = tiny_config()
    task = load_dataset("sentiment_lexicon", cfg)
    words = {x for rows in task.splits.values() for r in rows for x in (r["input"], r["output"])}
    assert all(" " not in w for w in words)  # single words: every demonstration has the same tokens
    tok = word_tokenizer(sorted(words))
    ps = prompt_set(cfg, pset, "sentiment_lexicon")
    prompts = build_prompts(task, tok, n_shot=ps.n_shot, start=ps.start, n_queries=ps.n, seed=0,
                            perturbation=ps.perturbation)
    job = cost.job_cost(cfg, "cache", {"model": "m", "dataset": "sentiment_lexicon", "pset": pset},
                        tokens=cost.TokenizerCounter(tok))
    assert job.forward == sum(len(p.input_ids) for p in prompts) > 0
    assert job.backward == 0
    # by hand: "Input: w\nOutput: label\n\n" is 6 tokens, the query "Input: w\nOutput:" 5
    assert job.forward == ps.n * (6 * ps.n_shot + 5)


def test_the_character_rule_counts_words_punctuation_and_newlines():
    count = cost.CharCounter(5.0)
    assert count("Q: apple\nA:") == 6                     # Q, :, apple, a newline, A, :
    assert count("extraordinarily") == pytest.approx(15 / 5)
    assert count("a\n\n\nb") == 3                         # a run of newlines is one token
    assert count.special == 1


# ------------------------------------------------------------------ a block meter on a tiny model
class Meter:
    """Rows x columns through every decoder block of `hooked`, over the passes made inside the
    `with`; `.tokens` in full-model token equivalents (/ L). Replayed blocks are not called."""

    def __init__(self, hooked):
        self.hooked, self.count = hooked, 0

    def __enter__(self):
        def pre(module, args, kwargs):
            x = args[0] if args else kwargs["hidden_states"]
            self.count += x.shape[0] * x.shape[1]

        self.handles = [b.register_forward_pre_hook(pre, with_kwargs=True) for b in self.hooked.layers]
        return self

    def __exit__(self, *exc):
        for h in self.handles:
            h.remove()

    @property
    def tokens(self) -> float:
        return self.count / self.hooked.n_layers


@pytest.fixture
def hooked():
    from icl_heads.model import HookedModel

    return HookedModel(tiny_llama_model(), make_tokenizer(), name="tiny")


def equal_prompts(n: int, T: int, seed: int = 0):
    from icl_heads.prompts import Prompt

    g = torch.Generator().manual_seed(seed)
    return [Prompt(index=i, text="", input_ids=torch.randint(4, 60, (T,), generator=g).tolist(), answer="",
                   answer_token=5) for i in range(n)]


@pytest.mark.parametrize("share", ["none", "layers", "columns", "both"])
@pytest.mark.parametrize("with_ablation", [False, True])
def test_evaluation_loop_tokens_equal_the_metered_blocks(hooked, share, with_ablation):
    """icl_heads.model.evaluate under each sharing mode, with an ablation at every position (first
    block 1) and residual additions at N (blocks 1, 2): the blocks it runs are what evaluate_tokens
    counts."""
    from icl_heads.model import HeadAblation, ResidAdd, evaluate

    n, T, L = 5, 9, hooked.n_layers
    prompts = equal_prompts(n, T)
    v = torch.randn(hooked.d_model)
    conds = {"clean": [], "add2": [ResidAdd(2, v)], "add1": [ResidAdd(1, v)]}
    shape = [None, (2, T - 1), (1, T - 1)]
    if with_ablation:
        conds["abl"] = [HeadAblation([(1, 0), (2, 3)])]
        shape.append((1, 0))
    with Meter(hooked) as m:
        evaluate(hooked, prompts, [5, 6], conds, share=share, batch_size=2)
    assert m.tokens == pytest.approx(cost.evaluate_tokens(n, T, shape, share, L))


def test_fv_scoring_tokens_equal_the_metered_blocks_and_the_closed_form(hooked):
    """Rule fv_scores (mean_head_z over the clean prompts, fv_scores_fast over the corrupted ones),
    on prompts the real builder makes, against the cost model's job; and its closed form."""
    from icl_heads.data import load_dataset
    from icl_heads.fv import fv_scores_fast, mean_head_z
    from icl_heads.prompts import build_prompts

    cfg = tiny_config()  # model m: 3 layers x 4 heads, as the tiny Llama; fv.chunk 8 -> groups [0, 2), [2, 3)
    assert (hooked.n_layers, hooked.n_heads) == (3, 4)
    task, tok = load_dataset("capitalize", cfg), hooked.tokenizer
    kw = dict(n_shot=cfg["fv"]["n_shot"], n_queries=cfg["fv"]["n_prompts"], seed=0, balanced=False)
    clean = build_prompts(task, tok, **kw)
    corrupted = build_prompts(task, tok, perturbation="shuffle_labels", **kw)
    with Meter(hooked) as m:
        means = mean_head_z(hooked, clean, batch_size=2)
        fv_scores_fast(hooked, corrupted, means, chunk=cfg["fv"]["chunk"])
    job = cost.job_cost(cfg, "fv_scores", {"model": "m", "dataset": "capitalize"}, tokens=cost.TokenizerCounter(tok))
    assert job.forward == pytest.approx(m.tokens)
    n, T, L, H = 3, 4 * 6 + 5, 3, 4         # "Q: x\nA: y\n\n" is 6 tokens, the query 5, no BOS; groups (0, 2), (2, 3)
    # per pass: its unpatched row (1 column) + the rows of layer l from block l (L - l of L blocks)
    assert job.forward == pytest.approx(n * T + n * (T - 1 + (1 + H * (3 + 2) / L) + (1 + H * 1 / L)))
    # a Llama-3-8B shape: chunk 128 -> 8 passes of 4 layers: 8 + sum_l (32 - l) = 8 + 528 columns;
    # chunk 1024 -> one pass: 1 + 528
    for chunk, rows in ((128, 536), (1024, 529)):
        big = tiny_config(models={"m": {"shape": {"n_layers": 32, "n_heads": 32}}}, fv={"chunk": chunk})
        job = cost.job_cost(big, "fv_scores", {"model": "m", "dataset": "capitalize"}, tokens=cost.TokenizerCounter(tok))
        assert job.forward == pytest.approx(n * T + n * (T - 1 + rows))


@pytest.mark.parametrize("L,H,chunk", [(3, 4, 8), (32, 32, 128), (30, 9, 64), (18, 4, 64), (7, 5, 3), (2, 4, 1)])
def test_layer_groups_are_the_fv_modules(L, H, chunk):
    """The cost model counts FV's own batches (one function), and they tile the layers: contiguous,
    every layer once, at most `chunk` heads a batch unless one layer alone has more."""
    from icl_heads import fv

    assert cost.layer_groups is fv.layer_groups
    groups = cost.layer_groups(L, H, chunk)
    assert groups[0][0] == 0 and groups[-1][1] == L and all(a[1] == b[0] for a, b in zip(groups, groups[1:]))
    assert all((b - a) * H <= chunk or b - a == 1 for a, b in groups)


def test_ltv_training_forward_tokens_equal_the_metered_blocks(hooked):
    """ltv.train_ltv on a baseline site: the prefix once per prompt, then per step the label columns."""
    from icl_heads import ltv
    from icl_heads.data import load_dataset

    cfg = tiny_config(datasets={"capitalize": {"source": "builtin"}}, ltv={"datasets": ["capitalize"], "steps": 4,
                                                                        "n_train": 6, "batch_size": 4,
                                                                        "configurations": ["baseline"],
                                                                        "sweep_stride": 100, "label_tokens": "first"})
    task, tok = load_dataset("capitalize", cfg), hooked.tokenizer
    sets = ltv.query_sets(task, tok, n_train=6, n_eval=2, n_shot=2, seed=0, icl=False)
    with Meter(hooked) as m:
        ltv.train_ltv(hooked, sets["train_zs"], ltv.site("baseline", 3), steps=4, batch_size=4, label_mode="first")
    c = cost._Ctx(cfg, cost.TokenizerCounter(tok))
    layers, positions, _ = cost.ltv_site("baseline", 3, 4)
    T = c.len("capitalize").prompt(0)
    start = cost.first_column(positions, T)
    expected = 6 * start + 4 * cost._rows_per_step(6, 4) * (T + 1 - 1 - start)   # 4 steps: batches of 4, 2, 4, 2
    assert m.tokens == pytest.approx(expected)


def test_the_share_table_is_what_the_scripts_pass():
    """cost.SHARES names, in order, the `share=` of every evaluate call of each rule's script."""
    found = {}
    for script in sorted((ROOT / "workflow_scripts").glob("*.py")):
        shares = tuple(re.findall(r"share=\"(\w+)\"", script.read_text()))
        if shares:
            found[script.stem] = shares
    assert found == cost.SHARES


# ------------------------------------------------------------------ shapes and runtimes
def test_shape_from_config_json_then_the_shape_key_then_the_train_block(tmp_path):
    cfg = tiny_config(resources_dir=str(tmp_path))
    assert cost.model_shape(cfg, "m") == cost.Shape(3, 4, "models.m.shape")
    (tmp_path / "m" / "hf").mkdir(parents=True)
    (tmp_path / "m" / "hf" / "config.json").write_text('{"num_hidden_layers": 5, "num_attention_heads": 7}')
    assert cost.model_shape(cfg, "m") == cost.Shape(5, 7, "config.json")
    full = validate(yaml.safe_load(DEFAULT.read_text()), log=lambda m: None)
    s = cost.model_shape(full, "tiny-neox--step300")   # a checkpoint of a model trained here: its parent's train block
    assert (s.n_layers, s.n_heads, s.source) == (2, 4, "models.tiny-neox.train")
    assert cost.model_shape(full, "smollm2-135m").n_layers == 30   # ltv.n_layers_hint


def _tiny_model(family: str):
    if family == "llama":
        return tiny_llama_model(vocab_size=64)
    if family == "gemma3":
        from conftest import tiny_gemma_model

        return tiny_gemma_model(vocab_size=96)
    from transformers import GPTNeoXConfig, GPTNeoXForCausalLM

    return GPTNeoXForCausalLM(GPTNeoXConfig(vocab_size=80, hidden_size=32, intermediate_size=96, num_hidden_layers=2,
                                            num_attention_heads=4, max_position_embeddings=64))


@pytest.mark.parametrize("family", ["llama", "gemma3", "neox"])
def test_unembed_ratio_is_the_unembedding_over_the_blocks_matrices(tmp_path, family):
    """Against the real parameter counts of a tiny model of each MLP shape (gated: Llama, Gemma 3
    with head_dim != width / heads; plain: GPT-NeoX, fused QKV): vocabulary x width over the
    matrices of the decoder blocks (norms and biases are not multiply-adds a token)."""
    model = _tiny_model(family)
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text(model.config.to_json_string())
    blocks = model.gpt_neox.layers if family == "neox" else model.model.layers
    body = sum(p.numel() for p in blocks.parameters() if p.dim() == 2)
    unembed = model.get_output_embeddings().weight.numel()
    ratio, source = cost.unembed_ratio(tiny_config(resources_dir=str(tmp_path)), "m")
    assert source == "config.json"
    assert ratio == pytest.approx(unembed / body, rel=1e-12)


def test_training_logits_add_their_unembedding_to_ltv_train_and_ltv_peft(tmp_path):
    """Without a config.json the logits are not counted (ratio 0); with one, each training step
    adds rows x K label positions x the ratio forward and twice that backward, per configuration
    (ltv_train) and per method (ltv_peft)."""
    over = {"ltv": {"datasets": ["capitalize"], "steps": 4, "n_train": 6, "batch_size": 4, "n_eval": 2,
                    "configurations": ["baseline"], "sweep_stride": 100, "label_tokens": "first",
                    "peft": {"dataset": "capitalize", "methods": ["ltv", "lora"]}}}
    bare = tiny_config(resources_dir=str(tmp_path), **over)
    assert cost.unembed_ratio(bare, "m") == (0.0, "not known (no materialised config.json)")
    before = {r: cost.job_cost(bare, r, {"model": "m", "dataset": "capitalize"}) for r in ("ltv_train", "ltv_peft")}
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "config.json").write_text(
        '{"num_hidden_layers": 3, "num_attention_heads": 4, "vocab_size": 1200, "hidden_size": 16, '
        '"intermediate_size": 32, "model_type": "llama"}')   # the shape key's 3 x 4, so only the logits change
    u = 1200 * 16 / (3 * (4 * 16 * 16 + 3 * 16 * 32))    # 0.833... token equivalents a position
    assert cost.unembed_ratio(bare, "m")[0] == pytest.approx(u)
    per_step = cost._rows_per_step(6, 4) * 1 * u        # label_tokens first: K = 1
    n_conf = {"ltv_train": len(cost.ltv_configurations(bare, "m", "capitalize")), "ltv_peft": 2}
    for r, b in before.items():
        a = cost.job_cost(bare, r, {"model": "m", "dataset": "capitalize"})
        assert a.forward - b.forward == pytest.approx(n_conf[r] * 4 * per_step)
        assert a.backward - b.backward == pytest.approx(2 * n_conf[r] * 4 * per_step)


def test_runtime_has_a_floor_and_scales_linearly_with_tokens():
    w = {"model": "m", "dataset": "sentiment_lexicon", "pset": "eval"}
    small, big = tiny_config(prompts={"n_eval": 10}), tiny_config(prompts={"n_eval": 40})
    assert cost.runtime_minutes(small, "cache", w) == small["cost"]["min_minutes"] == 10
    up = cost.startup_seconds(small, "m")[0] / 60                       # the same for both: added once a job
    assert cost.predicted_minutes(big, "cache", w) - up == pytest.approx(4 * (cost.predicted_minutes(small, "cache", w) - up))
    tokens = cost.job_cost(big, "cache", w).tokens
    slow = 0.01  # tokens/s, so that the floor does not bind
    assert cost.runtime_minutes(big, "cache", w, slow) == pytest.approx(2.0 * tokens / slow / 60, abs=1)
    twice = cost.runtime_minutes(big, "cache", w, slow / 2)
    assert twice == pytest.approx(2 * cost.runtime_minutes(big, "cache", w, slow), abs=1)
    # the model's own throughput wins over cost.throughput.default
    own = tiny_config(prompts={"n_eval": 40}, models={"m": {"throughput": 1.0}})
    assert cost.throughput(own, "m") == (1.0, "models.m.throughput")
    assert cost.throughput(big, "m") == (500.0, "cost.throughput.default")
    assert cost.predicted_minutes(own, "cache", w) == pytest.approx((tokens + cost.startup_seconds(own, "m")[0]) / 60)


def test_a_jobs_start_up_is_python_plus_the_models_load_time(tmp_path):
    w = {"model": "m", "dataset": "sentiment_lexicon", "pset": "eval"}
    base = tiny_config(resources_dir=str(tmp_path), prompts={"n_eval": 40}, models={"m": {"throughput": 1.0}})
    tokens = cost.job_cost(base, "cache", w).tokens
    py = base["cost"]["python_startup_s"]
    assert cost.startup_seconds(base, "m") == (py, "cost.python_startup_s (model load not measured yet)")
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "manifest.json").write_text('{"name": "m", "load_seconds": 12.5}')
    assert cost.startup_seconds(base, "m")[0] == py + 12.5           # measured at materialisation
    own = tiny_config(resources_dir=str(tmp_path), prompts={"n_eval": 40}, cost={"python_startup_s": 1.0},
                      models={"m": {"throughput": 1.0, "load_s": 59.0}})
    assert cost.startup_seconds(own, "m")[0] == 60.0                 # the config's load_s wins
    assert cost.predicted_minutes(own, "cache", w) == pytest.approx(tokens / 60 + 1.0)


def test_y7_counts_fv_addback_n_eval_queries_and_y5_keeps_fv_n_eval():
    w = {"model": "m", "dataset": "lowercase"}
    tokens = lambda rule, **fv: cost.job_cost(tiny_config(fv=fv), rule, w).tokens  # noqa: E731
    assert tokens("yin_addback", addback_n_eval=None) == tokens("yin_addback", addback_n_eval=2)  # null: fv.n_eval (2)
    assert tokens("yin_addback", addback_n_eval=6) > tokens("yin_addback", addback_n_eval=2)
    assert tokens("yin_addback", n_eval=5, addback_n_eval=6) == tokens("yin_addback", addback_n_eval=6)
    assert tokens("yin_ablation", addback_n_eval=6) == tokens("yin_ablation", addback_n_eval=None)
    assert tokens("yin_ablation", n_eval=5) > tokens("yin_ablation")


def test_figure_sweeps_count_only_their_first_queries():
    """tsla.sweep_n_eval: T5's other thresholds and the T7 sweep run on the first n held-out
    queries (T5 at top_percent keeps all 7); fv.addback_sweep.n_eval likewise for the Y7 sweep.
    A limit at or above the queries there is no limit."""
    t5 = {"model": "m", "dataset": "sentiment_lexicon"}
    y7 = {"model": "m", "dataset": "lowercase"}

    def tokens(rule, w, **over):
        return cost.job_cost(tiny_config(**over), rule, w).tokens

    sweep = {"tsla": {"threshold_sweep": [1, 3, 10]}}
    full = tokens("tsla_ablation", t5, **sweep)
    assert tokens("tsla_ablation", t5, tsla={"threshold_sweep": [1, 3, 10], "sweep_n_eval": 7}) == full
    few = tokens("tsla_ablation", t5, tsla={"threshold_sweep": [1, 3, 10], "sweep_n_eval": 2})
    assert tokens("tsla_ablation", t5, tsla={"threshold_sweep": [3]}) < few < full
    assert tokens("tsla_ablation", t5, tsla={"threshold_sweep": [3], "sweep_n_eval": 2}) == \
        tokens("tsla_ablation", t5, tsla={"threshold_sweep": [3]})   # no other threshold: nothing to cut
    assert tokens("tsla_steering_sweep", t5, tsla={"sweep_n_eval": 1}) < tokens("tsla_steering_sweep", t5)
    assert tokens("tsla_steering", t5, tsla={"sweep_n_eval": 1}) == tokens("tsla_steering", t5)
    a = {"addback_n_eval": 6}
    # tsla.ablation_n_eval: T5 (every threshold) and T6 on the first n; T7 keeps every query
    abl = {"threshold_sweep": [1, 3, 10], "ablation_n_eval": 3}
    assert tokens("tsla_ablation", t5, tsla=abl) < full
    assert tokens("tsla_ablation", t5, tsla={**abl, "ablation_n_eval": 7}) == full
    assert tokens("tsla_ablation", t5, tsla={**abl, "ablation_n_eval": 2, "sweep_n_eval": 2}) == \
        tokens("tsla_ablation", t5, tsla={**abl, "ablation_n_eval": 2})   # the sweep takes the first 2 of 2
    assert tokens("tsla_perturbation", t5, tsla={"ablation_n_eval": 3}) < tokens("tsla_perturbation", t5)
    # tsla.perturbation_n_eval: T6 on the first n of T5's queries; T5 keeps its own
    assert tokens("tsla_perturbation", t5, tsla={"perturbation_n_eval": 3}) == \
        tokens("tsla_perturbation", t5, tsla={"ablation_n_eval": 3})
    assert tokens("tsla_perturbation", t5, tsla={"ablation_n_eval": 2, "perturbation_n_eval": 3}) == \
        tokens("tsla_perturbation", t5, tsla={"ablation_n_eval": 2})   # at most T5's
    assert tokens("tsla_ablation", t5, tsla={"perturbation_n_eval": 3}) == tokens("tsla_ablation", t5)
    assert tokens("tsla_steering", t5, tsla={"ablation_n_eval": 1}) == tokens("tsla_steering", t5)
    assert tokens("yin_addback", y7, fv={**a, "addback_sweep": {"n_eval": 2}}) < tokens("yin_addback", y7, fv=a)
    assert tokens("yin_addback", y7, fv={**a, "addback_sweep": {"n_eval": 9}}) == tokens("yin_addback", y7, fv=a)


def test_random_head_sets_start_at_their_expected_lowest_layer():
    assert cost.expected_first_layer(4, 1, 1) == pytest.approx(1.5)       # uniform over layers 0..3
    assert cost.expected_first_layer(4, 1, 4) == 0                        # every head: layer 0
    assert cost.expected_first_layer(2, 2, 2) == pytest.approx(1 / 6)     # both heads in layer 1: 1 of C(4, 2)


# ------------------------------------------------------------------ the job list and the CLI
def dry_run_counts(tmp_path, cfg: dict) -> Counter:
    tiny_run.write_config(tmp_path, cfg)
    proc = tiny_run.snakemake(tmp_path, "-n", "--cores", "1", "figures/", timeout=600)
    stats = proc.stdout.split("Job stats:")[1].split("total")[0]
    return Counter({m.group(1): int(m.group(2)) for m in re.finditer(r"^(\w+)\s+(\d+)$", stats, re.M)})


@pytest.mark.parametrize("which", ["config.yaml", "paper.yaml"])
def test_the_jobs_are_the_model_jobs_of_the_dry_run(tmp_path, which):
    if not (SHARED_DATA / "sst2").is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    raw = yaml.safe_load(DEFAULT.read_text())
    if which == "paper.yaml":
        raw = deep_merge(raw, yaml.safe_load(PAPER.read_text()))   # as --configfile lays it over config.yaml
    raw["data_dir"] = str(SHARED_DATA)
    raw["resources_dir"] = str(tmp_path / "resources")
    dry = dry_run_counts(tmp_path, raw)
    jobs = Counter(rule for rule, _ in cost.model_jobs(validate(copy.deepcopy(raw), log=lambda m: None)))
    assert jobs == Counter({r: n for r, n in dry.items() if r in cost.MODEL_RULES})


def run_cli(*argv) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert cost.main([str(a) for a in argv]) == 0
    return out.getvalue()


def totals(text: str) -> list[float]:
    return [float(line.split()[4]) for line in text.splitlines() if line.startswith("total ")]


def test_cli_prints_a_total_for_the_default_config(tmp_path):
    text = run_cli(DEFAULT, "--config", f"resources_dir={tmp_path}")   # nothing materialised there: default throughput
    assert len(totals(text)) == 3 and all(h > 0 for h in totals(text))   # smollm2, gemma, tiny-neox (+ checkpoints)
    assert "all models:" in text and "cost.throughput.default" in text


def test_cli_prints_a_total_for_llama_3_8b_on_the_paper_config():
    if not (SHARED_DATA / "sst2").is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    text = run_cli(PAPER, "--model", "llama-3-8b", "--config", f"data_dir={SHARED_DATA}")
    assert "32 layers x 32 heads (models.llama-3-8b.shape)" in text
    assert "throughput 5,000 tokens/s (models.llama-3-8b.throughput)" in text
    [hours] = totals(text)
    slower = totals(run_cli(PAPER, "--model", "llama-3-8b", "--config", f"data_dir={SHARED_DATA}",
                            "--throughput", "2500"))[0]
    assert slower == pytest.approx(2 * hours, rel=0.01)


def test_the_cost_model_imports_no_torch():
    code = ("import sys; sys.path.insert(0, '.'); from icl_heads import cost; "
            "cost.estimate(cost.load_config('config/config.yaml')); "
            "assert 'torch' not in sys.modules, 'torch imported'; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_the_throughput_measured_at_materialisation_is_used_when_the_entry_names_none(tmp_path, hooked):
    from icl_heads.models import measure_throughput

    m = measure_throughput(hooked, rows=2, tokens=16, repeats=1)
    assert m["tokens_per_s"] > 0 and (m["rows"], m["tokens"]) == (2, 16)
    cfg = tiny_config(resources_dir=str(tmp_path))
    assert cost.throughput(cfg, "m")[1] == "cost.throughput.default"
    (tmp_path / "m").mkdir()
    (tmp_path / "m" / "manifest.json").write_text('{"name": "m", "throughput": {"tokens_per_s": 1234.5}}')
    tps, where = cost.throughput(cfg, "m")
    assert tps == 1234.5 and where.startswith("measured at materialisation")
    own = tiny_config(resources_dir=str(tmp_path), models={"m": {"throughput": 7.0}})
    assert cost.throughput(own, "m") == (7.0, "models.m.throughput")   # the entry's own number wins


def test_limited_conditions_cost_their_own_queries():
    """evaluate(limits=...) cuts the prompts at every limit and runs each range once with the
    conditions that reach it: closed forms on n = 10 prompts of T tokens, share "layers" (one
    clean pass per range, a head ablation at block 0 a full pass)."""
    T, L = 5.0, 4
    full = (0, 0)
    assert cost.evaluate_tokens_limited(10, T, [(None, None), (full, None)], "layers", L) == 20 * T
    assert cost.evaluate_tokens_limited(10, T, [(None, None), (full, 4)], "layers", L) == (10 + 4) * T
    assert cost.evaluate_tokens_limited(10, T, [(None, 4), (full, 4)], "layers", L) == (4 + 4) * T   # nothing after 4
    assert cost.evaluate_tokens_limited(10, T, [(None, None), (full, 4), (full, 12)], "layers", L) == (10 + 4 + 10) * T


def test_table_cells_without_a_claim_run_on_tsla_table_n_eval():
    """tsla.table_n_eval: T5's w/o IH and w/o DLA-TL (2 full passes a query) and T6's five cells no
    claim reads (TR under shuffled text, TL under 0/1 labels, the three flipped-label cells) run
    on the first n of 7 queries, so the saving is proportional to 7 - n."""
    t5 = {"model": "m", "dataset": "sentiment_lexicon"}

    def tokens(rule, **tsla):
        return cost.job_cost(tiny_config(tsla=tsla), rule, t5).tokens

    for rule in ("tsla_ablation", "tsla_perturbation"):
        full = tokens(rule)
        assert tokens(rule, table_n_eval=7) == tokens(rule, table_n_eval=None) == full
        d2, d1 = full - tokens(rule, table_n_eval=2), full - tokens(rule, table_n_eval=1)
        assert d1 > 0 and d2 / d1 == pytest.approx(5 / 6), rule
    # T5: the two cells are full passes, T6: five of them
    per_t5 = (tokens("tsla_ablation") - tokens("tsla_ablation", table_n_eval=1)) / 6
    per_t6 = (tokens("tsla_perturbation") - tokens("tsla_perturbation", table_n_eval=1)) / 6
    assert per_t6 / per_t5 == pytest.approx(5 / 2)
    assert cost._t6_claimed() == {"shuffle_text_tl", "shuffle_text_clean", "tl", "clean", "labels_01_tr",
                                  "labels_01_clean", "tr"}
