"""Science functions on cases whose answers are known by hand."""
import math

import pytest
import torch

from icl_heads.scores import (dla_scores, induction_score_from_pattern, jaccard, label_basis, rank_correlations,
                              top_set, tl_score, tr_score, tsla_head_scores)


def test_tr_is_projection_norm_on_hand_built_head_output():
    # span{e1, e1+e2} = span{e1, e2}; projection of (3,4,5,0) is (3,4,0,0).
    W_Y = torch.tensor([[1.0, 0, 0, 0], [1.0, 1.0, 0, 0]])
    a = torch.tensor([3.0, 4.0, 5.0, 0.0])
    assert tr_score(a, W_Y).item() == pytest.approx(5.0, abs=1e-6)
    # a vector orthogonal to the label span scores 0
    assert tr_score(torch.tensor([0.0, 0, 2, 3]), W_Y).item() == pytest.approx(0.0, abs=1e-6)


def test_label_basis_is_orthonormal_and_drops_dependent_labels():
    W_Y = torch.tensor([[1.0, 2, 0], [2.0, 4, 0], [0, 0, 1.0]])
    Q = label_basis(W_Y)
    assert Q.shape == (3, 2)
    assert torch.allclose(Q.T @ Q, torch.eye(2), atol=1e-6)


def test_tl_sign_and_scale():
    W_Y = torch.tensor([[1.0, 0, 0, 0], [0, 1.0, 0, 0]])
    a = torch.tensor([[2.0, -2.0, 0.0, 7.0]])
    # numerator a.(w0 - w1) = 4, TR = sqrt(8): TL = sqrt(2); the other label gets the opposite sign
    assert tl_score(a, W_Y, torch.tensor([0])).item() == pytest.approx(math.sqrt(2), rel=1e-6)
    assert tl_score(a, W_Y, torch.tensor([1])).item() == pytest.approx(-math.sqrt(2), rel=1e-6)
    # scaling the head output does not change TL (it is normalised by TR)
    assert tl_score(10 * a, W_Y, torch.tensor([0])).item() == pytest.approx(math.sqrt(2), rel=1e-6)


def test_tl_averages_over_the_wrong_labels():
    W_Y = torch.eye(3)
    a = torch.tensor([[3.0, 1.0, -1.0]])
    # mean over y' of (3 - 1, 3 - (-1)) = 3; TR = ||a|| = sqrt(11)
    assert tl_score(a, W_Y, torch.tensor([0])).item() == pytest.approx(3 / math.sqrt(11), rel=1e-6)


def test_dla_baselines():
    W_Y = torch.tensor([[1.0, 0], [0, 2.0]])
    a = torch.tensor([[1.0, 1.0]])
    tr, tl = dla_scores(a, W_Y, torch.tensor([1]))
    assert tr.item() == pytest.approx(3.0)
    assert tl.item() == pytest.approx(2.0)


def test_tsla_head_scores_shapes_and_means():
    W_Y = torch.eye(2, 4)
    head_out = torch.zeros(2, 3, 2, 4)
    head_out[:, 1, 0, 0] = torch.tensor([1.0, 3.0])  # layer 1 head 0 pushes label 0 by 1 and 3
    s = tsla_head_scores(head_out, W_Y, torch.tensor([0, 0]))
    assert s["tr"].shape == (3, 2)
    assert s["tr"][1, 0].item() == pytest.approx(2.0)
    assert s["tl"][1, 0].item() == pytest.approx(1.0)
    assert s["tr"][0, 0].item() == 0.0


def _causal_uniform(T):
    p = torch.tril(torch.ones(T, T))
    return p / p.sum(-1, keepdim=True)


def test_induction_score_is_one_for_an_induction_pattern_and_small_for_uniform():
    seq_len = 10
    T = 1 + 2 * seq_len
    ind = _causal_uniform(T).clone()
    for q in range(1 + seq_len, T):
        ind[q] = 0
        ind[q, q - seq_len + 1] = 1.0
    pattern = torch.stack([ind, _causal_uniform(T)])[None, None]  # [B=1, L=1, H=2, T, T]
    s = induction_score_from_pattern(pattern, seq_len, has_bos=True)
    assert s[0, 0].item() == pytest.approx(1.0)
    expected_uniform = sum(1 / (q + 1) for q in range(1 + seq_len, T)) / seq_len
    assert s[0, 1].item() == pytest.approx(expected_uniform, rel=1e-6)
    assert s[0, 1].item() < 0.1


