"""n-shot prompts on a hand-built task with the word-level tokenizer of conftest.

Every expected prompt text is written out here from the documented format
`Review: <input>\\nSentiment: <answer>` + separator, so the checks do not rely
on the code that builds the prompts."""
from __future__ import annotations

import collections

import pytest

from conftest import WORDS
from icl_heads.data import TaskData
from icl_heads.errors import ConfigError
from icl_heads.prompts import build_prompts, label_tokens

TEMPLATE = {"query": "Review: {input}\nSentiment:", "separator": "\n\n"}
POS = ["the movie was great", "the film was good", "a lovely film", "the movie was fun", "a fine movie",
       "the film was lovely"]
NEG = ["the movie was bad", "the film was awful", "a terrible movie", "the movie was dull", "a boring film",
       "the film was terrible"]
QUERIES = [("a great film", "positive"), ("the film was boring", "negative"), ("a fun movie", "positive"),
           ("the movie was awful", "negative"), ("a good movie", "positive")]


def _row(text, word, raw):
    return {"input": text, "output": word, "label": raw}


def make_task(name="toy"):
    train = []
    for p, n in zip(POS, NEG):
        train.append(_row(p, "positive", "pos"))
        train.append(_row(n, "negative", "neg"))
    test = [_row(q, w, "pos" if w == "positive" else "neg") for q, w in QUERIES]
    return TaskData(name=name, kind="classification", splits={"train": train, "test": test},
                    template=dict(TEMPLATE), label_words={"pos": "positive", "neg": "negative"})


def make_three_label_task():
    words = {"c": "cat", "d": "dog", "r": "red"}
    train = [_row(t, words[lab], lab) for t, lab in [
        ("a good movie", "c"), ("a bad movie", "d"), ("a fine film", "r"), ("the movie was fun", "c"),
        ("the film was dull", "d"), ("a lovely film", "r"), ("the movie was great", "c"),
        ("the film was awful", "d"), ("a boring movie", "r")]]
    test = [_row("a great film", "cat", "c"), _row("a terrible film", "dog", "d")]
    return TaskData(name="three", kind="classification", splits={"train": train, "test": test},
                    template={"query": "Word: {input}\nAnswer:", "separator": "\n\n"},
                    label_words=words)


def expected_text(demos, query, head="Review", tail="Sentiment"):
    """demos: list of (input, answer) pairs; the documented prompt format."""
    return "".join(f"{head}: {x}\n{tail}: {y}\n\n" for x, y in demos) + f"{head}: {query}\n{tail}:"


def tokens_of(tokenizer, p):
    return tokenizer.convert_ids_to_tokens(p.input_ids)


def test_vocabulary_assumptions(tokenizer):
    # the test data only use words of the tiny vocabulary, so every word is one token
    vocab = tokenizer.get_vocab()
    for text in POS + NEG + [q for q, _ in QUERIES]:
        assert all(w in WORDS for w in text.split())
    assert tokenizer(" positive", add_special_tokens=False)["input_ids"] == [vocab["positive"]]


def test_clean_prompt_text_and_positions(tokenizer):
    task = make_task()
    train = task.split("train")
    vocab = tokenizer.get_vocab()
    prompts = build_prompts(task, tokenizer, n_shot=4, seed=0)
    assert [p.index for p in prompts] == list(range(len(QUERIES)))
    for p, (query, answer) in zip(prompts, QUERIES):
        demos = [(train[j]["input"], train[j]["output"]) for j in p.demo_indices]
        assert len(demos) == 4
        assert len(set(p.demo_indices)) == 4
        assert p.text == expected_text(demos, query)
        toks = tokens_of(tokenizer, p)
        assert p.input_ids == tokenizer(p.text)["input_ids"]
        # labels: exactly the demonstration label words, one per demonstration
        assert len(p.label_positions) == 4
        assert [toks[i] for i in p.label_positions] == [y for _, y in demos]
        # each label token is followed by the next demo's "Review" (or the query's)
        assert [toks[i + 1] for i in p.label_positions] == ["Review"] * 4
        # query: exactly its words, just before the final "Sentiment :"
        n, k = len(toks), len(query.split())
        assert p.query_positions == list(range(n - 2 - k, n - 2))
        assert [toks[i] for i in p.query_positions] == query.split()
        # final position is the last token
        assert p.final == n - 1
        assert toks[-2:] == ["Sentiment", ":"]
        assert p.to_json()["final"] == n - 1
        # answer token: first token of " " + answer
        assert p.answer == answer
        assert p.answer_token == vocab[answer]


