"""Paper A pieces on hand-made cases: accuracy / TR ratio, geometry, rankings, evaluation
under interventions (batched equals one-by-one), mean activations, claims verdicts."""
import math

import numpy as np
import pandas as pd
import pytest
import torch

from icl_heads.cache import accuracy_and_tr_ratio
from icl_heads.claims import verdict
from icl_heads.interventions import mean_z, random_heads, steer
from icl_heads.model import AddAt, HeadAblation, evaluate, evaluate_one, first_touched_layer, left_pad
from icl_heads.prompts import Prompt
from icl_heads.stats import bootstrap_ci, paired_bootstrap
from icl_heads.tsla import (conditional_mean_percentage, consistency_rows, head_set_vector, layerwise_geometry,
                            layerwise_per_prompt, logit_difference, subspace_alignment, top_heads)


def test_accuracy_and_tr_ratio_on_hand_made_predictions():
    labels = torch.tensor([10, 11])
    argmax = torch.tensor([10, 11, 11, 99, 10])
    answer = torch.tensor([10, 10, 11, 11, 11])
    acc, tr = accuracy_and_tr_ratio(argmax, answer, labels)
    assert acc.tolist() == [1, 0, 1, 0, 0]
    assert tr.tolist() == [1, 1, 1, 0, 1]


def test_subspace_alignment_is_one_inside_the_label_span_and_zero_outside():
    W_Y = torch.tensor([[1.0, 1.0, 0, 0], [0, 1.0, 0, 0]])
    inside = torch.tensor([2.0, -3.0, 0, 0])
    outside = torch.tensor([0, 0, 5.0, -1.0])
    assert subspace_alignment(inside, W_Y).item() == pytest.approx(1.0, abs=1e-6)
    assert subspace_alignment(outside, W_Y).item() == pytest.approx(0.0, abs=1e-6)
    # 45 degrees: half in, half out
    assert subspace_alignment(torch.tensor([1.0, 0, 1.0, 0]), W_Y).item() == pytest.approx(1 / math.sqrt(2), rel=1e-6)


def test_logit_difference_known_case():
    W_Y = torch.eye(3, 4)
    h = torch.tensor([[3.0, 1.0, -1.0, 9.0]])
    assert logit_difference(h, W_Y, torch.tensor([0])).item() == pytest.approx(3.0)    # 3 - mean(1, -1)
    assert logit_difference(h, W_Y, torch.tensor([2])).item() == pytest.approx(-3.0)   # -1 - mean(3, 1)


def _scores_df(tr, tl, ind):
    L, H = tr.shape
    return pd.DataFrame({"layer": [l for l in range(L) for _ in range(H)], "head": [h for _ in range(L) for h in range(H)],
                         "tr": tr.flatten().tolist(), "tl": tl.flatten().tolist(), "induction": ind.flatten().tolist()})


def test_conditional_mean_percentage_on_a_constructed_ranking():
    # 10 heads; the top-10% IH head (one head) is the best TR head and the worst TL head.
    ind = torch.zeros(1, 10)
    ind[0, 7] = 1.0
    tr = torch.arange(10.0)[None].clone()
    tr[0, 7] = 100.0
    tl = torch.arange(10.0)[None].clone()
    tl[0, 7] = -100.0
    c = conditional_mean_percentage(_scores_df(tr, tl, ind), 10)
    assert c["tr"] == pytest.approx(10.0)    # rank 1 of 10
    assert c["tl"] == pytest.approx(100.0)   # rank 10 of 10


def test_consistency_rows_identical_and_reversed_datasets():
    tr = torch.arange(12.0).view(3, 4)
    a = _scores_df(tr, tr, tr)
    b = _scores_df(tr, -tr, tr)
    rows = {r["score"]: r for r in consistency_rows({"a": a, "b": b}, 25)}
    assert rows["TR"]["spearman_rho"] == pytest.approx(1.0) and rows["TR"]["jaccard"] == 1.0
    assert rows["TL"]["spearman_rho"] == pytest.approx(-1.0) and rows["TL"]["kendall_normalised"] == pytest.approx(0.0)


def test_head_set_vector_sums_mean_outputs():
    head_out = torch.zeros(2, 2, 2, 3)
    head_out[:, 0, 1] = torch.tensor([[1.0, 0, 0], [3.0, 0, 0]])  # mean (2, 0, 0)
    head_out[:, 1, 0] = torch.tensor([0, 1.0, 0])
    v = head_set_vector(head_out, [(0, 1), (1, 0)])
    assert v.tolist() == [2.0, 1.0, 0.0]


