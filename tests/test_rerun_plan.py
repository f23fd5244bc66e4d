"""After a full tiny build, a changed setting plans exactly the jobs that use it: a plotting
setting only the figures that draw with it (and the gallery, whose inputs are then newer),
a model's scheduling keys (mem_gb, gpu) nothing. Snakemake reruns a job when its params
change (rerun trigger `params`), so each plotting rule lists exactly the plotting settings
it uses (dpi, its palette colours) and no other rule lists any. A changed figure also
replans its provenance page of the HTML report (rules/report.smk)."""
from __future__ import annotations

import copy

import pytest
import yaml

import tiny_run
from conftest import ROOT
from tiny_run import MODEL, planned_jobs, planned_rules

pytestmark = pytest.mark.slow

PLOTS = {"plot_layer_distribution", "plot_attention", "plot_threshold_sweep"}  # F1-F3
AFTER_A_FIGURE = {"figure_provenance", "gallery"}  # the report page of a figure, the gallery
DEFAULT_PALETTE = yaml.safe_load((ROOT / "config" / "schema.yaml").read_text())[
    "properties"]["plots"]["properties"]["palette"]["default"]


@pytest.fixture(scope="module")
def built(tmp_path_factory, test_resources):
    wd = tiny_run.built_workdir(tmp_path_factory, test_resources)
    return wd, yaml.safe_load((wd / "config" / "config.yaml").read_text())


def plan(wd, cfg, name):
    """The rules `snakemake -n figures/` would run with config cfg (written to config/<name>)."""
    path = tiny_run.write_config(wd, cfg, f"{name}.yaml")
    proc = tiny_run.snakemake(wd, "-n", "--cores", "2", "figures/", configfile=path)
    return planned_rules(proc.stdout)


def test_nothing_planned_after_a_full_run(built):
    wd, cfg = built
    assert plan(wd, cfg, "same") == set()


def test_dpi_plans_every_figure_and_the_gallery_only(built):
    wd, cfg = built
    cfg = copy.deepcopy(cfg)
    cfg["plots"] = {"dpi": 120}
    # + S1, S2 and the T7 sweep (which draws no palette colour)
    assert plan(wd, cfg, "dpi") == PLOTS | {"plot_head_map", "plot_claims", "plot_tsla_steering_sweep"} | AFTER_A_FIGURE


@pytest.mark.parametrize(("family", "figures"), [
    ("ih", {"plot_layer_distribution", "plot_head_map"}),  # F1: TR, TL, IH; S1: TR, TL, IH, FV, LTV keys
    ("random", {"plot_threshold_sweep"}),                  # F3: TR, TL, random
    ("fv", {"plot_head_map"}),
    ("tr", PLOTS | {"plot_head_map"}),
])
def test_a_palette_colour_plans_only_the_figures_that_draw_it(built, family, figures):
    wd, cfg = built
    cfg = copy.deepcopy(cfg)
    cfg["plots"] = {"palette": {**DEFAULT_PALETTE, family: "#000000"}}
    assert plan(wd, cfg, f"palette_{family}") == figures | AFTER_A_FIGURE  # S2 (plot_claims) has no palette


def test_a_model_s_memory_and_gpu_plan_nothing(built):
    """mem_gb / gpu only size the jobs for a scheduler (`--resources gpu=N`, Slurm's --gpus)."""
    wd, cfg = built
    cfg = copy.deepcopy(cfg)
    cfg["models"][MODEL].update(mem_gb=7, gpu=0)
    assert plan(wd, cfg, "scheduling") == set()


def test_model_threads_plans_nothing_and_sizes_the_model_jobs(built):
    """model_threads (threads of one model job) only schedules: it reruns nothing, and a forced
    tsla_ablation job takes min(model_threads, cores) threads, all cores under `all`."""
    wd, cfg = built
    cfg = copy.deepcopy(cfg)
    for value, cores, expected in ((3, 4, 3), ("all", 4, 4), (8, 2, 2)):
        cfg["model_threads"] = value
        assert plan(wd, cfg, f"threads_{value}") == set()
        path = wd / "config" / f"threads_{value}.yaml"  # written by plan
        out = tiny_run.snakemake(wd, "-n", "--cores", str(cores), "--forcerun", "tsla_ablation", "figures/",
                                 configfile=path).stdout
        blocks = planned_jobs(out, "tsla_ablation")
        assert blocks, out[-2000:]
        assert all(f"threads: {expected}" in b for b in blocks), blocks[0]


