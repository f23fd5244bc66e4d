import sys
from pathlib import Path

sys.path.insert(0, str(Path(workflow.basedir)))

from icl_heads.config import validate as _validate_config  # noqa: E402

_validate_config(config)

MODELS = list(config["run_models"])
CLS_DATASETS = list(config["classification_datasets"])
RES = config["resources_dir"]
FIGURE_FORMATS = config["plots"]["formats"]


wildcard_constraints:
    model="|".join(sorted(map(str, config["models"]))) or "NOMODEL",
    dataset="[A-Za-z0-9_\-]+",
    pset="score|eval|eval_zeroshot|eval_shuffle_text|eval_labels_01|eval_flip_labels",
    task="[A-Za-z0-9_\-]+",


def model_mem_mb(wildcards, attempt=1):
    return int(config["models"][wildcards.model].get("mem_gb", 4) * 1024 * attempt)


def model_gpu(wildcards):
    return int(config["models"][wildcards.model].get("gpu", 0))


def manifest(wildcards):
    return f"{RES}/{wildcards.model}/manifest.json"


def figure_paths(stem):
    return [f"results/{{model}}/figures/{stem}.{ext}" for ext in FIGURE_FORMATS]


FIGURES = ["F1_layer_distribution", "F2_attention", "F3_threshold_sweep"]


def all_figures():
    return [p.format(model=m) for m in MODELS for stem in FIGURES for p in figure_paths(stem)]


def all_tables():
    out = []
    for m in MODELS:
        out += [f"results/{m}/tsla/overlap.csv", f"results/{m}/icl/accuracy.csv", f"results/{m}/heads/induction.csv"]
        if config["fv"]["scoring_tasks"]:
            out += [f"results/{m}/heads/ih_fv_overlap.csv", f"results/{m}/claims/ih_fv.csv"]
        out += [f"results/{m}/tsla/ih_percentiles.csv", f"results/{m}/tsla/consistency.csv", f"results/{m}/claims/rankings.csv"]
        for d in CLS_DATASETS:
            out += [f"results/{m}/tsla/{kind}/{d}.csv" for kind in ("scores", "ablation", "perturbation", "steering", "geometry")]
            out += [f"results/{m}/claims/{art}/{d}.csv" for art in ("T5", "T6", "T7", "T8")]
    return out
