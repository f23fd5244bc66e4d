"""A model trained from scratch (model source `train`): a small GPT-NeoX (Pythia architecture:
fused qkv, partial rotary, parallel attention + MLP, biases) on an offline corpus, with a BPE
tokenizer trained on the same corpus, saving Hugging Face checkpoints along the way.

Why: no pretrained non-Llama weights can be fetched offline, and Y9 (training dynamics) needs
a model whose checkpoints we have. A 2-layer model is the classic case in which induction heads
form during training. At a size that trains in minutes on two CPU cores they do not form from
natural text alone, so a share of the training rows (`repeat_fraction`) is a segment followed
by a copy of itself (the standard toy-model mix that rewards copying from context): a window of
the text, or (`repeat_random`) uniformly random tokens. The embeddings are tied
(`tie_embeddings`, unlike Pythia): untied, the copying path has to be learnt per token first and
induction heads did not form within 2,000 steps. Everything is seeded and runs on a fixed
number of threads, so a spec gives the same weights bytes on the same machine.
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import shutil
import sys
import time
from pathlib import Path

import torch

from ..errors import ConfigError
from ..scores import induction_score_from_pattern, induction_sequences, ordinary_token_ids

BOS = "<|endoftext|>"
PAD = "<|padding|>"

# The spec keys and their defaults (config/schema.yaml documents each one; the workflow's config
# validation fills the same defaults, the library fills them for direct callers).
DEFAULTS = {
    "architecture": "gpt_neox",
    "n_layers": 2,
    "d_model": 128,
    "n_heads": 4,
    "d_mlp": 512,
    "rotary_pct": 0.25,
    "init_std": 0.02,
    "tie_embeddings": True,
    "context": 128,
    "vocab_size": 2048,
    "steps": 1500,
    "batch_size": 16,
    "lr": 1e-3,
    "warmup": 100,
    "weight_decay": 0.01,
    "grad_clip": 0.0,
    "seed": 0,
    "threads": 1,
    "repeat_fraction": 0.5,
    "repeat_random": 1.0,
    "repeat_len": [16, 48],
    "repeat_warmup": 0,
    "eval_every": 100,
    "checkpoint_steps": [0, 100, 200, 400, 800, 1500],
    "corpus": {"builtin": "english_essays"},
    "induction_probe": {"n_sequences": 20, "seq_len": 50},
}


def full_spec(spec: dict) -> dict:
    out = {**DEFAULTS, **(spec or {})}
    if out["architecture"] != "gpt_neox":
        raise ConfigError(f"train.architecture is {out['architecture']!r}; only gpt_neox is implemented")
    if out["d_model"] % out["n_heads"]:
        raise ConfigError(f"train.d_model ({out['d_model']}) must be divisible by train.n_heads ({out['n_heads']})")
    bad = [s for s in out["checkpoint_steps"] if not 0 <= s <= out["steps"]]
    if bad:
        raise ConfigError(f"train.checkpoint_steps {bad} lie outside 0..train.steps ({out['steps']})")
    return out


# ------------------------------------------------------------------ corpus
def read_corpus(corpus: dict, data_dir: str | Path = ".") -> tuple[str, dict]:
    """The corpus text and its record (where it came from, sha256 of the exact text trained on)."""
    if corpus.get("path"):
        path = Path(corpus["path"]).expanduser()
        if not path.is_absolute():
            path = Path(data_dir) / path
        if not path.is_file():
            raise ConfigError(f"train.corpus.path: {path} does not exist; set data_dir (now {data_dir}) to the folder "
                              f"holding {corpus['path']}, or use train.corpus.builtin: english_essays")
        raw = path.read_bytes()
        digest = hashlib.sha256(raw).hexdigest()
        if corpus.get("sha256") and corpus["sha256"] != digest:
            raise ConfigError(f"train.corpus.sha256 is {corpus['sha256']} but {path} hashes to {digest}; "
                              "the file changed: check it and update the hash")
        text, where = raw.decode("utf-8"), str(corpus["path"])
    elif corpus.get("builtin"):
        from .. import builtin_texts

        if corpus["builtin"] != "english_essays":
            raise ConfigError(f"train.corpus.builtin is {corpus['builtin']!r}; known: english_essays")
        text = "\n\n".join(builtin_texts.ESSAYS)
        digest, where = hashlib.sha256(text.encode()).hexdigest(), f"builtin:{corpus['builtin']}"
    else:
        raise ConfigError("train.corpus needs `path` (a text file, relative to data_dir) or `builtin`")
    return text, {"source": where, "sha256": digest, "n_chars": len(text)}


# ------------------------------------------------------------------ tokenizer
def train_tokenizer(text: str, vocab_size: int):
    """Byte-level BPE trained on `text` (deterministic); BOS is prepended by the tokenizer itself,
    as Llama-style tokenizers do, so prompts built by the workflow start with it."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=[BOS, PAD], show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), min_frequency=2)
    # one chunk per paragraph: the trainer counts words per chunk, order does not matter
    tok.train_from_iterator([p for p in text.split("\n\n") if p], trainer=trainer)
    bos = tok.token_to_id(BOS)
    tok.post_processor = processors.TemplateProcessing(single=f"{BOS} $A", pair=f"{BOS} $A {BOS} $B",
                                                       special_tokens=[(BOS, bos)])
    return PreTrainedTokenizerFast(tokenizer_object=tok, bos_token=BOS, eos_token=BOS, pad_token=PAD,
                                   unk_token=None, model_max_length=10**6)


