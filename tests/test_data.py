"""Dataset loading: the papers' files in shared/data, the built-in tasks, and the errors.

Expected sizes, label counts, first lines and sha256 values come from
shared/data/README.md (written independently of the loader)."""
from __future__ import annotations

import collections
import copy
import json
from pathlib import Path

import pytest

from icl_heads import config as cfgmod
from icl_heads.builtin_tasks import BUILTIN_TASKS
from icl_heads.builtin_texts import BUILTIN_TEXTS
from icl_heads.data import load_dataset, peek_dataset
from icl_heads.errors import ConfigError, DataError

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def paper_cfg():
    return cfgmod.load(ROOT / "config" / "paper.yaml")


@pytest.fixture(scope="module")
def default_cfg():
    return cfgmod.load(ROOT / "config" / "config.yaml")


# Label-word counts per split, from shared/data/README.md, translated through the
# label_words of config/paper.yaml by hand.
PAPER_EXPECTED = {
    "sst2": {
        "train": {"negative": 3310, "positive": 3610},
        "test": {"negative": 912, "positive": 909},
    },
    "trec": {
        "train": {"description": 1162, "entity": 1250, "abbreviation": 86, "person": 1223,
                  "number": 896, "location": 835},
        "test": {"description": 138, "entity": 94, "abbreviation": 9, "person": 65,
                 "number": 113, "location": 81},
    },
    "subj": {
        "train": {"subjective": 4000, "objective": 4000},
        "test": {"subjective": 1000, "objective": 1000},
    },
    "mr": {
        "train": {"negative": 4331, "positive": 4331},
        "test": {"negative": 1000, "positive": 1000},
    },
    "rte": {  # test = the labelled val.jsonl
        "train": {"true": 1249, "false": 1241},
        "test": {"true": 146, "false": 131},
    },
    "cb": {  # test = the labelled val.jsonl (56)
        "train": {"true": 115, "false": 119, "neither": 16},
        "test": {"true": 23, "false": 28, "neither": 5},
    },
}

PAPER_LABEL_WORDS = {
    "sst2": {"0": "negative", "1": "positive"},
    "trec": {"ABBR": "abbreviation", "DESC": "description", "ENTY": "entity", "HUM": "person",
             "LOC": "location", "NUM": "number"},
    "subj": {"0": "subjective", "1": "objective"},
    "mr": {"0": "negative", "1": "positive"},
    "snli": {"entailment": "yes", "neutral": "maybe", "contradiction": "no"},
    "rte": {"entailment": "true", "not_entailment": "false"},
    "cb": {"entailment": "true", "contradiction": "false", "neutral": "neither"},
}


# Todd et al. task files in paper.yaml: (train, val) sizes from shared/data/README.md
PAPER_FV_TASKS = {"antonym": (1678, 720), "capitalize": (569, 244), "country-capital": (137, 60),
                  "english-french": (3288, 1410), "present-past": (205, 88), "singular-plural": (143, 62),
                  "person-occupation": (574, 247), "landmark-country": (585, 251), "choose_first_of_5": (700, 300),
                  "synonym": (2015, 865)}


def test_paper_config_lists_exactly_the_expected_datasets(paper_cfg):
    assert set(paper_cfg["classification_datasets"]) == set(PAPER_LABEL_WORDS)
    # plus WikiText-2 (Y6) and the LTV composition tasks (L7)
    other = {"wikitext2", "masculine_feminine", "english_french_feminine"}
    assert set(paper_cfg["datasets"]) == set(PAPER_LABEL_WORDS) | set(PAPER_FV_TASKS) | other
    fv = paper_cfg["fv"]
    assert set(fv["scoring_tasks"]) | set(fv["eval_tasks"]) == set(PAPER_FV_TASKS)
    assert not set(fv["scoring_tasks"]) & set(fv["eval_tasks"])


@pytest.mark.parametrize("name", sorted(PAPER_FV_TASKS))
def test_paper_fv_task_files_load_with_readme_sizes(name, paper_cfg, shared_data):
    task = load_dataset(name, paper_cfg, data_dir=shared_data)
    assert task.kind == "generation"
    assert (len(task.split("train")), len(task.split("test"))) == PAPER_FV_TASKS[name]


