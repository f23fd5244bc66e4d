"""Paper C end to end: two Todd et al. task files from ../shared/data (one scoring, one
evaluation task), WikiText-2 for the token-loss difference, and two local checkpoint
directories for the training dynamics (Y9)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pandas as pd
import pytest
import yaml

import tiny_run
from conftest import SHARED_DATA
from test_workflow import run_tiny

pytestmark = pytest.mark.slow
M = "smollm2-135m"


def test_paper_c_from_two_task_files(tmp_path, test_resources):
    if not (SHARED_DATA / "icl_tasks").is_dir():
        pytest.skip("needs ../shared/data")
    cfg = tiny_run.test_config("paper_c", test_resources)  # .test/config_paper_c
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "config.yaml").write_text(yaml.safe_dump(cfg))
    run_tiny(tmp_path, f"{test_resources}/{M}/manifest.json")

    # Y9: two "training checkpoints" as local directories: small Llamas with SmolLM2's tokenizer
    import torch
    from transformers import AutoTokenizer, LlamaConfig, LlamaForCausalLM

    tok = AutoTokenizer.from_pretrained(f"{test_resources}/{M}/hf")
    cks = []
    for i, step in enumerate((100, 2000)):
        torch.manual_seed(i)
        m = LlamaForCausalLM(LlamaConfig(vocab_size=len(tok), hidden_size=32, intermediate_size=64, num_hidden_layers=4,
                                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=512,
                                         tie_word_embeddings=True))
        d = tmp_path / f"ckpt{step}"
        m.save_pretrained(d)
        tok.save_pretrained(d)
        cks.append({"name": f"step{step}", "step": step, "path": str(d)})
        # a manifest left in a reused resources folder (ICL_TEST_RESOURCES) points at an earlier
        # session's temporary checkpoint: this test's checkpoints are new, so materialise them anew
        shutil.rmtree(Path(test_resources) / f"{M}--step{step}", ignore_errors=True)
    cfg["models"][M]["checkpoints"] = cks
    (tmp_path / "config" / "config.yaml").write_text(yaml.safe_dump(cfg))

    y = f"results/{M}/yin"
    figs = [f"results/{M}/figures/{s}.png" for s in ("Y5_ablation_curves", "Y6_token_loss", "Y7_addback",
                                                      "Y8_ablation_types", "Y9_training_dynamics")]
    run_tiny(tmp_path, f"{y}/ablation_curves.csv", f"{y}/addback.csv", f"{y}/token_loss.csv", f"{y}/dynamics.csv", *figs)

    per_query = pd.read_csv(tmp_path / f"{y}/ablation/antonym.csv")
    fams = set(zip(per_query.ablation, per_query.family))
    assert {(m, f) for m in ("mean", "zero", "replace") for f in ("IH", "FV", "IH_excl", "FV_excl", "random")} <= fams
    assert per_query.groupby("condition").size().eq(4).all()             # 4 queries per condition
    curves = pd.read_csv(tmp_path / f"{y}/ablation_curves.csv")
    assert curves.accuracy.between(0, 1).all()
    assert set(curves[curves.family == "random"].n_seeds) == {2}
    heads = pd.read_csv(tmp_path / f"results/{M}/heads/fv.csv")
    assert (heads.n_tasks == 1).all()
    # exclusion: no IH_excl head is among the top 2% FV heads
    ov = pd.read_csv(tmp_path / f"results/{M}/heads/ih_fv_overlap.csv")
    fv_top = set(ov.fv_heads.iloc[0].split(";"))
    excl = per_query[per_query.family == "IH_excl"].heads.dropna()
    assert not any(set(h.split(";")) & fv_top for h in excl)

    tl = pd.read_csv(tmp_path / f"{y}/token_loss.csv")
    assert set(tl.family) == {"clean", "IH", "FV", "IH_excl", "FV_excl", "random"} and tl.doc.nunique() == 2
    prov = json.loads((tmp_path / f"{y}/token_loss.csv.prov.json").read_text())
    assert "4f3e427e4aff23acff917a8a51aeae21bf12832256e26914c8fc250dcef4103c" in json.dumps(prov["data"])

    ab = pd.read_csv(tmp_path / f"{y}/addback.csv")
    assert {"clean 10-shot", "shuffled", "shuffled + FV", "shuffled + random", "zero-shot", "zero-shot + FV"} <= set(ab.condition)
    assert (ab.layer == 30 // 3).all()

    dyn = pd.read_csv(tmp_path / f"{y}/dynamics.csv")
    assert list(dyn.step) == [100, 2000] and list(dyn.checkpoint) == [f"{M}--step100", f"{M}--step2000"]
    dh = pd.read_csv(tmp_path / f"{y}/dynamics_heads.csv")
    assert len(dh) == 2 * 4 * 4                                         # 2 checkpoints x 4 layers x 4 heads
    for f in figs:
        assert (tmp_path / f).stat().st_size > 1000

    claims = pd.concat([pd.read_csv(tmp_path / f"results/{M}/claims/{c}.csv") for c in ("Y5/all", "Y6/all")])
    assert {"Y5", "Y6", "Y7", "Y8"} <= set(claims.artifact)
    assert set(claims.holds) <= {"yes", "no", "unclear"} and (claims.ci_low <= claims.ci_high + 1e-12).all()
