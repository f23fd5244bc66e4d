"""Bad configs are refused when the DAG is built, before any model is loaded, by a ConfigError
whose message starts with the config key to change and says how (icl_heads.config: validate,
check_data). Each gap below once surfaced only after minutes of model time, or never."""
from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest
import yaml

from conftest import ROOT, SHARED_DATA
from icl_heads import config as cfgmod
from icl_heads import data as datamod
from icl_heads.errors import ConfigError
from tiny_run import snakemake, tiny_config, write_config


def split_sizes(name: str) -> dict[str, int]:
    """Examples per split of the built-in task `name` as the default config splits it."""
    return datamod.peek_dataset(name, {"datasets": {name: {"source": "builtin"}}})


SENT = split_sizes("sentiment_lexicon")  # {"train": 115, "test": 345} (icl_heads/builtin_data)


def base(tmp_path=None) -> dict:
    """config/config.yaml cut down to SmolLM2 on sentiment_lexicon (70 train / 70 test
    examples), no Paper B or C; local datasets read tmp_path/data."""
    cfg = tiny_config("resources")
    if tmp_path is not None:
        (tmp_path / "data").mkdir(exist_ok=True)
        cfg["data_dir"] = str(tmp_path / "data")
    return cfg


def refused(cfg: dict) -> str:
    """The message of the ConfigError that validation and the DAG-time data check raise."""
    with pytest.raises(ConfigError) as ei:
        cfgmod.check_data(cfgmod.validate(cfg))
    return str(ei.value)


def starts_with_key(msg: str, key: str) -> bool:
    return msg.startswith(f"config key `{key}`")


def local(cfg: dict, name: str = "mine", **entry) -> dict:
    """Add a local classification dataset `name` and run TSLA on it only."""
    cfg["datasets"][name] = {"source": "local", "label_words": {"0": "negative", "1": "positive"},
                             "template": {"query": "Review: {input}\nSentiment:"}, **entry}
    cfg["classification_datasets"] = [name]
    return cfg


def jsonl(path, records):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


RECORDS = [{"sentence": f"text {i}", "label": i % 2} for i in range(40)]


def test_the_tiny_and_default_configs_pass():
    cfgmod.check_data(cfgmod.validate(base()))
    cfgmod.check_data(cfgmod.load(ROOT / "config" / "config.yaml"))


# ------------------------------------------------------------------ 1. threshold sweep
def test_threshold_sweep_without_top_percent_gets_it_added_with_a_note_naming_the_key():
    """Decision: completed, not refused (changing tsla.top_percent alone is a valid edit);
    the scripts then find top_percent in the sweep (it once ended in a KeyError after the model ran)."""
    cfg = base()
    cfg["tsla"].update(top_percent=3, threshold_sweep=[5, 1])
    notes = []
    cfgmod.validate(cfg, log=notes.append)
    assert len(notes) == 1 and starts_with_key(notes[0], "tsla.threshold_sweep")
    assert "tsla.top_percent (3)" in notes[0] and "[1, 3, 5]" in notes[0]
    assert cfg["tsla"]["threshold_sweep"] == [1, 3, 5]
    cfgmod.validate(cfg, log=notes.append)  # validating again: nothing left to add
    assert len(notes) == 1 and cfg["tsla"]["threshold_sweep"] == [1, 3, 5]


def test_threshold_sweep_with_top_percent_as_a_float_is_left_as_written():
    cfg = base()
    cfg["tsla"].update(top_percent=3, threshold_sweep=[10.0, 3.0])
    notes = []
    cfgmod.validate(cfg, log=notes.append)
    assert not notes and cfg["tsla"]["threshold_sweep"] == [10.0, 3.0]


# ------------------------------------------------------------------ 2. label words
@pytest.mark.parametrize("word", ["", "  "])
def test_empty_label_word_is_refused(word, tmp_path):
    cfg = local(base(tmp_path), format="jsonl", fields={"input": "sentence"},
                files={"train": "t.jsonl", "test": "t.jsonl"})
    cfg["datasets"]["mine"]["label_words"]["1"] = word
    msg = refused(cfg)
    assert starts_with_key(msg, "datasets.mine.label_words")
    assert "'1'" in msg and "bare space" in msg


def test_empty_label_word_overriding_a_builtin_task_is_refused():
    cfg = base()
    cfg["datasets"]["sentiment_lexicon"]["label_words"] = {"pos": "positive", "neg": ""}
    assert starts_with_key(refused(cfg), "datasets.sentiment_lexicon.label_words")


