# Paper B: learned task vectors (LTV). One training job per (model, dataset, configuration)
# feeds L1 / F4 (ltv_evaluate), L3 / L4 / F5 (ltv_mechanism), L5 / F6 (ltv_linear),
# L6 (ltv_transfer) and L7 (ltv_composition); L2 (ltv_peft) trains its own methods side by side.

from icl_heads.claims import rule_claims  # noqa: E402  a claims rule's param `claims`: its entries of config/claims.yaml


LTV = config["ltv"]
LTV_DATASETS = list(LTV["datasets"])
LTV_MECH = list(LTV["mechanism_datasets"]) or LTV_DATASETS[:1]
LTV_COMPOSITION = LTV["composition"]


def ltv_n_layers(model):
    """Layer count of a materialised model (read at DAG time from its config.json when it exists;
    otherwise from ltv.n_layers_hint, so a dry run on a fresh checkout still plans every job)."""
    import json

    cfg = Path(RES) / model / "hf" / "config.json"
    for cand in (cfg, Path(RES) / model / "config.json"):
        if cand.is_file():
            c = json.loads(cand.read_text())
            c = c.get("text_config", c)
            return int(c["num_hidden_layers"])
    return int(LTV["n_layers_hint"].get(model, 32))


def ltv_sweep(model):
    from icl_heads.ltv import sweep_layers

    return [f"layer{l}" for l in sweep_layers(ltv_n_layers(model), LTV["sweep_stride"])]


def ltv_vector(model, dataset):
    return f"results/{model}/ltv/vectors/{dataset}.safetensors"


def ltv_configurations(wildcards):
    """Every L1 site and F4 sweep layer for ltv.datasets; only the baseline for L7-only datasets."""
    if wildcards.dataset in LTV_DATASETS:
        return list(LTV["configurations"]) + ltv_sweep(wildcards.model)
    return ["baseline"]


def ltv_fv_input(wildcards):
    return {"fv": f"results/{wildcards.model}/heads/fv.csv"} if config["fv"]["scoring_tasks"] else {}


def ltv_tables(m):
    out = [f"results/{m}/ltv/L1.csv", f"results/{m}/claims/ltv_L1.csv", f"results/{m}/ltv/transfer.csv",
           f"results/{m}/claims/ltv_transfer.csv"]
    out += [f"results/{m}/ltv/accuracy/{d}.csv" for d in LTV_DATASETS]
    if LTV_MECH:
        out += [f"results/{m}/ltv/key_heads.csv"]
        out += [f"results/{m}/ltv/mechanism/{d}.csv" for d in LTV_MECH]
        out += [f"results/{m}/ltv/linear/{d}.csv" for d in LTV_MECH]
        out += [f"results/{m}/claims/ltv_mechanism_{d}.csv" for d in LTV_MECH]
    if LTV["peft"]["dataset"]:
        out.append(f"results/{m}/ltv/peft.csv")
    if LTV_COMPOSITION["tasks"]:
        out += [f"results/{m}/ltv/composition.csv", f"results/{m}/claims/ltv_composition.csv"]
    return out


def ltv_claims(m):
    out = [f"results/{m}/claims/ltv_L1.csv", f"results/{m}/claims/ltv_transfer.csv"]
    out += [f"results/{m}/claims/ltv_mechanism_{d}.csv" for d in LTV_MECH]
    if LTV_COMPOSITION["tasks"]:
        out.append(f"results/{m}/claims/ltv_composition.csv")
    return out


if LTV_DATASETS:
    CLAIMS_FILES.append(ltv_claims)


