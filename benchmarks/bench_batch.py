"""Does a larger batch make the ablation evaluations faster? T5-shaped conditions (the clean run
and nine 3% head sets ablated at every position, `share="layers"`) timed at several
`prompts.batch_size` values in one run, each against the floor: one raw forward pass of the same
prompts per condition. Run it with one thread, as the default workflow runs its model jobs:

    python benchmarks/bench_batch.py --model gemma-3-270m --batch-sizes 4 8 16

(README, Timing: on Gemma 3, 32 topic_noun prompts, 51.7 s at 8, 54.7 s at 4, 55.3 s at 16; ten raw
passes 58.9 s at 8.)"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_interventions import parser, raw_pass, setup, timed  # noqa: E402

from icl_heads.interventions import ablation, random_heads  # noqa: E402
from icl_heads.model import evaluate  # noqa: E402

ap = parser(dataset="topic_noun", threads=1)
ap.add_argument("--batch-sizes", type=int, nargs="+", default=[4, 8, 16])
ap.add_argument("--conditions", type=int, default=9, help="ablated head sets besides the clean run")


def main():
    a = ap.parse_args()
    model, prompts, labs = setup(a)
    L, H = model.n_layers, model.n_heads
    k = max(1, -(-3 * L * H // 100))
    conds = {"clean": [], **{f"r{i}": [ablation(random_heads(L, H, k, i), "zero")] for i in range(a.conditions)}}
    evaluate(model, prompts[:4], labs, conds, share="layers", batch_size=4)  # warm-up
    print(f"model {a.model}, {len(prompts)} prompts of {a.dataset}, {len(conds)} conditions ({k} heads each), "
          f"{a.threads} thread(s)")
    for bs in a.batch_sizes:
        raw_pass(model, prompts, bs)
        floor = timed(lambda: raw_pass(model, prompts, bs)) * len(conds)  # noqa: B023
        t = timed(lambda: evaluate(model, prompts, labs, conds, share="layers", batch_size=bs))  # noqa: B023
        print(f"batch {bs:3d}: ours {t:7.2f} s, floor ({len(conds)} raw passes) {floor:7.2f} s, "
              f"floor / ours = {floor / t:.2f}x")


if __name__ == "__main__":
    main()
