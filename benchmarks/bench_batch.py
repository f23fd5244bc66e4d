"""Does a larger batch make the ablation evaluations faster? T5-shaped conditions (the clean run
and nine 3% head sets ablated at every position, `share="layers"`) timed at several
`prompts.batch_size` values in one run, each against the floor: one raw forward pass of the same
prompts per condition. Run it with one thread, as the default workflow runs its model jobs:

    python benchmarks/bench_batch.py --model gemma-3-270m --batch-sizes 4 8 16

(README, Timing: on Gemma 3, 32 topic_noun prompts, 51.7 s at 8, 54.7 s at 4, 55.3 s at 16; ten raw
passes 58.9 s at 8.)"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench_interventions import timed  # noqa: E402

from icl_heads.config import load  # noqa: E402
from icl_heads.data import load_dataset  # noqa: E402
from icl_heads.interventions import ablation, random_heads  # noqa: E402
from icl_heads.model import evaluate, left_pad  # noqa: E402
from icl_heads.model.evaluate import length_batches  # noqa: E402
from icl_heads.models import load_hooked  # noqa: E402
from icl_heads.prompts import build_prompts, label_tokens  # noqa: E402

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("--config", default=str(ROOT / "config" / "config.yaml"))
ap.add_argument("--resources", default=None)
ap.add_argument("--model", default="smollm2-135m")
ap.add_argument("--dataset", default="topic_noun")
ap.add_argument("--n", type=int, default=32)
ap.add_argument("--threads", type=int, default=1)
ap.add_argument("--batch-sizes", type=int, nargs="+", default=[4, 8, 16])
ap.add_argument("--conditions", type=int, default=9, help="ablated head sets besides the clean run")


def main():
    a = ap.parse_args()
    cfg = load(a.config)
    torch.set_num_threads(a.threads)
    model = load_hooked(Path(a.resources or ROOT / cfg["resources_dir"]) / a.model)
    task = load_dataset(a.dataset, cfg, cfg["data_dir"], check_sizes=False)
    prompts = build_prompts(task, model.tokenizer, n_shot=cfg["prompts"]["n_shot"], n_queries=a.n, seed=0)
    labs = label_tokens(model.tokenizer, task.label_set, task.name)
    L, H = model.n_layers, model.n_heads
    k = max(1, -(-3 * L * H // 100))
    conds = {"clean": [], **{f"r{i}": [ablation(random_heads(L, H, k, i), "zero")] for i in range(a.conditions)}}

    @torch.no_grad()
    def raw_pass(bs):
        for idx in length_batches(prompts, bs):
            b = left_pad([prompts[i].input_ids for i in idx], model.pad_id)
            model.model(input_ids=b.input_ids, attention_mask=b.attention_mask, position_ids=b.position_ids,
                        use_cache=False, logits_to_keep=1)

    evaluate(model, prompts[:4], labs, conds, share="layers", batch_size=4)  # warm-up
    print(f"model {a.model}, {len(prompts)} prompts of {a.dataset}, {len(conds)} conditions ({k} heads each), "
          f"{a.threads} thread(s)")
    for bs in a.batch_sizes:
        raw_pass(bs)
        floor = timed(lambda: raw_pass(bs)) * len(conds)  # noqa: B023
        t = timed(lambda: evaluate(model, prompts, labs, conds, share="layers", batch_size=bs))  # noqa: B023
        print(f"batch {bs:3d}: ours {t:7.2f} s, floor ({len(conds)} raw passes) {floor:7.2f} s, "
              f"floor / ours = {floor / t:.2f}x")


if __name__ == "__main__":
    main()
