rule tsla_scores:
    """T1: TSLA TR / TL scores and DLA baselines per head, induction score joined in."""
    input:
        cache="results/{model}/cache/{dataset}/score.safetensors",
        # its provenance record: the seed, model and data the scores inherit
        cache_prov="results/{model}/cache/{dataset}/score.safetensors.prov.json",
        induction="results/{model}/heads/induction.csv",
    output:
        report_table("T1", "results/{model}/tsla/scores/{dataset}.csv"),
    log:
        "logs/tsla_scores/{model}/{dataset}.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=2048,
        runtime=10,
    script:
        "../workflow_scripts/tsla_scores.py"


rule tsla_overlap:
    """T2: overlap of the TR, TL and IH rankings (Jaccard of top sets, Kendall, Spearman)."""
    input:
        scores=expand("results/{{model}}/tsla/scores/{dataset}.csv", dataset=CLS_DATASETS),
    output:
        report_table("T2", "results/{model}/tsla/overlap.csv"),
    log:
        "logs/tsla_overlap/{model}.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=1024,
        runtime=5,
    params:
        cfg=cfg("tsla.top_percent"),
    script:
        "../workflow_scripts/tsla_overlap.py"


rule icl_accuracy:
    """Zero-shot vs n-shot accuracy and TR ratio on the held-out queries."""
    input:
        caches=expand(
            "results/{{model}}/cache/{dataset}/{pset}.safetensors",
            dataset=CLS_DATASETS,
            pset=["eval", "eval_zeroshot"],
        ),
    output:
        "results/{model}/icl/accuracy.csv",
    log:
        "logs/icl_accuracy/{model}.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=1024,
        runtime=5,
    script:
        "../workflow_scripts/icl_accuracy.py"


rule tsla_ablation:
    """T5 (and the ablation half of F3): accuracy and TR ratio with TR / TL / IH / DLA-TL /
    random heads ablated, on held-out queries."""
    input:
        unpack(tsla_model_inputs),
    output:
        table=report_table("T5", "results/{model}/tsla/ablation/{dataset}.csv"),
        claims="results/{model}/claims/T5/{dataset}.csv",
        per_query="results/{model}/tsla/ablation/{dataset}.per_query.safetensors",
    log:
        "logs/tsla_ablation/{model}/{dataset}.log",
    conda:
        "../envs/icl.yaml"
    threads: MODEL_THREADS
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=job_runtime("tsla_ablation"),
    params:
        claims=rule_claims("tsla_ablation"),
        cfg=cfg(
            "seed",
            "prompts.batch_size",
            "tsla.top_percent",
            "tsla.threshold_sweep",
            "tsla.random_seeds",
            "tsla.sweep_random_seeds",
            "tsla.sweep_n_eval",
            "tsla.ablation_n_eval",
            "tsla.table_n_eval",
            "tsla.ablation",
            "interventions.post_attention_norm",
            "claims.floor_accuracy",
        ),
    script:
        "../workflow_scripts/tsla_ablation.py"


rule tsla_perturbation:
    """T6: perturbed demonstrations (shuffled text, 0/1 labels, flipped labels), clean and with
    TR / TL heads ablated."""
    input:
        manifest=manifest,
        scores="results/{model}/tsla/scores/{dataset}.csv",
        score_prompts="results/{model}/prompts/{dataset}/score.json",
        t5_per_query="results/{model}/tsla/ablation/{dataset}.per_query.safetensors",
        eval_prompts="results/{model}/prompts/{dataset}/eval.json",
        prompts=lambda w: [
            f"results/{w.model}/prompts/{w.dataset}/eval_{p}.json" for p in config["tsla"]["perturbations"]
        ],
    output:
        table=report_table("T6", "results/{model}/tsla/perturbation/{dataset}.csv"),
        claims="results/{model}/claims/T6/{dataset}.csv",
    log:
        "logs/tsla_perturbation/{model}/{dataset}.log",
    conda:
        "../envs/icl.yaml"
    threads: MODEL_THREADS
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=job_runtime("tsla_perturbation"),
    params:
        claims=rule_claims("tsla_perturbation"),
        cfg=cfg(
            "prompts.batch_size",
            "tsla.top_percent",
            "tsla.perturbations",
            "tsla.ablation_n_eval",
            "tsla.perturbation_n_eval",
            "tsla.table_n_eval",
            "tsla.ablation",
            "interventions.post_attention_norm",
        ),
    script:
        "../workflow_scripts/tsla_perturbation.py"


