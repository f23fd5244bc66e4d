rule plot_layer_distribution:
    """F1: layer distribution of the top TR, TL and induction heads."""
    input:
        scores=expand("results/{{model}}/tsla/scores/{dataset}.csv", dataset=CLS_DATASETS),
    output:
        figure_paths("F1_layer_distribution"),
    log:
        "logs/plot_layer_distribution/{model}.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=1024,
        runtime=5,
    params:
        cfg=cfg("tsla.top_percent", *palette_keys("tr", "tl", "ih")),
    script:
        "../workflow_scripts/plot_layer_distribution.py"


rule gallery:
    """Gather every figure into figures/ with a README index and provenance beside each;
    it depends on every table too, so `snakemake figures/` builds everything."""
    input:
        figs=all_figures(),
        tables=all_tables(),
        provenance=figure_provenance_pages(),  # the report's provenance pages (rules/report.smk)
    output:
        directory("figures"),
    log:
        "logs/gallery.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=512,
        runtime=5,
    script:
        "../workflow_scripts/gallery.py"


rule plot_attention:
    """F2: attention of the top TR vs TL heads to demonstration labels and to the query."""
    input:
        attention="results/{model}/tsla/attention.csv",
    output:
        figure_paths("F2_attention"),
    log:
        "logs/plot_attention/{model}.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=1024,
        runtime=5,
    params:
        cfg=cfg(*palette_keys("tr", "tl")),
    script:
        "../workflow_scripts/plot_tsla.py"


rule plot_threshold_sweep:
    """F3: T5 and T7 across top-% thresholds."""
    input:
        ablation=expand("results/{{model}}/tsla/ablation/{dataset}.csv", dataset=CLS_DATASETS),
        steering=expand("results/{{model}}/tsla/steering/{dataset}.csv", dataset=CLS_DATASETS),
    output:
        figure_paths("F3_threshold_sweep"),
    log:
        "logs/plot_threshold_sweep/{model}.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=1024,
        runtime=5,
    params:
        cfg=cfg(*palette_keys("tr", "tl", "random")),
    script:
        "../workflow_scripts/plot_tsla.py"


rule plot_tsla_steering_sweep:
    """T7 sweep figure: TR ratio and accuracy gain over zero-shot by injection layer and scale."""
    input:
        expand("results/{{model}}/tsla/steering_sweep/{dataset}.csv", dataset=CLS_DATASETS),
    output:
        figure_paths("T7_steering_sweep"),
    log:
        "logs/plot_tsla_steering_sweep/{model}.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=1024,
        runtime=5,
    params:
        cfg=cfg("plots.dpi"),
    script:
        "../workflow_scripts/plot_tsla_steering_sweep.py"
