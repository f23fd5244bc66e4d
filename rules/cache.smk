rule prompts:
    """Deterministic n-shot prompts with the token positions of labels, query and N."""
    input:
        manifest=manifest,
    output:
        "results/{model}/prompts/{dataset}/{pset}.json",
    params:
        prompts=lambda w: {k: config["prompts"][k] for k in ("n_shot", "n_score", "n_eval", "balanced")},
        dataset=lambda w: config["datasets"][w.dataset],
    log:
        "logs/prompts/{model}/{dataset}/{pset}.log",
    resources:
        mem_mb=2048,
        runtime=10,
    script:
        "../workflow_scripts/build_prompts.py"


rule cache:
    """One batched forward pass per (model, dataset, prompt set): head outputs, attention
    summaries, residual stream and logits at N. Every head analysis reads this file."""
    input:
        manifest=manifest,
        prompts="results/{model}/prompts/{dataset}/{pset}.json",
    output:
        "results/{model}/cache/{dataset}/{pset}.safetensors",
    log:
        "logs/cache/{model}/{dataset}/{pset}.log",
    threads: workflow.cores
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=60,
    script:
        "../workflow_scripts/build_cache.py"
