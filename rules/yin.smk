# Paper C beyond scoring: ablation curves (Y5, Y8), token-loss difference (Y6), FV add-back
# (Y7) and training dynamics (Y9). Scoring (Y1-Y4) is in rules/heads.smk and rules/fv.smk.


rule yin_ablation:
    """Y5 / Y8 for one evaluation task: 10-shot accuracy per query with the top k% IH, FV,
    exclusion and random heads ablated (mean, zero, random replacement)."""
    input:
        manifest=manifest,
        heads="results/{model}/heads/fv.csv",
    output:
        "results/{model}/yin/ablation/{dataset}.csv",
    log:
        "logs/yin_ablation/{model}/{dataset}.log",
    conda:
        "../envs/icl.yaml"
    threads: MODEL_THREADS
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=job_runtime("yin_ablation"),
    params:
        cfg=cfg(
            "seed",
            "datasets.{dataset}",
            "data_dir",
            "fv.n_shot",
            "fv.n_eval",
            "fv.top_percent",
            "fv.ablation",
            "prompts.batch_size",
            "interventions.post_attention_norm",
        ),
    script:
        "../workflow_scripts/yin_ablation.py"


rule yin_addback:
    """Y7 for one evaluation task: the function vector added at layer L/3 of shuffled-label
    and zero-shot prompts, against clean accuracy and random-heads vectors."""
    input:
        manifest=manifest,
        heads="results/{model}/heads/fv.csv",
    output:
        table="results/{model}/yin/addback/{dataset}.csv",
        sweep="results/{model}/yin/addback_sweep/{dataset}.csv",
    log:
        "logs/yin_addback/{model}/{dataset}.log",
    conda:
        "../envs/icl.yaml"
    threads: MODEL_THREADS
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=job_runtime("yin_addback"),
    params:
        cfg=cfg(
            "seed",
            "datasets.{dataset}",
            "data_dir",
            "fv.n_shot",
            "fv.n_eval",
            "fv.addback_n_eval",
            "fv.n_prompts",
            "fv.top_percent",
            "fv.addback_layer",
            "fv.addback_sweep",
            "fv.ablation.random_seeds",
            "prompts.batch_size",
        ),
    script:
        "../workflow_scripts/yin_addback.py"


rule yin_token_loss:
    """Y6: token-loss difference (loss at token 50 - loss at token 500) of long documents with
    the Y5 head sets mean-ablated."""
    input:
        manifest=manifest,
        heads="results/{model}/heads/fv.csv",
    output:
        table=report_table("Y6", "results/{model}/yin/token_loss.csv"),
        claims="results/{model}/claims/Y6/all.csv",
    log:
        "logs/yin_token_loss/{model}.log",
    conda:
        "../envs/icl.yaml"
    threads: MODEL_THREADS
    resources:
        mem_mb=model_mem_mb,
        gpu=model_gpu,
        runtime=job_runtime("yin_token_loss"),
    params:
        claims=rule_claims("yin_token_loss"),
        cfg=cfg(
            "seed",
            "data_dir",
            "fv.token_loss",
            "fv.ablation.percents",
            "fv.ablation.random_seeds",
            "fv.top_percent",
            "prompts.batch_size",
            "interventions.post_attention_norm",
            lambda w: [f"datasets.{config['fv']['token_loss']['dataset']}"],
        ),
    script:
        "../workflow_scripts/yin_token_loss.py"


rule yin_summary:
    """Y5 / Y8 curves and Y7 accuracies over the evaluation tasks, with their claims rows."""
    input:
        per_task=lambda w: [f"results/{w.model}/yin/ablation/{t}.csv" for t in config["fv"]["eval_tasks"]],
        addback=lambda w: [f"results/{w.model}/yin/addback/{t}.csv" for t in config["fv"]["eval_tasks"]],
    output:
        curves=report_table("Y5", "results/{model}/yin/ablation_curves.csv"),
        addback=report_table("Y7", "results/{model}/yin/addback.csv"),
        claims="results/{model}/claims/Y5/all.csv",
    log:
        "logs/yin_summary/{model}.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=1024,
        runtime=10,
    params:
        claims=rule_claims("yin_summary"),
        cfg=cfg("claims.floor_accuracy"),
    script:
        "../workflow_scripts/yin_summary.py"


rule plot_yin:
    """Figures Y5 (mean-ablation curves), Y6 (token-loss difference), Y7 (add-back) and its
    layer x scale sweep, Y8 (ablation types)."""
    input:
        curves="results/{model}/yin/ablation_curves.csv",
        addback="results/{model}/yin/addback.csv",
        token_loss="results/{model}/yin/token_loss.csv",
        sweep=lambda w: [f"results/{w.model}/yin/addback_sweep/{t}.csv" for t in config["fv"]["eval_tasks"]],
    output:
        y5=figure_paths("Y5_ablation_curves"),
        y6=figure_paths("Y6_token_loss"),
        y7=figure_paths("Y7_addback"),
        y7s=figure_paths("Y7_addback_sweep"),
        y8=figure_paths("Y8_ablation_types"),
    log:
        "logs/plot_yin/{model}.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=1024,
        runtime=5,
    params:
        cfg=cfg(*palette_keys("ih", "fv", "random")),
    script:
        "../workflow_scripts/plot_yin.py"


rule yin_dynamics:
    """Y9: induction (Y1) and FV (Y2) scores of every head at each training checkpoint."""
    input:
        heads=lambda w: [f"results/{ck}/heads/fv.csv" for ck in checkpoint_models(config, w.model)],
        manifest=manifest,  # the model itself: for a trained one, its training record (seed, corpus sha256)
    output:
        summary="results/{model}/yin/dynamics.csv",
        heads="results/{model}/yin/dynamics_heads.csv",
    log:
        "logs/yin_dynamics/{model}.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=1024,
        runtime=5,
    params:
        checkpoints=lambda w: checkpoint_models(config, w.model),
        cfg=cfg("fv.top_percent", lambda w: [f"models.{ck}.step" for ck in checkpoint_models(config, w.model)]),
    script:
        "../workflow_scripts/yin_dynamics.py"


rule plot_yin_dynamics:
    """Figure Y9: the top heads' induction and FV scores over training."""
    input:
        summary="results/{model}/yin/dynamics.csv",
    output:
        figure_paths("Y9_training_dynamics"),
    log:
        "logs/plot_yin_dynamics/{model}.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=1024,
        runtime=5,
    params:
        cfg=cfg(*palette_keys("ih", "fv")),
    script:
        "../workflow_scripts/plot_yin_dynamics.py"
