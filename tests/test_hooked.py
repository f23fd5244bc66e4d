"""HookedModel on tiny Llama and Gemma 3 models built in the test."""
import pytest
import torch

from icl_heads.model import HeadAblation, HeadPatch, ResidAdd, left_pad

SEQS = [[1, 5, 6, 7, 8, 9, 10], [1, 11, 12, 13]]


def _attn_updates(h):
    """Capture each block's attention update at N (after Gemma's post-attention norm)."""
    got, handles = [], []
    for l, layer in enumerate(h.layers):
        mod = layer.post_attention_layernorm if h.post_attn_norm[l] is not None else layer.self_attn.o_proj
        handles.append(mod.register_forward_hook(lambda m, a, o: got.append(o[:, -1].detach())))
    return got, handles


def test_head_outputs_sum_to_the_attention_update(tiny_hooked):
    h = tiny_hooked
    got, handles = _attn_updates(h)
    out = h.run(left_pad(SEQS, 0), want=("heads",))
    for hd in handles:
        hd.remove()
    update = torch.stack(got, 1)
    assert out.head_out.shape == (2, h.n_layers, h.n_heads, h.d_model)
    torch.testing.assert_close(out.head_out.sum(2), update, atol=1e-5, rtol=1e-5)


def test_final_logits_are_the_folded_unembedding_of_the_final_residual(tiny_hooked):
    h = tiny_hooked
    out = h.run(left_pad(SEQS, 0), want=("logits", "resid"))
    x = out.resid[:, -1]
    eps = getattr(h.final_norm, "eps", None) or h.final_norm.variance_epsilon
    normed = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
    torch.testing.assert_close(normed @ h.unembed().T, out.logits, atol=1e-4, rtol=1e-4)


