import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(workflow.basedir)))

from icl_heads.config import validate as _validate_config  # noqa: E402
from icl_heads.config import check_data as _check_data  # noqa: E402
from icl_heads.config import artifact_models, checkpoint_models, trained_dir  # noqa: E402

_validate_config(config)
# Before any model: the datasets the config reads load (local files: columns, labels) and are
# large enough for the sizes drawn from them (hub datasets: checked when loaded).
_check_data(config)

# Outputs cut short (size differs from their provenance record) or with an unreadable record are
# removed here, so this run rebuilds them (icl_heads/integrity.py; jobs check full sha256s of their inputs).
from icl_heads.integrity import sweep as _sweep_damaged  # noqa: E402

_sweep_damaged(["results", config["resources_dir"]], remove_damaged=not workflow.dryrun,
               log=lambda m: print(m, file=sys.stderr))

MODELS = list(config["run_models"])
# Models outside run_models that run only the Paper C artifacts of their `artifacts` key (Y1, Y2, Y9).
ART_MODELS = artifact_models(config)
CLS_DATASETS = list(config["classification_datasets"])
RES = config["resources_dir"]
FIGURE_FORMATS = config["plots"]["formats"]


wildcard_constraints:
    model="|".join(re.escape(str(m)) for m in sorted(config["models"], key=lambda m: (-len(str(m)), str(m)))) or "NOMODEL",
    dataset="[A-Za-z0-9_\-]+",
    pset="score|eval|eval_zeroshot|eval_shuffle_text|eval_labels_01|eval_flip_labels",
    task="[A-Za-z0-9_\-]+",


# Jobs that load a model declare `mem_mb=model_mem_mb, gpu=model_gpu` (standard Snakemake
# resources): from the model entry's `mem_gb` (memory of a job holding the model and its
# activations, default 4) and `gpu` (GPUs it asks for, default 0). Locally, `--resources gpu=N`
# caps how many GPU jobs run at once; on Slurm (profiles/slurm) gpu becomes `--gpus`, mem_mb
# `--mem` and runtime (minutes) `-t`. A retried job gets attempt x mem_gb.
SCHEDULING_KEYS = ("mem_gb", "gpu")
# Keys of a model entry that say what runs on the model, not what the model is: changing them
# must not rematerialise (or retrain) it either.
NOT_MODEL_KEYS = SCHEDULING_KEYS + ("artifacts",)


def model_mem_mb(wildcards, attempt=1):
    return int(config["models"][wildcards.model].get("mem_gb", 4) * 1024 * attempt)


def model_gpu(wildcards):
    return int(config["models"][wildcards.model].get("gpu", 0))


def manifest(wildcards):
    return f"{RES}/{wildcards.model}/manifest.json"


def trained_parent(model):
    """The model whose rule train_model made `model` (itself or its checkpoint_of), or None."""
    entry = config["models"][model]
    parent = entry.get("checkpoint_of", model)
    return parent if config["models"][parent].get("source") == "train" else None


def training_record(wildcards):
    """Rule materialise_model's input for a trained model and its checkpoints: the training record."""
    parent = trained_parent(wildcards.model)
    return [f"{trained_dir(config, parent)}/training.json"] if parent else []


def train_spec(wildcards):
    entry = config["models"][wildcards.model]
    if entry.get("source") != "train":
        raise ValueError(f"rule train_model: model {wildcards.model!r} has source {entry.get('source')!r}, not train "
                         f"(config key models.{wildcards.model}.source)")
    return entry["train"]


def training_corpus(wildcards):
    """The corpus file of a trained model (so that editing it retrains); none for a built-in text."""
    corpus = train_spec(wildcards).get("corpus", {})
    if not corpus.get("path"):
        return []
    p = Path(corpus["path"]).expanduser()
    return [str(p if p.is_absolute() else Path(config["data_dir"]) / p)]


def train_threads(wildcards):
    return int(config["models"][wildcards.model].get("train", {}).get("threads", 1))


def figure_paths(stem):
    """The figure in every format; one of them is marked for the HTML report (rules/report.smk)."""
    return report_figure(stem, [f"results/{{model}}/figures/{stem}.{ext}" for ext in FIGURE_FORMATS])


def palette(*families):
    """The colours of the head families one figure draws: a figure's params list only the
    plotting settings it uses, so changing another colour does not rerun it. (In a fixed
    order: Snakemake compares params as text, and a config's key order must not matter.)"""
    return {f: config["plots"]["palette"][f] for f in families if f in config["plots"]["palette"]}


FIGURES = ["F1_layer_distribution", "F2_attention", "F3_threshold_sweep", "T7_steering_sweep", "S1_head_map"]
# Figures of all models together: paths without the format suffix.
GLOBAL_FIGURES = ["results/synthesis/figures/S2_claims"]


# Paper C figures: Y5-Y8 where evaluation tasks are configured, Y9 for models with checkpoints.
YIN_FIGURES = ["Y5_ablation_curves", "Y6_token_loss", "Y7_addback", "Y7_addback_sweep", "Y8_ablation_types"]
# Paper B figures (rules/ltv.smk) where ltv.datasets is configured.
LTV_FIGURES = ["F4_ltv_layers", "F5_ltv_key_heads", "F6_ltv_rotation"]