def test_two_raw_labels_with_one_word_are_refused(tmp_path):
    cfg = local(base(tmp_path), format="sst2", files={"train": "a", "test": "a"})
    cfg["datasets"]["mine"]["label_words"] = {"0": "good", "1": "good"}
    msg = refused(cfg)
    assert starts_with_key(msg, "datasets.mine.label_words") and "share the label word 'good'" in msg


# ------------------------------------------------------------------ 3. n_score + n_eval > test split
def test_eval_set_longer_than_the_test_split_is_refused():
    cfg = base()
    n_eval = SENT["test"] - 30 + 1
    cfg["prompts"].update(n_score=30, n_eval=n_eval)
    msg = refused(cfg)
    assert starts_with_key(msg, "prompts.n_eval")
    assert f"30 + {n_eval} = {SENT['test'] + 1}" in msg and f"has {SENT['test']} examples" in msg
    assert f"at most {SENT['test'] - 30}" in msg
    assert "sentiment_lexicon" in msg


def test_eval_set_that_just_fits_passes():
    cfg = base()
    cfg["prompts"].update(n_score=30, n_eval=SENT["test"] - 30)
    cfgmod.check_data(cfgmod.validate(cfg))


# ------------------------------------------------------------------ 4. roles and sizes name their key
def test_generation_task_in_classification_datasets_is_refused():
    cfg = base()
    cfg["classification_datasets"] = ["sentiment_lexicon", "antonym"]
    msg = refused(cfg)
    assert starts_with_key(msg, "classification_datasets")
    assert "'antonym' is a generation task" in msg and "datasets.antonym.label_words" in msg


def test_n_shot_larger_than_the_train_split_is_refused():
    cfg = base()
    cfg["prompts"]["n_shot"] = SENT["train"] + 1
    msg = refused(cfg)
    assert starts_with_key(msg, "prompts.n_shot")
    assert f"{SENT['train']} examples in its train split" in msg and f"at most {SENT['train']}" in msg


def test_n_score_larger_than_the_test_split_is_refused():
    cfg = base()
    cfg["prompts"].update(n_score=SENT["test"] + 10, n_eval=5)
    msg = refused(cfg)
    assert starts_with_key(msg, "prompts.n_score") and f"has {SENT['test']} examples" in msg


def test_fv_and_ltv_sizes_name_their_keys():
    cfg = base()
    cap, ant, capital = split_sizes("capitalize"), split_sizes("antonym"), split_sizes("country_capital")
    cfg["fv"].update(scoring_tasks=["capitalize"], eval_tasks=["antonym"], n_shot=max(cap["train"], ant["train"]) + 1,
                     n_prompts=5, n_eval=3)
    msg = refused(copy.deepcopy(cfg))
    assert starts_with_key(msg, "fv.n_shot")
    assert "'capitalize' (fv.scoring_tasks)" in msg and "'antonym' (fv.eval_tasks)" in msg
    cfg["fv"].update(n_shot=4, n_eval=ant["test"] + 1)
    assert starts_with_key(refused(copy.deepcopy(cfg)), "fv.n_eval")
    cfg["fv"].update(n_eval=3, addback_n_eval=ant["test"] + 1)
    assert starts_with_key(refused(copy.deepcopy(cfg)), "fv.addback_n_eval")
    cfg["fv"].update(addback_n_eval=None, n_prompts=cap["test"] + 1)
    assert starts_with_key(refused(copy.deepcopy(cfg)), "fv.n_prompts")
    cfg["fv"].update(scoring_tasks=[], eval_tasks=[])
    cfg["ltv"].update(datasets=["country_capital"], n_train=capital["test"], n_eval=4, n_shot=4,
                      composition={"tasks": []})
    msg = refused(copy.deepcopy(cfg))
    assert starts_with_key(msg, "ltv.n_train") and f"at most {capital['test'] - 1}" in msg
    cfg["ltv"].update(n_train=8, n_shot=capital["train"] + 1)
    assert starts_with_key(refused(cfg), "ltv.n_shot")


def test_every_problem_is_listed_each_on_a_line_of_its_own():
    cfg = base()
    cfg["prompts"].update(n_shot=SENT["train"] + 1, n_score=30, n_eval=SENT["test"])
    lines = refused(cfg).splitlines()
    assert [line.split("`")[1] for line in lines] == ["prompts.n_shot", "prompts.n_eval"]


# ------------------------------------------------------------------ 5. local files at DAG build
def test_missing_local_file_is_refused(tmp_path):
    cfg = local(base(tmp_path), format="jsonl", fields={"input": "sentence"},
                files={"train": "t.jsonl", "test": "nope.jsonl"})
    jsonl(tmp_path / "data" / "t.jsonl", RECORDS)
    msg = refused(cfg)
    assert starts_with_key(msg, "datasets.mine.files.test")
    assert str(tmp_path / "data" / "nope.jsonl") in msg and "data_dir" in msg


