"""FV scores: the KV-cache fast path equals one full forward pass per (prompt, head)."""
import torch

from icl_heads.fv import fv_scores_fast, fv_scores_reference, mean_head_z
from icl_heads.model import Batch, RowHeadPatch, left_pad
from icl_heads.prompts import Prompt


def _prompts(seqs, answers):
    return [Prompt(index=i, text="", input_ids=s, answer="", answer_token=a) for i, (s, a) in enumerate(zip(seqs, answers))]


def test_fast_fv_scores_match_the_reference(tiny_hooked):
    h = tiny_hooked
    clean = _prompts([[1, 5, 6, 7, 8, 9], [1, 10, 11, 12, 13], [1, 14, 15, 16]], [5, 6, 7])
    corrupted = _prompts([[1, 9, 8, 7, 6, 5], [1, 13, 12, 11, 10, 20, 21], [1, 16, 15, 14]], [5, 6, 7])
    means = mean_head_z(h, clean, batch_size=2) * 5  # scaled so that patches move probabilities visibly
    fast = fv_scores_fast(h, corrupted, means, chunk=5)  # chunks that split layers
    ref = fv_scores_reference(h, corrupted, means)
    assert fast.shape == (3, h.n_layers, h.n_heads)
    assert ref.abs().max() > 1e-4  # the check is not vacuous
    torch.testing.assert_close(fast, ref, atol=1e-5, rtol=0)


def test_mean_head_z_is_the_mean_over_prompts(tiny_hooked):
    h = tiny_hooked
    ps = _prompts([[1, 5, 6], [1, 7, 8, 9]], [0, 0])
    zs = [h.run(left_pad([p.input_ids], 0), want=("z",)).z[0] for p in ps]
    torch.testing.assert_close(mean_head_z(h, ps, batch_size=2), (zs[0] + zs[1]) / 2, atol=1e-6, rtol=1e-5)


def test_row_head_patch_sets_one_head_per_row(tiny_hooked):
    h = tiny_hooked
    ids = torch.tensor([[1, 5, 6, 7]]).expand(3, 4)
    vals = torch.randn(3, h.d_head)
    seen = {}
    hooks = [layer.self_attn.o_proj.register_forward_hook(lambda m, a, o, l=l: seen.__setitem__(l, a[0].detach()))
             for l, layer in enumerate(h.layers)]
    clean = {}
    h.run(Batch(ids))
    clean.update(seen)
    h.run(Batch(ids), ivs=[RowHeadPatch([(0, 1), (0, 2), (2, 3)], vals)])
    for hk in hooks:
        hk.remove()
    z0 = seen[0].view(3, 4, h.n_heads, h.d_head)
    torch.testing.assert_close(z0[0, -1, 1], vals[0])
    torch.testing.assert_close(z0[1, -1, 2], vals[1])
    # row 2 is untouched at layer 0 and patched at layer 2
    torch.testing.assert_close(z0[2], clean[0].view(3, 4, h.n_heads, h.d_head)[2])
    torch.testing.assert_close(seen[2].view(3, 4, h.n_heads, h.d_head)[2, -1, 3], vals[2])


def test_fast_fv_scores_are_exact_in_float64(tiny_hooked):
    """In float64 the fast path and the per-head loop agree to rounding: the float32
    differences of a few 1e-6 seen on real models are rounding, not approximation. (1e-9, not
    1e-12: the fast path's branches compute q.k in a [k, N + k] matmul rather than k [1, N] ones,
    and transformers' eager softmax rounds its float64 scores to float32, so the two agree to
    float32 rounding of the attention weights, ~1e-7 relative; an error of the method would be
    of the size of the scores.)"""
    from icl_heads.model import HookedModel

    h = HookedModel(tiny_hooked.model.double(), tiny_hooked.tokenizer, name=tiny_hooked.name)
    clean = _prompts([[1, 5, 6, 7, 8, 9], [1, 10, 11, 12, 13]], [5, 6])
    corrupted = _prompts([[1, 9, 8, 7, 6, 5, 4, 3, 2, 17, 18, 19, 20, 21, 22, 23, 24, 25], [1, 16, 15, 14]], [5, 7])
    # batch_size 1: transformers' eager attention turns a float64 padding mask into NaN rows
    means = mean_head_z(h, clean, batch_size=1).double() * 5
    ref = fv_scores_reference(h, corrupted, means)
    assert ref.abs().max() > 1e-4
    for chunk in (3, 100):
        torch.testing.assert_close(fv_scores_fast(h, corrupted, means, chunk=chunk).double(), ref, atol=1e-9, rtol=0)


def test_answer_prob_is_the_softmax_entry_known_in_closed_form():
    """p(token) from logsumexp: logits (0, log 3) give 1/4 and 3/4 exactly; a shift of 1e4 (which
    overflows a plain exp) changes nothing; on a Gemma-sized vocabulary it equals the float64
    softmax to 1e-12 relative, also from bfloat16 logits."""
    import math

    from icl_heads.fv import _answer_prob

    two = torch.tensor([[0.0, math.log(3.0)], [1e4, 1e4 + math.log(3.0)]], dtype=torch.float64)
    for tok, want in ((0, 0.25), (1, 0.75)):
        got = _answer_prob(two, tok)
        assert got.dtype == torch.float64
        torch.testing.assert_close(got, torch.full((2,), want, dtype=torch.float64), atol=1e-10, rtol=0)
    g = torch.Generator().manual_seed(0)
    big = torch.randn(3, 262_144, generator=g) * 3
    big[:, 7] += torch.tensor([0.0, 8.0, 16.0])   # p(7) from about 1e-6 to about 1
    for x in (big, big.bfloat16()):
        want = torch.softmax(x.double(), -1)[:, 7]
        torch.testing.assert_close(_answer_prob(x, 7), want, atol=0, rtol=1e-12)