def model_figures(m):
    stems = list(FIGURES)
    if config["fv"]["scoring_tasks"] and config["fv"]["eval_tasks"]:
        stems += YIN_FIGURES
    if config["fv"]["scoring_tasks"] and checkpoint_models(config, m):
        stems.append("Y9_training_dynamics")
    if config["ltv"]["datasets"]:
        stems += LTV_FIGURES
    return stems


def artifact_figures(m):
    """The figures of a model outside run_models (ART_MODELS): Y9 where it asks for it."""
    return ["Y9_training_dynamics"] if "Y9" in config["models"][m]["artifacts"] and config["fv"]["scoring_tasks"] else []


def artifact_tables(m):
    """The tables of a model outside run_models: Y1; Y2 (with the Y3/Y4 tables made alongside);
    Y9 (Y1 and Y2 of each training checkpoint, gathered)."""
    arts, scoring = config["models"][m]["artifacts"], config["fv"]["scoring_tasks"]
    out = [f"results/{m}/heads/induction.csv"] if "Y1" in arts else []
    if "Y2" in arts and scoring:
        out += [f"results/{m}/heads/fv.csv", f"results/{m}/heads/ih_fv_overlap.csv"]
    if "Y9" in arts and scoring:
        out += [f"results/{m}/yin/dynamics.csv", f"results/{m}/yin/dynamics_heads.csv"]
    return out


def all_figures():
    return ([str(p).format(model=m) for m in MODELS for stem in model_figures(m) for p in figure_paths(stem)]
            + [str(p).format(model=m) for m in ART_MODELS for stem in artifact_figures(m) for p in figure_paths(stem)]
            + [f"{stem}.{ext}" for stem in GLOBAL_FIGURES for ext in FIGURE_FORMATS])


# S2: the claims tables of every paper, gathered by rules/synthesis.smk into results/claims.csv.
# A paper's rule file registers its claims files here: a pattern whose {wildcards} are expanded
# over CLAIMS_WILDCARDS (e.g. CLAIMS_FILES.append("results/{model}/claims/yin_Y5.csv")), or a
# function of a model name returning paths. Files are listed per model in registration order.
CLAIMS_FILES = ["results/{model}/claims/rankings.csv"] + [
    f"results/{{model}}/claims/{art}/{{dataset}}.csv" for art in ("T5", "T6", "T7", "T8")]
if config["fv"]["scoring_tasks"]:
    CLAIMS_FILES.append("results/{model}/claims/ih_fv.csv")
    if config["fv"]["eval_tasks"]:
        CLAIMS_FILES += ["results/{model}/claims/yin_ablation.csv", "results/{model}/claims/yin_token_loss.csv"]
CLAIMS_WILDCARDS = {"dataset": CLS_DATASETS}


def claims_files(wildcards=None):
    import itertools
    import string

    out = []
    for m in MODELS:
        for pat in CLAIMS_FILES:
            if callable(pat):
                paths = list(pat(m))
            else:
                names = sorted({f for _, f, _, _ in string.Formatter().parse(pat) if f and f != "model"})
                paths = [pat.format(model=m, **dict(zip(names, combo)))
                         for combo in itertools.product(*(CLAIMS_WILDCARDS[n] for n in names))]
            out += [p for p in paths if p not in out]
    return out


def all_tables():
    out = []
    for m in MODELS:
        out += [f"results/{m}/tsla/overlap.csv", f"results/{m}/icl/accuracy.csv", f"results/{m}/heads/induction.csv"]
        if config["fv"]["scoring_tasks"]:
            out += [f"results/{m}/heads/ih_fv_overlap.csv", f"results/{m}/claims/ih_fv.csv"]
            if config["fv"]["eval_tasks"]:
                out += [f"results/{m}/yin/{t}.csv" for t in ("ablation_curves", "addback", "token_loss")]
            if checkpoint_models(config, m):
                out += [f"results/{m}/yin/dynamics.csv", f"results/{m}/yin/dynamics_heads.csv"]
        out += [f"results/{m}/tsla/ih_percentiles.csv", f"results/{m}/tsla/consistency.csv", f"results/{m}/claims/rankings.csv"]
        for d in CLS_DATASETS:
            out += [f"results/{m}/tsla/{kind}/{d}.csv" for kind in ("scores", "ablation", "perturbation", "steering", "geometry")]
            out += [f"results/{m}/claims/{art}/{d}.csv" for art in ("T5", "T6", "T7", "T8")]
        out += [f"results/{m}/synthesis/head_map.csv", f"results/{m}/synthesis/head_overlaps.csv"]
        if config["ltv"]["datasets"]:
            out += ltv_tables(m)  # rules/ltv.smk
    for m in ART_MODELS:
        out += artifact_tables(m)
    out.append("results/claims.csv")
    return out


def declare_sidecars():
    """Every output file's provenance sidecar (X.prov.json, written by icl_heads.io before X is
    moved into place) becomes an output of the rule that writes it, named `prov`: Snakemake then
    tracks it with its file (a missing or orphaned sidecar reruns the rule, a failed job's
    sidecars are removed, --delete-all-output cleans them). Called once, after every rule is
    defined (the Snakefile's last line); directories are left alone (their files carry their own)."""
    from snakemake.io import is_flagged

    for r in workflow.rules:
        files = [str(f) for f in r.output if not is_flagged(f, "directory")]
        if files:
            r.set_output(prov=[f + ".prov.json" for f in files])
