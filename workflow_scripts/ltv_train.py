"""Rule ltv_train: the learned task vectors of one (model, dataset), one per configuration
(every L1 site and every F4 sweep layer; only `baseline` for datasets used only by L7),
each trained on the training queries with the model frozen. One job per (model, dataset)
so that the model is loaded and the prompts built once."""
from common import Job  # noqa: I001

import pandas as pd

from icl_heads import ltv
from icl_heads.config import job_seed
from icl_heads.io import save_tensors, write_csv
from ltv_common import ltv_cfg, site_of, task_and_queries

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
w, cfg = job.wildcards, ltv_cfg(job)
model = job.load_model(attn="sdpa")
confs = list(smk.params.configurations)
sites = {c: site_of(job, model, c) for c in confs}
task, sets, _ = task_and_queries(job, model, w["dataset"], icl=any(s.prompt == "icl" for s in sites.values()))
seed = job_seed(job.cfg, "ltv_train", w["model"], w["dataset"])
tensors, meta, curves = {}, {}, []
for c, site in sites.items():
    prompts = sets["train_icl"] if site.prompt == "icl" else sets["train_zs"]
    job.log.info("training %s on %s: layers %s positions %s (%s prompts), %d steps", c, w["dataset"], site.layers,
                 site.positions, site.prompt, cfg["steps"])
    theta, curve = ltv.train_ltv(model, prompts, site, steps=cfg["steps"], lr=cfg["lr"], weight_decay=cfg["weight_decay"],
                                 batch_size=cfg["batch_size"], seed=seed, label_mode=cfg["label_tokens"], lr_scale=cfg["lr_scale"], progress=True)
    tensors[f"theta.{c}"] = theta
    meta[c] = {"layers": list(site.layers), "positions": list(site.positions), "prompt": site.prompt}
    curves += [{"model": w["model"], "dataset": w["dataset"], "configuration": c, **r, "n": len(prompts), "seed": seed}
               for r in curve]
prov = job.provenance(seed=seed, model=job.model_record(), data=task.provenance(),
                      choices={"sites": meta,
                               "loss": f"-log p(label | query, theta), mean over the label tokens ({cfg['label_tokens']})",
                               "optimiser": "AdamW on theta only (initialised at 0), model weights frozen"
                                   + ("; theta_l = RMS(resid_pre^l at N over the training prompts) x phi_l, AdamW on phi "
                                      "(a per-layer step size of lr x RMS)" if cfg["lr_scale"] == "resid_rms" else ""),
                               "queries": "the first ltv.n_train test-split queries (evaluation uses the next ltv.n_eval)"})
save_tensors(tensors, smk.output.vectors, prov,
             metadata={"sites": meta, "model": w["model"], "dataset": w["dataset"], "seed": seed})
write_csv(pd.DataFrame(curves), smk.output.curve, prov)