@pytest.mark.parametrize("name", sorted(PAPER_EXPECTED))
def test_paper_dataset_sizes_and_label_words(name, paper_cfg, shared_data):
    task = load_dataset(name, paper_cfg, data_dir=shared_data)
    assert task.kind == "classification"
    assert task.source == "local"
    assert task.label_words == PAPER_LABEL_WORDS[name]
    assert set(task.splits) == {"train", "test"}
    for split, counts in PAPER_EXPECTED[name].items():
        rows = task.split(split)
        assert len(rows) == sum(counts.values())
        assert dict(collections.Counter(r["output"] for r in rows)) == counts
        # raw label kept, answer is its label word
        for r in rows:
            assert PAPER_LABEL_WORDS[name][r["label"]] == r["output"]


def test_readme_split_sizes_spelled_out(paper_cfg, shared_data):
    """The sizes the README states in words (SST-2 6,920/1,821; TREC 5,452/500; CB val 56; RTE val 277)."""
    n = {name: {s: len(v) for s, v in load_dataset(name, paper_cfg, data_dir=shared_data).splits.items()}
         for name in ("sst2", "trec", "cb", "rte")}
    assert n["sst2"] == {"train": 6920, "test": 1821}
    assert n["trec"] == {"train": 5452, "test": 500}
    assert n["cb"]["test"] == 56
    assert n["rte"]["test"] == 277


def test_paper_first_examples_match_the_readme(paper_cfg, shared_data):
    sst2 = load_dataset("sst2", paper_cfg, data_dir=shared_data)
    assert sst2.split("train")[0]["input"] == ("a stirring , funny and finally transporting re-imagining of "
                                               "beauty and the beast and 1930s horror films")
    assert sst2.split("train")[0]["output"] == "positive"
    assert sst2.split("test")[0]["input"] == "no movement , no yuks , not much of anything ."
    assert sst2.split("test")[0]["output"] == "negative"

    trec = load_dataset("trec", paper_cfg, data_dir=shared_data)
    assert trec.split("train")[0] == {"input": "How did serfdom develop in and then leave Russia ?",
                                      "output": "description", "label": "DESC"}
    assert trec.split("test")[0] == {"input": "How far is it from Denver to Aspen ?",
                                     "output": "number", "label": "NUM"}

    rte = load_dataset("rte", paper_cfg, data_dir=shared_data)
    first = rte.split("train")[0]
    assert first["premise"] == "No Weapons of Mass Destruction Found in Iraq Yet."
    assert first["hypothesis"] == "Weapons of Mass Destruction Found in Iraq."
    assert first["output"] == "false" and first["label"] == "not_entailment"


def test_paper_file_hashes_match_the_readme(paper_cfg, shared_data):
    sst2 = load_dataset("sst2", paper_cfg, data_dir=shared_data)
    assert sst2.files == {
        "sst2/stsa.binary.train": "71c04bcc41291fa47454dd670df701b14ee9249156babeaac404cfe2c8d74338",
        "sst2/stsa.binary.test": "6a80dc9b9a0db2d3b37f2f809304febad31c90ab67a5b4157b7d9f881c53ef5b",
    }
    cb = load_dataset("cb", paper_cfg, data_dir=shared_data)
    assert cb.files["cb/val.jsonl"] == "c6125587e9601560cb16ea223c33964c5a915568d2af68a81f651b6ef25395ec"


def test_data_dir_from_config_is_used_when_not_given(paper_cfg, shared_data):
    cfg = copy.deepcopy(paper_cfg)
    cfg["data_dir"] = str(shared_data)
    assert len(load_dataset("cb", cfg).split("test")) == 56


