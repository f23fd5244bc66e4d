# The HTML report (`snakemake --report report.html`): every figure with its caption, and beside it
# a page with its provenance (rule, code version, parameters, inputs, model file and data hashes,
# seed), both under the figure's paper (category) and artifact (subcategory), labelled by model.
# Figure rules' outputs, figure_paths(stem), are marked for the report by report_figure(); a
# figure's category comes from FIGURE_INFO, its caption from report/captions/<stem>.rst
# (report/captions/figure.rst where it has none): all in rules/common.smk.


rule figure_provenance:
    """The provenance of one figure as a page of the report: its record and the chain of
    records back to the model file and the raw data (python -m icl_heads.provenance)."""
    input:
        figure=f"results/{{where}}/figures/{{figure}}.{REPORT_FORMAT}",
    output:
        report(
            "results/{where}/figures/{figure}.provenance.html",
            caption="../report/captions/provenance.rst",
            category=lambda w: figure_info(w.figure)[0],
            subcategory=lambda w: figure_info(w.figure)[1],
            labels=lambda w: {
                "model": w.where if w.where in MODELS + ART_MODELS else "all models",
                "item": "provenance",
            },
        ),
    log:
        "logs/figure_provenance/{where}/{figure}.log",
    wildcard_constraints:
        where="|".join(
            [re.escape(str(m)) for m in sorted(config["models"], key=lambda m: (-len(str(m)), str(m)))] + ["synthesis"]
        ),
        figure="[A-Za-z0-9_\-]+",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=512,
        runtime=5,
    script:
        "../workflow_scripts/report_provenance.py"