# ------------------------------------------------------------------ model
def build_model(spec: dict, tokenizer):
    from transformers import GPTNeoXConfig, GPTNeoXForCausalLM

    cfg = GPTNeoXConfig(vocab_size=len(tokenizer), hidden_size=spec["d_model"], num_hidden_layers=spec["n_layers"],
                        num_attention_heads=spec["n_heads"], intermediate_size=spec["d_mlp"],
                        max_position_embeddings=spec["context"], rotary_pct=spec["rotary_pct"],
                        rotary_emb_base=10000, use_parallel_residual=True, attention_bias=True,
                        hidden_dropout=0.0, attention_dropout=0.0,
                        tie_word_embeddings=spec["tie_embeddings"],
                        bos_token_id=tokenizer.bos_token_id, eos_token_id=tokenizer.eos_token_id,
                        pad_token_id=tokenizer.pad_token_id, initializer_range=spec["init_std"],
                        attn_implementation="eager")
    return GPTNeoXForCausalLM(cfg)


# ------------------------------------------------------------------ data
class Batches:
    """Training batches. A text batch: rows of BOS + a random window of `context` - 1 tokens of
    the token stream. A repeat batch (every step up to `repeat_warmup`, then a share
    `repeat_fraction` of the steps): rows of BOS + w + w, w a segment of n tokens (n drawn per
    batch from `repeat_len` = [min, max]) of uniformly random ordinary tokens or (a share
    1 - `repeat_random` of the rows) a window of the text. Predicting the copy needs an
    induction head; n changes from batch to batch, so no fixed-offset head can do it instead."""

    def __init__(self, ids: torch.Tensor, bos: int, context: int, repeat_fraction: float, generator,
                 repeat_random: float = 1.0, vocab_ids: torch.Tensor | None = None,
                 repeat_len: tuple[int, int] = (16, 48), repeat_warmup: int = 0):
        if len(ids) < context + 1:
            raise ConfigError(f"the corpus has {len(ids)} tokens, fewer than train.context ({context}) + 1")
        lo, hi = (int(v) for v in repeat_len)
        if (repeat_fraction > 0 or repeat_warmup > 0) and not (1 <= lo <= hi and 1 + 2 * hi <= context):
            raise ConfigError(f"train.repeat_len {[lo, hi]}: need 1 <= min <= max and 1 + 2 * max <= train.context "
                              f"({context})")
        self.ids, self.bos, self.T, self.p, self.g = ids, bos, context, repeat_fraction, generator
        self.p_random, self.vocab, self.len, self.warm = repeat_random, vocab_ids, (lo, hi), repeat_warmup

    def _window(self, n: int) -> torch.Tensor:
        s = int(torch.randint(len(self.ids) - n + 1, (1,), generator=self.g))
        return self.ids[s:s + n]

    def _segment(self, n: int) -> torch.Tensor:
        if float(torch.rand((), generator=self.g)) < self.p_random:
            return self.vocab[torch.randint(len(self.vocab), (n,), generator=self.g)]
        return self._window(n)

    def __call__(self, batch_size: int, step: int | None = None) -> torch.Tensor:
        bos = torch.tensor([self.bos])
        draw = float(torch.rand((), generator=self.g))
        if draw < self.p or (step is not None and step <= self.warm):
            n = int(torch.randint(self.len[0], self.len[1] + 1, (1,), generator=self.g))
            rows = [torch.cat([bos, w, w]) for w in (self._segment(n) for _ in range(batch_size))]
        else:
            rows = [torch.cat([bos, self._window(self.T - 1)]) for _ in range(batch_size)]
        return torch.stack(rows)