def test_tsv_format_on_a_comma_separated_file_names_the_format_and_the_columns(tmp_path):
    cfg = local(base(tmp_path), format="tsv", fields={"input": "sentence"}, files={"train": "t.csv", "test": "t.csv"})
    (tmp_path / "data" / "t.csv").write_text("sentence,label\n" + "".join(f"text {i},{i % 2}\n" for i in range(40)))
    msg = refused(cfg)
    assert starts_with_key(msg, "datasets.mine.format")
    assert "comma-separated" in msg and "['sentence,label']" in msg


def test_wrong_tsv_column_names_the_column_and_lists_the_header(tmp_path):
    cfg = local(base(tmp_path), format="tsv", fields={"input": "sentence"}, files={"train": "t.tsv", "test": "t.tsv"})
    (tmp_path / "data" / "t.tsv").write_text("text\tlabel\n" + "".join(f"text {i}\t{i % 2}\n" for i in range(40)))
    msg = refused(cfg)
    assert starts_with_key(msg, "datasets.mine.fields.input")
    assert "'sentence'" in msg and "['label', 'text']" in msg


def test_wrong_jsonl_label_key_names_the_key_and_lists_the_record_keys(tmp_path):
    jsonl(tmp_path / "data" / "t.jsonl", RECORDS)
    cfg = local(base(tmp_path), format="jsonl", fields={"input": "sentence"}, label_key="gold",
                files={"train": "t.jsonl", "test": "t.jsonl"})
    msg = refused(cfg)
    assert starts_with_key(msg, "datasets.mine.label_key")
    assert "'gold'" in msg and "['label', 'sentence']" in msg


def test_template_slot_without_a_field_is_refused(tmp_path):
    jsonl(tmp_path / "data" / "t.jsonl", RECORDS)
    cfg = local(base(tmp_path), format="jsonl", fields={"input": "sentence"},
                files={"train": "t.jsonl", "test": "t.jsonl"})
    cfg["datasets"]["mine"]["template"]["query"] = "Premise: {premise}\nAnswer:"
    with pytest.raises(ConfigError) as ei:
        cfgmod.validate(cfg)
    msg = str(ei.value)
    assert starts_with_key(msg, "datasets.mine.template.query") and "{premise}" in msg
    assert "datasets.mine.fields.premise" in msg


def test_unmapped_label_in_a_local_file_is_refused(tmp_path):
    jsonl(tmp_path / "data" / "t.jsonl", RECORDS + [{"sentence": "odd", "label": 2}])
    cfg = local(base(tmp_path), format="jsonl", fields={"input": "sentence"},
                files={"train": "t.jsonl", "test": "t.jsonl"})
    msg = refused(cfg)
    assert starts_with_key(msg, "datasets.mine.label_words") and "['2']" in msg


def test_a_good_local_dataset_passes_and_its_sizes_are_checked(tmp_path):
    jsonl(tmp_path / "data" / "t.jsonl", RECORDS)  # 40 examples
    cfg = local(base(tmp_path), format="jsonl", fields={"input": "sentence"},
                files={"train": "t.jsonl", "test": "t.jsonl"})
    cfgmod.check_data(cfgmod.validate(copy.deepcopy(cfg)))
    cfg["prompts"].update(n_score=30, n_eval=20)
    msg = refused(cfg)
    assert starts_with_key(msg, "prompts.n_eval") and "has 40 examples" in msg


# ------------------------------------------------------------------ hub: sizes at load time
def _hub_cfg():
    cfg = base()
    cfg["datasets"]["h"] = {"source": "hub", "hub_id": "someone/sentiment", "label_words": {"0": "bad", "1": "good"},
                            "template": {"query": "Review: {input}\nSentiment:"}}
    cfg["classification_datasets"] = ["h"]
    cfg["prompts"].update(n_score=2, n_eval=4)
    return cfgmod.validate(cfg)


def test_hub_sizes_are_skipped_at_dag_build_and_checked_at_load_with_the_same_message(monkeypatch):
    cfg = _hub_cfg()

    def no_download(*a, **k):
        raise AssertionError("check_data must not download a hub dataset")

    monkeypatch.setattr(datamod, "_read_hub", no_download)
    cfgmod.check_data(cfg)
    def rows(n):
        return [{"input": f"x{i}", "output": str(i % 2)} for i in range(n)]

    monkeypatch.setattr(datamod, "_read_hub", lambda name, entry: ({"train": rows(10), "test": rows(3)}, {}))
    with pytest.raises(ConfigError) as ei:
        datamod.load_dataset("h", cfg)
    msg = str(ei.value)
    assert starts_with_key(msg, "prompts.n_eval") and "has 3 examples" in msg
    assert msg == "\n".join(cfgmod.size_problems(cfg, "h", {"train": 10, "test": 3}))


