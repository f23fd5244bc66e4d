"""Rule fv_scores (Y2, one scoring task): causal-mediation FV score of every head."""
from common import Job  # noqa: I001

from icl_heads.config import job_seed
from icl_heads.fv import fv_scores_fast, mean_head_z
from icl_heads.heads import scores_frame
from icl_heads.io import write_csv
from icl_heads.prompts import build_prompts

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
w, cfg = job.wildcards, job.cfg["fv"]
model = job.load_model(attn="sdpa")
task = job.load_task(w["dataset"])
seed = job_seed(job.cfg, "fv", w["dataset"])
kw = dict(n_shot=cfg["n_shot"], n_queries=cfg["n_prompts"], seed=seed, balanced=False)
clean = build_prompts(task, model.tokenizer, **kw)
corrupted = build_prompts(task, model.tokenizer, perturbation="shuffle_labels", **kw)
means = mean_head_z(model, clean, batch_size=job.cfg["prompts"]["batch_size"])
scores = fv_scores_fast(model, corrupted, means, chunk=cfg["chunk"], progress=True, desc=f"FV {w['dataset']}")
df = scores_frame(scores.mean(0), "fv")
df.insert(0, "task", w["dataset"])
df.insert(0, "model", w["model"])
df["fv_sem"] = (scores.std(0) / len(corrupted) ** 0.5).flatten().tolist()
df["n"] = len(corrupted)
df["seed"] = seed
prov = job.provenance(seed=seed, model=job.model_record(), data=task.provenance(),
                      choices={"activation": "head z (before W_O) at N, mean over clean prompts",
                               "corruption": "demonstration answers shuffled among the demonstrations",
                               "score": "p(answer first token | patched) - p(... | corrupted), patch at N only",
                               "method": "prefix key/value cache once per prompt; all heads' final steps batched"})
write_csv(df, smk.output[0], prov)
