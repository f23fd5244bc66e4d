"""Config validation against config/schema.yaml and per-job seeds."""
from __future__ import annotations

import copy
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from icl_heads import config as cfgmod
from icl_heads.errors import ConfigError

ROOT = Path(__file__).resolve().parent.parent
DEFAULT = ROOT / "config" / "config.yaml"
PAPER = ROOT / "config" / "paper.yaml"


@pytest.mark.parametrize("path", [DEFAULT, PAPER])
def test_shipped_configs_validate_and_get_defaults(path):
    raw = yaml.safe_load(path.read_text())
    assert "plots" not in raw  # so the values below can only come from the schema defaults
    cfg = cfgmod.load(path)
    assert cfg["plots"]["formats"] == ["pdf", "png"]
    assert cfg["plots"]["dpi"] == 200
    assert cfg["plots"]["palette"]["tr"] == "#d62728"
    # values that are set in the file are kept
    assert cfg["prompts"]["n_shot"] == raw["prompts"]["n_shot"] == 8
    assert cfg["run_models"] == raw["run_models"] and cfg["run_models"][:2] == ["smollm2-135m", "gemma-3-270m"]
    # nested defaults inside registry entries
    for name, entry in cfg["datasets"].items():
        assert entry["label_key"] == "label"
        assert entry["split_seed"] == 0
    for name, entry in cfg["models"].items():
        parent = entry.get("checkpoint_of", name)  # checkpoints inherit their model's scheduling keys
        assert entry["gpu"] == raw["models"][parent].get("gpu", 0)


def test_paper_config_values():
    cfg = cfgmod.load(PAPER)
    assert cfg["prompts"]["n_score"] == 50
    assert cfg["induction"]["n_sequences"] == 1000
    assert cfg["tsla"]["top_percent"] == 3
    assert cfg["models"]["llama-3-8b"]["dtype"] == "bfloat16"
    assert cfg["models"]["smollm2-135m"]["dtype"] == "float32"  # default
    assert cfg["datasets"]["snli"]["test_fraction"] == 0.5
    assert cfg["datasets"]["sst2"]["template"]["separator"] == "\n\n"  # default


def test_default_config_defaults_for_missing_blocks(tmp_path):
    raw = yaml.safe_load(DEFAULT.read_text())
    for key in ("prompts", "tsla", "induction", "seed", "data_dir"):
        raw.pop(key, None)
    p = tmp_path / "c.yaml"
    p.write_text(yaml.safe_dump(raw))
    cfg = cfgmod.load(p)
    assert cfg["prompts"] == {"n_shot": 8, "n_score": 50, "n_eval": 200, "balanced": True, "batch_size": 8}
    assert cfg["tsla"] == {"top_percent": 3, "threshold_sweep": [1, 2, 3, 5, 10], "random_seeds": 5,
                           "sweep_random_seeds": 5, "ablation_n_eval": None, "perturbation_n_eval": None, "table_n_eval": None, "sweep_n_eval": None, "ablation": "zero", "steer_layer": -1,
                           "perturbations": ["shuffle_text", "labels_01", "flip_labels"],
                           "steer_sweep": {"layer_fractions": [0.25, 0.5, 0.75], "relative_scales": [0.1, 0.25, 0.5, 1.0],
                                           "random_seeds": 2}}
    assert cfg["induction"] == {"n_sequences": 1000, "seq_len": 50, "batch_size": 16, "average": "repeated", "sequences": ""}
    assert cfg["seed"] == 0
    assert cfg["data_dir"] == "../shared/data"


def test_misspelt_key_names_block_and_key():
    with pytest.raises(ConfigError) as ei:
        cfgmod.load(DEFAULT, overrides={"prompts": {"n_shots": 8}})
    msg = str(ei.value)
    assert "`prompts`" in msg
    assert "n_shots" in msg


def test_misspelt_top_level_key():
    with pytest.raises(ConfigError) as ei:
        cfgmod.load(DEFAULT, overrides={"sed": 1})
    assert "'sed'" in str(ei.value)


@pytest.mark.parametrize("bad", [-1, "eight", 2.5])
def test_wrong_type_or_range_names_the_key(bad):
    with pytest.raises(ConfigError) as ei:
        cfgmod.load(DEFAULT, overrides={"prompts": {"n_shot": bad}})
    assert "prompts.n_shot" in str(ei.value)


def test_nested_registry_error_names_the_entry():
    raw = yaml.safe_load(DEFAULT.read_text())
    raw["models"]["smollm2-135m"]["dtype"] = "float8"
    with pytest.raises(ConfigError) as ei:
        cfgmod.validate(raw)
    assert "models.smollm2-135m.dtype" in str(ei.value)


def test_unknown_run_model_lists_known_models():
    with pytest.raises(ConfigError) as ei:
        cfgmod.load(DEFAULT, overrides={"run_models": ["smollm2-135m", "gpt-9"]})
    msg = str(ei.value)
    assert "run_models" in msg
    assert "gpt-9" in msg
    assert "smollm2-135m" in msg and "gemma-3-270m" in msg


def test_unknown_classification_dataset_lists_known_ones():
    with pytest.raises(ConfigError) as ei:
        cfgmod.load(DEFAULT, overrides={"classification_datasets": ["imdb"]})
    msg = str(ei.value)
    assert "classification_datasets" in msg and "imdb" in msg
    assert "sentiment_lexicon" in msg and "english_french" in msg


