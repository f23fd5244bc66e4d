"""Paper C beyond scoring (Y5-Y9) on tiny models and constructed cases."""
import pytest
import torch

from icl_heads.config import checkpoint_models, expand_checkpoints
from icl_heads.errors import ConfigError
from icl_heads.model import HeadAblation, left_pad
from icl_heads.interventions import mean_z
from icl_heads.prompts import Prompt
from icl_heads.scores import top_set
from icl_heads.scores import n_of_percent
from icl_heads.yin import (add_back, function_vector, head_sets, long_documents, mean_head_outputs,
                           ranked, token_losses, token_losses_shared, token_z_sample)


def _prompts(seqs):
    return [Prompt(index=i, text="", input_ids=s, answer="", answer_token=0) for i, s in enumerate(seqs)]


def _grab_z(h):
    seen = {}
    hooks = [layer.self_attn.o_proj.register_forward_hook(lambda m, a, o, l=l: seen.__setitem__(l, a[0].detach()))
             for l, layer in enumerate(h.layers)]
    return seen, hooks


def test_exclusion_sets_leave_out_the_other_families_top_heads():
    # 10 layers x 10 heads; the induction and FV rankings share their top heads on purpose.
    L, H = 10, 10
    ih = torch.arange(L * H, dtype=torch.float).flip(0).view(L, H)   # head (0,0) best, then (0,1), ...
    fv = ih.clone()
    fv[5, 5] = 1000.0                                                  # FV's top: (5,5), then the IH order
    sets = {(s["family"], s["percent"]): s["heads"] for s in head_sets(ih, fv, [2, 10], seeds=[0], exclude_percent=2)}
    fv_top2, ih_top2 = top_set(fv, 2), top_set(ih, 2)
    assert fv_top2 == {(5, 5), (0, 0)} and ih_top2 == {(0, 0), (0, 1)}
    assert sets[("IH", 2)] == [(0, 0), (0, 1)]                         # direct: overlaps FV's top set
    assert sets[("IH_excl", 2)] == [(0, 1), (0, 2)]                    # (0,0) is in FV's top 2%: skipped
    assert sets[("FV_excl", 2)] == [(0, 2), (5, 5)]                    # (0,0), (0,1) are IH's top 2%
    for pct in (2, 10):
        assert not set(sets[("IH_excl", pct)]) & fv_top2
        assert not set(sets[("FV_excl", pct)]) & ih_top2
        assert len(sets[("IH_excl", pct)]) == n_of_percent(L * H, pct)
    assert ranked(ih, exclude={(0, 0)})[0] == (0, 1)


def test_random_sets_depend_on_seed_and_have_the_right_size():
    ih, fv = torch.rand(6, 5), torch.rand(6, 5)
    a = [s for s in head_sets(ih, fv, [10, 20], seeds=[0, 1]) if s["family"] == "random"]
    assert [s["k"] for s in a] == [3, 3, 6, 6]
    assert a[0]["heads"] != a[1]["heads"]
    b = [s for s in head_sets(ih, fv, [10, 20], seeds=[0, 1]) if s["family"] == "random"]
    assert [s["heads"] for s in a] == [s["heads"] for s in b]


def test_mean_ablation_sets_a_head_to_its_task_mean_at_every_position(tiny_hooked):
    h = tiny_hooked
    seqs = [[1, 5, 6, 7, 8, 9, 10], [1, 11, 12, 13]]
    prompts = _prompts(seqs)
    means = mean_z(h, prompts, batch_size=2)
    # the task mean by hand: every real token of every prompt, one prompt at a time
    seen, hooks = _grab_z(h)
    zs = []
    for s in seqs:
        h.run(left_pad([s], 0), want=("logits",))
        zs.append(seen[1].view(len(s), h.n_heads, h.d_head))
    torch.testing.assert_close(means[1], torch.cat(zs).mean(0), atol=1e-5, rtol=1e-5)
    # under mean ablation, head (1, 2)'s z is that mean at every real position
    h.run(left_pad(seqs, 0), want=("logits",), ivs=[HeadAblation([(1, 2)], mode="mean", means=means)])
    for hk in hooks:
        hk.remove()
    z = seen[1].view(2, len(seqs[0]), h.n_heads, h.d_head)
    for t in range(len(seqs[0])):
        torch.testing.assert_close(z[0, t, 2], means[1, 2])
    assert not torch.allclose(z[0, -1, 1], means[1, 1])   # other heads keep their own values