def test_layerwise_geometry_on_a_constructed_stream():
    # d=3, labels span e0; layer 0 writes along e0 (aligned), layer 1 writes along e2 (orthogonal)
    W_Y = torch.tensor([[1.0, 0, 0], [0.5, 0, 0]])
    head_out = torch.zeros(1, 2, 1, 3)
    head_out[0, 0, 0] = torch.tensor([2.0, 0, 0])
    head_out[0, 1, 0] = torch.tensor([0, 0, 2.0])
    resid = torch.tensor([[[0, 1.0, 0], [2.0, 1.0, 0], [2.0, 1.0, 2.0]]])
    t = layerwise_geometry(resid, head_out, W_Y, torch.tensor([0]), {0: 0, 1: 0}, {0: 0, 1: 0})
    assert t.tr_output_alignment.tolist() == pytest.approx([1.0, 0.0], abs=1e-6)
    assert t.hidden_alignment_change[0] > 0 and t.hidden_alignment_change[1] < 0


def test_layerwise_rows_of_a_resample_equal_the_table_recomputed_on_it():
    """T8's bootstrap averages the per-prompt rows of layerwise_per_prompt over a resample of the
    prompts instead of recomputing layerwise_geometry on it: the same numbers (float32 rounding)."""
    g = torch.Generator().manual_seed(0)
    B, L, H, d = 7, 4, 3, 6
    resid, head_out = torch.randn(B, L + 1, d, generator=g), torch.randn(B, L, H, d, generator=g)
    W_Y, y = torch.randn(3, d, generator=g), torch.randint(0, 3, (B,), generator=g)
    tr, tl = {l: l % H for l in range(L)}, {l: (l + 1) % H for l in range(L)}
    per = layerwise_per_prompt(resid, head_out, W_Y, y, tr, tl)
    idx = torch.tensor([3, 3, 0, 6, 1, 1, 5])
    direct = layerwise_geometry(resid[idx], head_out[idx], W_Y, y[idx], tr, tl)
    for k, v in per.items():
        assert v.shape == (B, L)
        assert v[idx].mean(0).double().numpy() == pytest.approx(direct[k].to_numpy(), abs=1e-6), k


def test_random_heads_are_reproducible_and_respect_exclusions():
    a = random_heads(4, 3, 5, seed=1)
    assert a == random_heads(4, 3, 5, seed=1) and len(set(a)) == 5
    assert random_heads(4, 3, 5, seed=2) != a
    excl = [(0, 0), (1, 1)]
    assert not set(random_heads(4, 3, 10, seed=3, exclude=excl)) & set(excl)


def _prompts(seqs, answers):
    return [Prompt(index=i, text="", input_ids=s, answer="", answer_token=a) for i, (s, a) in enumerate(zip(seqs, answers))]


SEQS = [[1, 5, 6, 7, 8], [1, 9, 10], [1, 11, 12, 13, 14, 15, 16], [1, 17]]


def test_evaluate_batched_equals_one_prompt_at_a_time_under_interventions(tiny_hooked):
    h = tiny_hooked
    prompts = _prompts(SEQS, [5, 6, 7, 8])
    ivs = [HeadAblation([(0, 1), (2, 3)], "zero"), steer(1, torch.randn(h.d_model))]
    batched = evaluate_one(h, prompts, [5, 6], ivs, batch_size=3)
    single = []
    for p in prompts:
        single.append(int(h.run(left_pad([p.input_ids], 0), ivs=ivs).logits.argmax(-1)))
    assert batched.argmax.tolist() == single
    assert batched.correct.tolist() == [float(a == p.answer_token) for a, p in zip(single, prompts)]


def test_evaluate_runs_a_repeated_condition_once_and_gives_it_the_same_result(tiny_hooked, monkeypatch):
    """Two names for the same head ablation (heads in another order) cost one pass per batch and
    get the result the condition has when evaluated alone; a mean ablation whose reference is
    another tensor object, and a different head set, are run on their own."""
    h = tiny_hooked
    prompts = _prompts(SEQS, [5, 6, 7, 8])
    means = torch.randn(h.n_layers, h.n_heads, h.d_head)
    conds = {"a": [HeadAblation([(0, 1), (2, 3)], "zero")], "b": [HeadAblation([(2, 3), (0, 1)], "zero")],
             "c": [HeadAblation([(0, 1)], "zero")], "m1": [HeadAblation([(1, 0)], "mean", means)],
             "m2": [HeadAblation([(1, 0)], "mean", means.clone())], "m3": [HeadAblation([(1, 0)], "mean", means)]}
    calls = []
    run = h.run
    monkeypatch.setattr(h, "run", lambda *a, **k: calls.append(1) or run(*a, **k))
    got = evaluate(h, prompts, [5, 6], conds, batch_size=len(prompts), stack_rows=0)
    assert len(calls) == 4   # a (= b), c, m1 (= m3), m2
    assert list(got) == list(conds)
    monkeypatch.setattr(h, "run", run)
    for name in ("b", "m3", "c"):
        alone = evaluate_one(h, prompts, [5, 6], conds[name], batch_size=len(prompts))
        assert torch.equal(got[name].argmax, alone.argmax)
        torch.testing.assert_close(got[name].logp_answer, alone.logp_answer, atol=1e-6, rtol=0)
    torch.testing.assert_close(got["m2"].logp_answer, got["m1"].logp_answer, atol=1e-6, rtol=0)
    assert got["a"].logp_answer is not got["b"].logp_answer   # own tensors