def test_snli_single_file_split_in_halves_deterministically(paper_cfg, shared_data):
    a = load_dataset("snli", paper_cfg, data_dir=shared_data)
    b = load_dataset("snli", paper_cfg, data_dir=shared_data)
    # snli_dev/dev.jsonl: 9,842 pairs -> two halves of 4,921
    assert len(a.split("train")) == 4921
    assert len(a.split("test")) == 4921
    assert a.splits == b.splits
    assert a.label_words == PAPER_LABEL_WORDS["snli"]

    # together the halves are the whole file (counted here from the raw JSON lines)
    raw = [json.loads(line) for line in (shared_data / "snli_dev" / "dev.jsonl").read_text().splitlines() if line.strip()]
    want = collections.Counter((r["premise"].strip(), r["hypothesis"].strip(), r["label"]) for r in raw)
    got = collections.Counter((r["premise"], r["hypothesis"], r["label"]) for r in a.split("train") + a.split("test"))
    assert got == want
    # README counts of the dev split
    assert collections.Counter(r["output"] for r in a.split("train") + a.split("test")) == {
        "yes": 3329, "maybe": 3235, "no": 3278}
    # not the first half / second half of the file: the split is shuffled
    assert [r["premise"] for r in a.split("test")] != [r["premise"].strip() for r in raw[:4921]]


def test_snli_split_seed_changes_the_split(paper_cfg, shared_data):
    cfg = copy.deepcopy(paper_cfg)
    cfg["datasets"]["snli"]["split_seed"] = 1
    a = load_dataset("snli", paper_cfg, data_dir=shared_data)
    b = load_dataset("snli", cfg, data_dir=shared_data)
    assert len(b.split("test")) == 4921
    assert a.split("test") != b.split("test")


# ------------------------------------------------------------------ builtin tasks
BUILTIN_NAMES = ["sentiment_lexicon", "country_continent", "topic_noun", "word_language", "country_capital",
                 "capitalize", "antonym", "present_past", "singular_plural", "english_french", "country_currency",
                 "lowercase", "masculine_feminine", "english_french_feminine"]


def test_default_config_lists_the_builtin_datasets(default_cfg):
    texts = {n for n, e in default_cfg["datasets"].items() if e.get("task", n) in BUILTIN_TEXTS}
    assert texts == {"english_essays"}
    assert sorted(set(default_cfg["datasets"]) - texts) == sorted(BUILTIN_NAMES)


@pytest.mark.parametrize("name", BUILTIN_NAMES)
def test_builtin_dataset_splits_disjoint_complete_deterministic(name, default_cfg):
    a = load_dataset(name, default_cfg)
    b = load_dataset(name, default_cfg)
    assert a.splits == b.splits
    assert a.source == "builtin"
    raw = BUILTIN_TASKS[name]["examples"]
    train = [r["input"] for r in a.split("train")]
    test = [r["input"] for r in a.split("test")]
    assert not set(train) & set(test)
    assert sorted(train + test) == sorted(r["input"] for r in raw)
    # the config's datasets.<name>.test_fraction where it sets one (the gender tasks of L7), else
    # the task's own (icl_heads/builtin_data/<task>.json), rounded
    fraction = default_cfg["datasets"][name].get("test_fraction", BUILTIN_TASKS[name]["test_fraction"])
    assert len(test) == round(len(raw) * fraction)
    assert a.kind == BUILTIN_TASKS[name]["kind"]
    if a.kind == "classification":
        words = BUILTIN_TASKS[name]["label_words"]
        assert a.label_words == words
        raw_label = {r["input"]: r["output"] for r in raw}
        for r in a.split("train") + a.split("test"):
            assert r["label"] == raw_label[r["input"]]
            assert r["output"] == words[r["label"]]
    else:
        assert a.label_words is None
        raw_out = {r["input"]: r["output"] for r in raw}
        for r in a.split("train") + a.split("test"):
            assert r["output"] == raw_out[r["input"]]


def test_builtin_loading_does_not_modify_the_shipped_task(default_cfg):
    before = copy.deepcopy(BUILTIN_TASKS["sentiment_lexicon"])
    load_dataset("sentiment_lexicon", default_cfg)
    assert BUILTIN_TASKS["sentiment_lexicon"] == before