def test_answer_token_is_first_token_of_a_multiword_answer(tokenizer):
    vocab = tokenizer.get_vocab()
    train = [{"input": "cat", "output": "red dog"}, {"input": "dog", "output": "blue cat"},
             {"input": "red", "output": "a cat"}]
    test = [{"input": "blue", "output": "yes no"}]
    task = TaskData(name="gen", kind="generation", splits={"train": train, "test": test},
                    template={"query": "Word: {input}\nAnswer:", "separator": "\n\n"})
    (p,) = build_prompts(task, tokenizer, n_shot=2, seed=0)
    assert p.answer == "yes no"
    assert p.answer_token == vocab["yes"]
    demos = [(train[j]["input"], train[j]["output"]) for j in p.demo_indices]
    assert p.text == expected_text(demos, "blue", head="Word", tail="Answer")
    toks = tokens_of(tokenizer, p)
    # label position = first token of each demonstration answer
    assert [toks[i] for i in p.label_positions] == [y.split()[0] for _, y in demos]
    assert [toks[i] for i in p.query_positions] == ["blue"]


def test_prompt_with_two_query_fields_covers_both(tokenizer):
    train = [{"premise": "the cat", "hypothesis": "a dog", "output": "yes", "label": "e"},
             {"premise": "the dog", "hypothesis": "a cat", "output": "no", "label": "c"}]
    test = [{"premise": "a red cat", "hypothesis": "the blue dog", "output": "no", "label": "c"}]
    task = TaskData(name="nli", kind="classification", splits={"train": train, "test": test},
                    template={"query": "Word: {premise} , {hypothesis}\nAnswer:", "separator": "\n\n"},
                    label_words={"e": "yes", "c": "no"})
    (p,) = build_prompts(task, tokenizer, n_shot=2, seed=0)
    toks = tokens_of(tokenizer, p)
    assert [toks[i] for i in p.query_positions] == ["a", "red", "cat", "the", "blue", "dog"]
    assert p.text.endswith("Word: a red cat , the blue dog\nAnswer:")


def test_same_seed_same_prompts_other_seed_other_demos(tokenizer):
    task = make_task()
    a = build_prompts(task, tokenizer, n_shot=4, seed=7)
    b = build_prompts(make_task(), tokenizer, n_shot=4, seed=7)
    assert [p.to_json() for p in a] == [p.to_json() for p in b]
    c = build_prompts(task, tokenizer, n_shot=4, seed=8)
    assert [p.demo_indices for p in a] != [p.demo_indices for p in c]
    assert [p.text for p in a] != [p.text for p in c]
    # queries and answers do not depend on the seed
    assert [(p.index, p.answer) for p in a] == [(p.index, p.answer) for p in c]


def test_demos_depend_on_dataset_name(tokenizer):
    a = build_prompts(make_task("toy"), tokenizer, n_shot=4, seed=0)
    b = build_prompts(make_task("other"), tokenizer, n_shot=4, seed=0)
    assert [p.demo_indices for p in a] != [p.demo_indices for p in b]


def test_demos_of_a_query_shared_across_prompt_sets(tokenizer):
    task = make_task()
    clean = build_prompts(task, tokenizer, n_shot=4, seed=3)
    by_index = {p.index: p.demo_indices for p in clean}
    for pert in ("shuffle_text", "labels_01", "flip_labels"):
        pp = build_prompts(task, tokenizer, n_shot=4, seed=3, perturbation=pert)
        assert {p.index: p.demo_indices for p in pp} == by_index
    # a set starting elsewhere (e.g. the held-out evaluation queries) gives query i the same demos
    part = build_prompts(task, tokenizer, n_shot=4, seed=3, start=2, n_queries=2)
    assert [p.index for p in part] == [2, 3]
    assert [p.demo_indices for p in part] == [by_index[2], by_index[3]]
    assert [p.text for p in part] == [clean[2].text, clean[3].text]
    # zero-shot: just the query, the same text that ends the clean prompt
    zero = build_prompts(task, tokenizer, n_shot=0, seed=3)
    for z, c, (query, _) in zip(zero, clean, QUERIES):
        assert z.demo_indices == [] and z.label_positions == []
        assert z.text == f"Review: {query}\nSentiment:"
        assert c.text.endswith("\n\n" + z.text)


def test_flip_labels_two_labels(tokenizer):
    task = make_task()
    train = task.split("train")
    flip = {"positive": "negative", "negative": "positive"}
    clean = build_prompts(task, tokenizer, n_shot=4, seed=1)
    pert = build_prompts(task, tokenizer, n_shot=4, seed=1, perturbation="flip_labels")
    for c, p, (query, answer) in zip(clean, pert, QUERIES):
        demos = [(train[j]["input"], flip[train[j]["output"]]) for j in p.demo_indices]
        assert p.text == expected_text(demos, query)
        toks = tokens_of(tokenizer, p)
        assert [toks[i] for i in p.label_positions] == [y for _, y in demos]
        assert p.label_positions == c.label_positions
        assert p.answer == flip[answer]  # accuracy follows the (flipped) mapping the demonstrations teach


