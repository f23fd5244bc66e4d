"""Paper B (LTV): injection, training, OV reconstruction, linear map and polar decomposition,
each against an answer known independently of the code under test."""
from __future__ import annotations


import pytest
import torch

from icl_heads import ltv
from icl_heads.model import evaluate, evaluate_one, left_pad
from icl_heads.prompts import Prompt


def _prompts(tok, texts, answers):
    out = []
    for i, (t, a) in enumerate(zip(texts, answers)):
        ids = tok(t)["input_ids"]
        out.append(Prompt(index=i, text=t, input_ids=ids, answer=a, answer_token=tok(" " + a, add_special_tokens=False)["input_ids"][0]))
    return out


TEXTS = ["the movie was great Sentiment :", "a film was awful Sentiment :", "the film was dull . Sentiment :",
         "lovely Sentiment :"]
ANSWERS = ["positive", "negative", "negative", "positive"]


def _resid_all(model, batch):
    """resid_pre of every layer at every position (read by hooks independent of ltv.injected)."""
    got = {}
    hs = [layer.register_forward_pre_hook(lambda m, a, k, l=l: got.__setitem__(l, (a[0] if a else k["hidden_states"]).detach().clone()),
                                          with_kwargs=True) for l, layer in enumerate(model.layers)]
    try:
        model.run(batch)
    finally:
        for h in hs:
            h.remove()
    return got


def _eps(norm):
    return getattr(norm, "eps", None) or norm.variance_epsilon


def _attn_out_reader(m, l, outs, key):
    """Read block l's attention output (before any post-attention norm) downstream of every
    hook of the model layer: the input of the norm after attention (Gemma: post-attention norm,
    whose input is the attention output; Llama: the MLP norm, whose input is resid_pre plus the
    attention output, and resid_pre of l is the same in both runs compared)."""
    return m.layers[l].post_attention_layernorm.register_forward_pre_hook(
        lambda mod, a: outs.__setitem__(key, a[0].detach().clone()))


def test_injection_adds_theta_exactly_at_the_chosen_sites(tiny_hooked, tokenizer):
    m = tiny_hooked
    ps = _prompts(tokenizer, TEXTS, ANSWERS)
    b = left_pad([p.input_ids for p in ps], m.pad_id)
    site = ltv.Site((1,), (-1, -3, 1))
    theta = torch.randn(1, 3, m.d_model)
    clean = _resid_all(m, b)
    # layer 1's input after injection, read where its attention norm receives it (downstream of
    # the injection, whatever order the hooks were registered in)
    got = {}
    h = m.layers[1].input_layernorm.register_forward_pre_hook(lambda mod, a: got.__setitem__(1, a[0].detach().clone()))
    try:
        m.run(b, ivs=ltv.injection(m, site, theta, b))
    finally:
        h.remove()
    diff = got[1] - clean[1]
    T = b.input_ids.shape[1]
    expect = torch.zeros_like(diff)
    for r, off in enumerate(b.offsets.tolist()):
        for j, p in enumerate(site.positions):
            col = T + p if p < 0 else off + p
            if col >= off:
                expect[r, col] += theta[0, j]
    assert torch.allclose(diff, expect, atol=1e-5)
    # layer 0 (before the site) is untouched
    assert torch.equal(_resid_all(m, b)[0], clean[0])


def test_one_training_step_lowers_the_loss(tiny_hooked, tokenizer):
    m = tiny_hooked
    ps = _prompts(tokenizer, TEXTS, ANSWERS)
    site = ltv.Site((1,), (-1,))
    tb = ltv.train_batch(ps, [ltv.label_ids(tokenizer, p) for p in ps], m.pad_id)
    before = float(ltv.label_loss(m, tb, site, ltv.zero_theta(m, site)).detach())
    theta, curve = ltv.train_ltv(m, ps, site, steps=1, lr=1e-2, batch_size=8)
    after = float(ltv.label_loss(m, tb, site, theta).detach())
    assert curve[0]["loss"] == pytest.approx(before, rel=1e-4)
    assert after < before


