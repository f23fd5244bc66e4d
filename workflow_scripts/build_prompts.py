"""Rules prompts_score and prompts_eval: the score set, or every evaluation prompt set, of one
(model tokenizer, dataset) in one job (the tokenizer only: no forward pass). Prompt texts do not
depend on the model; token positions do."""
from common import Job  # noqa: I001
from pathlib import Path

from transformers import AutoTokenizer

from icl_heads.cache import prompt_set
from icl_heads.config import job_seed
from icl_heads.io import write_json
from icl_heads.models import read_manifest
from icl_heads.prompts import build_prompts, demonstrated_label_set, label_tokens

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
w, cfg = job.wildcards, job.cfg
man_path = Path(smk.input.manifest)
man = read_manifest(man_path.parent)
hf = Path(man["path"]) if Path(man["path"]).is_absolute() else man_path.parent / man["path"]
tok = AutoTokenizer.from_pretrained(str(hf), local_files_only=True)
task = job.load_task(w["dataset"])
seed = job_seed(cfg, "prompts", w["dataset"])  # model-independent: every model sees the same prompt texts
for out in job.outputs:
    ps = prompt_set(cfg, Path(out).stem, w["dataset"])
    prompts = build_prompts(task, tok, n_shot=ps.n_shot, start=ps.start, n_queries=ps.n, seed=seed,
                            balanced=cfg["prompts"]["balanced"], perturbation=ps.perturbation)
    shown = demonstrated_label_set(task.label_set, ps.perturbation)  # '0'/'1' under labels_01
    labels = label_tokens(tok, shown, task.name) if shown else []
    job.log.info(f"{ps.name}: {len(prompts)} prompts, mean {sum(len(p.input_ids) for p in prompts) / len(prompts):.0f} tokens")
    prov = job.provenance(
        seed=seed, model=job.model_record(), data=task.provenance(),
        choices={"label_token": "first token of ' ' + label word",
                 "demonstrations": "balanced over labels" if cfg["prompts"]["balanced"] else "uniform",
                 "perturbation": ps.perturbation})
    write_json({"dataset": w["dataset"], "kind": task.kind, "prompt_set": vars(ps), "label_words": shown,
                "gold_label_words": task.label_set, "label_tokens": labels, "prompts": [p.to_json() for p in prompts]},
               out, prov)
