import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(workflow.basedir)))

from icl_heads.config import validate as _validate_config  # noqa: E402
from icl_heads.config import check_data as _check_data  # noqa: E402
from icl_heads.config import artifact_models, checkpoint_models, trained_dir  # noqa: E402
from icl_heads.config import config_value as _config_value  # noqa: E402
from icl_heads.config import declared_params as _declared_params  # noqa: E402
from icl_heads.claims import (
    rule_claims,
)  # noqa: E402  a claims rule's param `claims`: its entries of config/claims.yaml

_validate_config(config)
# Before any model: the datasets the config reads load (local files: columns, labels) and are
# large enough for the sizes drawn from them (hub datasets: checked when loaded).
_check_data(config)

# Outputs cut short (size differs from their provenance record), with an unreadable record, or (under
# results/) without one are marked incomplete here, so this run rebuilds them (icl_heads/integrity.py;
# jobs check full sha256s of their inputs).
from icl_heads.integrity import sweep as _sweep_damaged  # noqa: E402

_sweep_damaged(
    ["results", config["resources_dir"]],
    records_required=["results"],
    remove_damaged=not workflow.dryrun,
    log=lambda m: print(m, file=sys.stderr),
)

MODELS = list(config["run_models"])
# Models outside run_models that run only the Paper C artifacts of their `artifacts` key (Y1, Y2, Y9).
ART_MODELS = artifact_models(config)
CLS_DATASETS = list(config["classification_datasets"])
RES = config["resources_dir"]
FIGURE_FORMATS = config["plots"]["formats"]


wildcard_constraints:
    model="|".join(re.escape(str(m)) for m in sorted(config["models"], key=lambda m: (-len(str(m)), str(m))))
    or "NOMODEL",
    dataset="[A-Za-z0-9_\-]+",
    pset="score|eval|eval_zeroshot|eval_shuffle_text|eval_labels_01|eval_flip_labels",


# Config reaches a script only through its rule's params: `params: cfg=cfg("fv.n_shot", "datasets.{dataset}")`
# gives the job one flat param {dotted key: value} (keys may name the job's wildcards). Snakemake
# compares params between runs, so changing a key reruns exactly the jobs that declare it; the
# script reads the keys as job.cfg (workflow_scripts/common.py), and any other key fails naming
# itself. tests/test_exact_rerun.py changes every leaf key, one at a time, and checks the plan.
def cfg(*keys, drop=()):
    """A rule's `cfg` param. `keys`: dotted config keys (str, may name wildcards), or functions of
    the wildcards returning such keys (where the keys depend on the job)."""
    for k in keys:  # a key that names no wildcard must exist now, at DAG build
        if isinstance(k, str) and "{" not in k:
            _config_value(config, k)

    def param(wildcards):
        names = []
        for k in keys:
            names += [k] if isinstance(k, str) else list(k(wildcards))
        return _declared_params(config, names, dict(wildcards.items()), drop=drop)

    return param


# Keys that several rules read together.
DATA = ("datasets.{dataset}", "data_dir")  # job.load_task(dataset): the dataset's entry and the data directory
LTV_QUERIES = ("seed", "data_dir", "ltv.n_train", "ltv.n_eval", "ltv.n_shot")  # ltv_common.task_and_queries


def palette_keys(*families):
    """plots.dpi and the palette entries of the head families one figure draws (a figure's params
    list only the plotting settings it uses, so changing another colour does not rerun it)."""
    return ["plots.dpi"] + [f"plots.palette.{f}" for f in families if f in config["plots"]["palette"]]


# Jobs that load a model declare `mem_mb=model_mem_mb, gpu=model_gpu` (standard Snakemake
# resources): from the model entry's `mem_gb` (memory of a job holding the model and its
# activations, default 4) and `gpu` (GPUs it asks for, default 0). Locally, `--resources gpu=N`
# caps how many GPU jobs run at once; on Slurm (profiles/slurm) gpu becomes `--gpus`, mem_mb
# `--mem` and runtime (minutes) `-t`. A retried job gets attempt x mem_gb. `throughput` and
# `shape` feed the model jobs' runtime (job_runtime, below).
SCHEDULING_KEYS = ("mem_gb", "gpu", "throughput", "load_s", "shape")
# Keys of a model entry that say what runs on the model, not what the model is: changing them
# must not rematerialise (or retrain) it either.
NOT_MODEL_KEYS = SCHEDULING_KEYS + ("artifacts",)


