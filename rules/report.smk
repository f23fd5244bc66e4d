# The HTML report (`snakemake --report report.html`): every figure with its caption, and beside it
# a page with its provenance (rule, code version, parameters, inputs, model file and data hashes,
# seed), both under the figure's paper (category) and artifact (subcategory), labelled by model.
# Included before the rule files that make figures: their outputs, figure_paths(stem), are marked
# for the report by report_figure(); a figure's category comes from FIGURE_INFO, its caption from
# report/captions/<stem>.rst (report/captions/figure.rst where it has none).

# category and subcategory of each figure stem; other rule files add theirs.
FIGURE_INFO = {
    "F1_layer_distribution": ("Paper A: TSLA", "F1 layer distribution"),
    "F2_attention": ("Paper A: TSLA", "F2 attention of TR vs TL heads"),
    "F3_threshold_sweep": ("Paper A: TSLA", "F3 threshold sensitivity"),
    "T7_steering_sweep": ("Paper A: TSLA", "T7 task vectors: layer and scale sweep"),
    "F4_ltv_layers": ("Paper B: LTV", "F4 accuracy vs injection layer"),
    "F5_ltv_key_heads": ("Paper B: LTV", "F5 LTV key heads"),
    "F6_ltv_rotation": ("Paper B: LTV", "F6 rotation vs stretch"),
    "Y5_ablation_curves": ("Paper C: Yin & Steinhardt", "Y5 mean ablation curves"),
    "Y6_token_loss": ("Paper C: Yin & Steinhardt", "Y6 token-loss difference"),
    "Y7_addback": ("Paper C: Yin & Steinhardt", "Y7 FV add-back"),
    "Y7_addback_sweep": ("Paper C: Yin & Steinhardt", "Y7 FV add-back: layer and scale sweep"),
    "Y8_ablation_types": ("Paper C: Yin & Steinhardt", "Y8 ablation types"),
    "Y9_training_dynamics": ("Paper C: Yin & Steinhardt", "Y9 training dynamics"),
    "S1_head_map": ("Synthesis", "S1 head map"),
    "S2_claims": ("Synthesis", "S2 claims"),
}
# The one format of each figure shown in the report (the others are in figures/).
REPORT_FORMAT = next((f for f in ("png", "svg", "pdf") if f in FIGURE_FORMATS), FIGURE_FORMATS[0])


def figure_info(stem):
    return FIGURE_INFO.get(stem, ("Other figures", stem.replace("_", " ")))


def caption_of(stem):
    """report/captions/<stem>.rst, or the generic caption where a figure has none yet."""
    own = Path(workflow.basedir) / "report" / "captions" / f"{stem}.rst"
    return f"../report/captions/{stem}.rst" if own.is_file() else "../report/captions/figure.rst"


def report_figure(stem, paths):
    """`paths` (one figure in several formats) with the REPORT_FORMAT file marked for the report;
    figure_paths() (rules/common.smk) calls it, so every figure rule's output is in the report."""
    category, subcategory = figure_info(stem)
    out = []
    for p in paths:
        if p.endswith("." + REPORT_FORMAT):
            model = "{model}" if "{model}" in p else "all models"
            p = report(p, caption=caption_of(stem), category=category, subcategory=subcategory,
                       labels={"model": model, "item": "figure"})
        out.append(p)
    return out


def figure_provenance_pages():
    """The provenance page of every figure in the report: its inputs are the figures."""
    return [p.rsplit(".", 1)[0] + ".provenance.html" for p in all_figures() if p.endswith("." + REPORT_FORMAT)]


rule figure_provenance:
    """The provenance of one figure as a page of the report: its record and the chain of
    records back to the model file and the raw data (python -m icl_heads.provenance)."""
    input:
        figure="results/{where}/figures/{figure}." + REPORT_FORMAT,
    output:
        report("results/{where}/figures/{figure}.provenance.html", caption="../report/captions/provenance.rst",
               category=lambda w: figure_info(w.figure)[0], subcategory=lambda w: figure_info(w.figure)[1],
               labels=lambda w: {"model": w.where if w.where in MODELS + ART_MODELS else "all models", "item": "provenance"}),
    log:
        "logs/figure_provenance/{where}/{figure}.log",
    wildcard_constraints:
        where="|".join([re.escape(str(m)) for m in sorted(config["models"], key=lambda m: (-len(str(m)), str(m)))]
                       + ["synthesis"]),
        figure="[A-Za-z0-9_\-]+",
    resources:
        mem_mb=512,
        runtime=5,
    conda:
        "../envs/icl.yaml"
    script:
        "../workflow_scripts/report_provenance.py"
