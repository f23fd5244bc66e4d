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
        runtime=60,
    params:
        configurations=ltv_configurations,
        ltv=lambda w: {
            k: LTV[k]
            for k in (
                "steps",
                "lr",
                "lr_scale",
                "weight_decay",
                "batch_size",
                "n_train",
                "n_eval",
                "n_shot",
                "label_tokens",
                "layer_stride",
            )
        },
        dataset=lambda w: config["datasets"][w.dataset],
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
        runtime=60,
    params:
        ltv=lambda w: {k: LTV[k] for k in ("n_eval", "n_shot", "batch_size")},
        top_percent=config["fv"]["top_percent"],
    script:
        "../workflow_scripts/ltv_evaluate.py"


rule ltv_summary:
    """L1: method x configuration table (dataset average and per dataset) and its claims."""
    input:
        tables=expand("results/{{model}}/ltv/accuracy/{dataset}.csv", dataset=LTV_DATASETS),
        per_query=expand("results/{{model}}/ltv/accuracy/{dataset}.per_query.safetensors", dataset=LTV_DATASETS),
    output:
        table="results/{model}/ltv/L1.csv",
        claims="results/{model}/claims/ltv_L1.csv",
    log:
        "logs/ltv_summary/{model}.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=1024,
        runtime=5,
    params:
        claims=rule_claims("ltv_summary"),
        floor_accuracy=config["claims"]["floor_accuracy"],
    script:
        "../workflow_scripts/ltv_summary.py"


rule ltv_mechanism:
    """L3 (OV / MLP reconstructions) and L4 (saliency, key vs random ablation, sink share)."""
    input:
        manifest=manifest,
        vectors=lambda w: ltv_vector(w.model, w.dataset),
    output:
        table="results/{model}/ltv/mechanism/{dataset}.csv",
        heads="results/{model}/ltv/key_heads/{dataset}.csv",
        claims="results/{model}/claims/ltv_mechanism_{dataset}.csv",
    log:
        "logs/ltv_mechanism/{model}/{dataset}.log",
    conda:
        "../envs/icl.yaml"
    threads: LTV["threads"]
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=60,
    params:
        claims=rule_claims("ltv_mechanism"),
        ltv=lambda w: {k: LTV[k] for k in ("key_head_percent", "ov_attention", "random_seeds", "n_eval", "batch_size")},
        ablation_norm=config["interventions"]["post_attention_norm"],
    script:
        "../workflow_scripts/ltv_mechanism.py"


rule ltv_key_heads:
    """Key heads of every mechanism dataset, and over all of them (read by the S1 head map)."""
    input:
        expand("results/{{model}}/ltv/key_heads/{dataset}.csv", dataset=LTV_MECH),
    output:
        "results/{model}/ltv/key_heads.csv",
    log:
        "logs/ltv_key_heads/{model}.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=512,
        runtime=5,
    script:
        "../workflow_scripts/ltv_key_heads.py"


rule ltv_linear:
    """L5 and F6 data: linear propagation map per sweep layer and its polar decomposition."""
    input:
        manifest=manifest,
        vectors=lambda w: ltv_vector(w.model, w.dataset),
    output:
        "results/{model}/ltv/linear/{dataset}.csv",
    log:
        "logs/ltv_linear/{model}/{dataset}.log",
    conda:
        "../envs/icl.yaml"
    threads: LTV["threads"]
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=60,
    params:
        linear=LTV["linear"],
    script:
        "../workflow_scripts/ltv_linear.py"


rule ltv_transfer:
    """L6: cross-task transfer matrix of the baseline LTVs."""
    input:
        manifest=manifest,
        vectors=lambda w: [ltv_vector(w.model, d) for d in LTV_DATASETS],
    output:
        table="results/{model}/ltv/transfer.csv",
        claims="results/{model}/claims/ltv_transfer.csv",
    log:
        "logs/ltv_transfer/{model}.log",
    conda:
        "../envs/icl.yaml"
    threads: LTV["threads"]
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=30,
    params:
        claims=rule_claims("ltv_transfer"),
    script:
        "../workflow_scripts/ltv_transfer.py"


rule ltv_composition:
    """L7: sum of the LTVs of the composition tasks on the composed task."""
    input:
        manifest=manifest,
        vectors=lambda w: [ltv_vector(w.model, d) for d in LTV_COMPOSITION["tasks"]],
    output:
        table="results/{model}/ltv/composition.csv",
        claims="results/{model}/claims/ltv_composition.csv",
    log:
        "logs/ltv_composition/{model}.log",
    conda:
        "../envs/icl.yaml"
    threads: LTV["threads"]
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=30,
    params:
        claims=rule_claims("ltv_composition"),
        composition=LTV_COMPOSITION,
    script:
        "../workflow_scripts/ltv_composition.py"


rule ltv_peft:
    """L2: LTV vs LoRA / prefix / prompt tuning at a matched parameter budget."""
    input:
        manifest=manifest,
    output:
        "results/{model}/ltv/peft.csv",
    log:
        "logs/ltv_peft/{model}.log",
    conda:
        "../envs/icl.yaml"
    threads: LTV["threads"]
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=60,
    params:
        peft=LTV["peft"],
        ltv={
            k: LTV[k]
            for k in ("steps", "lr", "lr_scale", "weight_decay", "batch_size", "n_train", "n_eval", "label_tokens")
        },
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
        palette=config["plots"]["palette"],
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
        palette=config["plots"]["palette"],
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
        palette=config["plots"]["palette"],
    script:
        "../workflow_scripts/ltv_plots.py"