def model_mem_mb(wildcards, attempt=1):
    return int(config["models"][wildcards.model].get("mem_gb", 4) * 1024 * attempt)


def model_gpu(wildcards):
    return int(config["models"][wildcards.model].get("gpu", 0))


def job_runtime(rule):
    """A model rule's `runtime` resource (minutes; Slurm's -t): the cost model's tokens of the
    job (icl_heads/cost.py, from the config alone) / the model's throughput (models.<m>.throughput,
    else cost.throughput.default) x cost.safety_factor, at least cost.min_minutes; x the attempt
    on a retry. `python -m icl_heads.cost CONFIG` prints the same numbers."""
    from icl_heads.cost import runtime_minutes

    def runtime(wildcards, attempt=1):
        return runtime_minutes(config, rule, dict(wildcards.items())) * attempt

    return runtime


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
        raise ValueError(
            f"train_model (a rule) trains only models of source train; model {wildcards.model!r} has source {entry.get('source')!r}, not train "
            f"(config key models.{wildcards.model}.source)"
        )
    return entry["train"]


def training_corpus(wildcards):
    """The corpus file of a trained model (so that editing it retrains); none for a built-in text."""
    corpus = train_spec(wildcards).get("corpus", {})
    if not corpus.get("path"):
        return []
    p = Path(corpus["path"]).expanduser()
    return [str(p if p.is_absolute() else Path(config["data_dir"]) / p)]


# Threads of one model job: config `model_threads` (all = --cores; the schema fills the default).
MODEL_THREADS = (
    workflow.cores if config["model_threads"] == "all" else min(int(config["model_threads"]), workflow.cores)
)


def train_threads(wildcards):
    return int(config["models"][wildcards.model].get("train", {}).get("threads", 1))


# ------------------------------------------------------------------ the HTML report (rules/report.smk)
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
        if p.endswith(f".{REPORT_FORMAT}"):
            model = "{model}" if "{model}" in p else "all models"
            p = report(
                p,
                caption=caption_of(stem),
                category=category,
                subcategory=subcategory,
                labels={"model": model, "item": "figure"},
            )
        out.append(p)
    return out


# The main tables (T1-T8, L1-L7, Y3-Y7) are in the report too, each with its caption
# (report/captions/tables/<artifact>.rst); Y8 is the Y5 table's ablation types.
PAPER_OF = {"T": "Paper A: TSLA", "L": "Paper B: LTV", "Y": "Paper C: Yin & Steinhardt"}


def report_table(artifact, path):
    """`path` (an output) marked as the report's table of `artifact`."""
    item = "table: {dataset}" if "{dataset}" in path else "table"
    return report(
        path,
        caption=f"../report/captions/tables/{artifact}.rst",
        category=PAPER_OF[artifact[0]],
        subcategory=f"{artifact} table",
        labels={"model": "{model}", "item": item},
    )


def figure_provenance_pages():
    """The provenance page of every figure in the report: its inputs are the figures."""
    return [f"{p.rsplit('.', 1)[0]}.provenance.html" for p in all_figures() if p.endswith(f".{REPORT_FORMAT}")]


def figure_paths(stem):
    """The figure in every format; one of them is marked for the HTML report (rules/report.smk)."""
    return report_figure(stem, [f"results/{{model}}/figures/{stem}.{ext}" for ext in FIGURE_FORMATS])


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
    return (
        ["Y9_training_dynamics"] if "Y9" in config["models"][m]["artifacts"] and config["fv"]["scoring_tasks"] else []
    )


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
    return (
        [str(p).format(model=m) for m in MODELS for stem in model_figures(m) for p in figure_paths(stem)]
        + [str(p).format(model=m) for m in ART_MODELS for stem in artifact_figures(m) for p in figure_paths(stem)]
        + [f"{stem}.{ext}" for stem in GLOBAL_FIGURES for ext in FIGURE_FORMATS]
    )