def test_resid_rms_lr_scale_gives_each_layer_a_step_of_lr_times_its_rms(tiny_hooked, tokenizer):
    """AdamW's first step moves every coordinate by lr (its update is g/|g|); with
    lr_scale='resid_rms' theta_l = s_l * phi_l, so layer l's coordinates move by lr * s_l,
    where s_l is the RMS of resid_pre^l at N, computed here from hooks, not by the code."""
    m = tiny_hooked
    ps = _prompts(tokenizer, TEXTS, ANSWERS)
    b = left_pad([p.input_ids for p in ps], m.pad_id)
    resid = _resid_all(m, b)
    want = torch.stack([resid[l][:, -1].pow(2).mean(-1).sqrt().mean() for l in (0, 1)])
    assert torch.allclose(ltv.resid_rms(m, ps, (0, 1)), want, rtol=1e-4)
    site = ltv.Site((0, 1), (-1,))
    lr = 1e-2
    theta, _ = ltv.train_ltv(m, ps, site, steps=1, lr=lr, weight_decay=0.0, batch_size=8, lr_scale="resid_rms")
    for i in range(2):
        moved = theta[i, 0].abs()
        big = moved > 0.5 * lr * want[i]  # coordinates with a non-negligible gradient
        assert big.float().mean() > 0.9
        assert torch.allclose(moved[big], torch.full_like(moved[big], lr * float(want[i])), rtol=1e-2)
    plain, _ = ltv.train_ltv(m, ps, site, steps=1, lr=lr, weight_decay=0.0, batch_size=8)
    assert torch.allclose(plain.abs().max(), torch.tensor(lr), rtol=1e-2)
    with pytest.raises(Exception, match="lr_scale"):
        ltv.train_ltv(m, ps, site, steps=1, lr=lr, lr_scale="rms")


def test_loss_averages_over_label_tokens(tiny_hooked, tokenizer):
    """A two-token label: the loss is the mean of -log p of both tokens under teacher forcing."""
    m = tiny_hooked
    p = _prompts(tokenizer, ["the movie Sentiment :"], ["good"])[0]
    two = [p.answer_token, tokenizer("fun", add_special_tokens=False)["input_ids"][0]]
    tb = ltv.train_batch([p], [two], m.pad_id)
    site = ltv.Site((0,), (-1,))
    loss = float(ltv.label_loss(m, tb, site, ltv.zero_theta(m, site)))
    with torch.no_grad():
        lg1 = m.model(input_ids=torch.tensor([p.input_ids])).logits[0, -1]
        lg2 = m.model(input_ids=torch.tensor([p.input_ids + two[:1]])).logits[0, -1]
    ref = -(torch.log_softmax(lg1, -1)[two[0]] + torch.log_softmax(lg2, -1)[two[1]]) / 2
    assert loss == pytest.approx(float(ref), rel=1e-4)


def test_linear_map_fit_recovers_a_known_map():
    g = torch.Generator().manual_seed(0)
    W = torch.randn(6, 5, generator=g, dtype=torch.float64)
    X = torch.randn(40, 5, generator=g, dtype=torch.float64)
    fitted = ltv.fit_linear_map(X, X @ W.T)
    assert torch.allclose(fitted, W, atol=1e-8)


