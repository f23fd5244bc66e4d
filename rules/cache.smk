rule cache:
    """One batched forward pass per (model, dataset, prompt set): the prompts (with the
    token positions of labels, query and N) and, at N, head outputs, attention summaries,
    residual stream and logits. Every head analysis reads these files."""
    input:
        manifest=manifest,
    output:
        prompts="results/{model}/prompts/{dataset}/{pset}.json",
        cache="results/{model}/cache/{dataset}/{pset}.safetensors",
    params:
        prompts=lambda w: {k: config["prompts"][k] for k in ("n_shot", "n_score", "n_eval", "balanced")},
        dataset=lambda w: config["datasets"][w.dataset],
    log:
        "logs/cache/{model}/{dataset}/{pset}.log",
    threads: workflow.cores
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=60,
    conda:
        "../envs/icl.yaml"
    script:
        "../workflow_scripts/build_cache.py"
