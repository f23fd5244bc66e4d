"""Rule induction_scores (Y1): per-head induction scores on repeated random tokens."""
from common import Job  # noqa: I001

from icl_heads.config import job_seed
from icl_heads.heads import induction_scores, read_sequences, scores_frame
from icl_heads.io import write_csv
from icl_heads.scores import INDUCTION_AVERAGE_TEXT

job = Job(snakemake)  # noqa: F821
cfg = job.cfg["induction"]
seed = job_seed(job.cfg, "induction", job.wildcards["model"])
model = job.load_model()
given = read_sequences(snakemake.input.sequences, model.cfg.vocab_size) if cfg["sequences"] else None  # noqa: F821
m = induction_scores(model, cfg["n_sequences"], cfg["seq_len"], cfg["batch_size"], seed, average=cfg["average"], given=given)
df = scores_frame(m, "induction")
df["n"] = len(given) if given else cfg["n_sequences"]
df["seed"] = seed
prov = job.provenance(seed=seed, model=job.model_record(),
                      choices={"tokens": f"given: {cfg['sequences']}" if given else "uniform over non-special tokens", "bos_first": model.tokenizer.bos_token_id is not None,
                               "average": INDUCTION_AVERAGE_TEXT[cfg["average"]]})
write_csv(df, snakemake.output[0], prov)  # noqa: F821