rule tsla_steering:
    """T7 (and the steering half of F3): task vectors from the top TR / TL / random heads added to
    zero-shot prompts."""
    input:
        manifest=manifest,
        scores="results/{model}/tsla/scores/{dataset}.csv",
        score_cache="results/{model}/cache/{dataset}/score.safetensors",
        icl_cache="results/{model}/cache/{dataset}/eval.safetensors",
        zeroshot_prompts="results/{model}/prompts/{dataset}/eval_zeroshot.json",
    output:
        table=report_table("T7", "results/{model}/tsla/steering/{dataset}.csv"),
        claims="results/{model}/claims/T7/{dataset}.csv",
    log:
        "logs/tsla_steering/{model}/{dataset}.log",
    conda:
        "../envs/icl.yaml"
    threads: MODEL_THREADS
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=job_runtime("tsla_steering"),
    params:
        claims=rule_claims("tsla_steering"),
        cfg=cfg(
            "seed",
            "prompts.batch_size",
            "tsla.top_percent",
            "tsla.threshold_sweep",
            "tsla.random_seeds",
            "tsla.sweep_random_seeds",
            "tsla.steer_layer",
        ),
    script:
        "../workflow_scripts/tsla_steering.py"


rule tsla_geometry:
    """T8: subspace alignment and logit difference before/after TR vs TL outputs; layerwise correlations."""
    input:
        scores="results/{model}/tsla/scores/{dataset}.csv",
        score_cache="results/{model}/cache/{dataset}/score.safetensors",
        icl_cache="results/{model}/cache/{dataset}/eval.safetensors",
        zeroshot_cache="results/{model}/cache/{dataset}/eval_zeroshot.safetensors",
    output:
        table=report_table("T8", "results/{model}/tsla/geometry/{dataset}.csv"),
        layerwise="results/{model}/tsla/geometry/{dataset}.layerwise.csv",
        claims="results/{model}/claims/T8/{dataset}.csv",
    log:
        "logs/tsla_geometry/{model}/{dataset}.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=2048,
        runtime=10,
    params:
        claims=rule_claims("tsla_geometry"),
        cfg=cfg("tsla.top_percent"),
    script:
        "../workflow_scripts/tsla_geometry.py"


rule tsla_rankings:
    """T3 (IH heads in the TR / TL rankings), T4 (cross-dataset consistency), F2 data, and the
    claims of T2, T3, T4, F1, F2."""
    input:
        scores=expand("results/{{model}}/tsla/scores/{dataset}.csv", dataset=CLS_DATASETS),
        caches=expand("results/{{model}}/cache/{dataset}/score.safetensors", dataset=CLS_DATASETS),
    output:
        t3=report_table("T3", "results/{model}/tsla/ih_percentiles.csv"),
        t4=report_table("T4", "results/{model}/tsla/consistency.csv"),
        attention="results/{model}/tsla/attention.csv",
        claims="results/{model}/claims/T2/all.csv",
    log:
        "logs/tsla_rankings/{model}.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=4096,
        runtime=20,
    params:
        claims=rule_claims("tsla_rankings"),
        cfg=cfg("tsla.top_percent"),
    script:
        "../workflow_scripts/tsla_rankings.py"


rule tsla_steering_sweep:
    """T7 sweep: the TR / TL / norm-matched random task vectors at tsla.top_percent added at N of
    zero-shot prompts over injection layers and scales (figure T7_steering_sweep)."""
    input:
        manifest=manifest,
        scores="results/{model}/tsla/scores/{dataset}.csv",
        score_cache="results/{model}/cache/{dataset}/score.safetensors",
        zeroshot_prompts="results/{model}/prompts/{dataset}/eval_zeroshot.json",
    output:
        "results/{model}/tsla/steering_sweep/{dataset}.csv",
    log:
        "logs/tsla_steering_sweep/{model}/{dataset}.log",
    conda:
        "../envs/icl.yaml"
    threads: MODEL_THREADS
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=job_runtime("tsla_steering_sweep"),
    params:
        cfg=cfg("seed", "tsla.top_percent", "tsla.steer_sweep", "tsla.sweep_n_eval", "prompts.batch_size"),
    script:
        "../workflow_scripts/tsla_steering_sweep.py"
