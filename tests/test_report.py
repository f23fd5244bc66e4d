"""The HTML report (`snakemake --report report.html`) of the tiny workflow, opened in headless
Chromium: every figure is in it and renders, with its caption, and the figure's provenance page
(rule, code, parameters, inputs, model file and data hashes) is reachable from its caption; a cell
of the S2 claims table is traced to the model file and the data.

Here on the shared tiny build of tests/tiny_run.py (or a finished working directory named by
ICL_TEST_REPORT_WORKDIR); tests/test_workflow.py runs the same check on its richer tiny run (FV,
LTV and Paper C figures too). Chromium: ICL_CHROMIUM, else chromium / chromium-browser /
google-chrome on PATH (Debian: `apt-get install chromium`; .ci/run installs it); the Python side
is playwright (requirements-dev.txt). Without them the checks skip and say why.
"""
from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
import tiny_run

pytestmark = pytest.mark.slow


def chromium_executable() -> str:
    for name in filter(None, (os.environ.get("ICL_CHROMIUM"), "chromium", "chromium-browser",
                              "google-chrome", "google-chrome-stable")):
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no Chromium found (set ICL_CHROMIUM, or as root: apt-get install -y chromium)")


def sync_playwright():
    try:
        from playwright.sync_api import sync_playwright as sp
    except ImportError:
        pytest.skip("the Python package playwright is missing (pip install -r requirements-dev.txt)")
    return sp()


def expected_figures(wd: Path) -> list[str]:
    """The report format's file of every figure the gallery holds (figures/*.png <- results/...)."""
    readme = (wd / "figures" / "README.md").read_text()
    paths = [line.split("`")[1] for line in readme.splitlines() if line.startswith("source: `")]
    assert paths, "figures/README.md lists no figure"
    return paths


def build_report(wd: Path, run) -> Path:
    """Run the default target (figures, tables and the provenance pages) and build the report."""
    run(wd)
    report = wd / "report.html"
    report.unlink(missing_ok=True)
    run(wd, "--report", str(report))
    assert report.is_file() and report.stat().st_size > 100_000
    return report


VIEW_BUTTON = "table a[type=button]"  # the eye button beside a result's labels in the side panel


def check_report(wd: Path, run):
    """Build the report of the tiny working directory `wd` and check it in headless Chromium.
    `run(wd, *args)` runs snakemake on it."""
    exe = chromium_executable()
    playwright = sync_playwright()
    report = build_report(wd, run)
    check_claims_cell_provenance(wd)
    with playwright as pw:
        figures = expected_figures(wd)
        model_sha = {m: cfg["sha256"] for m, cfg in _config(wd)["models"].items() if "sha256" in cfg}
        browser = pw.chromium.launch(executable_path=exe, headless=True,
                                     args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"])
        try:
            page = browser.new_page(viewport={"width": 1600, "height": 1000})
            errors = []
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(report.as_uri())
            page.wait_for_function("typeof app !== 'undefined' && typeof results === 'object'", timeout=60_000)
            results = page.evaluate("""Object.fromEntries(Object.entries(results).map(([k, v]) =>
                [k, {mime: v.mime_type, labels: v.labels, caption: v.caption, rule: v.job_properties.rule}]))""")
            categories = page.evaluate("categories")

            # the global description is rendered on the start page
            assert "provenance" in page.inner_text("body").lower()

            in_report = {p for p, r in results.items() if (r["labels"] or {}).get("item") == "figure"}
            missing = sorted(set(figures) - in_report)
            assert not missing, f"figures not in the report: {missing}"
            for fig in figures:
                r, prov = results[fig], fig.rsplit(".", 1)[0] + ".provenance.html"
                assert r["caption"].strip(), f"{fig} has no caption"
                assert prov in results and results[prov]["rule"] == "figure_provenance"
                assert results[prov]["labels"]["model"] == r["labels"]["model"]
                assert _category_of(categories, fig) == _category_of(categories, prov), \
                    f"{fig} and its provenance page are not in the same subcategory"

                # the figure renders in the report's viewer
                page.evaluate("p => app.showResultInfo(p)", fig)
                page.locator(VIEW_BUTTON).first.click()
                page.wait_for_function(
                    "() => [...document.querySelectorAll('img')].some(i => i.src.startsWith('data:image') "
                    "&& i.complete && i.naturalWidth > 0)", timeout=30_000)

                # its caption links to its provenance page, which shows the chain to the model file and data
                link = page.locator(f"a[href*='{prov}']")
                assert link.count() == 1, f"the caption of {fig} does not link to {prov}"
                link.click()
                page.wait_for_function(f"() => app.state.resultPath === {json.dumps(prov)}", timeout=10_000)
                page.locator(VIEW_BUTTON).first.click()
                frame = page.frame_locator("iframe")
                chain = frame.locator("#chain").inner_text(timeout=30_000)
                body = frame.locator("body").inner_text()
                assert f"- {fig}" in chain and "rule: " in chain
                # the model the figure's path names (e.g. a trained one, with no file hash in the config),
                # else every model of run_models (figures of all models)
                named = [m for m in _config(wd)["models"] if f"/{m}/" in fig]
                models = named or list(_config(wd)["run_models"])
                for m in filter(model_sha.get, models):  # models named by a file hash in the config
                    assert model_sha[m] in body, f"{prov}: no sha256 of {m}'s model file"
                assert "builtin:" in body, f"{prov}: no data file hash"
            assert not errors, f"JavaScript errors in the report: {errors}"
        finally:
            browser.close()


def check_claims_cell_provenance(wd: Path):
    """A cell of the S2 table is traced through the claims file its row came from to the model
    file's and the data's sha256."""
    import subprocess
    import sys

    import pandas as pd

    claims = pd.read_csv(wd / "results" / "claims.csv")
    assert len(claims) and set(claims.holds) <= {"yes", "no", "unclear"}
    root = Path(__file__).resolve().parent.parent
    for row in (0, len(claims) - 1):
        proc = subprocess.run([sys.executable, "-m", "icl_heads.provenance", "results/claims.csv", "--row", str(row),
                               "--col", "value"], cwd=wd, capture_output=True, text=True, timeout=300,
                              env={**os.environ, "PYTHONPATH": str(root)})
        assert proc.returncode == 0, proc.stderr
        out, src = proc.stdout, claims.source.iloc[row]
        assert f"row {row} was copied from {src}" in out and f"- {src}" in out
        m = claims.model.iloc[row]
        assert _config(wd)["models"][m].get("sha256", "model: ") in out, f"claims row {row}: no model sha256"
        assert re.search(r"data: .*\n\s+\S+ sha256 [0-9a-f]{64}", out), f"claims row {row}: no data file hash"


def _config(wd: Path) -> dict:
    import yaml

    return yaml.safe_load((wd / "config" / "config.yaml").read_text())


def _category_of(categories: dict, path: str):
    for cat, subcats in categories.items():
        for sub, paths in subcats.items():
            if path in paths:
                return cat, sub
    return None


def run_in(wd: Path, *args):
    return tiny_run.snakemake(wd, "--cores", "2", *args)


def test_report_of_the_tiny_workflow(tmp_path_factory, test_resources):
    """On the shared tiny build of tests/tiny_run.py (TSLA and synthesis, no FV or LTV: the sets a
    config does not compute are left empty), or on ICL_TEST_REPORT_WORKDIR."""
    reuse = os.environ.get("ICL_TEST_REPORT_WORKDIR")
    wd = Path(reuse) if reuse else tiny_run.built_workdir(tmp_path_factory, test_resources)
    check_report(wd, run_in)