def test_token_z_sample_returns_the_z_at_the_drawn_token(tiny_hooked):
    h = tiny_hooked
    seqs = [[1, 5, 6, 7, 8], [1, 9, 10]]
    draws = token_z_sample(h, seqs, n_draws=6, seed=3, batch_size=2)
    assert draws.shape == (6, h.n_layers, h.n_heads, h.d_head)
    seen, hooks = _grab_z(h)
    all_z = []
    for s in seqs:
        h.run(left_pad([s], 0), want=("logits",))
        all_z += [torch.stack([seen[l].view(len(s), h.n_heads, h.d_head)[t] for l in range(h.n_layers)]) for t in range(len(s))]
    for hk in hooks:
        hk.remove()
    for d in range(6):  # every draw is the z of one real (prompt, token)
        assert min(float((draws[d] - z).abs().max()) for z in all_z) < 1e-5
    assert not torch.equal(token_z_sample(h, seqs, 6, seed=3), token_z_sample(h, seqs, 6, seed=4))


def test_token_losses_equal_cross_entropy_of_the_full_logits(tiny_hooked):
    h = tiny_hooked
    g = torch.Generator().manual_seed(0)
    docs = torch.randint(4, 60, (3, 12), generator=g)
    got = token_losses(h, docs, [3, 10], batch_size=2)
    logits = h.model(input_ids=docs).logits
    want = torch.nn.functional.cross_entropy(logits[:, [2, 9]].reshape(-1, logits.shape[-1]), docs[:, [3, 10]].reshape(-1),
                                             reduction="none").view(3, 2)
    torch.testing.assert_close(got, want, atol=1e-4, rtol=1e-4)
    # an ablation changes the losses
    abl = token_losses(h, docs, [3, 10], ivs=[HeadAblation([(0, 0), (1, 1)], "zero")])
    assert (abl - got).abs().max() > 1e-6


def test_shared_token_losses_equal_one_plain_call_per_condition(tiny_hooked):
    h = tiny_hooked
    docs = torch.randint(4, 60, (3, 12), generator=torch.Generator().manual_seed(1))
    conds = {"clean": [], "block 0": [HeadAblation([(0, 0)], "zero")], "last block": [HeadAblation([(h.n_layers - 1, 1)], "zero")],
             "both": [HeadAblation([(h.n_layers - 1, 0)], "zero"), HeadAblation([(0, 1)], "zero")]}
    got = token_losses_shared(h, docs, [3, 7, 10], conds, batch_size=2)
    for name, ivs in conds.items():
        torch.testing.assert_close(got[name], token_losses(h, docs, [3, 7, 10], ivs=ivs, batch_size=2), atol=1e-5, rtol=0)
    assert (got["last block"] - got["clean"]).abs().max() > 1e-6   # the replayed condition still ablates


def test_long_documents_keep_only_texts_long_enough(tokenizer):
    docs = long_documents(tokenizer, ["the movie was good", "a", "the film was bad and dull"], length=4)
    assert docs.shape == (2, 4)