# S2: the claims tables of every paper, gathered by rules/synthesis.smk into results/claims.csv.
# One path pattern: results/{model}/claims/{artifact}/{dataset}.csv, where {artifact} is the first
# table its rule's claims belong to (T2 holds T2-T4 and F1/F2; L3 holds L3-L4 and F5; Y3 holds
# Y3-Y4; Y5 holds Y5, Y7 and Y8) and {dataset} is "all" for claims over every dataset or task.
# Each paper registers its claims files here - a pattern whose {wildcards} are expanded
# over CLAIMS_WILDCARDS (e.g. CLAIMS_FILES.append("results/{model}/claims/Y6/all.csv")), or a
# function of a model name returning paths. Files are listed per model in registration order.
CLAIMS_FILES = ["results/{model}/claims/T2/all.csv"] + [
    f"results/{{model}}/claims/{art}/{{dataset}}.csv" for art in ("T5", "T6", "T7", "T8")
]
if config["fv"]["scoring_tasks"]:
    CLAIMS_FILES.append("results/{model}/claims/Y3/all.csv")
    if config["fv"]["eval_tasks"]:
        CLAIMS_FILES += ["results/{model}/claims/Y5/all.csv", "results/{model}/claims/Y6/all.csv"]
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
                paths = [
                    pat.format(model=m, **dict(zip(names, combo)))
                    for combo in itertools.product(*(CLAIMS_WILDCARDS[n] for n in names))
                ]
            out += [p for p in paths if p not in out]
    return out


# ------------------------------------------------------------------ input functions of the rules
def prompt_sets():
    return ["score", "eval", "eval_zeroshot"] + [f"eval_{p}" for p in config["tsla"]["perturbations"]]


def induction_sequences_file(wildcards):
    """Rule induction_scores' given sequences (config key induction.sequences), relative to data_dir."""
    given = config["induction"]["sequences"]
    if not given:
        return []
    p = Path(given).expanduser()
    return [str(p if p.is_absolute() else Path(config["data_dir"]) / p)]


def tsla_model_inputs(wildcards):
    return {
        "manifest": manifest(wildcards),
        "scores": f"results/{wildcards.model}/tsla/scores/{wildcards.dataset}.csv",
        "prompts": f"results/{wildcards.model}/prompts/{wildcards.dataset}/eval.json",
        "score_prompts": f"results/{wildcards.model}/prompts/{wildcards.dataset}/score.json",
    }


def head_map_inputs(wildcards):
    """S1 sources; FV and LTV-key heads only where the config runs those analyses."""
    m = wildcards.model
    inp = {
        "scores": [f"results/{m}/tsla/scores/{d}.csv" for d in CLS_DATASETS],
        "induction": f"results/{m}/heads/induction.csv",
    }
    if config["fv"]["scoring_tasks"]:
        inp["fv"] = f"results/{m}/heads/fv.csv"
    if config.get("ltv", {}).get("datasets"):
        inp["ltv"] = f"results/{m}/ltv/key_heads.csv"
    return inp


# ------------------------------------------------------------------ Paper B (rules/ltv.smk)
LTV = config["ltv"]
LTV_DATASETS = list(LTV["datasets"])
LTV_MECH = list(LTV["mechanism_datasets"]) or LTV_DATASETS[:1]
LTV_COMPOSITION = LTV["composition"]


def ltv_vector(model, dataset):
    return f"results/{model}/ltv/vectors/{dataset}.safetensors"


def ltv_configurations(wildcards):
    """Every L1 site and F4 sweep layer for ltv.datasets; only the baseline for L7-only datasets.
    The sweep's layer count: a materialised model's config.json, else ltv.n_layers_hint, so a dry
    run on a fresh checkout still plans every job (icl_heads/cost.py, which counts the same jobs)."""
    from icl_heads.cost import ltv_configurations as configurations

    return configurations(config, wildcards.model, wildcards.dataset)