def test_flip_labels_three_labels_maps_to_next(tokenizer):
    task = make_three_label_task()
    train = task.split("train")
    nxt = {"cat": "dog", "dog": "red", "red": "cat"}
    pert = build_prompts(task, tokenizer, n_shot=6, seed=0, perturbation="flip_labels")
    for p, q in zip(pert, task.split("test")):
        demos = [(train[j]["input"], nxt[train[j]["output"]]) for j in p.demo_indices]
        assert p.text == expected_text(demos, q["input"], head="Word", tail="Answer")


def test_labels_01(tokenizer):
    task = make_task()
    train = task.split("train")
    as01 = {"positive": "0", "negative": "1"}  # index in label_words order
    clean = build_prompts(task, tokenizer, n_shot=4, seed=2)
    pert = build_prompts(task, tokenizer, n_shot=4, seed=2, perturbation="labels_01")
    for c, p, (query, answer) in zip(clean, pert, QUERIES):
        demos = [(train[j]["input"], as01[train[j]["output"]]) for j in p.demo_indices]
        assert p.text == expected_text(demos, query)
        offsets = tokenizer(p.text, return_offsets_mapping=True)["offset_mapping"]
        assert [p.text[slice(*offsets[i])] for i in p.label_positions] == [y for _, y in demos]
        assert p.label_positions == c.label_positions
        assert p.answer == as01[answer]


def _parse_demos(text, n):
    parts = text.split("\n\n")
    assert len(parts) == n + 1
    out = []
    for part in parts[:-1]:
        head, label = part.split("\nSentiment: ")
        assert head.startswith("Review: ")
        out.append((head[len("Review: "):], label))
    return out, parts[-1]


def test_shuffle_text_keeps_words_and_label_tokens(tokenizer):
    task = make_task()
    train = task.split("train")
    clean = build_prompts(task, tokenizer, n_shot=6, seed=5)
    pert = build_prompts(task, tokenizer, n_shot=6, seed=5, perturbation="shuffle_text")
    reordered = 0
    for c, p in zip(clean, pert):
        demos, query_part = _parse_demos(p.text, 6)
        for (x, y), j in zip(demos, p.demo_indices):
            assert sorted(x.split()) == sorted(train[j]["input"].split())
            assert y == train[j]["output"]
            reordered += x != train[j]["input"]
        # same label positions and label tokens as the clean prompt
        assert p.label_positions == c.label_positions
        assert [p.input_ids[i] for i in p.label_positions] == [c.input_ids[i] for i in c.label_positions]
        assert query_part == c.text.split("\n\n")[-1]
    assert reordered > 0  # the perturbation does change word order


@pytest.mark.parametrize("pert", ["shuffle_text", "labels_01", "flip_labels"])
def test_query_never_perturbed(tokenizer, pert):
    task = make_task()
    clean = build_prompts(task, tokenizer, n_shot=4, seed=9)
    pp = build_prompts(task, tokenizer, n_shot=4, seed=9, perturbation=pert)
    for c, p, (query, answer) in zip(clean, pp, QUERIES):
        assert p.text.endswith(f"\n\nReview: {query}\nSentiment:")
        assert [p.input_ids[i] for i in p.query_positions] == [c.input_ids[i] for i in c.query_positions]
        assert tokens_of(tokenizer, p)[p.query_positions[0]:p.query_positions[-1] + 1] == query.split()
        # the answer follows the mapping the demonstrations teach
        expected = {"shuffle_text": answer, "flip_labels": {"positive": "negative", "negative": "positive"}[answer],
                    "labels_01": {"positive": "0", "negative": "1"}[answer]}[pert]  # index in label_words order
        assert p.answer == expected
        assert p.answer_token == tokenizer(" " + expected, add_special_tokens=False)["input_ids"][0]
        assert p.final == len(p.input_ids) - 1


def test_perturbed_prompts_deterministic(tokenizer):
    for pert in ("shuffle_text", "labels_01", "flip_labels"):
        a = build_prompts(make_task(), tokenizer, n_shot=4, seed=4, perturbation=pert)
        b = build_prompts(make_task(), tokenizer, n_shot=4, seed=4, perturbation=pert)
        assert [p.text for p in a] == [p.text for p in b]


def test_unknown_perturbation_is_an_error(tokenizer):
    with pytest.raises(ConfigError, match="reverse"):
        build_prompts(make_task(), tokenizer, n_shot=2, perturbation="reverse")


