"""The workflow end to end on a tiny config with a real default model, plus dry runs
of the full configs and a run killed mid-rule."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest
import yaml

import tiny_run
from conftest import ROOT, SHARED_DATA

SNAKEMAKE = [sys.executable, "-m", "snakemake"]
pytestmark = pytest.mark.slow


def smk(*args, cwd=ROOT, timeout=1800, check=True, env=None):
    proc = subprocess.run([*SNAKEMAKE, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, env=env)
    if check and proc.returncode != 0:
        raise AssertionError(f"snakemake {' '.join(args)} failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}")
    return proc


TEST_CONFIGS = sorted(str(p.relative_to(ROOT)) for p in (ROOT / ".test").glob("config_*/config.yaml"))


@pytest.mark.parametrize("configfile", ["config/config.yaml", "config/paper.yaml", *TEST_CONFIGS])
def test_dry_run_of_the_full_configs(configfile, tmp_path):
    """The full configs and the .test/ configs (over config/config.yaml, as `--configfile`
    gives them) plan, and building the DAG imports no torch (a stub that refuses to be
    imported stands first on the path): a dry run stays quick and needs no model libraries."""
    if ("paper" in configfile or ".test" in configfile) and not (SHARED_DATA / "sst2").is_dir():
        pytest.skip("paper config needs ../shared/data")
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text('raise ImportError("torch imported while building the DAG")\n')
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))}
    proc = smk("-n", "--cores", "2", "figures/", "--forceall", "--configfile", configfile,
               "--config", f"data_dir={SHARED_DATA}", env=env)
    assert "gallery" in proc.stdout and "tsla_scores" in proc.stdout


@pytest.fixture(scope="module")
def tiny_workdir(tmp_path_factory, test_resources):
    """A working directory with a tiny config; the model is materialised once per session
    (or taken from ICL_TEST_RESOURCES to skip the download while developing)."""
    wd = tmp_path_factory.mktemp("wf")
    cfg = tiny_run.test_config("e2e", test_resources)  # .test/config_e2e
    (wd / "config").mkdir()
    (wd / "config" / "config.yaml").write_text(yaml.safe_dump(cfg))
    return wd


def run_tiny(wd, *targets, **kw):
    # targets before --configfile, which takes several values
    return smk("-s", str(ROOT / "Snakefile"), "--directory", str(wd), "--cores", "2", *targets,
               "--configfile", str(wd / "config" / "config.yaml"), **kw)


def test_tiny_workflow_end_to_end(tiny_workdir):
    wd = tiny_workdir
    run_tiny(wd, "figures/")
    m = "smollm2-135m"
    scores = pd.read_csv(wd / f"results/{m}/tsla/scores/sentiment_lexicon.csv")
    assert len(scores) == 30 * 9  # SmolLM2: 30 layers x 9 heads
    assert {"tr", "tl", "dla_tr", "dla_tl", "induction", "n", "seed"} <= set(scores.columns)
    assert (scores.tr >= 0).all() and scores.n.eq(4).all()
    overlap = pd.read_csv(wd / f"results/{m}/tsla/overlap.csv")
    assert set(overlap.pair) == {"TR-IH", "TR-TL", "TL-IH"}
    # T5 at top_percent and its claims on the first 5 of the 6 held-out queries (tsla.ablation_n_eval),
    # T6 and its claims on the first 4 of those (tsla.perturbation_n_eval), F3's other threshold on
    # the first 3 (tsla.sweep_n_eval); the table cells no claim reads (T5's w/o IH and w/o DLA-TL,
    # T6's flipped labels and TL under 0/1 labels) on the first 2 (tsla.table_n_eval); T7 on all 6;
    # the T7 and Y7 sweeps on their first 3 and 2 (fv.addback_sweep.n_eval)
    t5 = pd.read_csv(wd / f"results/{m}/tsla/ablation/sentiment_lexicon.csv", comment="#")
    table_only = t5.condition.isin(["w/o IH", "w/o DLA-TL"])
    assert set(t5[(t5.top_percent == 3.0) & ~table_only].n) == set(t5[t5.condition == "ICL baseline"].n) == {5}
    assert set(t5[table_only].n) == {2} and set(t5[table_only].top_percent) == {3.0}
    t6 = pd.read_csv(wd / f"results/{m}/tsla/perturbation/sentiment_lexicon.csv", comment="#")
    short = (t6.perturbation == "flip_labels") | ((t6.perturbation == "labels_01") & (t6.condition == "w/o TL"))
    assert set(t6[short].n) == {2} and set(t6[~short].n) == {4}
    assert set(pd.read_csv(wd / f"results/{m}/claims/T6/country_continent.csv", comment="#").n.dropna()) == {4}
    assert set(pd.read_csv(wd / f"results/{m}/claims/T7/sentiment_lexicon.csv", comment="#").n.dropna()) == {6}
    assert set(t5[t5.top_percent == 1.0].n) == {3} and set(t5[t5.top_percent == 1.0].condition) >= {"w/o TR", "w/o TL"}
    assert pd.read_csv(wd / f"results/{m}/tsla/steering_sweep/sentiment_lexicon.csv", comment="#")["query"].nunique() == 3
    assert set(pd.read_csv(wd / f"results/{m}/yin/addback_sweep/antonym.csv", comment="#").n) == {2}
    # T8's layerwise correlations pool the scoring (4) and held-out (6) ICL prompts; its per-query
    # rows stay on the 6 held-out zero-shot prompts
    geo = pd.read_csv(wd / f"results/{m}/tsla/geometry/sentiment_lexicon.csv", comment="#")
    assert set(geo[geo.hidden_state == "ICL, layerwise"].n) == {10}
    assert set(geo[geo.hidden_state != "ICL, layerwise"].n) == {6}
    acc = pd.read_csv(wd / f"results/{m}/icl/accuracy.csv")
    assert set(acc.condition) == {"zero-shot", "8-shot"}
    assert (wd / "figures" / "README.md").is_file()
    assert (wd / "figures" / f"F1_layer_distribution__{m}.png").is_file()
    fv = pd.read_csv(wd / f"results/{m}/heads/fv.csv")
    assert len(fv) == 270 and fv.n_tasks.eq(2).all()
    ov = pd.read_csv(wd / f"results/{m}/heads/ih_fv_overlap.csv")
    assert ov.k.iloc[0] == 6 and 0 <= ov.overlap_pct_of_ih.iloc[0] <= 100  # top 2% of 270 heads
    for stem in ("Y5_ablation_curves", "Y6_token_loss", "Y7_addback", "Y8_ablation_types"):  # Paper C figures
        assert (wd / "figures" / f"{stem}__{m}.png").is_file(), stem
    curves = pd.read_csv(wd / f"results/{m}/yin/ablation_curves.csv")
    assert set(curves.family) == {"clean", "IH", "FV", "IH_excl", "FV_excl", "random"}
    keys = pd.read_csv(wd / f"results/{m}/ltv/key_heads.csv")  # Paper B key heads, read by S1
    assert {"model", "dataset", "layer", "head", "saliency", "is_key"} <= set(keys.columns)
    assert set(keys.dataset) == {"sentiment_lexicon", "all"} and keys[keys.dataset == "all"].is_key.sum() == 27

    # provenance of one cell, traced back to the model file and the data
    proc = subprocess.run([sys.executable, "-m", "icl_heads.provenance",
                           f"results/{m}/tsla/scores/sentiment_lexicon.csv", "--row", "3", "--col", "tr"],
                          cwd=wd, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert f"= {scores.tr.iloc[3]!r}"[:12] in out or str(scores.tr.iloc[3])[:6] in out
    for needle in ("rule: tsla_scores", "rule: cache", "rule: materialise_model", "sha256",
                   "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53", "builtin:sentiment_lexicon",
                   "torch", "seed"):
        assert needle in out, needle

    # nothing to do on a rerun
    proc = run_tiny(wd, "figures/", "-n")
    assert "Nothing to be done" in proc.stdout + proc.stderr

    # a plotting parameter reruns only the figure and the gallery
    cfg = yaml.safe_load((wd / "config" / "config.yaml").read_text())
    cfg["tsla"]["top_percent"] = 5
    (wd / "config" / "alt.yaml").write_text(yaml.safe_dump(cfg))
    proc = smk("-s", str(ROOT / "Snakefile"), "--directory", str(wd), "--cores", "2", "-n", "figures/",
               "--configfile", str(wd / "config" / "alt.yaml"))
    planned = {line.split()[0] for line in proc.stdout.splitlines()[proc.stdout.splitlines().index("Job stats:") + 3:]
               if line.strip() and not line.startswith("total")}
    assert "cache" not in planned and "induction_scores" not in planned
    assert {"tsla_overlap", "plot_layer_distribution", "gallery"} <= planned


def test_report_of_the_tiny_run(tiny_workdir):
    """snakemake --report of the tiny run, opened in headless Chromium (checks in tests/test_report.py)."""
    from test_report import check_report

    check_report(tiny_workdir, run_tiny)


def test_killed_run_leaves_no_complete_looking_output(tiny_workdir, test_resources):
    wd = tiny_workdir
    target = "results/smollm2-135m/cache/country_continent/eval_zeroshot.safetensors"
    run_tiny(wd, f"{test_resources}/smollm2-135m/manifest.json")
    proc = subprocess.Popen([*SNAKEMAKE, "-s", str(ROOT / "Snakefile"), "--directory", str(wd), "--cores", "2",
                             target, "--configfile", str(wd / "config" / "config.yaml")],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    (wd / target).unlink(missing_ok=True)
    log = wd / "logs/cache/smollm2-135m/country_continent/eval_zeroshot.log"
    deadline = time.time() + 300
    while time.time() < deadline and not (log.is_file() and "cache smollm2" in log.read_text()):
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not (wd / target).exists()
    # after the usual unlock, the next run builds it without --rerun-incomplete
    run_tiny(wd, "--unlock")
    run_tiny(wd, target)
    assert (wd / target).is_file()
    assert json.loads((wd / (target + ".prov.json")).read_text())["rule"] == "cache"


def test_damaged_outputs_are_rebuilt(tiny_workdir):
    """Fault injection on the finished tiny run: a truncated cache is found at DAG build and rebuilt
    in the same run; a table edited in place (same size, e.g. a digit changed) is found by the job
    that reads it, which fails naming it and marks it for a rebuild; the next run rebuilds it. Both
    come back byte-identical (the run is deterministic)."""
    import hashlib

    wd = tiny_workdir
    m = "smollm2-135m"
    run_tiny(wd, "figures/")

    def digest(rel):
        return hashlib.sha256((wd / rel).read_bytes()).hexdigest()

    cache = f"results/{m}/cache/sentiment_lexicon/score.safetensors"
    before = digest(cache)
    data = (wd / cache).read_bytes()
    (wd / cache).write_bytes(data[: len(data) // 3])
    proc = run_tiny(wd, "figures/")
    assert "damaged output" in proc.stderr and cache in proc.stderr
    assert digest(cache) == before

    table = f"results/{m}/tsla/scores/sentiment_lexicon.csv"
    before = digest(table)
    text = (wd / table).read_text()
    i = next(j for j in range(len(text) - 1, 0, -1) if text[j].isdigit())
    (wd / table).write_text(text[:i] + str((int(text[i]) + 1) % 10) + text[i + 1:])
    (wd / f"results/{m}/tsla/overlap.csv").unlink()
    proc = run_tiny(wd, f"results/{m}/tsla/overlap.csv", check=False)
    assert proc.returncode != 0
    assert "damaged file" in proc.stdout + proc.stderr and table in proc.stdout + proc.stderr
    run_tiny(wd, "figures/")
    assert digest(table) == before
    assert "Nothing to be done" in (lambda p: p.stdout + p.stderr)(run_tiny(wd, "figures/", "-n"))


def test_tsla_ablation_and_steering_on_sst2_from_the_shared_data(tmp_path, test_resources):
    """T5 and T7 end to end on SST-2 read from ../shared/data, a few queries, SmolLM2."""
    if not (SHARED_DATA / "sst2").is_dir():
        pytest.skip("needs ../shared/data")
    cfg = tiny_run.test_config("sst2", test_resources)  # .test/config_sst2
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.yaml").write_text(yaml.safe_dump(cfg))
    m = "smollm2-135m"
    run_tiny(tmp_path, f"results/{m}/tsla/ablation/sst2.csv", f"results/{m}/tsla/steering/sst2.csv")
    abl = pd.read_csv(tmp_path / f"results/{m}/tsla/ablation/sst2.csv")
    assert {"ICL baseline", "w/o TR", "w/o TL", "w/o IH", "w/o DLA-TL", "w/o random"} <= set(abl.condition)
    assert abl.n.eq(6).all() and abl.value.between(0, 1).all()
    steer = pd.read_csv(tmp_path / f"results/{m}/tsla/steering/sst2.csv")
    assert {"ICL", "zero-shot", "TR vector", "TL vector", "random vector"} <= set(steer.condition)
    claims = pd.read_csv(tmp_path / f"results/{m}/claims/T5/sst2.csv")
    assert set(claims.holds) <= {"yes", "no", "unclear"} and (claims.ci_low <= claims.ci_high).all()
    prov = json.loads((tmp_path / f"results/{m}/tsla/ablation/sst2.csv.prov.json").read_text())
    assert prov["choices"]["ablation"].startswith("zero")
    # the prompts' provenance names the SST-2 files with their sha256 (from shared/data's README)
    pprov = json.loads((tmp_path / f"results/{m}/prompts/sst2/eval.json.prov.json").read_text())
    assert pprov["data"]["files"]["sst2/stsa.binary.test"] == \
        "6a80dc9b9a0db2d3b37f2f809304febad31c90ab67a5b4157b7d9f881c53ef5b"