def test_steer_adds_at_the_final_position_of_the_chosen_layer():
    iv = steer(3, torch.ones(4))
    assert isinstance(iv, AddAt) and iv.point == "blocks.3.hook_resid_pre" and tuple(iv.positions) == (-1,)


def test_mean_z_is_the_mean_over_real_positions(tiny_hooked):
    h = tiny_hooked
    prompts = _prompts(SEQS[:3], [0, 0, 0])
    got = mean_z(h, prompts, batch_size=2)
    zs = []
    hook = h.layers[1].self_attn.o_proj.register_forward_hook(lambda m, a, o: zs.append(a[0][0].detach()))
    for p in prompts:
        h.run(left_pad([p.input_ids], 0))
    hook.remove()
    manual = torch.cat(zs, 0).view(-1, h.n_heads, h.d_head).mean(0)
    torch.testing.assert_close(got[1], manual, atol=1e-5, rtol=1e-5)


def test_top_heads_from_a_table():
    tr = torch.tensor([[0.0, 5.0], [1.0, 2.0]])
    df = _scores_df(tr, tr, tr)
    assert top_heads(df, "tr", 50) == [(0, 1), (1, 1)]


def test_verdicts_and_bootstrap():
    assert verdict(0.1, 0.3, "positive") == "yes"
    assert verdict(-0.3, -0.1, "positive") == "no"
    assert verdict(-0.1, 0.3, "positive") == "unclear"
    assert verdict(-0.3, -0.1, "negative") == "yes"
    assert verdict(0.0, 0.0, "positive") == "unclear"  # a degenerate CI decides nothing (tests/test_claims.py)
    assert verdict(0.0, 0.2, "positive") == "unclear"
    lo, hi = bootstrap_ci(np.ones(20))
    assert lo == hi == 1.0
    a, b = np.array([1.0, 0, 1, 1]), np.array([0.0, 0, 1, 0])
    v, lo, hi = paired_bootstrap({"a": a, "b": b}, lambda m: m["a"] - m["b"])
    assert v == pytest.approx(0.5) and lo >= 0 and hi <= 1


def test_shared_prefix_evaluation_equals_full_passes(tiny_hooked):
    """Replaying the blocks before the first intervention gives the same predictions (and the
    same logits) as running every condition from scratch."""
    h = tiny_hooked
    prompts = _prompts(SEQS, [5, 6, 7, 8])
    conds = {"clean": [], "late ablation": [HeadAblation([(2, 0), (2, 3)], "zero")],
             "mixed": [HeadAblation([(1, 1), (2, 2)], "zero")], "steer": [steer(2, 5 * torch.randn(h.d_model))],
             "early": [HeadAblation([(0, 0)], "zero")]}
    fast = evaluate(h, prompts, [5, 6], conds, share="layers", batch_size=3)
    for name, ivs in conds.items():
        slow = evaluate_one(h, prompts, [5, 6], ivs, batch_size=3)
        assert fast[name].argmax.tolist() == slow.argmax.tolist(), name
    assert first_touched_layer(conds["mixed"], h.n_layers) == 1
    assert first_touched_layer([], h.n_layers) == h.n_layers
    # the model is left intact
    assert all(type(l).__name__.endswith("DecoderLayer") for l in h.model.model.layers)


def test_replayed_blocks_give_identical_logits(tiny_hooked):
    h = tiny_hooked
    b = left_pad(SEQS, 0)
    iv = [HeadAblation([(2, 1)], "zero")]
    full = h.run(b, ivs=iv).logits
    outs = []
    hs = [l.register_forward_hook(lambda m, a, o: outs.append(o)) for l in h.layers]
    h.run(b)
    for x in hs:
        x.remove()
    fast = h.run(b, ivs=iv, replay=(outs, 2)).logits
    torch.testing.assert_close(fast, full, atol=1e-5, rtol=1e-5)
    assert all(type(l).__name__.endswith("DecoderLayer") for l in h.model.model.layers)   # put back
