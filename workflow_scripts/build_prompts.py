"""Rule prompts: deterministic n-shot prompts for one (model tokenizer, dataset, prompt set)."""
from common import Job  # noqa: I001
import json
from pathlib import Path

from transformers import AutoTokenizer

from icl_heads.cache import prompt_set
from icl_heads.config import job_seed
from icl_heads.data import load_dataset
from icl_heads.io import write_json
from icl_heads.prompts import build_prompts, label_tokens

job = Job(snakemake)  # noqa: F821
w = job.wildcards
man_path = Path(snakemake.input.manifest)  # noqa: F821
man = json.loads(man_path.read_text())
hf = Path(man["path"]) if Path(man["path"]).is_absolute() else man_path.parent / man["path"]
tok = AutoTokenizer.from_pretrained(str(hf), local_files_only=True)
task = load_dataset(w["dataset"], job.config, job.config["data_dir"])
ps = prompt_set(job.config, w["pset"])
seed = job_seed(job.config, "prompts", w["dataset"])  # model-independent: every model sees the same prompts
prompts = build_prompts(task, tok, n_shot=ps.n_shot, start=ps.start, n_queries=ps.n, seed=seed,
                        balanced=job.config["prompts"]["balanced"], perturbation=ps.perturbation)
job.log.info(f"{len(prompts)} prompts, mean {sum(len(p.input_ids) for p in prompts) / len(prompts):.0f} tokens")
payload = {"dataset": w["dataset"], "kind": task.kind, "prompt_set": vars(ps),
           "label_words": task.label_set, "label_tokens": label_tokens(tok, task.label_set, task.name) if task.label_set else [],
           "prompts": [p.to_json() for p in prompts]}
prov = job.provenance(seed=seed, model=job.model_record(man_path), data=task.provenance(),
                      choices={"label_token": "first token of ' ' + label word",
                               "demonstrations": "balanced over labels" if job.config["prompts"]["balanced"] else "uniform"},
                      config_keys=["prompts.n_shot", "prompts.n_score", "prompts.n_eval", f"datasets.{w['dataset']}"])
write_json(payload, snakemake.output[0], prov)  # noqa: F821
