"""Rule cache: build a prompt set, then run the model over it once (batched) and store
everything the head analyses read. Prompts and cache come from the same job, so the
model's tokenizer is loaded once and no extra job start-up is paid."""
from common import Job  # noqa: I001
from pathlib import Path

import torch

from icl_heads.cache import build_cache, prompt_set
from icl_heads.config import job_seed
from icl_heads.data import load_dataset
from icl_heads.io import save_tensors, write_json
from icl_heads.models import load_hooked
from icl_heads.prompts import build_prompts, demonstrated_label_set, label_tokens

job = Job(snakemake)  # noqa: F821
w = job.wildcards
cfg = job.config
man_path = Path(snakemake.input.manifest)  # noqa: F821
model = load_hooked(man_path.parent)
task = load_dataset(w["dataset"], cfg, cfg["data_dir"])
ps = prompt_set(cfg, w["pset"])
seed = job_seed(cfg, "prompts", w["dataset"])  # model-independent: every model sees the same prompt texts
prompts = build_prompts(task, model.tokenizer, n_shot=ps.n_shot, start=ps.start, n_queries=ps.n, seed=seed,
                        balanced=cfg["prompts"]["balanced"], perturbation=ps.perturbation)
shown = demonstrated_label_set(task.label_set, ps.perturbation)  # '0'/'1' under labels_01
labels = label_tokens(model.tokenizer, shown, task.name) if shown else []
job.log.info(f"{len(prompts)} prompts, mean {sum(len(p.input_ids) for p in prompts) / len(prompts):.0f} tokens")

prov = job.provenance(
    seed=seed, model=job.model_record(man_path), data=task.provenance(),
    choices={"label_token": "first token of ' ' + label word",
             "demonstrations": "balanced over labels" if cfg["prompts"]["balanced"] else "uniform",
             "head_output": "residual space at N; post-attention norm linearised with its scale frozen",
             "padding": "left, explicit position ids"},
    config_keys=["prompts.n_shot", "prompts.n_score", "prompts.n_eval", "prompts.balanced", f"datasets.{w['dataset']}"])

torch.manual_seed(seed)
tensors = build_cache(model, prompts, labels or None, batch_size=cfg["prompts"]["batch_size"])
meta = {"model": model.name, "dataset": w["dataset"], "prompt_set": vars(ps), "label_words": shown,
        "n_layers": model.n_layers, "n_heads": model.n_heads, "d_model": model.d_model, "d_head": model.d_head}
save_tensors(tensors, snakemake.output.cache, prov, metadata=meta)  # noqa: F821
# Written last, so a job killed earlier leaves no output behind.
write_json({"dataset": w["dataset"], "kind": task.kind, "prompt_set": vars(ps), "label_words": shown,
            "gold_label_words": task.label_set, "label_tokens": labels, "prompts": [p.to_json() for p in prompts]},
           snakemake.output.prompts, prov)  # noqa: F821
job.log.info(f"cached {len(prompts)} prompts")
