"""Rule yin_dynamics (Y9): every head's induction and FV score at each checkpoint, and the
mean score of the top heads over training."""
from common import Job  # noqa: I001
import pandas as pd

from icl_heads.io import write_csv
from icl_heads.tsla import score_matrix, top_heads

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
steps = {ck: job.cfg["models"][ck]["step"] for ck in job.params["checkpoints"]}
pct = job.cfg["fv"]["top_percent"]
frames, rows = [], []
for path in smk.input.heads:
    df = pd.read_csv(path)
    ck = df["model"].iloc[0]
    df = df.assign(checkpoint=ck, step=steps[ck], model=job.wildcards["model"])
    frames.append(df[["model", "checkpoint", "step", "layer", "head", "induction", "fv"]])
    ih, fv = top_heads(df, "induction", pct), top_heads(df, "fv", pct)
    S_ih, S_fv = score_matrix(df, "induction"), score_matrix(df, "fv")
    rows.append({"model": job.wildcards["model"], "checkpoint": ck, "step": steps[ck], "top_percent": pct, "k": len(ih),
                 "top_induction": float(sum(S_ih[h] for h in ih) / len(ih)),
                 "top_fv": float(sum(S_fv[h] for h in fv) / len(fv)),
                 "ih_heads": ";".join(f"{l}.{h}" for l, h in ih), "fv_heads": ";".join(f"{l}.{h}" for l, h in fv)})
prov = job.provenance()
write_csv(pd.DataFrame(rows).sort_values("step"), smk.output.summary, prov)
write_csv(pd.concat(frames).sort_values(["step", "layer", "head"]), smk.output.heads, prov)
