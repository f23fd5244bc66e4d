rule tsla_scores:
    """T1: TSLA TR / TL scores and DLA baselines per head, induction score joined in."""
    input:
        cache="results/{model}/cache/{dataset}/score.safetensors",
        induction="results/{model}/heads/induction.csv",
    output:
        "results/{model}/tsla/scores/{dataset}.csv",
    log:
        "logs/tsla_scores/{model}/{dataset}.log",
    resources:
        mem_mb=2048,
        runtime=10,
    conda:
        "../envs/icl.yaml"
    script:
        "../workflow_scripts/tsla_scores.py"


rule tsla_overlap:
    """T2: overlap of the TR, TL and IH rankings (Jaccard of top sets, Kendall, Spearman)."""
    input:
        scores=expand("results/{{model}}/tsla/scores/{dataset}.csv", dataset=CLS_DATASETS),
    output:
        "results/{model}/tsla/overlap.csv",
    params:
        top_percent=config["tsla"]["top_percent"],
    log:
        "logs/tsla_overlap/{model}.log",
    resources:
        mem_mb=1024,
        runtime=5,
    conda:
        "../envs/icl.yaml"
    script:
        "../workflow_scripts/tsla_overlap.py"


rule icl_accuracy:
    """Zero-shot vs n-shot accuracy and TR ratio on the held-out queries."""
    input:
        caches=expand("results/{{model}}/cache/{dataset}/{pset}.safetensors", dataset=CLS_DATASETS,
                      pset=["eval", "eval_zeroshot"]),
    output:
        "results/{model}/icl/accuracy.csv",
    log:
        "logs/icl_accuracy/{model}.log",
    resources:
        mem_mb=1024,
        runtime=5,
    conda:
        "../envs/icl.yaml"
    script:
        "../workflow_scripts/icl_accuracy.py"
