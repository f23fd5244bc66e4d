"""Rule train_model: train a `source: train` model from scratch, saving its checkpoints."""
from common import Job  # noqa: I001
from pathlib import Path

from icl_heads.io import write_json
from icl_heads.model.train import train_model

job = Job(snakemake)  # noqa: F821
out = Path(snakemake.output.record)  # noqa: F821
spec = job.cfg["models"][job.wildcards["model"]]["train"]
rec = train_model(spec, out.parent, data_dir=job.cfg["data_dir"], log=job.log.info)
corpus = rec["corpus"]
prov = job.provenance(seed=rec["seed"],
                      data={"name": "training corpus", "source": corpus["source"],
                            "files": {corpus["source"]: corpus["sha256"]}},
                      choices={"architecture": rec["architecture"], "steps": rec["steps"], "threads": rec["threads"],
                               "repeat_fraction": spec.get("repeat_fraction"), "n_params": rec["n_params"]})
# train_model() wrote the record; write it again atomically with its provenance record.
write_json(rec, out, prov)
