rule induction_scores:
    """Y1: induction score of every head on repeated random token sequences."""
    input:
        manifest=manifest,
        sequences=induction_sequences_file,  # induction.sequences: given token sequences, if any
    output:
        "results/{model}/heads/induction.csv",
    log:
        "logs/induction_scores/{model}.log",
    conda:
        "../envs/icl.yaml"
    threads: MODEL_THREADS
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=job_runtime("induction_scores"),
    params:
        cfg=cfg(
            "seed",
            "induction.n_sequences",
            "induction.seq_len",
            "induction.average",
            "induction.batch_size",
            "induction.sequences",
        ),
    script:
        "../workflow_scripts/induction.py"
