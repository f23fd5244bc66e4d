rule prompts_eval:
    """Deterministic n-shot prompts with the token positions of demonstration labels, query tokens
    and N (tokenizer only, no forward pass): here every evaluation prompt set of a (model,
    dataset), queries n_score .. n_score + n_eval; rule prompts_score makes the score set, the
    first n_score queries, apart, so that a change of n_eval leaves it and its caches alone."""
    input:
        manifest=manifest,
    output:
        [f"results/{{model}}/prompts/{{dataset}}/{pset}.json" for pset in prompt_sets() if pset != "score"],
    log:
        "logs/prompts_eval/{model}/{dataset}.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=2048,
        runtime=10,
    params:
        cfg=cfg("seed", *DATA, "prompts.n_shot", "prompts.n_score", "prompts.n_eval", "prompts.balanced"),
    script:
        "../workflow_scripts/build_prompts.py"


use rule prompts_eval as prompts_score with:
    output:
        "results/{model}/prompts/{dataset}/score.json",
    log:
        "logs/prompts_score/{model}/{dataset}.log",
    params:
        cfg=cfg("seed", *DATA, "prompts.n_shot", "prompts.n_score", "prompts.balanced"),


rule cache:
    """One batched forward pass per (model, dataset, prompt set): at N, head outputs, attention
    summaries, residual stream and logits. Every head analysis reads this file."""
    input:
        manifest=manifest,
        prompts="results/{model}/prompts/{dataset}/{pset}.json",
        # its provenance record: the seed, data and choices the cache inherits
        prompts_prov="results/{model}/prompts/{dataset}/{pset}.json.prov.json",
    output:
        "results/{model}/cache/{dataset}/{pset}.safetensors",
    log:
        "logs/cache/{model}/{dataset}/{pset}.log",
    conda:
        "../envs/icl.yaml"
    threads: MODEL_THREADS
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=job_runtime("cache"),
    params:
        cfg=cfg("prompts.batch_size"),
    script:
        "../workflow_scripts/build_cache.py"
