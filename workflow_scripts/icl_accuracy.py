"""Rule icl_accuracy: zero-shot vs n-shot accuracy and TR ratio per dataset (does the model do ICL?)."""
from common import Job  # noqa: I001
import pandas as pd

from icl_heads.cache import accuracy_and_tr_ratio
from icl_heads.io import load_tensors, write_csv
from icl_heads.stats import bootstrap_ci

job = Job(snakemake)  # noqa: F821
rows = []
for path in snakemake.input.caches:  # noqa: F821
    t, meta = load_tensors(path)
    acc, tr = accuracy_and_tr_ratio(t["argmax"], t["answer_token"], t["label_tokens"])
    for metric, v in (("accuracy", acc), ("tr_ratio", tr)):
        lo, hi = bootstrap_ci(v.numpy(), seed=0)
        rows.append({"model": job.wildcards["model"], "dataset": meta["dataset"],
                     "condition": "zero-shot" if meta["prompt_set"]["n_shot"] == 0 else f"{meta['prompt_set']['n_shot']}-shot",
                     "metric": metric, "value": float(v.mean()), "ci_low": lo, "ci_high": hi,
                     "chance": 1.0 / len(meta["label_words"]) if metric == "accuracy" else None,
                     "n": len(v), "prompt_set": meta["prompt_set"]["name"]})
write_csv(pd.DataFrame(rows), snakemake.output[0], job.provenance(choices={"ci": "95% percentile bootstrap over queries, 1000 resamples"}))  # noqa: F821
