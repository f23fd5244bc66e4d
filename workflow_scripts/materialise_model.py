"""Rule materialise_model: convert / fetch a configured model once under resources/."""
from common import Job  # noqa: I001
import json
import time
from pathlib import Path

from icl_heads.io import write_json
from icl_heads.models import load_hooked, materialise, measure_throughput

job = Job(snakemake)  # noqa: F821
out = Path(snakemake.output.manifest)  # noqa: F821
man = materialise(job.cfg, job.wildcards["model"], out.parent, log=job.log.info)
prov = job.provenance(model={"name": man["name"], "source": man["source"], "source_file": man["source_file"],
                             "source_sha256": man["source_sha256"], "dtype": man["dtype"]})
# materialise() wrote the manifest; write it again atomically with its provenance record, with the
# model's forward throughput measured once here (the cost model's tokens/s, icl_heads/cost.py)
data = json.loads(out.read_text())
t0 = time.perf_counter()
model = load_hooked(out.parent)
data["load_seconds"] = round(time.perf_counter() - t0, 2)   # the cost model's start-up term (models.<m>.load_s)
data["throughput"] = measure_throughput(model)
job.log.info(f"[{man['name']}] loads in {data['load_seconds']} s; forward throughput "
             f"{data['throughput']['tokens_per_s']} tokens/s")
write_json(data, out, prov)
