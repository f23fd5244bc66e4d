"""Source prompt_set (ready prompts from a JSON/JSONL file) and given induction sequences
(induction.sequences): the same prompts, written out and read back, build the same token
sequences as the internal builder, under every perturbation; bad files fail naming the key."""
from __future__ import annotations

import json

import pytest
import torch

from icl_heads.data import load_dataset
from icl_heads.errors import ConfigError, DataError
from icl_heads.prompts import build_prompts

WORDS_TASK = {  # a classification task in the words of conftest's word-level tokenizer
    "kind": "classification",
    "template": {"query": "Review: {input}\nSentiment:"},
    "label_words": {"0": "negative", "1": "positive"},
}


def _builtin_like(tmp_path, name="rev"):
    """A local jsonl classification dataset (train / test) over the test tokenizer's words."""
    train = [("the movie was great", "1"), ("a film was awful", "0"), ("the film was fun", "1"),
             ("a movie was dull", "0"), ("the movie was lovely", "1"), ("a film was boring", "0")]
    test = [("the film was good", "1"), ("a movie was bad", "0"), ("the movie was fine", "1"),
            ("a film was terrible", "0")]
    for split, rows in (("train", train), ("test", test)):
        (tmp_path / f"{split}.jsonl").write_text("".join(json.dumps({"input": t, "label": y}) + "\n" for t, y in rows))
    return {"source": "local", "format": "jsonl", "files": {"train": "train.jsonl", "test": "test.jsonl"},
            "kind": "classification", "label_words": WORDS_TASK["label_words"], "template": WORDS_TASK["template"]}


def _write_prompt_file(path, task, prompts, jsonl=True):
    """The prompts as a prompt_set file: each with its demonstrations, query and answer."""
    train, test = task.split("train"), task.split("test")
    recs = [{"demonstrations": [{"input": train[i]["input"], "output": train[i]["output"]} for i in p.demo_indices],
             "input": test[p.index]["input"], "output": test[p.index]["output"]} for p in prompts]
    path.write_text("".join(json.dumps(r) + "\n" for r in recs) if jsonl else json.dumps(recs))
    return path


@pytest.mark.parametrize("perturbation", ["none", "shuffle_labels", "shuffle_text", "labels_01", "flip_labels"])
def test_a_written_prompt_set_builds_the_same_prompts(tmp_path, tokenizer, perturbation):
    cfg = {"datasets": {"rev": _builtin_like(tmp_path)}}
    task = load_dataset("rev", cfg, tmp_path)
    kw = dict(n_shot=3, n_queries=4, seed=11, balanced=True)
    internal = build_prompts(task, tokenizer, **kw, perturbation=perturbation)
    _write_prompt_file(tmp_path / "given.jsonl", task, build_prompts(task, tokenizer, **kw))
    cfg["datasets"]["rev"] = {"source": "prompt_set", "path": "given.jsonl", "kind": "classification",
                              "template": WORDS_TASK["template"]}
    given = load_dataset("rev", cfg, tmp_path)
    assert given.label_set == ["negative", "positive"]   # every output, sorted
    got = build_prompts(given, tokenizer, **kw, perturbation=perturbation)
    assert [p.text for p in got] == [p.text for p in internal]
    for a, b in zip(got, internal):
        assert (a.input_ids, a.label_positions, a.query_positions, a.answer, a.answer_token) == \
               (b.input_ids, b.label_positions, b.query_positions, b.answer, b.answer_token)
    assert given.provenance()["files"]["given.jsonl"]  # the file's sha256