def test_top_set_and_jaccard():
    m = torch.tensor([[0.1, 0.9], [0.5, 0.3]])
    assert top_set(m, 50) == {(0, 1), (1, 0)}
    assert top_set(m, 1) == {(0, 1)}  # at least one head
    assert jaccard({1, 2}, {2, 3}) == pytest.approx(1 / 3)


def test_rank_correlations_of_identical_and_reversed_rankings():
    x = torch.arange(10.0)
    assert rank_correlations(x, x)["kendall_tau"] == pytest.approx(1.0)
    assert rank_correlations(x, -x)["spearman_rho"] == pytest.approx(-1.0)


def test_one_rounding_rule_for_k_percent_of_heads():
    """ceil, at least one head: the top-k% sets of T-, L- and Y-artifacts all have the same size."""
    from icl_heads.scores import n_of_percent
    from icl_heads.yin import head_sets

    assert n_of_percent(576, 2) == 12      # 11.52
    assert n_of_percent(72, 2) == 2        # 1.44 (round() gave 1)
    assert n_of_percent(72, 3) == 3        # 2.16
    assert n_of_percent(100, 3) == 3       # exactly 3: no float overshoot to 4
    assert n_of_percent(10, 0.1) == 1
    g = torch.Generator().manual_seed(0)
    ih, fv = torch.rand(6, 12, generator=g), torch.rand(6, 12, generator=g)
    for pct in (1, 2, 3, 10):
        sets = {(s["family"], s["percent"]): s["heads"] for s in head_sets(ih, fv, [pct], [0])}
        assert set(sets[("IH", pct)]) == top_set(ih, pct) and set(sets[("FV", pct)]) == top_set(fv, pct)
        assert len(sets[("random", pct)]) == len(top_set(ih, pct)) == n_of_percent(72, pct)


def test_induction_average_over_all_rows_is_transformerlens_detect_head():
    """all_rows: sum over every query row of attention on (earlier duplicate, shifted one) / rows,
    checked against a loop written here; on a perfect induction pattern with no coincidental
    duplicates it is seq_len / (2 seq_len + 1) while the default is 1."""
    from icl_heads.scores import induction_score_from_pattern

    n = 3
    toks = torch.tensor([[0, 5, 6, 7, 5, 6, 7], [0, 5, 5, 8, 5, 5, 8]])   # row 2: a coincidental duplicate
    T = toks.shape[1]
    # a perfect induction head: the repeated half attends to the token after the earlier copy,
    # every other row to BOS; a second "head" attends uniformly to every earlier position
    perfect = torch.zeros(2, T, T, dtype=torch.float64)
    perfect[:, :, 0] = 1
    for i in range(1 + n, 1 + 2 * n):
        perfect[:, i, 0] = 0
        perfect[:, i, i - n + 1] = 1
    uniform = torch.tril(torch.ones(T, T, dtype=torch.float64))
    uniform = (uniform / uniform.sum(-1, keepdim=True)).expand(2, T, T)
    pat = torch.stack([perfect, uniform], 1)[:, None]            # [B, L=1, H=2, T, T]

    def by_loop(a, t):
        s = 0.0
        for i in range(T):
            for j in range(i):
                if t[j] == t[i] and j + 1 <= i:
                    s += float(a[i, j + 1])
        return s / float(a.sum())

    want = torch.tensor([[sum(by_loop(pat[b, 0, h], toks[b].tolist()) for b in range(2)) / 2 for h in range(2)]],
                        dtype=torch.float64)
    got = induction_score_from_pattern(pat, n, average="all_rows", tokens=toks)
    torch.testing.assert_close(got, want)
    assert abs(float(got[0, 0]) - (3 / 7 + by_loop(perfect[1], toks[1].tolist())) / 2) < 1e-12
    assert abs(by_loop(perfect[0], toks[0].tolist()) - n / (2 * n + 1)) < 1e-12
    rep = induction_score_from_pattern(pat, n, average="repeated")
    assert float(rep[0, 0]) == 1.0
    with pytest.raises(ValueError, match="tokens"):
        induction_score_from_pattern(pat, n, average="all_rows")
