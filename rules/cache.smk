def prompt_sets():
    return ["score", "eval", "eval_zeroshot"] + [f"eval_{p}" for p in config["tsla"]["perturbations"]]


rule prompts:
    """Every prompt set of a (model, dataset): deterministic n-shot prompts with the token
    positions of demonstration labels, query tokens and N (tokenizer only, no forward pass)."""
    input:
        manifest=manifest,
    output:
        [f"results/{{model}}/prompts/{{dataset}}/{pset}.json" for pset in prompt_sets()],
    params:
        prompts=lambda w: {k: config["prompts"][k] for k in ("n_shot", "n_score", "n_eval", "balanced")},
        dataset=lambda w: config["datasets"][w.dataset],
    log:
        "logs/prompts/{model}/{dataset}.log",
    resources:
        mem_mb=2048,
        runtime=10,
    conda:
        "../envs/icl.yaml"
    script:
        "../workflow_scripts/build_prompts.py"


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
    threads: workflow.cores
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=60,
    conda:
        "../envs/icl.yaml"
    script:
        "../workflow_scripts/build_cache.py"
