"""Rule cache: one batched forward pass over a prompt set, storing everything the head
analyses read (see icl_heads.cache)."""
from common import Job  # noqa: I001
import json
from pathlib import Path

import torch

from icl_heads.cache import build_cache
from icl_heads.io import save_tensors
from icl_heads.prompts import read_prompt_set

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
prompts, payload = read_prompt_set(smk.input.prompts)
model = job.load_model()
prov_in = json.loads(Path(smk.input.prompts_prov).read_text())
torch.manual_seed(prov_in.get("seed") or 0)
tensors = build_cache(model, prompts, payload["label_tokens"] or None, batch_size=job.cfg["prompts"]["batch_size"])
meta = {"model": model.name, "dataset": payload["dataset"], "prompt_set": payload["prompt_set"],
        "label_words": payload["label_words"], "n_layers": model.n_layers, "n_heads": model.n_heads,
        "d_model": model.d_model, "d_head": model.d_head}
prov = job.provenance(seed=prov_in.get("seed"), model=job.model_record(), data=prov_in.get("data"),
                      choices={**prov_in.get("choices", {}),
                               "head_output": "residual space at N; post-attention norm linearised with its scale frozen",
                               "padding": "left, explicit position ids"})
save_tensors(tensors, smk.output[0], prov, metadata=meta)
job.log.info(f"cached {len(prompts)} prompts")
