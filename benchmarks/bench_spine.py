"""Benchmark of the workflow spine, every number measured in this one run.

1. The cache rule's forward pass (batched, left padded, hooks collecting head
   outputs, attention summaries, residual stream and label logits) against plain
   transformers forward passes over the same prompts: one prompt at a time with no
   outputs beyond logits, and one at a time with output_attentions and
   output_hidden_states (the straightforward way to get the same data).
2. The wall time of `snakemake -n` on the full default config.

    .venv/bin/python benchmarks/bench_spine.py [--model smollm2-135m] [--dataset sentiment_lexicon] [--n 32]
The model must have been materialised (make run, or snakemake resources/<model>/manifest.json).
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from icl_heads.cache import build_cache  # noqa: E402
from icl_heads.config import load  # noqa: E402
from icl_heads.data import load_dataset  # noqa: E402
from icl_heads.models import load_hooked  # noqa: E402
from icl_heads.prompts import build_prompts, label_tokens  # noqa: E402
from icl_heads.model import evaluate, evaluate_one, left_pad  # noqa: E402


def timed(fn, repeat=1):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best


def bridge_time(model_dir, prompts):
    """The same captures through TransformerLens 4's TransformerBridge (on its own copy of the model)."""
    try:
        from transformer_lens.model_bridge import TransformerBridge
    except ImportError:
        print("transformer_lens not installed: no bridge comparison")
        return None
    from icl_heads.models import load_hooked as _load

    other = _load(model_dir)
    bridge = TransformerBridge.boot_transformers(str(model_dir / "hf"), hf_model=other.model, tokenizer=other.tokenizer)
    names = lambda n: n.endswith(("attn.hook_z", "attn.hook_pattern", "hook_resid_pre"))  # noqa: E731

    @torch.no_grad()
    def go():
        for p in prompts:
            bridge.run_with_cache(torch.tensor([p.input_ids]), names_filter=names)

    go()
    return timed(go, 2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=str(ROOT / "config" / "config.yaml"))
    ap.add_argument("--model", default="smollm2-135m")
    ap.add_argument("--dataset", default="sentiment_lexicon")
    ap.add_argument("--n", type=int, default=32)
    ap.add_argument("--batch-size", type=int, default=8)
    ap.add_argument("--fv-prompts", type=int, default=2)
    a = ap.parse_args()
    cfg = load(a.config)
    torch.set_num_threads(2)
    model = load_hooked(ROOT / cfg["resources_dir"] / a.model)
    task = load_dataset(a.dataset, cfg, cfg["data_dir"])
    prompts = build_prompts(task, model.tokenizer, n_shot=cfg["prompts"]["n_shot"], n_queries=a.n, seed=0)
    labs = label_tokens(model.tokenizer, task.label_set, task.name)
    n_tok = sum(len(p.input_ids) for p in prompts)
    print(f"model {a.model}, dataset {a.dataset}: {len(prompts)} prompts, {n_tok} tokens "
          f"(mean {n_tok / len(prompts):.0f}), torch threads {torch.get_num_threads()}")

    hf = model.model

    @torch.no_grad()
    def plain(attn_hidden: bool):
        for p in prompts:
            ids = torch.tensor([p.input_ids])
            hf(input_ids=ids, output_attentions=attn_hidden, output_hidden_states=attn_hidden, use_cache=False)

    build_cache(model, prompts[:2], labs, batch_size=2, progress=False)  # warm-up
    t_ours = timed(lambda: build_cache(model, prompts, labs, batch_size=a.batch_size, progress=False), 2)
    t_plain = timed(lambda: plain(False), 2)
    t_plain_full = timed(lambda: plain(True), 2)
    print(f"cache rule pass (batch {a.batch_size}, all captures): {n_tok / t_ours:8.0f} tokens/s  ({t_ours:.2f} s)")
    print(f"plain HF forward, one prompt at a time, logits only : {n_tok / t_plain:8.0f} tokens/s  ({t_plain:.2f} s)")
    print(f"plain HF forward, one at a time, attentions+hidden  : {n_tok / t_plain_full:8.0f} tokens/s  ({t_plain_full:.2f} s)")
    t_ours1 = timed(lambda: build_cache(model, prompts, labs, batch_size=1, progress=False), 1)
    print(f"cache rule pass, batch 1 (same hooks)               : {n_tok / t_ours1:8.0f} tokens/s  ({t_ours1:.2f} s)")
    t_bridge = bridge_time(ROOT / cfg["resources_dir"] / a.model, prompts)
    if t_bridge is not None:
        print(f"TransformerLens 4 TransformerBridge.run_with_cache,\n"
              f"  one prompt at a time, hook_z + hook_pattern + resid : {n_tok / t_bridge:8.0f} tokens/s  ({t_bridge:.2f} s)")
    print(f"ratio ours / plain logits-only      = {t_plain / t_ours:.2f}x")
    print(f"ratio ours / plain attentions+hidden = {t_plain_full / t_ours:.2f}x")
    if t_bridge is not None:
        print(f"ratio ours (batch 1) / TransformerBridge = {t_bridge / t_ours1:.2f}x; "
              f"ours (batched) / TransformerBridge = {t_bridge / t_ours:.2f}x")

    # T5: ablation conditions on the same held-out prompts.
    from icl_heads.interventions import ablation, random_heads

    ev = prompts[: a.n]
    L, H = model.n_layers, model.n_heads
    k = max(1, round(0.03 * L * H))
    conds = {"baseline": []}
    conds.update({f"late{i}": [ablation(random_heads(L, H, k, i, exclude=[(l, h) for l in range(L // 2) for h in range(H)]),
                                        "zero")] for i in range(3)})
    conds.update({f"any{i}": [ablation(random_heads(L, H, k, 100 + i), "zero")] for i in range(3)})
    n_pe = len(ev) * len(conds)
    t_fast = timed(lambda: evaluate(model, ev, labs, conds, share="layers", batch_size=a.batch_size), 1)
    t_batched = timed(lambda: [evaluate_one(model, ev, labs, ivs, batch_size=a.batch_size) for ivs in conds.values()], 1)

    @torch.no_grad()
    def plain_loop():
        for ivs in conds.values():
            for p in ev:
                model.run(left_pad([p.input_ids], model.pad_id), want=("logits",), ivs=ivs)

    t_loop = timed(plain_loop, 1)
    print(f"T5 ({len(conds)} ablation conditions x {len(ev)} prompts, half of them with heads only in the upper half):")
    print(f"  ours (batched, shared clean prefix, final logits only): {n_pe / t_fast:6.1f} prompts/s")
    print(f"  batched, every condition from scratch               : {n_pe / t_batched:6.1f} prompts/s")
    print(f"  plain loop, one forward pass per prompt              : {n_pe / t_loop:6.1f} prompts/s")
    print(f"  ratio ours / plain loop = {t_loop / t_fast:.2f}x; ours / batched-from-scratch = {t_batched / t_fast:.2f}x")

    # Y2: FV scoring (benchmarks/bench_fv.py, on this model)
    from bench_fv import bench_model, report

    report(a.model, bench_model(model, cfg, "country_capital", a.fv_prompts, 10, cfg["fv"]["chunk"]))

    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "2", "figures/", "--forceall"],
                          cwd=ROOT, capture_output=True, text=True)
    dt = time.perf_counter() - t
    jobs = [line for line in proc.stdout.splitlines() if line.strip().startswith("total")]
    print(f"snakemake -n --forceall figures/ (full default config): {dt:.2f} s, rc {proc.returncode}, "
          f"{jobs[0].split()[-1] if jobs else '?'} jobs planned")


if __name__ == "__main__":
    main()
