"""Rule synthesis_claims (S2): every paper's claims rows of every model in one table; each row
names the file and row it came from (source, source_row) for python -m icl_heads.provenance."""
from common import Job  # noqa: I001
from icl_heads.io import write_csv
from icl_heads.synthesis import claims_summary, gather_claims, unclear_summary

job = Job(snakemake)  # noqa: F821
df = gather_claims(snakemake.input.claims)  # noqa: F821
job.log.info("%d claims rows from %d files\n%s\n%s", len(df), len(snakemake.input.claims),  # noqa: F821
             claims_summary(df).to_string() if len(df) else "", unclear_summary(df).to_string() if len(df) else "")
prov = job.provenance(choices={"rows": "copied unchanged from the claims files, in the order of "
                                       "rules/common.smk CLAIMS_FILES per model; source/source_row name each origin"})
write_csv(df, snakemake.output[0], prov)  # noqa: F821
