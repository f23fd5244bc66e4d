rule fv_scores:
    """Y2 for one scoring task: causal-mediation FV score of every head (KV-cache fast path)."""
    input:
        manifest=manifest,
    output:
        "results/{model}/heads/fv/{dataset}.csv",
    log:
        "logs/fv_scores/{model}/{dataset}.log",
    conda:
        "../envs/icl.yaml"
    threads: MODEL_THREADS
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=job_runtime("fv_scores"),
    params:
        cfg=cfg("seed", "datasets.{dataset}", "data_dir", "fv.n_shot", "fv.n_prompts", "fv.chunk", "prompts.batch_size"),
    script:
        "../workflow_scripts/fv_scores.py"


rule heads_ih_fv:
    """Y2 (mean over scoring tasks), Y3 (IH / FV overlap) and Y4 (layer positions, Mann-Whitney)."""
    input:
        fv=lambda w: [f"results/{w.model}/heads/fv/{t}.csv" for t in config["fv"]["scoring_tasks"]],
        induction="results/{model}/heads/induction.csv",
    output:
        fv="results/{model}/heads/fv.csv",
        overlap=report_table("Y3", "results/{model}/heads/ih_fv_overlap.csv"),
        layers=report_table("Y4", "results/{model}/heads/ih_fv_layers.csv"),
        claims="results/{model}/claims/Y3/all.csv",
    log:
        "logs/heads_ih_fv/{model}.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=1024,
        runtime=10,
    params:
        claims=rule_claims("heads_ih_fv"),
        cfg=cfg("fv.top_percent"),
    script:
        "../workflow_scripts/heads_ih_fv.py"