# ------------------------------------------------------------------ no torch at DAG build
def test_validation_and_data_checks_import_no_torch():
    code = ("import sys, yaml; sys.path.insert(0, '.'); from icl_heads import config as c; "
            "cfg = c.load('config/config.yaml'); c.check_data(cfg); "
            "assert 'torch' not in sys.modules, 'torch imported'; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-2000:]


def test_the_paper_config_passes_the_data_checks():
    if not (SHARED_DATA / "sst2").is_dir():
        pytest.skip("needs ../shared/data")
    cfg = cfgmod.load(ROOT / "config" / "paper.yaml")
    cfgmod.check_data(cfg, data_dir=SHARED_DATA)


def test_a_dataset_sets_its_own_sizes():
    """datasets.<name>.sizes overrides prompts.n_score / n_eval and ltv.n_train for that dataset
    alone: the check passes with it, and the prompt sets and LTV query counts use it."""
    from icl_heads.cache import prompt_set

    cfg = cfgmod.load(ROOT / "config" / "config.yaml")
    n_eval = SENT["test"] - 30 + 20                       # 30 + n_eval > sentiment_lexicon's test queries
    cfg["prompts"]["n_eval"] = n_eval
    with pytest.raises(ConfigError, match=r"datasets\.sentiment_lexicon\.sizes\.n_eval"):
        cfgmod.check_data(cfg)
    for d in cfg["classification_datasets"]:
        cfg["datasets"][d]["sizes"] = {"n_eval": 40, "ltv_n_train": 5}
    cfgmod.check_data(cfg)
    assert prompt_set(cfg, "eval", "sentiment_lexicon").n == 40 and prompt_set(cfg, "eval").n == n_eval
    assert prompt_set(cfg, "score", "sentiment_lexicon").n == cfg["prompts"]["n_score"]
    assert cfgmod.dataset_sizes(cfg, "sentiment_lexicon")["ltv_n_train"] == 5
    assert cfgmod.dataset_sizes(cfg, "country_capital")["ltv_n_train"] == cfg["ltv"]["n_train"]


def test_the_score_set_reads_no_n_eval():
    """Rule prompts_score declares prompts.n_score but not n_eval, so a change of n_eval leaves the
    score prompts (and their caches) alone: prompt_set("score") reads only what it declares, and an
    evaluation set read from those params names the missing key."""
    from icl_heads.cache import prompt_set

    cfg = cfgmod.load(ROOT / "config" / "config.yaml")
    keys = ["seed", "data_dir", "datasets.{dataset}", "prompts.n_shot", "prompts.n_score", "prompts.balanced"]
    score_cfg = cfgmod.declared_config(cfgmod.declared_params(cfg, keys, {"dataset": "topic_noun"}), "prompts_score")
    ps = prompt_set(score_cfg, "score", "topic_noun")
    assert (ps.n_shot, ps.start, ps.n) == (cfg["prompts"]["n_shot"], 0, cfg["prompts"]["n_score"])
    with pytest.raises(cfgmod.UndeclaredConfigKey, match=r"prompts\.n_eval"):
        prompt_set(score_cfg, "eval", "topic_noun")


# ------------------------------------------------------------------ snakemake -n refuses before any job
@pytest.mark.parametrize("case", ["n_eval", "tsv_on_csv"])
def test_dry_run_refuses_naming_the_key_and_creates_nothing(case, tmp_path):
    wd = tmp_path / "wd"
    wd.mkdir()
    cfg = tiny_config(str(wd / "resources"))
    cfg["data_dir"] = str(tmp_path / "data")
    (tmp_path / "data").mkdir()
    if case == "n_eval":
        cfg["prompts"].update(n_score=30, n_eval=SENT["test"])
        key = "prompts.n_eval"
    else:
        (tmp_path / "data" / "t.csv").write_text("sentence,label\n" + "".join(f"w{i},{i % 2}\n" for i in range(40)))
        local(cfg, format="tsv", fields={"input": "sentence"}, files={"train": "t.csv", "test": "t.csv"})
        key = "datasets.mine.format"
    write_config(wd, cfg)
    proc = snakemake(wd, "-n", "--cores", "1", check=False, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert f"config key `{key}`" in out, out[-3000:]
    assert not (wd / "resources").exists() and not (wd / "results").exists()
    assert yaml.safe_load((wd / "config" / "config.yaml").read_text()) == cfg  # the config is left as written
