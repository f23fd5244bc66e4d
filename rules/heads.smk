rule induction_scores:
    """Y1: induction score of every head on repeated random token sequences."""
    input:
        manifest=manifest,
    output:
        "results/{model}/heads/induction.csv",
    log:
        "logs/induction_scores/{model}.log",
    conda:
        "../envs/icl.yaml"
    threads: workflow.cores
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=60,
    params:
        induction=lambda w: {k: config["induction"][k] for k in ("n_sequences", "seq_len", "average", "batch_size")},
    script:
        "../workflow_scripts/induction.py"
