"""Rule ltv_train: one learned task vector per (model, dataset, configuration), trained on the
training queries with the model frozen; the vectors and the training curve."""
from common import Job  # noqa: I001

import pandas as pd

from icl_heads import ltv
from icl_heads.config import job_seed
from icl_heads.io import save_tensors, write_csv
from ltv_common import load_model, ltv_cfg, site_of, task_and_queries

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
w, cfg = job.wildcards, ltv_cfg(job)
model = load_model(job, smk.input.manifest)
site = site_of(job, model, w["conf"])
task, sets, _ = task_and_queries(job, model, w["dataset"], icl=site.prompt == "icl")
prompts = sets["train_icl"] if site.prompt == "icl" else sets["train_zs"]
seed = job_seed(job.config, "ltv_train", w["model"], w["dataset"], w["conf"])
job.log.info("training %s on %s: layers %s positions %s (%s prompts), %d steps", w["conf"], w["dataset"],
             site.layers, site.positions, site.prompt, cfg["steps"])
theta, curve = ltv.train_ltv(model, prompts, site, steps=cfg["steps"], lr=cfg["lr"], weight_decay=cfg["weight_decay"],
                             batch_size=cfg["batch_size"], seed=seed, label_mode=cfg["label_tokens"], progress=True)
prov = job.provenance(seed=seed, model=job.model_record(smk.input.manifest), data=task.provenance(),
                      choices={"site": {"layers": list(site.layers), "positions": list(site.positions), "prompt": site.prompt},
                               "loss": f"-log p(label | query, theta), mean over the label tokens ({cfg['label_tokens']})",
                               "optimiser": "AdamW on theta only (initialised at 0), model weights frozen",
                               "queries": f"first {len(prompts)} test-split queries (evaluation uses the next ltv.n_eval)"},
                      config_keys=["ltv.steps", "ltv.lr", "ltv.weight_decay", "ltv.batch_size", "ltv.n_train",
                                   "ltv.label_tokens", "ltv.layer_stride", "ltv.n_shot"])
meta = {"layers": list(site.layers), "positions": list(site.positions), "prompt": site.prompt, "model": w["model"],
        "dataset": w["dataset"], "configuration": w["conf"], "seed": seed}
save_tensors({"theta": theta}, smk.output.vectors, prov, metadata=meta)
df = pd.DataFrame(curve)
df.insert(0, "configuration", w["conf"])
df.insert(0, "dataset", w["dataset"])
df.insert(0, "model", w["model"])
df["n"], df["seed"] = len(prompts), seed
write_csv(df, smk.output.curve, prov)
