rule induction_scores:
    """Y1: induction score of every head on repeated random token sequences."""
    input:
        manifest=manifest,
    output:
        "results/{model}/heads/induction.csv",
    params:
        induction=lambda w: {k: config["induction"][k] for k in ("n_sequences", "seq_len", "average", "batch_size")},
    log:
        "logs/induction_scores/{model}.log",
    threads: workflow.cores
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=60,
    conda:
        "../envs/icl.yaml"
    script:
        "../workflow_scripts/induction.py"
