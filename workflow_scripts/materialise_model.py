"""Rule materialise_model: convert / fetch a configured model once under resources/."""
from common import Job  # noqa: I001
from icl_heads.io import write_json  # noqa: F401
from icl_heads.models import materialise

job = Job(snakemake)  # noqa: F821
out = snakemake.output.manifest  # noqa: F821
from pathlib import Path
man = materialise(job.config, job.wildcards["model"], Path(out).parent, log=job.log.info)
prov = job.provenance(model={"name": man["name"], "source": man["source"], "source_file": man["source_file"],
                             "source_sha256": man["source_sha256"], "dtype": man["dtype"]},
                      config_keys=[f"models.{job.wildcards['model']}"])
# The manifest is written by materialise(); re-write it atomically with its record.
import json
write_json(json.loads(Path(out).read_text()), out, prov)