def test_missing_required_key():
    raw = yaml.safe_load(DEFAULT.read_text())
    del raw["run_models"]
    with pytest.raises(ConfigError, match="run_models"):
        cfgmod.validate(raw)


def test_missing_config_file(tmp_path):
    with pytest.raises(ConfigError, match="nope.yaml"):
        cfgmod.load(tmp_path / "nope.yaml")


def test_validation_does_not_touch_the_file():
    before = DEFAULT.read_bytes()
    cfgmod.load(DEFAULT)
    assert DEFAULT.read_bytes() == before


# ------------------------------------------------------------------ job seeds
def test_job_seed_deterministic_across_processes():
    cfg = {"seed": 0}
    here = cfgmod.job_seed(cfg, "smollm2-135m", "sst2", 3)
    assert cfgmod.job_seed(copy.deepcopy(cfg), "smollm2-135m", "sst2", 3) == here
    # a fresh interpreter (different str-hash randomisation) gives the same seed
    code = ("import sys; sys.path.insert(0, '.'); from icl_heads.config import job_seed; "
            "print(job_seed({'seed': 0}, 'smollm2-135m', 'sst2', 3))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
                         env={"PYTHONHASHSEED": "123", "PATH": "/usr/bin:/bin"}, check=True)
    assert int(out.stdout.strip()) == here
    assert isinstance(here, int) and 0 <= here < 2 ** 32


def test_job_seed_differs_between_coordinates():
    cfg = {"seed": 0}
    seeds = {
        cfgmod.job_seed(cfg, "smollm2-135m", "sst2", 3),
        cfgmod.job_seed(cfg, "smollm2-135m", "sst2", 4),
        cfgmod.job_seed(cfg, "smollm2-135m", "trec", 3),
        cfgmod.job_seed(cfg, "gemma-3-270m", "sst2", 3),
        cfgmod.job_seed(cfg, "sst2", "smollm2-135m", 3),  # order matters
        cfgmod.job_seed({"seed": 1}, "smollm2-135m", "sst2", 3),  # master seed matters
        cfgmod.job_seed(cfg),
    }
    assert len(seeds) == 7


def test_fv_scoring_and_eval_tasks_must_be_disjoint_and_known():
    raw = yaml.safe_load(DEFAULT.read_text())
    raw["fv"]["eval_tasks"] = raw["fv"]["eval_tasks"] + [raw["fv"]["scoring_tasks"][0]]
    with pytest.raises(ConfigError, match="disjoint"):
        cfgmod.validate(raw)
    raw = yaml.safe_load(DEFAULT.read_text())
    raw["fv"]["scoring_tasks"] = ["no_such_task"]
    with pytest.raises(ConfigError, match="fv.scoring_tasks.*no_such_task"):
        cfgmod.validate(raw)


def test_config_readme_is_generated_from_the_schema_and_current():
    """config/README.md lists every key of config/schema.yaml with its description; it is the
    output of `python -m icl_heads.configdoc` on the current schema."""
    from icl_heads import configdoc

    text = configdoc.render(yaml.safe_load(configdoc.SCHEMA.read_text()))
    assert "| `claims.floor_accuracy` | number | `0.0` |" in text
    assert "| `models.<name>.train.steps` |" in text and "| `fv.ablation.modes` |" in text
    assert configdoc.README.read_text() == text, "config/README.md is out of date: run python -m icl_heads.configdoc"


def test_a_builtin_dataset_s_content_is_a_param_of_the_jobs_that_read_it(monkeypatch):
    """A job that declares datasets.<name> of a built-in task also gets the sha256 of the task's
    content as a param (builtin_data_sha256.<task>), the digest its provenance records: editing a
    built-in file (icl_heads/builtin_data/<task>.json) changes the param, so Snakemake reruns the
    job; a dataset read from local files (an input the rule names) gets none."""
    import hashlib
    import json

    from icl_heads import builtin_tasks
    from icl_heads.data import load_dataset

    c = cfgmod.load(DEFAULT)
    p = cfgmod.declared_params(c, ["datasets.{dataset}", "data_dir"], {"dataset": "antonym"})
    sha = p["builtin_data_sha256.antonym"]
    assert sha == load_dataset("antonym", c, c["data_dir"], check_sizes=False).files["builtin:antonym"]
    body = json.dumps(builtin_tasks.builtin_task("antonym"), sort_keys=True).encode()
    assert sha == hashlib.sha256(body).hexdigest()   # the task's content, hashed here by hand
    assert cfgmod.declared_params(c, ["datasets.english_essays"])["builtin_data_sha256.english_essays"] != sha
    edited = copy.deepcopy(builtin_tasks.BUILTIN_TASKS["antonym"])
    edited["examples"][0]["output"] += "x"
    monkeypatch.setitem(builtin_tasks.BUILTIN_TASKS, "antonym", edited)
    assert cfgmod.declared_params(c, ["datasets.antonym"])["builtin_data_sha256.antonym"] != sha
    c["datasets"]["antonym"] = {"source": "local", "files": {"train": "a.csv", "test": "b.csv"}}
    assert not any(k.startswith("builtin_data_sha256") for k in cfgmod.declared_params(c, ["datasets.antonym"]))