def test_polar_decomposition_reproduces_W():
    W = torch.randn(7, 7, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    Q, S = ltv.polar(W)
    assert torch.allclose(Q @ S, W, atol=1e-10)
    assert torch.allclose(Q.T @ Q, torch.eye(7, dtype=torch.float64), atol=1e-10)
    assert torch.allclose(S, S.T, atol=1e-10)
    assert torch.linalg.eigvalsh(S).min() > -1e-10


def test_ov_terms_equal_the_hand_computed_sum(tiny_hooked):
    m = tiny_hooked
    theta = torch.randn(m.d_model, generator=torch.Generator().manual_seed(2))
    terms = ltv.ov_terms(m, theta, 1)
    assert torch.count_nonzero(terms[0]) == 0
    for l in (1, 2):
        layer = m.layers[l]
        w = layer.input_layernorm.weight.detach()
        gain = (1 + w) if "Gemma" in type(layer.input_layernorm).__name__ else w
        Wv = layer.self_attn.v_proj.weight.detach()          # [n_kv*d_head, d]
        Wo = layer.self_attn.o_proj.weight.detach()          # [d, H*d_head]
        n_kv = Wv.shape[0] // m.d_head
        rep = m.n_heads // n_kv
        total = torch.zeros(m.d_model)
        for k in range(m.n_heads):
            g = k // rep
            Wv_k = Wv[g * m.d_head:(g + 1) * m.d_head]
            Wo_k = Wo[:, k * m.d_head:(k + 1) * m.d_head]
            total += Wo_k @ (Wv_k @ (gain * theta))
        assert torch.allclose(terms[l], total, atol=1e-5)


def test_ov_reconstruction_adds_the_scaled_term_to_the_attention_output(tiny_hooked, tokenizer):
    """At layer 2 the attention output at N grows by term / rms(resid_pre of layer 2 at N);
    other positions and earlier layers are untouched."""
    m = tiny_hooked
    ps = _prompts(tokenizer, TEXTS[:2], ANSWERS[:2])
    b = left_pad([p.input_ids for p in ps], m.pad_id)
    terms = torch.randn(m.n_layers, m.d_model)
    terms[:2] = 0
    outs, ins = {}, {}
    h2 = m.layers[2].register_forward_pre_hook(lambda mod, a, k: ins.__setitem__("h", (a[0] if a else k["hidden_states"]).detach().clone()),
                                               with_kwargs=True)
    try:
        for key, ivs in (("clean", []), ("rec", [ltv.ov_reconstruction(terms, 2)])):
            h = _attn_out_reader(m, 2, outs, key)
            try:
                m.run(b, ivs=ivs)
            finally:
                h.remove()
    finally:
        h2.remove()
    eps = _eps(m.layers[2].input_layernorm)
    scale = torch.rsqrt(ins["h"][:, -1].pow(2).mean(-1, keepdim=True) + eps)
    diff = outs["rec"] - outs["clean"]
    assert torch.allclose(diff[:, -1], scale * terms[2][None], atol=1e-5)
    assert torch.allclose(diff[:, :-1], torch.zeros_like(diff[:, :-1]), atol=1e-6)


def test_ov_reconstruction_with_actual_attention_weights_each_head_by_its_c_NN(tiny_hooked, tokenizer):
    """attention='actual': the attention output of layer 2 at N grows by
    sum_k c_NN^k terms[2, k] / rms, c_NN^k read from the clean pass's attention pattern (the
    added term at N leaves layer 2's own pattern unchanged); c = 1 gives the packed sum."""
    m = tiny_hooked
    ps = _prompts(tokenizer, TEXTS[:2], ANSWERS[:2])
    b = left_pad([p.input_ids for p in ps], m.pad_id)
    theta = torch.randn(m.d_model, generator=torch.Generator().manual_seed(3))
    per_head = ltv.ov_terms(m, theta, 2, per_head=True)
    assert torch.allclose(per_head.sum(1), ltv.ov_terms(m, theta, 2), atol=1e-5)
    c = m.run(b, want=("attn",)).attn[:, 2, :, -1]          # [B, H]: N on itself, layer 2, clean pass
    outs, ins = {}, {}
    h2 = m.layers[2].register_forward_pre_hook(lambda mod, a, k: ins.__setitem__("h", (a[0] if a else k["hidden_states"]).detach().clone()),
                                               with_kwargs=True)
    try:
        for key, ivs in (("clean", []), ("rec", [ltv.ov_reconstruction(per_head, 2, "actual")])):
            h = _attn_out_reader(m, 2, outs, key)
            try:
                m.run(b, ivs=ivs)
            finally:
                h.remove()
    finally:
        h2.remove()
    eps = _eps(m.layers[2].input_layernorm)
    scale = torch.rsqrt(ins["h"][:, -1].pow(2).mean(-1, keepdim=True) + eps)
    want = scale * torch.einsum("bh,hd->bd", c, per_head[2])
    assert torch.allclose(outs["rec"][:, -1] - outs["clean"][:, -1], want, atol=1e-5)
    assert torch.allclose(outs["rec"][:, :-1], outs["clean"][:, :-1], atol=1e-6)
    assert not torch.allclose(want, scale * per_head[2].sum(0)[None], atol=1e-3)  # c_NN < 1 matters
    with pytest.raises(Exception, match="ov_attention"):
        ltv.ov_reconstruction(per_head, 2, "ones")


def test_saliency_is_the_first_order_change_of_ablating_a_head(tiny_hooked, tokenizer):
    """|z . dp/dz| against a finite-difference estimate of scaling the head's z at N."""
    m = tiny_hooked
    ps = _prompts(tokenizer, TEXTS[:1], ANSWERS[:1])
    site = ltv.Site((0,), (-1,))
    theta = torch.randn(1, 1, m.d_model) * 0.1
    sal = ltv.head_saliency(m, ps, site, theta)[0]
    l, k = 2, 1
    b = left_pad([ps[0].input_ids], m.pad_id)

    def p_with(scale):
        def hook(mod, args):
            z = args[0].clone().view(1, -1, m.n_heads, m.d_head)
            z[:, -1, k] *= scale
            return (z.view(1, z.shape[1], -1),)
        h = m.layers[l].self_attn.o_proj.register_forward_pre_hook(hook)
        try:
            lg = m.run(b, ivs=ltv.injection(m, site, theta, b)).logits[0]
        finally:
            h.remove()
        return float(torch.softmax(lg.double(), -1)[ps[0].answer_token])

    eps = 1e-3
    fd = (p_with(1 + eps) - p_with(1 - eps)) / (2 * eps)
    assert float(sal[l, k]) == pytest.approx(abs(fd), rel=1e-2, abs=1e-7)


def test_cached_prefix_gives_the_same_loss_and_predictions(tiny_hooked, tokenizer):
    m = tiny_hooked
    ps = _prompts(tokenizer, TEXTS, ANSWERS)
    for site in (ltv.Site((1,), (-1,)), ltv.Site((0, 2), (-2, 1))):
        theta = torch.randn(len(site.layers), len(site.positions), m.d_model)
        tb = ltv.train_batch(ps, [ltv.label_ids(tokenizer, p) for p in ps], m.pad_id)
        cached = ltv.cache_prefix(m, tb, site)
        assert cached.start > 0
        full = float(ltv.label_loss(m, tb, site, theta).detach())
        assert float(ltv.label_loss(m, cached, site, theta).detach()) == pytest.approx(full, rel=1e-5)
        many = evaluate(m, ps, None, ltv.conditions({"a": (site, theta), "zs": (None, None)}), share="columns", batch_size=3)
        one = evaluate_one(m, ps, None, [ltv.Injection(site, theta)], batch_size=3)
        assert torch.equal(many["a"].argmax, one.argmax)
        assert torch.allclose(many["a"].p_answer, one.p_answer, atol=1e-5)
        assert torch.equal(many["zs"].argmax, evaluate_one(m, ps, None, [], batch_size=3).argmax)


def test_final_state_change_matches_separate_runs(tiny_hooked, tokenizer):
    m = tiny_hooked
    ps = _prompts(tokenizer, TEXTS, ANSWERS)
    thetas = torch.randn(3, m.d_model)
    delta, base = ltv.final_state_change(m, ps, 1, thetas, batch_size=8)
    b = left_pad([p.input_ids for p in ps], m.pad_id)
    ref0 = m.run(b, want=("resid",)).resid[:, -1]
    assert torch.allclose(base, ref0, atol=1e-5)
    for i in range(3):
        r = m.run(b, want=("resid",), ivs=ltv.injection(m, ltv.Site((1,), (-1,)), thetas[i][None, None], b)).resid[:, -1]
        assert torch.allclose(delta[i], (r - ref0).mean(0), atol=1e-4)


@pytest.mark.slow
def test_ltv_trains_on_sst2_with_smollm2(shared_data, test_resources, tmp_path):
    """End to end on the real default model: a few AdamW steps on SST-2 queries lower the
    label loss, and LTV, Vanilla TV and zero-shot evaluate on held-out queries."""
    from pathlib import Path

    import yaml

    from conftest import ROOT
    from icl_heads.data import load_dataset
    from icl_heads.models import load_hooked
    from icl_heads.prompts import label_tokens

    from test_workflow import smk

    res = Path(test_resources) / "smollm2-135m"
    if not (res / "manifest.json").is_file():  # materialised once per session, by the workflow's own rule
        smk("-s", str(ROOT / "Snakefile"), "--directory", str(tmp_path), "--cores", "2", str(res / "manifest.json"),
            "--configfile", str(ROOT / "config" / "config.yaml"), "--config", f"resources_dir={test_resources}")
    cfg = yaml.safe_load((ROOT / "config" / "paper.yaml").read_text())
    task = load_dataset("sst2", cfg, data_dir=shared_data)
    model = load_hooked(res, attn="sdpa")
    sets = ltv.query_sets(task, model.tokenizer, n_train=8, n_eval=8, n_shot=2, seed=0)
    site = ltv.site("baseline", model.n_layers)
    theta, curve = ltv.train_ltv(model, sets["train_zs"], site, steps=4, lr=0.05, batch_size=8)
    assert curve[-1]["loss"] < curve[0]["loss"]
    assert theta.shape == (1, 1, model.d_model)
    r_icl, r_zs, heads = ltv.extraction_means(model, sets["train_icl"], sets["train_zs"])
    labels = label_tokens(model.tokenizer, task.label_set, "sst2")
    res = evaluate(model, sets["eval_zs"], labels, ltv.conditions(
        {"ltv": (site, theta), "vanilla": (site, ltv.vanilla_theta(r_icl, r_zs, site)), "zs": (None, None)}), share="columns")
    assert all(len(r.correct) == 8 for r in res.values())
    assert heads.shape == (model.n_layers, model.n_heads, model.d_model)


# ------------------------------------------------------------------ L3: the packed OV vector
# Hand-set tiny models (3 layers, d = 4, 2 heads of d_head 2): head k's W_V reads dims 2k, 2k+1
# unchanged and W_O writes them back times a_l, so sum_k W_O^k W_V^k x = a_l * x, and head k
# alone gives a_l * x on its own two dims. With the attention-input norm's gain g_l, the packed
# vector of theta injected at layer 1 is, in closed form (RMSNorm),
#     theta_OV = sum_{l' in {1, 2}} a_{l'} * g_{l'} * theta / rms(h_{l'})
# (LayerNorm: theta - mean(theta) and the std of h instead of its rms), h_{l'} = resid_pre of
# layer l' at the column in the clean pass, read here by hooks on the Hugging Face modules.
A = [torch.tensor([1.0, 2.0, -1.0, 0.5]) * (l + 1) for l in range(3)]
G = [torch.tensor([0.5, 1.5, 1.0, 2.0]) + 0.25 * l for l in range(3)]
GP = [torch.tensor([1.2, 0.7, 1.1, 0.9]) + 0.1 * l for l in range(3)]   # Gemma's post-attention norm gain


def _hand_model(family, tokenizer):
    from icl_heads.model import HookedModel

    torch.manual_seed(5)
    if family == "llama":
        from transformers import LlamaConfig, LlamaForCausalLM
        m = LlamaForCausalLM(LlamaConfig(vocab_size=64, hidden_size=4, intermediate_size=8, num_hidden_layers=3,
                                         num_attention_heads=2, num_key_value_heads=2, max_position_embeddings=128,
                                         attn_implementation="eager", tie_word_embeddings=False))
    elif family == "gemma":
        from transformers import Gemma3ForCausalLM, Gemma3TextConfig
        m = Gemma3ForCausalLM(Gemma3TextConfig(vocab_size=64, hidden_size=4, intermediate_size=8, num_hidden_layers=3,
                                               num_attention_heads=2, num_key_value_heads=2, head_dim=2,
                                               max_position_embeddings=128, sliding_window=16, query_pre_attn_scalar=2,
                                               layer_types=["full_attention"] * 3, attn_implementation="eager"))
    else:
        from transformers import GPT2Config, GPT2LMHeadModel
        m = GPT2LMHeadModel(GPT2Config(vocab_size=64, n_embd=4, n_layer=3, n_head=2, n_positions=128,
                                       attn_implementation="eager", tie_word_embeddings=False))
    m.eval()
    with torch.no_grad():
        for l in range(3):
            if family == "gpt2":
                blk = m.transformer.h[l]
                blk.attn.c_attn.weight[:, 8:12] = torch.eye(4)        # Conv1D [d, 3d]: columns q | k | v
                blk.attn.c_proj.weight.copy_(torch.diag(A[l]))
                blk.ln_1.weight.copy_(G[l])
                blk.ln_1.bias.uniform_(-0.3, 0.3)
            else:
                blk = m.model.layers[l]
                blk.self_attn.v_proj.weight.copy_(torch.eye(4))
                blk.self_attn.o_proj.weight.copy_(torch.diag(A[l]))
                if family == "gemma":                                  # Gemma's norms multiply by 1 + w
                    blk.input_layernorm.weight.copy_(G[l] - 1)
                    blk.post_attention_layernorm.weight.copy_(GP[l] - 1)
                else:
                    blk.input_layernorm.weight.copy_(G[l])
    return m, HookedModel(m, tokenizer, name=f"hand-{family}")


def _hand_reads(hf, family, batch):
    """Clean pass: resid_pre of every layer (all columns), the post-attention norm's input
    (Gemma) and every attention pattern, by hooks and outputs of the Hugging Face modules."""
    blocks = hf.transformer.h if family == "gpt2" else hf.model.layers
    resid, post = {}, {}
    hs = [b.register_forward_pre_hook(lambda mod, a, k, l=l: resid.__setitem__(l, (a[0] if a else k["hidden_states"]).detach().clone()),
                                      with_kwargs=True) for l, b in enumerate(blocks)]
    if family == "gemma":
        hs += [b.post_attention_layernorm.register_forward_pre_hook(lambda mod, a, l=l: post.__setitem__(l, a[0].detach().clone()))
               for l, b in enumerate(blocks)]
    try:
        with torch.no_grad():
            out = hf(input_ids=batch.input_ids, attention_mask=batch.attention_mask, position_ids=batch.position_ids,
                     output_attentions=True)
    finally:
        for h in hs:
            h.remove()
    return resid, post, out.attentions


def _closed_form(family, resid, post, theta, col, c=None, eps=1e-6):
    """theta_OV by the formula in the comment above, for every row at column `col` ([B] or an int);
    c: [3][B, H] attention of the column on itself per layer and head (None: c = 1)."""
    B = resid[0].shape[0]
    cols = torch.as_tensor(col).expand(B)
    rows = torch.arange(B)
    th = theta - theta.mean() if family == "gpt2" else theta
    out = torch.zeros(B, 4)
    for l in (1, 2):
        h = resid[l][rows, cols]
        scale = (h.var(-1, unbiased=False, keepdim=True) + eps).rsqrt() if family == "gpt2" else \
            (h.pow(2).mean(-1, keepdim=True) + eps).rsqrt()
        weight = torch.ones(B, 4) if c is None else c[l][:, [0, 0, 1, 1]]      # head k owns dims 2k, 2k+1
        v = weight * A[l] * G[l] * th * scale
        if family == "gemma":
            o = post[l][rows, cols]
            v = v * GP[l] * (o.pow(2).mean(-1, keepdim=True) + eps).rsqrt()
        out += v
    return out


@pytest.mark.parametrize("family", ["llama", "gpt2", "gemma"])
def test_packed_ov_vector_has_the_hand_computed_closed_form(family, tokenizer):
    """Per query and per position (N and N-1), c_NN = 1: the closed form above; LayerNorm
    (GPT-2) centres theta and divides by the std, Gemma's post-attention norm multiplies by its
    gain / rms of the clean attention output; layer 0 (before the site) contributes nothing."""
    hf, m = _hand_model(family, tokenizer)
    ps = _prompts(tokenizer, TEXTS, ANSWERS)
    b = left_pad([p.input_ids for p in ps], m.pad_id)
    T = b.input_ids.shape[1]
    theta = torch.tensor([[[0.3, -1.2, 0.8, 2.0], [1.0, 0.4, -0.6, -0.2]]])       # site layer 1, positions -1, -2
    site = ltv.Site((1,), (-1, -2))
    got = ltv.packed_ov(m, site, theta, b)
    assert got.shape == (len(ps), 1, 2, 4)
    resid, post, _ = _hand_reads(hf, family, b)
    eps = 1e-5 if family == "gpt2" else 1e-6
    for j, p in enumerate(site.positions):
        want = _closed_form(family, resid, post, theta[0, j], T + p, eps=eps)
        assert torch.allclose(got[:, 0, j], want, atol=1e-5), (family, p)
    # per query: the rows' vectors differ (different clean residuals), not one mean vector
    assert not torch.allclose(got[0, 0, 0], got[1, 0, 0], atol=1e-3)


def test_packed_ov_vector_with_actual_attention_weights_each_head_by_its_c_NN(tokenizer):
    hf, m = _hand_model("llama", tokenizer)
    ps = _prompts(tokenizer, TEXTS, ANSWERS)
    b = left_pad([p.input_ids for p in ps], m.pad_id)
    theta = torch.tensor([[[0.3, -1.2, 0.8, 2.0]]])
    resid, post, att = _hand_reads(hf, "llama", b)
    c = [a[:, :, -1, -1] for a in att]                                  # [B, H]: N on itself
    assert float(c[1].max()) < 0.99                                      # c_NN < 1 matters
    got = ltv.packed_ov(m, ltv.Site((1,), (-1,)), theta, b, attention="actual")
    want = _closed_form("llama", resid, post, theta[0, 0], -1, c=c)
    assert torch.allclose(got[:, 0, 0], want, atol=1e-5)
    with pytest.raises(Exception, match="ov_attention"):
        ltv.packed_ov(m, ltv.Site((1,), (-1,)), theta, b, attention="ones")


@pytest.mark.parametrize("family", ["llama", "gemma"])
def test_packed_ov_is_injected_once_at_the_site_in_place_of_theta(family, tokenizer):
    """A condition [PackedOV(site, theta)] gives the same logits and p(answer) as ResidAdd of
    the closed-form vector at resid_pre of the site layer at N only (not theta, and nothing at
    the later layers); the norm-matched random direction has that norm per query."""
    from icl_heads.model import ResidAdd

    hf, m = _hand_model(family, tokenizer)
    ps = _prompts(tokenizer, TEXTS, ANSWERS)
    b = left_pad([p.input_ids for p in ps], m.pad_id)
    theta = torch.tensor([[[0.3, -1.2, 0.8, 2.0]]]) * 3
    site = ltv.Site((1,), (-1,))
    resid, post, _ = _hand_reads(hf, family, b)
    want = _closed_form(family, resid, post, theta[0, 0], -1)
    item = ltv.PackedOV(site, theta)
    ref = m.run(b, ivs=[ResidAdd(1, want, (-1,))]).logits
    assert torch.allclose(m.run(b, ivs=item.resolve(m, b, 0)).logits, ref, atol=1e-5)
    assert not torch.allclose(ref, m.run(b).logits, atol=1e-3)                        # it does something
    assert not torch.allclose(ref, m.run(b, ivs=[ResidAdd(1, theta[0, 0], (-1,))]).logits, atol=1e-3)   # not theta
    twice = [ResidAdd(1, want, (-1,)), ResidAdd(2, want, (-1,))]
    assert not torch.allclose(ref, m.run(b, ivs=twice).logits, atol=1e-3)             # once matters
    # through the evaluation loop (length batches, shared prefix)
    ev = evaluate(m, ps, None, {"ov": [item]}, share="columns", batch_size=3)["ov"]
    one_row = [evaluate_one(m, [p], None, [ResidAdd(1, want[r], (-1,))]) for r, p in enumerate(ps)]
    assert torch.allclose(ev.p_answer, torch.cat([e.p_answer for e in one_row]), atol=1e-5)
    # norm-matched random direction: norm of theta_OV per query, the fixed direction
    u = ltv.random_direction((1, 1, 4), seed=11)
    assert torch.allclose(u, ltv.random_direction((1, 1, 4), seed=11))
    assert torch.allclose(u.norm(dim=-1), torch.ones(1, 1))
    rnd = ltv.PackedOV(site, theta, direction=u).vectors(m, b)[:, 0, 0]
    assert torch.allclose(rnd, want.norm(dim=-1, keepdim=True) * u[0, 0], atol=1e-5)
    norms = ltv.packed_ov_norms(m, ps, item, batch_size=3)[:, 0, 0]
    assert torch.allclose(norms, want.norm(dim=-1), atol=1e-5)