def test_colliding_label_words_name_both(tokenizer):
    # 'zebra' and 'yak' are not in the tiny vocabulary: both become <unk>
    task = make_task()
    task.label_words = {"pos": "zebra", "neg": "yak"}
    for rows in task.splits.values():
        for r in rows:
            r["output"] = task.label_words[r["label"]]
    with pytest.raises(ConfigError) as ei:
        build_prompts(task, tokenizer, n_shot=2)
    msg = str(ei.value)
    assert "'zebra'" in msg and "'yak'" in msg
    assert "datasets.toy.label_words" in msg
    with pytest.raises(ConfigError, match="zebra"):
        label_tokens(tokenizer, ["positive", "zebra", "yak"], "toy")
    assert label_tokens(tokenizer, ["positive", "negative"]) == [tokenizer.get_vocab()["positive"],
                                                                 tokenizer.get_vocab()["negative"]]


def test_balanced_demos_two_labels_eight_shots(tokenizer):
    task = make_task()
    train = task.split("train")
    for seed in range(3):
        for p in build_prompts(task, tokenizer, n_shot=8, seed=seed, balanced=True):
            assert len(p.demo_indices) == 8 and len(set(p.demo_indices)) == 8
            counts = collections.Counter(train[j]["output"] for j in p.demo_indices)
            assert counts == {"positive": 4, "negative": 4}
            toks = tokens_of(tokenizer, p)
            assert collections.Counter(toks[i] for i in p.label_positions) == {"positive": 4, "negative": 4}


def test_balanced_demos_three_labels(tokenizer):
    task = make_three_label_task()
    train = task.split("train")
    for p in build_prompts(task, tokenizer, n_shot=6, seed=0):
        assert collections.Counter(train[j]["output"] for j in p.demo_indices) == {"cat": 2, "dog": 2, "red": 2}


def test_too_many_shots_is_an_error(tokenizer):
    with pytest.raises(ConfigError, match="13"):
        build_prompts(make_task(), tokenizer, n_shot=13)


def test_positions_with_a_bos_token(tokenizer):
    # Gemma-style tokenizers prepend <bos>: every position shifts by one and still points at the right tokens
    from tokenizers.processors import TemplateProcessing

    tokenizer._tokenizer.post_processor = TemplateProcessing(single="<bos> $A", special_tokens=[("<bos>", 1)])
    task = make_task()
    train = task.split("train")
    for p, (query, _) in zip(build_prompts(task, tokenizer, n_shot=4, seed=0), QUERIES):
        toks = tokens_of(tokenizer, p)
        assert toks[0] == "<bos>"
        assert [toks[i] for i in p.label_positions] == [train[j]["output"] for j in p.demo_indices]
        assert [toks[i] for i in p.query_positions] == query.split()
        assert p.final == len(toks) - 1 and toks[p.final] == ":"


def test_changed_share_counts_prompts_whose_tokens_changed():
    """Hand-built prompts: one of four changed in its tokens and one in its answer token -> 0.5;
    a set against itself -> 0; different queries or lengths are an error."""
    from icl_heads.prompts import Prompt, changed_share

    base = [Prompt(index=i, text="", input_ids=[1, 2, i], answer="a", answer_token=7) for i in range(4)]
    pert = [Prompt(**{**vars(p)}) for p in base]
    pert[1] = Prompt(index=1, text="", input_ids=[2, 1, 1], answer="a", answer_token=7)
    pert[3] = Prompt(index=3, text="", input_ids=[1, 2, 3], answer="b", answer_token=8)
    assert changed_share(pert, base) == 0.5
    assert changed_share(base, base) == 0.0
    with pytest.raises(ValueError, match="same queries"):
        changed_share(pert[:3], base)
    with pytest.raises(ValueError, match="same order"):
        changed_share(pert[::-1], base)


def test_shuffled_text_of_single_word_inputs_changes_no_prompt(tokenizer):
    """Shuffling the words of single-word demonstration inputs is the identity (changed share 0),
    while the label perturbations change every prompt; on multi-word inputs the share is that of
    prompts whose text differs from the clean prompt's."""
    from icl_heads.prompts import changed_share

    multi = make_task()
    single = make_task("single")
    for split in single.splits.values():
        for r in split:
            r["input"] = r["input"].split()[-1]
    clean = build_prompts(single, tokenizer, n_shot=4, seed=1)
    assert changed_share(build_prompts(single, tokenizer, n_shot=4, seed=1, perturbation="shuffle_text"), clean) == 0.0
    for pert in ("labels_01", "flip_labels"):
        assert changed_share(build_prompts(single, tokenizer, n_shot=4, seed=1, perturbation=pert), clean) == 1.0
    clean = build_prompts(multi, tokenizer, n_shot=4, seed=1)
    shuffled = build_prompts(multi, tokenizer, n_shot=4, seed=1, perturbation="shuffle_text")
    by_text = sum(a.text != b.text for a, b in zip(shuffled, clean)) / len(clean)
    assert by_text > 0
    assert changed_share(shuffled, clean) == by_text