def test_builtin_sentiment_examples():
    cfg = {"datasets": {"s": {"source": "builtin", "task": "sentiment_lexicon"}}}
    t = load_dataset("s", cfg)
    every = {r["input"]: r["output"] for r in t.split("train") + t.split("test")}
    assert every["good"] == "positive"
    assert every["terrible"] == "negative"
    assert t.template["query"] == "Input: {input}\nOutput:"


# ------------------------------------------------------------------ errors
def test_missing_data_dir_names_path_and_key(paper_cfg, tmp_path):
    empty = tmp_path / "nodata"
    empty.mkdir()
    with pytest.raises(DataError) as ei:
        load_dataset("sst2", paper_cfg, data_dir=empty)
    msg = str(ei.value)
    assert str(empty / "sst2" / "stsa.binary.train") in msg
    assert "data_dir" in msg
    assert "datasets.sst2.files" in msg


def test_missing_file_entry_names_path_and_split_key(paper_cfg, shared_data):
    cfg = copy.deepcopy(paper_cfg)
    cfg["datasets"]["cb"]["files"]["test"] = "cb/no_such_file.jsonl"
    with pytest.raises(DataError) as ei:
        load_dataset("cb", cfg, data_dir=shared_data)
    msg = str(ei.value)
    assert str(shared_data / "cb" / "no_such_file.jsonl") in msg
    assert "datasets.cb.files.test" in msg
    assert "data_dir" in msg


def test_unknown_dataset_lists_known_ones(paper_cfg):
    with pytest.raises(ConfigError) as ei:
        load_dataset("sst3", paper_cfg)
    msg = str(ei.value)
    assert "sst3" in msg
    for known in PAPER_LABEL_WORDS:
        assert known in msg


def test_label_not_in_label_words_names_label_and_key(paper_cfg, shared_data):
    cfg = copy.deepcopy(paper_cfg)
    cfg["datasets"]["sst2"]["label_words"] = {"0": "negative"}
    with pytest.raises(ConfigError) as ei:
        load_dataset("sst2", cfg, data_dir=shared_data)
    msg = str(ei.value)
    assert "'1'" in msg
    assert "datasets.sst2.label_words" in msg

    cfg["datasets"]["trec"]["label_words"].pop("ABBR")
    with pytest.raises(ConfigError) as ei:
        load_dataset("trec", cfg, data_dir=shared_data)
    assert "ABBR" in str(ei.value)
    assert "datasets.trec.label_words" in str(ei.value)


# ------------------------------------------------------------------ ICL task JSON
def _icl_cfg(files):
    return {"datasets": {"t": {"source": "local", "format": "icl_json", "files": files,
                               "template": {"query": "Q: {input}\nA:"}}}}


def test_icl_json_task_loads(shared_data):
    cfg = _icl_cfg({"train": "icl_tasks/abstractive/antonym_train.json",
                    "test": "icl_tasks/abstractive/antonym_val.json"})
    t = load_dataset("t", cfg, data_dir=shared_data)
    assert t.kind == "generation"
    assert t.label_words is None
    assert len(t.split("train")) == 1678
    assert len(t.split("test")) == 720
    assert t.split("train")[0] == {"input": "curl", "output": "straight"}
    assert t.split("test")[0] == {"input": "unequal", "output": "equal"}
    assert t.files["icl_tasks/abstractive/antonym_train.json"] == (
        "c718f38d7b39a7e2df8c038ee9d40ac81d1e0eabb070f354acc72659a7bac05b")
    assert t.template["separator"] == "\n\n"


def test_icl_json_integer_outputs_become_strings(shared_data):
    cfg = _icl_cfg({"train": "icl_tasks/new_tasks/capital_index_train.json",
                    "test": "icl_tasks/new_tasks/capital_index_val.json"})
    t = load_dataset("t", cfg, data_dir=shared_data)
    assert t.split("train")[0] == {"input": "keY", "output": "3"}
    assert len(t.split("test")) == 245


