"""Rule tsla_scores (T1): TR, TL, DLA-TR, DLA-TL per head from the scoring cache, induction joined in."""
from common import Job  # noqa: I001
import json
from pathlib import Path

import pandas as pd

from icl_heads.io import load_tensors, write_csv
from icl_heads.tsla import head_scores_table

job = Job(snakemake)  # noqa: F821
cache, meta = load_tensors(snakemake.input.cache)  # noqa: F821
ind = pd.read_csv(snakemake.input.induction)  # noqa: F821
df = head_scores_table(cache, ind)
df.insert(0, "dataset", job.wildcards["dataset"])
df.insert(0, "model", job.wildcards["model"])
cprov = json.loads(Path(snakemake.input.cache_prov).read_text())  # noqa: F821
df["seed"] = cprov.get("seed")
prov = job.provenance(seed=cprov.get("seed"), model=cprov.get("model"), data=cprov.get("data"),
                      choices={"unembedding": "final-norm gain folded into W_U", "aggregation": "mean over scoring prompts"})
write_csv(df, snakemake.output[0], prov)  # noqa: F821