def lr_at(step: int, spec: dict) -> float:
    """Linear warm-up, then cosine decay to a tenth of the peak."""
    lr, warm, total = spec["lr"], spec["warmup"], spec["steps"]
    if step < warm:
        return lr * (step + 1) / warm
    frac = (step - warm) / max(1, total - warm)
    return lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * frac)))


# ------------------------------------------------------------------ probes
@torch.no_grad()
def induction_probe(model, tokenizer, n_sequences: int, seq_len: int, seed: int) -> torch.Tensor:
    """Y1's induction score ([L, H]) on a plain HF model, via output_attentions."""
    g = torch.Generator().manual_seed(seed)
    vocab = ordinary_token_ids(tokenizer, len(tokenizer))
    seqs = induction_sequences(n_sequences, seq_len, vocab, tokenizer.bos_token_id, g)
    was = model.training
    model.eval()
    out = model(input_ids=seqs, output_attentions=True)
    model.train(was)
    pat = torch.stack(out.attentions, 1).double()  # [B, L, H, T, T]
    return induction_score_from_pattern(pat, seq_len, has_bos=True).float()


@torch.no_grad()
def eval_loss(model, batch: torch.Tensor) -> float:
    was = model.training
    model.eval()
    loss = float(model(input_ids=batch, labels=batch).loss)
    model.train(was)
    return loss


def _save(model, tokenizer, out: Path):
    tmp = out.with_name("." + out.name + ".part")
    if tmp.exists():
        shutil.rmtree(tmp)
    model.save_pretrained(tmp, safe_serialization=True)
    tokenizer.save_pretrained(tmp)
    if out.exists():
        shutil.rmtree(out)
    os.replace(tmp, out)