def test_an_analysis_setting_plans_its_tables_and_figures(built):
    """The control: tsla.top_percent is a param of the ranking rules, not of the caches."""
    wd, cfg = built
    cfg = copy.deepcopy(cfg)
    cfg["tsla"]["top_percent"] = 5
    planned = plan(wd, cfg, "top_percent")
    assert {"tsla_overlap", "tsla_rankings", "plot_layer_distribution", "gallery"} <= planned
    assert not planned & {"materialise_model", "prompts_score", "prompts_eval", "cache", "induction_scores",
                          "tsla_scores"}


def test_n_eval_plans_the_evaluation_side_only(built):
    """prompts.n_eval sizes the evaluation prompt sets, not the score set (the first n_score
    queries): the score prompts, their cache and the TSLA head scores made from them stay."""
    wd, cfg = built
    cfg = copy.deepcopy(cfg)
    cfg["prompts"]["n_eval"] -= 1
    path = tiny_run.write_config(wd, cfg, "n_eval.yaml")
    out = tiny_run.snakemake(wd, "-n", "--cores", "2", "figures/", configfile=path).stdout
    planned = planned_rules(out)
    assert {"prompts_eval", "cache", "tsla_ablation"} <= planned
    assert not planned & {"materialise_model", "prompts_score", "tsla_scores", "induction_scores"}
    cache_outputs = [line.split(":", 1)[1].strip() for job in planned_jobs(out, "cache")
                     for line in job.splitlines() if line.strip().startswith("output:")]
    assert cache_outputs and all("/eval" in o for o in cache_outputs), cache_outputs


def test_a_deleted_provenance_record_reruns_the_rule_that_writes_it(built, tmp_path):
    """Sidecars are declared outputs of their rules (rules/common.smk declare_sidecars), and a
    table whose record is missing is marked incomplete when the DAG is built (Snakemake alone
    reruns a job for a missing output only when a consumer asks for it): the dry run names it,
    the run rebuilds it with its record, and nothing upstream runs. (On a copy of the build.)"""
    import shutil

    wd, cfg = built
    copy_wd = tmp_path / "copy"
    shutil.copytree(wd, copy_wd, symlinks=True)
    rel = f"results/{MODEL}/tsla/overlap.csv"
    before = (copy_wd / rel).read_bytes()
    (copy_wd / f"{rel}.prov.json").unlink()
    dry = tiny_run.snakemake(copy_wd, "-n", "--cores", "2", "figures/")
    assert f"damaged output {rel}: its provenance record overlap.csv.prov.json is missing" in dry.stderr
    run = tiny_run.snakemake(copy_wd, "--cores", "2", "figures/")
    ran = planned_rules(run.stdout + run.stderr)
    assert "tsla_overlap" in ran
    assert not ran & {"materialise_model", "prompts_score", "prompts_eval", "cache", "induction_scores",
                      "tsla_scores"}
    assert (copy_wd / f"{rel}.prov.json").is_file() and (copy_wd / rel).read_bytes() == before


def test_perturbation_n_eval_plans_t6_and_not_t5(built):
    """tsla.perturbation_n_eval takes T6's queries from T5's results: a change reruns T6 (and what
    reads it), not T5's ablation passes or the caches."""
    wd, cfg = built
    cfg = copy.deepcopy(cfg)
    cfg["tsla"]["perturbation_n_eval"] = 2
    planned = plan(wd, cfg, "perturbation_n_eval")
    assert "tsla_perturbation" in planned
    assert not planned & {"materialise_model", "prompts_score", "prompts_eval", "cache", "tsla_scores",
                          "tsla_ablation", "tsla_steering"}