rule ltv_train:
    """Train the LTVs of one dataset (theta per layer and position of every configuration), model frozen."""
    input:
        manifest=manifest,
    output:
        vectors="results/{model}/ltv/vectors/{dataset}.safetensors",
        curve="results/{model}/ltv/curves/{dataset}.csv",
    params:
        configurations=ltv_configurations,
        ltv=lambda w: {k: LTV[k] for k in ("steps", "lr", "lr_scale", "weight_decay", "batch_size", "n_train", "n_eval", "n_shot",
                                           "label_tokens", "layer_stride")},
        dataset=lambda w: config["datasets"][w.dataset],
    log:
        "logs/ltv_train/{model}/{dataset}.log",
    threads: LTV["threads"]
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=60,
    conda:
        "../envs/icl.yaml"
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
    params:
        ltv=lambda w: {k: LTV[k] for k in ("n_eval", "n_shot", "batch_size")},
        top_percent=config["fv"]["top_percent"],
    log:
        "logs/ltv_evaluate/{model}/{dataset}.log",
    threads: LTV["threads"]
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=60,
    conda:
        "../envs/icl.yaml"
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
    params:
        claims=rule_claims("ltv_summary"),
        floor_accuracy=config["claims"]["floor_accuracy"],
    log:
        "logs/ltv_summary/{model}.log",
    resources:
        mem_mb=1024,
        runtime=5,
    conda:
        "../envs/icl.yaml"
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
    params:
        claims=rule_claims("ltv_mechanism"),
        ltv=lambda w: {k: LTV[k] for k in ("key_head_percent", "ov_attention", "random_seeds", "n_eval", "batch_size")},
        ablation_norm=config["interventions"]["post_attention_norm"],
    log:
        "logs/ltv_mechanism/{model}/{dataset}.log",
    threads: LTV["threads"]
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=60,
    conda:
        "../envs/icl.yaml"
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
    resources:
        mem_mb=512,
        runtime=5,
    conda:
        "../envs/icl.yaml"
    script:
        "../workflow_scripts/ltv_key_heads.py"


rule ltv_linear:
    """L5 and F6 data: linear propagation map per sweep layer and its polar decomposition."""
    input:
        manifest=manifest,
        vectors=lambda w: ltv_vector(w.model, w.dataset),
    output:
        "results/{model}/ltv/linear/{dataset}.csv",
    params:
        linear=LTV["linear"],
    log:
        "logs/ltv_linear/{model}/{dataset}.log",
    threads: LTV["threads"]
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=60,
    conda:
        "../envs/icl.yaml"
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
    params:
        claims=rule_claims("ltv_transfer"),
    log:
        "logs/ltv_transfer/{model}.log",
    threads: LTV["threads"]
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=30,
    conda:
        "../envs/icl.yaml"
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
    params:
        claims=rule_claims("ltv_composition"),
        composition=LTV_COMPOSITION,
    log:
        "logs/ltv_composition/{model}.log",
    threads: LTV["threads"]
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=30,
    conda:
        "../envs/icl.yaml"
    script:
        "../workflow_scripts/ltv_composition.py"


rule ltv_peft:
    """L2: LTV vs LoRA / prefix / prompt tuning at a matched parameter budget."""
    input:
        manifest=manifest,
    output:
        "results/{model}/ltv/peft.csv",
    params:
        peft=LTV["peft"],
        ltv={k: LTV[k] for k in ("steps", "lr", "lr_scale", "weight_decay", "batch_size", "n_train", "n_eval", "label_tokens")},
    log:
        "logs/ltv_peft/{model}.log",
    threads: LTV["threads"]
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=60,
    conda:
        "../envs/icl.yaml"
    script:
        "../workflow_scripts/ltv_peft.py"


rule plot_ltv_layers:
    """F4: accuracy against injection layer for LTV, Vanilla TV and FV, with ICL and zero-shot."""
    input:
        tables=expand("results/{{model}}/ltv/accuracy/{dataset}.csv", dataset=LTV_DATASETS),
    output:
        figure_paths("F4_ltv_layers"),
    params:
        palette=config["plots"]["palette"],
    log:
        "logs/plot_ltv_layers/{model}.log",
    resources:
        mem_mb=1024,
        runtime=5,
    conda:
        "../envs/icl.yaml"
    script:
        "../workflow_scripts/ltv_plots.py"


rule plot_ltv_key_heads:
    """F5: layer distribution of the LTV key heads and their attention-sink share."""
    input:
        heads="results/{model}/ltv/key_heads.csv",
    output:
        figure_paths("F5_ltv_key_heads"),
    params:
        palette=config["plots"]["palette"],
    log:
        "logs/plot_ltv_key_heads/{model}.log",
    resources:
        mem_mb=1024,
        runtime=5,
    conda:
        "../envs/icl.yaml"
    script:
        "../workflow_scripts/ltv_plots.py"


rule plot_ltv_linear:
    """F6: cos(theta_l, Q theta_l) and label alignment of theta_l and Q theta_l against layer."""
    input:
        tables=expand("results/{{model}}/ltv/linear/{dataset}.csv", dataset=LTV_MECH),
    output:
        figure_paths("F6_ltv_rotation"),
    params:
        palette=config["plots"]["palette"],
    log:
        "logs/plot_ltv_linear/{model}.log",
    resources:
        mem_mb=1024,
        runtime=5,
    conda:
        "../envs/icl.yaml"
    script:
        "../workflow_scripts/ltv_plots.py"
