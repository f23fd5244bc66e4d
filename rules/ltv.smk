# Paper B: learned task vectors (LTV). One training job per (model, dataset, configuration)
# feeds L1 / F4 (ltv_evaluate), L3 / L4 / F5 (ltv_mechanism), L5 / F6 (ltv_linear),
# L6 (ltv_transfer) and L7 (ltv_composition); L2 (ltv_peft) trains its own methods side by side.


rule ltv_train:
    """Train the LTVs of one dataset (theta per layer and position of every configuration), model frozen."""
    input:
        manifest=manifest,
    output:
        vectors="results/{model}/ltv/vectors/{dataset}.safetensors",
        curve="results/{model}/ltv/curves/{dataset}.csv",
    log:
        "logs/ltv_train/{model}/{dataset}.log",
    conda:
        "../envs/icl.yaml"
    threads: LTV["threads"]
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=job_runtime("ltv_train"),
    params:
        cfg=cfg(
            *LTV_QUERIES,
            "datasets.{dataset}",
            "ltv.steps",
            "ltv.lr",
            "ltv.lr_scale",
            "ltv.weight_decay",
            "ltv.batch_size",
            "ltv.label_tokens",
            "ltv.layer_stride",
            lambda w: ["ltv.configurations", "ltv.sweep_stride"] if w.dataset in LTV_DATASETS else [],
        ),
        configurations=ltv_configurations,
    script:
        "../workflow_scripts/ltv_train.py"


rule ltv_evaluate:
    """L1 and F4 rows of one dataset: LTV, Vanilla TV and FV at every site; zero-shot and ICL."""
    input:
        unpack(ltv_fv_input),
        manifest=manifest,
        vectors=lambda w: ltv_vector(w.model, w.dataset),
    output:
        table="results/{model}/ltv/accuracy/{dataset}.csv",
        per_query="results/{model}/ltv/accuracy/{dataset}.per_query.safetensors",
    log:
        "logs/ltv_evaluate/{model}/{dataset}.log",
    conda:
        "../envs/icl.yaml"
    threads: LTV["threads"]
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=job_runtime("ltv_evaluate"),
    params:
        cfg=cfg(
            *LTV_QUERIES,
            "datasets.{dataset}",
            "ltv.batch_size",
            lambda w: ["fv.top_percent"] if config["fv"]["scoring_tasks"] else [],
        ),
    script:
        "../workflow_scripts/ltv_evaluate.py"


rule ltv_summary:
    """L1: method x configuration table (dataset average and per dataset) and its claims."""
    input:
        tables=expand("results/{{model}}/ltv/accuracy/{dataset}.csv", dataset=LTV_DATASETS),
        per_query=expand("results/{{model}}/ltv/accuracy/{dataset}.per_query.safetensors", dataset=LTV_DATASETS),
    output:
        table=report_table("L1", "results/{model}/ltv/L1.csv"),
        claims="results/{model}/claims/L1/all.csv",
    log:
        "logs/ltv_summary/{model}.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=1024,
        runtime=5,
    params:
        claims=rule_claims("ltv_summary"),
        cfg=cfg("seed", "claims.floor_accuracy"),
    script:
        "../workflow_scripts/ltv_summary.py"


rule ltv_mechanism:
    """L3 (OV / MLP reconstructions) and L4 (saliency, key vs random ablation, sink share)."""
    input:
        manifest=manifest,
        vectors=lambda w: ltv_vector(w.model, w.dataset),
    output:
        table=report_table("L3", "results/{model}/ltv/mechanism/{dataset}.csv"),
        heads="results/{model}/ltv/key_heads/{dataset}.csv",
        claims="results/{model}/claims/L3/{dataset}.csv",
    log:
        "logs/ltv_mechanism/{model}/{dataset}.log",
    conda:
        "../envs/icl.yaml"
    threads: LTV["threads"]
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=job_runtime("ltv_mechanism"),
    params:
        claims=rule_claims("ltv_mechanism"),
        cfg=cfg(
            *LTV_QUERIES,
            "datasets.{dataset}",
            "ltv.key_head_percent",
            "ltv.ov_attention",
            "ltv.random_seeds",
            "ltv.batch_size",
            "ltv.layer_stride",
            "interventions.post_attention_norm",
        ),
    script:
        "../workflow_scripts/ltv_mechanism.py"


rule ltv_key_heads:
    """Key heads of every mechanism dataset, and over all of them (read by the S1 head map)."""
    input:
        expand("results/{{model}}/ltv/key_heads/{dataset}.csv", dataset=LTV_MECH),
    output:
        report_table("L4", "results/{model}/ltv/key_heads.csv"),
    log:
        "logs/ltv_key_heads/{model}.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=512,
        runtime=5,
    params:
        cfg=cfg("ltv.key_head_percent"),
    script:
        "../workflow_scripts/ltv_key_heads.py"