def ltv_fv_input(wildcards):
    return {"fv": f"results/{wildcards.model}/heads/fv.csv"} if config["fv"]["scoring_tasks"] else {}


def ltv_tables(m):
    out = [
        f"results/{m}/ltv/L1.csv",
        f"results/{m}/claims/L1/all.csv",
        f"results/{m}/ltv/transfer.csv",
        f"results/{m}/claims/L6/all.csv",
    ]
    out += [f"results/{m}/ltv/accuracy/{d}.csv" for d in LTV_DATASETS]
    if LTV_MECH:
        out += [f"results/{m}/ltv/key_heads.csv"]
        out += [f"results/{m}/ltv/mechanism/{d}.csv" for d in LTV_MECH]
        out += [f"results/{m}/ltv/linear/{d}.csv" for d in LTV_MECH]
        out += [f"results/{m}/claims/L3/{d}.csv" for d in LTV_MECH]
    if LTV["peft"]["dataset"]:
        out.append(f"results/{m}/ltv/peft.csv")
    if LTV_COMPOSITION["tasks"]:
        out += [f"results/{m}/ltv/composition.csv", f"results/{m}/claims/L7/all.csv"]
    return out


def ltv_claims(m):
    out = [f"results/{m}/claims/L1/all.csv", f"results/{m}/claims/L6/all.csv"]
    out += [f"results/{m}/claims/L3/{d}.csv" for d in LTV_MECH]
    if LTV_COMPOSITION["tasks"]:
        out.append(f"results/{m}/claims/L7/all.csv")
    return out


if LTV_DATASETS:
    CLAIMS_FILES.append(ltv_claims)


def all_tables():
    out = []
    for m in MODELS:
        out += [f"results/{m}/tsla/overlap.csv", f"results/{m}/icl/accuracy.csv", f"results/{m}/heads/induction.csv"]
        if config["fv"]["scoring_tasks"]:
            out += [f"results/{m}/heads/ih_fv_overlap.csv", f"results/{m}/claims/Y3/all.csv"]
            if config["fv"]["eval_tasks"]:
                out += [f"results/{m}/yin/{t}.csv" for t in ("ablation_curves", "addback", "token_loss")]
            if checkpoint_models(config, m):
                out += [f"results/{m}/yin/dynamics.csv", f"results/{m}/yin/dynamics_heads.csv"]
        out += [
            f"results/{m}/tsla/ih_percentiles.csv",
            f"results/{m}/tsla/consistency.csv",
            f"results/{m}/claims/T2/all.csv",
        ]
        for d in CLS_DATASETS:
            out += [
                f"results/{m}/tsla/{kind}/{d}.csv"
                for kind in ("scores", "ablation", "perturbation", "steering", "geometry")
            ]
            out += [f"results/{m}/claims/{art}/{d}.csv" for art in ("T5", "T6", "T7", "T8")]
        out += [f"results/{m}/synthesis/head_map.csv", f"results/{m}/synthesis/head_overlaps.csv"]
        if config["ltv"]["datasets"]:
            out += ltv_tables(m)
    for m in ART_MODELS:
        out += artifact_tables(m)
    out.append("results/claims.csv")
    return out


def declare_sidecars():
    """Every output file's provenance sidecar (X.prov.json, written by icl_heads.io before X is
    moved into place) becomes an output (named `prov`) of the job writing it. Snakemake then
    tracks it with its file (a missing or orphaned sidecar reruns the rule, a failed job's
    sidecars are removed, --delete-all-output cleans them). Called once, after every rule is
    defined (the Snakefile's last line); directories are left alone (their files carry their own)."""
    from snakemake.io import is_flagged

    for r in workflow.rules:
        files = [str(f) for f in r.output if not is_flagged(f, "directory")]
        if files:
            r.set_output(prov=[f"{f}.prov.json" for f in files])