def test_left_padding_does_not_change_results(tiny_hooked):
    h = tiny_hooked
    both = h.run(left_pad(SEQS, 0), want=("logits", "heads", "attn", "resid"))
    alone = h.run(left_pad([SEQS[1]], 0), want=("logits", "heads", "attn", "resid"))
    torch.testing.assert_close(both.logits[1], alone.logits[0], atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(both.head_out[1], alone.head_out[0], atol=1e-5, rtol=1e-5)
    pad = len(SEQS[0]) - len(SEQS[1])
    assert both.attn[1, ..., :pad].abs().max() < 1e-6  # nothing attends to padding
    torch.testing.assert_close(both.attn[1, ..., pad:], alone.attn[0], atol=1e-5, rtol=1e-5)


def test_zero_ablation_changes_only_what_it_should(tiny_hooked):
    h = tiny_hooked
    b = left_pad(SEQS, 0)
    clean = h.run(b, want=("z", "resid", "logits"))
    l, k = 1, 2
    abl = h.run(b, want=("z", "resid", "logits"), ivs=[HeadAblation([(l, k)], "zero")])
    assert abl.z[:, l, k].abs().max() == 0
    others = [i for i in range(h.n_heads) if i != k]
    torch.testing.assert_close(abl.z[:, l, others], clean.z[:, l, others])  # same layer, other heads untouched
    torch.testing.assert_close(abl.z[:, :l], clean.z[:, :l])              # earlier layers untouched
    torch.testing.assert_close(abl.resid[:, : l + 1], clean.resid[:, : l + 1])
    assert (abl.resid[:, l + 1] - clean.resid[:, l + 1]).abs().max() > 1e-6  # the stream after it changes
    assert (abl.logits - clean.logits).abs().max() > 1e-6


def test_mean_ablation_sets_the_head_to_its_mean_at_every_position(tiny_hooked):
    h = tiny_hooked
    means = torch.randn(h.n_layers, h.n_heads, h.d_head)
    seen = []
    hd = h.layers[2].self_attn.o_proj.register_forward_hook(lambda m, a, o: seen.append(a[0].detach()))
    h.run(left_pad(SEQS, 0), want=("logits",), ivs=[HeadAblation([(2, 1)], "mean", means)])
    hd.remove()
    z = seen[0].view(2, -1, h.n_heads, h.d_head)
    torch.testing.assert_close(z[:, :, 1], means[2, 1].expand_as(z[:, :, 1]))


def test_patch_touches_one_position_of_one_head(tiny_hooked):
    h = tiny_hooked
    b = left_pad(SEQS, 0)
    seen = []
    hd = h.layers[0].self_attn.o_proj.register_forward_hook(lambda m, a, o: seen.append(a[0].detach()))
    h.run(b, want=("logits",))
    v = torch.full((h.d_head,), 3.0)
    h.run(b, want=("logits",), ivs=[HeadPatch(0, 3, v, position=-1)])
    hd.remove()
    clean, patched = (s.view(2, -1, h.n_heads, h.d_head) for s in seen)
    torch.testing.assert_close(patched[:, -1, 3], v.expand(2, -1))
    diff = (patched - clean).abs()
    diff[:, -1, 3] = 0
    assert diff.max() == 0


def test_resid_add_adds_exactly_at_the_layer_and_position(tiny_hooked):
    h = tiny_hooked
    b = left_pad(SEQS, 0)
    vec = torch.randn(h.d_model)
    seen = {}

    def grab(l):
        def f(m, args, kwargs):
            seen.setdefault(l, []).append((args[0] if args else kwargs["hidden_states"]).detach().clone())
        return f

    hds = [layer.register_forward_pre_hook(grab(l), with_kwargs=True) for l, layer in enumerate(h.layers)]
    h.run(b)
    h.run(b, ivs=[ResidAdd(1, vec, positions=(-1,))])
    for hd in hds:
        hd.remove()
    # our hook runs first and replaces the input, so layer 1's recorded input is the clean one;
    # the difference shows in layer 2, and layer 0 is untouched.
    assert torch.equal(seen[0][0], seen[0][1])
    clean_out = h.run(b, want=("resid",)).resid
    added = h.run(b, want=("resid",), ivs=[ResidAdd(1, vec, positions=(-1,))]).resid
    torch.testing.assert_close(added[:, 1], clean_out[:, 1] + vec)   # resid_pre[1] at N shifted by vec
    torch.testing.assert_close(added[:, 0], clean_out[:, 0])
    assert not torch.allclose(seen[2][0][:, -1], seen[2][1][:, -1])
    real = b.attention_mask.bool().clone()
    real[:, -1] = False  # earlier real positions are untouched (causal); pad positions are never read
    torch.testing.assert_close(seen[2][0][real], seen[2][1][real])


def test_unknown_output_request_is_refused(tiny_hooked):
    with pytest.raises(ValueError, match="unknown outputs"):
        tiny_hooked.run(left_pad(SEQS, 0), want=("logits", "nonsense"))


def test_a_point_read_twice_is_captured_once_at_the_wider_width(tiny_hooked):
    """`hooks` asking a point at every column and a `want` needing it at N get one capture:
    each reader sees what it asked for (and resid + block_out, which both read the last
    block's output, work together)."""
    h = tiny_hooked
    b = left_pad(SEQS, 0)
    got = {}
    hd = h.layers[1].self_attn.o_proj.register_forward_hook(lambda m, a, o: got.__setitem__("z", a[0].detach()))
    out = h.run(b, want=("z", "resid", "block_out"), hooks={"blocks.1.attn.hook_z": "all"})
    hd.remove()
    torch.testing.assert_close(out.hooks["blocks.1.attn.hook_z"], got["z"])
    torch.testing.assert_close(out.z[:, 1].flatten(1), got["z"][:, -1])
    torch.testing.assert_close(out.resid[:, -1], out.extras["block_out"][-1][:, -1])


def test_addition_at_the_final_column_shares_the_prefix_exactly(tiny_hooked):
    """evaluate(share="columns") with ResidAdd at N: the columns before N run once into a shared
    key/value prefix (AddAt.first_column), and the results equal separate full passes."""
    import torch

    from icl_heads.model import ResidAdd, evaluate, left_pad
    from icl_heads.prompts import Prompt

    m = tiny_hooked
    g = torch.Generator().manual_seed(0)
    rows = [[1, 5, 9, 12, 7, 30], [1, 11, 50, 13], [1, 4, 4, 8, 9]]
    prompts = [Prompt(index=i, text="", input_ids=r, answer="", answer_token=3) for i, r in enumerate(rows)]
    conds = {f"c{l}": [ResidAdd(l, torch.randn(m.d_model, generator=g))] for l in range(m.n_layers)}
    conds["clean"] = []
    b = left_pad(rows, m.pad_id)
    assert conds["c0"][0].first_column(b) == b.input_ids.shape[1] - 1
    shared = evaluate(m, prompts, [3, 4], conds, share="columns", batch_size=3)
    alone = evaluate(m, prompts, [3, 4], conds, share="none", batch_size=3)
    for k in conds:
        torch.testing.assert_close(shared[k].p_answer, alone[k].p_answer, atol=1e-6, rtol=1e-4)
        assert torch.equal(shared[k].argmax, alone[k].argmax)
