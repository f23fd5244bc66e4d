"""icl_heads: attention-head analyses of in-context learning (TSLA, learned task
vectors, induction vs function-vector heads) as a library the Snakemake workflow
calls. Every formula and intervention lives here and is tested without Snakemake."""

__version__ = "0.1.0"
