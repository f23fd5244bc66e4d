"""Benchmark of the intervention evaluations, every number measured in this one run, on the
same held-out prompts of one model: each artifact's conditions through the evaluation loop as
the workflow runs them, against

- the floor: the raw forward passes the conditions need if nothing is shared, i.e. one plain
  Hugging Face forward pass per prompt and condition (batched and length-sorted like ours, no
  hooks, logits of N only), timed here;
- the same loop with share="none" (every condition its own full pass, with its hooks);
- the same sharing with stack_rows=1 (conditions that start at the same block one by one
  instead of stacked into one pass).

A ratio above 1 means ours is faster than the raw passes it replaces.

    .venv/bin/python benchmarks/bench_interventions.py [--model smollm2-135m] [--n 32]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from icl_heads.config import load  # noqa: E402
from icl_heads.data import load_dataset  # noqa: E402
from icl_heads.interventions import ablation, random_heads  # noqa: E402
from icl_heads.model import ResidAdd, evaluate, left_pad  # noqa: E402
from icl_heads.model.evaluate import length_batches  # noqa: E402
from icl_heads.models import load_hooked  # noqa: E402
from icl_heads.prompts import build_prompts, label_tokens  # noqa: E402


def timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def artifacts(model, seed: int = 0) -> dict:
    """name -> (conditions, share) shaped like the workflow's: T5/Y5 ablate 3% of heads at every
    position; T7/Y7 add a head-set vector at N of one layer (L/2, L/3); L1 adds a learned vector
    at N of a layer from the LTV sweep."""
    L, H, d = model.n_layers, model.n_heads, model.d_model
    g = torch.Generator().manual_seed(seed)
    k = max(1, -(-3 * L * H // 100))
    vec = lambda: torch.randn(d, generator=g)  # noqa: E731
    late = [(l, h) for l in range(L // 2) for h in range(H)]
    return {
        "T5 (ablations, every position)": (
            {"clean": [], **{f"late{i}": [ablation(random_heads(L, H, k, i, exclude=late), "zero")] for i in range(3)},
             **{f"any{i}": [ablation(random_heads(L, H, k, 100 + i), "zero")] for i in range(3)}}, "layers"),
        "T7 (additions at N of L/2)": ({"clean": [], **{f"v{i}": [ResidAdd(L // 2, vec())] for i in range(6)}}, "both"),
        "T7 sweep (20 vectors at N of L/4, L/2, 3L/4)": (
            {"clean": [], **{f"v{l}_{i}": [ResidAdd(l, vec())] for l in (L // 4, L // 2, 3 * L // 4) for i in range(20)}},
            "both"),
        "Y7 (additions at N of L/3)": ({"clean": [], **{f"v{i}": [ResidAdd(L // 3, vec())] for i in range(6)}}, "both"),
        "L1 (additions at N, layers 0..L-1)": (
            {"clean": [], **{f"l{l}": [ResidAdd(l, vec())] for l in range(0, L, max(1, L // 6))}}, "both"),
    }


def parser(dataset: str = "sentiment_lexicon", threads: int = 2) -> argparse.ArgumentParser:
    """The options this benchmark and bench_batch.py share."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default=str(ROOT / "config" / "config.yaml"))
    ap.add_argument("--resources", default=None)
    ap.add_argument("--model", default="smollm2-135m")
    ap.add_argument("--dataset", default=dataset)
    ap.add_argument("--n", type=int, default=32)
    ap.add_argument("--threads", type=int, default=threads)
    return ap


def setup(a):
    """(model, prompts, label tokens) of the parsed options: n n-shot prompts of the dataset."""
    cfg = load(a.config)
    torch.set_num_threads(a.threads)
    model = load_hooked(Path(a.resources or ROOT / cfg["resources_dir"]) / a.model)
    task = load_dataset(a.dataset, cfg, cfg["data_dir"], check_sizes=False)
    prompts = build_prompts(task, model.tokenizer, n_shot=cfg["prompts"]["n_shot"], n_queries=a.n, seed=0)
    return model, prompts, label_tokens(model.tokenizer, task.label_set, task.name)


@torch.no_grad()
def raw_pass(model, prompts, batch_size: int):
    """One plain forward pass of the HF model over the prompts (final position only): the floor."""
    for idx in length_batches(prompts, batch_size):
        b = left_pad([prompts[i].input_ids for i in idx], model.pad_id)
        model.model(input_ids=b.input_ids, attention_mask=b.attention_mask, position_ids=b.position_ids,
                    use_cache=False, logits_to_keep=1)


def main():
    ap = parser()
    ap.add_argument("--batch-size", type=int, default=8)
    a = ap.parse_args()
    model, prompts, labs = setup(a)
    raw = lambda: raw_pass(model, prompts, a.batch_size)  # noqa: E731
    raw()  # warm-up
    t_raw = min(timed(raw) for _ in range(2))
    n_tok = sum(len(p.input_ids) for p in prompts)
    print(f"model {a.model}, {len(prompts)} prompts of {a.dataset} (mean {n_tok / len(prompts):.0f} tokens), "
          f"one raw forward pass over them: {t_raw:.2f} s")
    for name, (conds, share) in artifacts(model).items():
        t_ours = timed(lambda: evaluate(model, prompts, labs, conds, share=share, batch_size=a.batch_size))
        t_none = timed(lambda: evaluate(model, prompts, labs, conds, share="none", batch_size=a.batch_size))
        t_alone = timed(lambda: evaluate(model, prompts, labs, conds, share=share, batch_size=a.batch_size, stack_rows=1))
        floor = t_raw * len(conds)
        print(f"{name}: {len(conds)} conditions; ours (share={share}) {t_ours:.2f} s, every condition a full pass "
              f"{t_none:.2f} s, floor ({len(conds)} raw passes) {floor:.2f} s; ratio floor / ours = {floor / t_ours:.2f}x, "
              f"full passes / ours = {t_none / t_ours:.2f}x, unstacked ({t_alone:.2f} s) / ours = {t_alone / t_ours:.2f}x")


if __name__ == "__main__":
    main()
