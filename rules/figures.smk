rule plot_layer_distribution:
    """F1: layer distribution of the top TR, TL and induction heads."""
    input:
        scores=expand("results/{{model}}/tsla/scores/{dataset}.csv", dataset=CLS_DATASETS),
    output:
        figure_paths("F1_layer_distribution"),
    params:
        top_percent=config["tsla"]["top_percent"],
        palette=config["plots"]["palette"],
    log:
        "logs/plot_layer_distribution/{model}.log",
    resources:
        mem_mb=1024,
        runtime=5,
    conda:
        "../envs/icl.yaml"
    script:
        "../workflow_scripts/plot_layer_distribution.py"


rule gallery:
    """Gather every figure into figures/ with a README index and provenance beside each;
    it depends on every table too, so `snakemake figures/` builds everything."""
    input:
        figs=all_figures(),
        tables=all_tables(),
    output:
        directory("figures"),
    log:
        "logs/gallery.log",
    resources:
        mem_mb=512,
        runtime=5,
    conda:
        "../envs/icl.yaml"
    script:
        "../workflow_scripts/gallery.py"