def test_prompt_set_json_list_zero_shot_and_fewer_demos(tmp_path, tokenizer):
    cfg = {"datasets": {"rev": _builtin_like(tmp_path)}}
    task = load_dataset("rev", cfg, tmp_path)
    prompts = build_prompts(task, tokenizer, n_shot=3, n_queries=2, seed=1)
    _write_prompt_file(tmp_path / "given.json", task, prompts, jsonl=False)
    cfg["datasets"]["rev"] = {"source": "prompt_set", "path": "given.json", "kind": "classification",
                              "template": WORDS_TASK["template"]}
    given = load_dataset("rev", cfg, tmp_path)
    zs = build_prompts(given, tokenizer, n_shot=0, n_queries=2, seed=1)
    assert [p.text for p in zs] == [p.text for p in build_prompts(task, tokenizer, n_shot=0, n_queries=2, seed=1)]
    two = build_prompts(given, tokenizer, n_shot=2, n_queries=2, seed=1)   # the first two given demonstrations
    for p, b in zip(two, prompts):  # its demonstrations are the first two of the three given
        assert b.text.startswith(p.text.rsplit("\n\n", 1)[0] + "\n\n")
    assert [len(p.label_positions) for p in two] == [2, 2]
    with pytest.raises(ConfigError, match="fewer than the 4"):
        build_prompts(given, tokenizer, n_shot=4, n_queries=2, seed=1)


def test_text_prompts_are_used_as_written_and_refuse_variants(tmp_path, tokenizer):
    text = "Review: the movie was great\nSentiment: positive\n\nReview: a film was bad\nSentiment:"
    (tmp_path / "t.jsonl").write_text(json.dumps({"text": text, "output": "negative"}) + "\n")
    cfg = {"datasets": {"t": {"source": "prompt_set", "path": "t.jsonl", "kind": "classification"}}}
    task = load_dataset("t", cfg, tmp_path)
    (p,) = build_prompts(task, tokenizer, n_shot=1, seed=0)
    assert p.text.rstrip() == text and p.answer == "negative"
    assert tokenizer.decode([p.input_ids[i] for i in p.query_positions]).split()[:2] == ["Review", ":"]
    for kw in ({"perturbation": "shuffle_labels", "n_shot": 1}, {"n_shot": 0}):
        with pytest.raises(ConfigError, match="datasets.t.path"):
            build_prompts(task, tokenizer, seed=0, **kw)


@pytest.mark.parametrize(("content", "match"), [
    ("not json", "not a JSON list or JSONL"),
    (json.dumps({"input": "x"}) + "\n", "non-empty string `output`"),
    (json.dumps({"output": "y"}) + "\n", "give `input`"),
    (json.dumps({"input": "x", "output": "y", "demonstrations": [{"input": "a"}]}) + "\n", "demonstrations"),
    ("", "holds no prompts"),
])
def test_bad_prompt_files_name_the_key(tmp_path, content, match):
    (tmp_path / "p.jsonl").write_text(content)
    cfg = {"datasets": {"p": {"source": "prompt_set", "path": "p.jsonl"}}}
    with pytest.raises(DataError, match=match) as e:
        load_dataset("p", cfg, tmp_path)
    assert "datasets.p.path" in str(e.value)
    with pytest.raises(DataError, match="does not exist"):
        load_dataset("p", {"datasets": {"p": {"source": "prompt_set", "path": "missing.jsonl"}}}, tmp_path)


def test_given_induction_sequences_score_as_the_same_random_ones(tiny_hooked, tmp_path):
    """induction.sequences: the first halves the random path draws, given as a file, give the
    same scores; a perfect copy task's repeated half is what is scored."""
    from icl_heads.heads import induction_scores, read_sequences
    from icl_heads.scores import induction_sequences, ordinary_token_ids

    model = tiny_hooked
    seed, n, T = 5, 3, 6
    vocab = ordinary_token_ids(model.tokenizer, min(model.cfg.vocab_size, len(model.tokenizer)))
    seqs = induction_sequences(n, T, vocab, model.tokenizer.bos_token_id, torch.Generator().manual_seed(seed))
    halves = seqs[:, 1:1 + T].tolist()
    (tmp_path / "s.json").write_text(json.dumps(halves))
    given = read_sequences(tmp_path / "s.json", model.cfg.vocab_size)
    a = induction_scores(model, n, T, 2, seed, progress=False)
    b = induction_scores(model, 99, 99, 2, 0, progress=False, given=given)
    assert torch.equal(a, b)
    for bad, match in (([[1, 2], [3]], "one length"), ([], "non-empty list"), ([[10 ** 6]], "outside")):
        (tmp_path / "b.json").write_text(json.dumps(bad))
        with pytest.raises(DataError, match=match):
            read_sequences(tmp_path / "b.json", model.cfg.vocab_size)