def test_function_vector_is_the_sum_of_mean_head_outputs(tiny_hooked):
    h = tiny_hooked
    ps = _prompts([[1, 5, 6], [1, 7, 8, 9]])
    means = mean_head_outputs(h, ps, batch_size=1)
    outs = [h.run(left_pad([p.input_ids], 0), want=("heads",)).head_out[0] for p in ps]
    torch.testing.assert_close(means, (outs[0] + outs[1]) / 2, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(function_vector(means, [(0, 1), (2, 3)]), means[0, 1] + means[2, 3])
    # added at the final position of block 1's input only
    v = torch.randn(h.d_model)
    clean = h.run(left_pad([[1, 5, 6]], 0), want=("resid",))
    moved = h.run(left_pad([[1, 5, 6]], 0), want=("resid",), ivs=[add_back(1, v)])
    torch.testing.assert_close(moved.resid[:, 1], clean.resid[:, 1] + v)
    torch.testing.assert_close(moved.resid[:, 0], clean.resid[:, 0])


def test_checkpoints_expand_into_models_of_their_own():
    cfg = {"models": {"m": {"source": "local", "path": "/x", "mem_gb": 2,
                            "checkpoints": [{"name": "s2", "step": 2000, "path": "/ck2"}, {"name": "s1", "step": 1000, "path": "/ck1"}]},
                      "h": {"source": "hub", "repo_id": "org/model", "checkpoints": [{"name": "a", "step": 1, "revision": "step1"}]}}}
    expand_checkpoints(cfg)
    assert checkpoint_models(cfg, "m") == ["m--s1", "m--s2"]
    assert cfg["models"]["m--s1"] == {"source": "local", "path": "/ck1", "mem_gb": 2, "checkpoint_of": "m", "step": 1000}
    assert cfg["models"]["h--a"]["revision"] == "step1" and cfg["models"]["h--a"]["repo_id"] == "org/model"
    bad = {"models": {"m": {"source": "local", "path": "/x", "checkpoints": [{"name": "s", "step": 1}]}}}
    with pytest.raises(ConfigError, match="models.m.checkpoints"):
        expand_checkpoints(bad)


def test_addback_sweep_scales_and_layers():
    """A relative scale a gives a vector whose RMS is a x the residual RMS; raw leaves it alone;
    layers are round(f L) clipped and deduplicated."""
    from icl_heads.counting import sweep_layers
    from icl_heads.yin import rms, sweep_vector

    v = torch.tensor([3.0, -4.0, 0.0, 0.0])          # RMS = 5 / 2 = 2.5
    assert float(rms(v)) == 2.5
    assert torch.equal(sweep_vector(v, "raw", 10.0), v)
    out = sweep_vector(v, 0.5, 10.0)                 # RMS 5 = 0.5 x 10, same direction
    assert abs(float(rms(out)) - 5.0) < 1e-6 and torch.allclose(out / out.norm(), v / v.norm())
    assert sweep_layers(30, [0.17, 0.33, 0.5, 0.67]) == [5, 10, 15, 20]
    assert sweep_layers(18, [0.17, 0.33, 0.5, 0.67]) == [3, 6, 9, 12]
    assert sweep_layers(4, [0.0, 0.1, 1.0]) == [0, 3]


def test_resid_rms_at_final_is_the_mean_rms_of_each_block_input(tiny_hooked):
    """Against the model's own hidden states (output_hidden_states: entry l is block l's input),
    one prompt at a time, no padding: the mean over prompts of sqrt(mean_d x^2) at the last token."""
    from icl_heads.yin import resid_rms_at_final

    h = tiny_hooked
    rows = [[1, 5, 9, 12, 7], [1, 11, 50], [1, 4, 4, 8]]
    prompts = [Prompt(index=i, text="", input_ids=r, answer="", answer_token=3) for i, r in enumerate(rows)]
    want = torch.zeros(h.n_layers, dtype=torch.float64)
    with torch.no_grad():
        for r in rows:
            hs = h.model(input_ids=torch.tensor([r]), output_hidden_states=True).hidden_states
            want += torch.stack([hs[l][0, -1].double().pow(2).mean().sqrt() for l in range(h.n_layers)])
    got = resid_rms_at_final(h, prompts, batch_size=2)
    torch.testing.assert_close(got.double(), want / len(rows), atol=1e-5, rtol=1e-5)