# ------------------------------------------------------------------ training
def train_model(spec: dict, out_dir: str | Path, *, data_dir: str | Path = ".", log=print,
                progress: bool = True) -> dict:
    """Train a model from `spec` (the `train` block of a model entry) into `out_dir`:
    tokenizer/, checkpoints/step<k>/ (each a save_pretrained directory with the tokenizer),
    hf/ (the final weights) and training.json (the record this function also returns)."""
    spec = full_spec(spec)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    threads_before = torch.get_num_threads()
    torch.set_num_threads(int(spec["threads"]))
    try:
        text, corpus = read_corpus(spec["corpus"], data_dir)
        tok = train_tokenizer(text, spec["vocab_size"])
        _save_tokenizer(tok, out_dir / "tokenizer")
        ids = torch.tensor(tok(text, add_special_tokens=False)["input_ids"], dtype=torch.long)
        n_eval = max(spec["context"] * 8, len(ids) // 20)
        train_ids, eval_ids = ids[:-n_eval], ids[-n_eval:]
        corpus.update(n_tokens=len(ids), n_train_tokens=len(train_ids))
        log(f"corpus {corpus['source']} (sha256 {corpus['sha256'][:12]}): {len(ids)} tokens, vocab {len(tok)}")

        torch.manual_seed(spec["seed"])
        model = build_model(spec, tok)
        model.train()
        n_params = sum(p.numel() for p in model.parameters())
        g = torch.Generator().manual_seed(spec["seed"] + 1)
        batches = Batches(train_ids, tok.bos_token_id, spec["context"], spec["repeat_fraction"], g,
                          spec["repeat_random"], ordinary_token_ids(tok, len(tok)), spec["repeat_len"],
                          spec["repeat_warmup"])
        held = Batches(eval_ids, tok.bos_token_id, spec["context"], 0.0, torch.Generator().manual_seed(spec["seed"] + 2))
        eval_batch = held(32)
        decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
        no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
        opt = torch.optim.AdamW([{"params": decay, "weight_decay": spec["weight_decay"]},
                                 {"params": no_decay, "weight_decay": 0.0}], lr=spec["lr"])
        ck_steps = sorted(set(spec["checkpoint_steps"]))
        probe = spec["induction_probe"]
        record = {"architecture": spec["architecture"], "spec": spec, "n_params": n_params, "corpus": corpus,
                  "seed": spec["seed"], "steps": spec["steps"], "threads": spec["threads"],
                  "torch": torch.__version__, "loss": [], "checkpoints": []}

        def checkpoint(step: int, train_loss):
            ind = induction_probe(model, tok, probe["n_sequences"], probe["seq_len"], spec["seed"] + 3)
            ev = eval_loss(model, eval_batch)
            _save(model, tok, out_dir / "checkpoints" / f"step{step}")
            record["checkpoints"].append({"step": step, "path": f"checkpoints/step{step}", "eval_loss": ev,
                                          "train_loss": train_loss, "induction_max": float(ind.max()),
                                          "induction": [[round(float(v), 5) for v in row] for row in ind],
                                          "seconds": round(time.time() - t0, 1)})
            log(f"step {step}: eval loss {ev:.3f}, max-head induction score {float(ind.max()):.3f} "
                f"({time.time() - t0:.0f} s)")

        if 0 in ck_steps:
            checkpoint(0, None)
        running = None
        for step in range(1, spec["steps"] + 1):
            for group in opt.param_groups:
                group["lr"] = lr_at(step - 1, spec)
            x = batches(spec["batch_size"], step)
            loss = model(input_ids=x, labels=x).loss
            opt.zero_grad(set_to_none=True)
            loss.backward()
            if spec["grad_clip"]:
                torch.nn.utils.clip_grad_norm_(model.parameters(), spec["grad_clip"])
            opt.step()
            lv = loss.item()
            running = lv if running is None else 0.9 * running + 0.1 * lv
            if step % spec["eval_every"] == 0 or step == spec["steps"]:
                record["loss"].append({"step": step, "train_loss": round(running, 4)})
                if progress and step not in ck_steps:
                    log(f"step {step}: train loss {running:.3f} ({time.time() - t0:.0f} s)")
            if step in ck_steps:
                checkpoint(step, running)
        _save(model, tok, out_dir / "hf")
        record["seconds"] = round(time.time() - t0, 1)
        tmp = out_dir / "training.json.tmp"
        tmp.write_text(json.dumps(record, indent=1))
        os.replace(tmp, out_dir / "training.json")
        return record
    finally:
        torch.set_num_threads(threads_before)


def _save_tokenizer(tok, out: Path):
    tmp = out.with_name("." + out.name + ".part")
    if tmp.exists():
        shutil.rmtree(tmp)
    tok.save_pretrained(tmp)
    if out.exists():
        shutil.rmtree(out)
    os.replace(tmp, out)


if __name__ == "__main__":  # quick manual runs: python -m icl_heads.model.train OUT [steps]
    out = sys.argv[1]
    over = {"steps": int(sys.argv[2])} if len(sys.argv) > 2 else {}
    train_model({"corpus": {"path": "tinyshakespeare/input.txt"}, **over}, out, data_dir="../shared/data")