def test_invalid_icl_json_gives_clear_data_error(shared_data):
    cfg = _icl_cfg({"train": "icl_tasks/new_tasks/french-english_train.json",
                    "test": "icl_tasks/new_tasks/french-english.json"})
    with pytest.raises(DataError) as ei:
        load_dataset("t", cfg, data_dir=shared_data)
    msg = str(ei.value)
    assert str(shared_data / "icl_tasks" / "new_tasks" / "french-english.json") in msg
    assert "not valid JSON" in msg
    assert "_train" in msg and "_val" in msg  # the hint to use the valid split files


def test_icl_json_record_without_output_gives_data_error(tmp_path):
    (tmp_path / "bad.json").write_text(json.dumps([{"input": "a", "output": "b"}, {"input": "c"}]))
    cfg = _icl_cfg({"train": "bad.json", "test": "bad.json"})
    with pytest.raises(DataError) as ei:
        load_dataset("t", cfg, data_dir=tmp_path)
    assert "bad.json" in str(ei.value)


AG_NEWS_CSV = '''Class Index,Title,Description
3,Wall St. Bears Claw Back Into the Black,"Short-sellers, Wall Street's dwindling band of ultra-cynics, are seeing green again."
4,"Space probe, launched in 2004, reaches comet",The probe sent back its first pictures on Tuesday.
2,Phelps wins again,"The swimmer took his sixth gold medal, a record."
1,Talks resume in Geneva,Delegates of both sides met for a second day.
'''


def ag_news_entry(fmt="csv", **over):
    return {"source": "local", "format": fmt, "files": {"train": "ag/train.csv", "test": "ag/test.csv"},
            "fields": {"title": "Title", "text": "Description"}, "label_key": "Class Index",
            "label_words": {"1": "world", "2": "sports", "3": "business", "4": "science"},
            "template": {"query": "Title: {title}\nText: {text}\nTopic:"}, **over}


def test_a_csv_of_a_new_dataset_loads_from_a_config_entry_alone(tmp_path):
    """AG News in its CSV shape (header Class Index,Title,Description; quoted fields holding commas),
    read by the datasets library's csv builder: fields mapped, labels mapped to words, the sha256
    of the file as given in the provenance; a wrong column names the config key, at DAG build too."""
    import hashlib

    (tmp_path / "ag").mkdir()
    for split in ("train", "test"):
        (tmp_path / "ag" / f"{split}.csv").write_text(AG_NEWS_CSV)
    cfg = {"data_dir": str(tmp_path), "datasets": {"ag_news": ag_news_entry()}}
    task = load_dataset("ag_news", cfg)
    rows = task.split("test")
    assert [r["output"] for r in rows] == ["business", "science", "sports", "world"]
    assert rows[1]["title"] == "Space probe, launched in 2004, reaches comet"
    assert rows[0]["text"].startswith("Short-sellers, Wall Street's")
    assert sorted(task.label_set) == ["business", "science", "sports", "world"]
    want = hashlib.sha256(AG_NEWS_CSV.encode()).hexdigest()
    assert task.provenance()["files"]["ag/test.csv"] == want
    # the same file through parquet (written by pandas): the same rows
    import pandas as pd

    for split in ("train", "test"):
        pd.read_csv(tmp_path / "ag" / f"{split}.csv").to_parquet(tmp_path / "ag" / f"{split}.parquet")
    pq = ag_news_entry("parquet", files={"train": "ag/train.parquet", "test": "ag/test.parquet"})
    assert load_dataset("ag_news", {"data_dir": str(tmp_path), "datasets": {"ag_news": pq}}).split("test") == rows
    # a wrong label column, and a tab-separated file declared csv: errors naming the key
    bad = {"data_dir": str(tmp_path), "datasets": {"ag_news": ag_news_entry(label_key="class")}}
    for read in (load_dataset, peek_dataset):   # peek_dataset: the DAG-build check (config.check_data)
        with pytest.raises(DataError, match=r"datasets\.ag_news\.label_key.*'class'.*Class Index"):
            read("ag_news", bad)
    (tmp_path / "ag" / "test.csv").write_text(AG_NEWS_CSV.replace(",", "\t"))
    with pytest.raises(DataError, match=r"datasets\.ag_news\.format.*tab-separated"):
        load_dataset("ag_news", cfg)