rule ltv_linear:
    """L5 and F6 data: linear propagation map per sweep layer and its polar decomposition."""
    input:
        manifest=manifest,
        vectors=lambda w: ltv_vector(w.model, w.dataset),
    output:
        report_table("L5", "results/{model}/ltv/linear/{dataset}.csv"),
    log:
        "logs/ltv_linear/{model}/{dataset}.log",
    conda:
        "../envs/icl.yaml"
    threads: LTV["threads"]
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=job_runtime("ltv_linear"),
    params:
        cfg=cfg(*LTV_QUERIES, "datasets.{dataset}", "ltv.linear", "ltv.batch_size", "ltv.layer_stride"),
    script:
        "../workflow_scripts/ltv_linear.py"


rule ltv_transfer:
    """L6: cross-task transfer matrix of the baseline LTVs."""
    input:
        manifest=manifest,
        vectors=lambda w: [ltv_vector(w.model, d) for d in LTV_DATASETS],
    output:
        table=report_table("L6", "results/{model}/ltv/transfer.csv"),
        claims="results/{model}/claims/L6/all.csv",
    log:
        "logs/ltv_transfer/{model}.log",
    conda:
        "../envs/icl.yaml"
    threads: LTV["threads"]
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=job_runtime("ltv_transfer"),
    params:
        claims=rule_claims("ltv_transfer"),
        cfg=cfg(*LTV_QUERIES, "ltv.datasets", "ltv.batch_size", *[f"datasets.{d}" for d in LTV_DATASETS]),
    script:
        "../workflow_scripts/ltv_transfer.py"


rule ltv_composition:
    """L7: sum of the LTVs of the composition tasks on the composed task."""
    input:
        manifest=manifest,
        vectors=lambda w: [ltv_vector(w.model, d) for d in LTV_COMPOSITION["tasks"]],
    output:
        table=report_table("L7", "results/{model}/ltv/composition.csv"),
        claims="results/{model}/claims/L7/all.csv",
    log:
        "logs/ltv_composition/{model}.log",
    conda:
        "../envs/icl.yaml"
    threads: LTV["threads"]
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=job_runtime("ltv_composition"),
    params:
        claims=rule_claims("ltv_composition"),
        cfg=cfg(*LTV_QUERIES, "ltv.composition", "ltv.batch_size", f"datasets.{LTV_COMPOSITION['composed']}"),
    script:
        "../workflow_scripts/ltv_composition.py"


rule ltv_peft:
    """L2: LTV vs LoRA / prefix / prompt tuning at a matched parameter budget."""
    input:
        manifest=manifest,
    output:
        report_table("L2", "results/{model}/ltv/peft.csv"),
    log:
        "logs/ltv_peft/{model}.log",
    conda:
        "../envs/icl.yaml"
    threads: LTV["threads"]
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=job_runtime("ltv_peft"),
    params:
        cfg=cfg(
            *LTV_QUERIES,
            "ltv.peft",
            "ltv.steps",
            "ltv.lr",
            "ltv.lr_scale",
            "ltv.weight_decay",
            "ltv.batch_size",
            "ltv.label_tokens",
            f"datasets.{LTV['peft']['dataset']}",
        ),
    script:
        "../workflow_scripts/ltv_peft.py"


rule plot_ltv_layers:
    """F4: accuracy against injection layer for LTV, Vanilla TV and FV, with ICL and zero-shot."""
    input:
        tables=expand("results/{{model}}/ltv/accuracy/{dataset}.csv", dataset=LTV_DATASETS),
    output:
        figure_paths("F4_ltv_layers"),
    log:
        "logs/plot_ltv_layers/{model}.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=1024,
        runtime=5,
    params:
        cfg=cfg(*palette_keys("ltv", "vanilla_tv", "fv")),
    script:
        "../workflow_scripts/ltv_plots.py"


rule plot_ltv_key_heads:
    """F5: layer distribution of the LTV key heads and their attention-sink share."""
    input:
        heads="results/{model}/ltv/key_heads.csv",
    output:
        figure_paths("F5_ltv_key_heads"),
    log:
        "logs/plot_ltv_key_heads/{model}.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=1024,
        runtime=5,
    params:
        cfg=cfg(*palette_keys("ltv", "random")),
    script:
        "../workflow_scripts/ltv_plots.py"


rule plot_ltv_linear:
    """F6: cos(theta_l, Q theta_l) and label alignment of theta_l and Q theta_l against layer."""
    input:
        tables=expand("results/{{model}}/ltv/linear/{dataset}.csv", dataset=LTV_MECH),
    output:
        figure_paths("F6_ltv_rotation"),
    log:
        "logs/plot_ltv_linear/{model}.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=1024,
        runtime=5,
    params:
        cfg=cfg(*palette_keys("ltv")),
    script:
        "../workflow_scripts/ltv_plots.py"
