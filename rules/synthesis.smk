rule synthesis_head_map:
    """S1 tables: every head's membership in the TR, TL, IH, FV and LTV-key sets, and the pairwise
    overlaps of the sets with their random expectation and hypergeometric p-value."""
    input:
        unpack(head_map_inputs),
    output:
        head_map="results/{model}/synthesis/head_map.csv",
        overlaps="results/{model}/synthesis/head_overlaps.csv",
    log:
        "logs/synthesis_head_map/{model}.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=1024,
        runtime=5,
    params:
        cfg=cfg("tsla.top_percent", "fv.top_percent"),
    script:
        "../workflow_scripts/synthesis_head_map.py"


rule plot_head_map:
    """S1 figure: the head sets on the layer x head grid, one panel per set."""
    input:
        head_map="results/{model}/synthesis/head_map.csv",
    output:
        figure_paths("S1_head_map"),
    log:
        "logs/plot_head_map/{model}.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=1024,
        runtime=5,
    params:
        cfg=cfg(*palette_keys("tr", "tl", "ih", "fv", "ltv")),
    script:
        "../workflow_scripts/plot_head_map.py"


rule synthesis_claims:
    """S2 table: the claims rows of every paper and model (rules/common.smk CLAIMS_FILES), each
    with the file and row it came from."""
    input:
        claims=claims_files,
    output:
        report(
            "results/claims.csv",
            caption="../report/captions/S2_claims_table.rst",
            category="Synthesis",
            subcategory="S2 claims",
            labels={"model": "all models", "item": "table (CSV)"},
        ),
    log:
        "logs/synthesis_claims.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=1024,
        runtime=5,
    script:
        "../workflow_scripts/synthesis_claims.py"


rule plot_claims:
    """S2 figure: each claim's value with its 95% CI, coloured by verdict, one panel per model."""
    input:
        claims="results/claims.csv",
    output:
        report_figure("S2_claims", [f"results/synthesis/figures/S2_claims.{ext}" for ext in FIGURE_FORMATS]),
    log:
        "logs/plot_claims.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=1024,
        runtime=5,
    params:
        cfg=cfg("plots.dpi"),
    script:
        "../workflow_scripts/plot_claims.py"
