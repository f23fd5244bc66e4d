"""The activation cache: one batched pass of the model over a prompt set, storing
everything the head analyses read, so that changing an analysis parameter never
reruns the model.

Stored tensors (B prompts, L layers, H heads):
- `head_out` [B, L, H, d_model]: head outputs at N in residual space (post-attention
  norm linearised, see HookedModel.head_outputs_from)
- `z` [B, L, H, d_head]: per-head attention outputs at N before W_O
- `attn_labels_sum/_mean`, `attn_query_sum/_mean`, `attn_first` [B, L, H]: attention
  from N to the demonstration label tokens, the query tokens and the first token
- `resid` [B, L+1, d_model]: resid_pre of every layer and the final-norm input at N
- `label_logits` [B, |Y|], `logsumexp` [B], `argmax` [B], `answer_token` [B],
  `answer_index` [B] (index of the answer in the label set, -1 if none)
- `W_Y` [|Y|, d_model]: effective unembedding of the label tokens
"""
from __future__ import annotations

import sys
from dataclasses import dataclass

import torch
from tqdm import tqdm

from .model import HookedModel, left_pad
from .prompts import Prompt


@dataclass
class PromptSet:
    name: str
    n_shot: int
    start: int
    n: int
    perturbation: str = "none"


def prompt_set(config: dict, name: str, dataset: str | None = None) -> PromptSet:
    """Named prompt sets: score (first n_score queries), eval (the next n_eval), and
    eval variants `eval_zeroshot`, `eval_<perturbation>`; n_score / n_eval from `prompts`, or
    the dataset's own `datasets.<dataset>.sizes`."""
    from .config import dataset_size
    from .errors import ConfigError
    from .prompts import PERTURBATIONS

    def size(key):  # only the keys the set needs: rule prompts_score declares no n_eval
        return dataset_size(config, dataset, key) if dataset else config["prompts"][key]

    n_shot = config["prompts"]["n_shot"]
    if name == "score":
        return PromptSet(name, n_shot, 0, size("n_score"))
    if name == "eval":
        return PromptSet(name, n_shot, size("n_score"), size("n_eval"))
    if name == "eval_zeroshot":
        return PromptSet(name, 0, size("n_score"), size("n_eval"))
    if name.startswith("eval_") and name[5:] in PERTURBATIONS:
        return PromptSet(name, n_shot, size("n_score"), size("n_eval"), name[5:])
    raise ConfigError(f"unknown prompt set {name!r}; use score, eval, eval_zeroshot or eval_<perturbation> "
                      f"with perturbation in {PERTURBATIONS}")


def _position_masks(prompts: list[Prompt], width: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    B = len(prompts)
    lab = torch.zeros(B, width)
    qry = torch.zeros(B, width)
    first = torch.zeros(B, width)
    for i, p in enumerate(prompts):
        off = width - len(p.input_ids)
        for t in p.label_positions:
            lab[i, off + t] = 1
        for t in p.query_positions:
            qry[i, off + t] = 1
        first[i, off] = 1
    return lab, qry, first


def summarise_attention(attn: torch.Tensor, prompts: list[Prompt]) -> dict[str, torch.Tensor]:
    """attn [B, L, H, T] rows from N (left padded) -> per-head sums/means over position groups."""
    lab, qry, first = _position_masks(prompts, attn.shape[-1])
    out = {}
    for name, m in (("labels", lab), ("query", qry)):
        s = torch.einsum("blht,bt->blh", attn, m)
        cnt = m.sum(-1).clamp_min(1)[:, None, None]
        out[f"attn_{name}_sum"] = s
        out[f"attn_{name}_mean"] = s / cnt
    out["attn_first"] = torch.einsum("blht,bt->blh", attn, first)
    return out


def build_cache(model: HookedModel, prompts: list[Prompt], label_token_ids: list[int] | None,
                batch_size: int = 8, progress: bool = True, store_heads: bool = True) -> dict[str, torch.Tensor]:
    """Run every prompt once (batched, left padded) and collect the cache tensors."""
    want = ("logits", "heads", "attn", "resid") if store_heads else ("logits",)
    chunks: dict[str, list] = {}
    # Sorting by length keeps padding small; results are put back in prompt order.
    order = sorted(range(len(prompts)), key=lambda i: len(prompts[i].input_ids))
    lab_ids = torch.tensor(label_token_ids or [], dtype=torch.long)
    it = range(0, len(order), batch_size)
    for s in tqdm(it, desc=f"cache {model.name}", file=sys.stderr, disable=not progress, unit="batch"):
        idx = order[s:s + batch_size]
        ps = [prompts[i] for i in idx]
        batch = left_pad([p.input_ids for p in ps], model.pad_id)
        out = model.run(batch, want=want)
        part = {"logsumexp": torch.logsumexp(out.logits, -1), "argmax": out.logits.argmax(-1),
                "answer_logit": out.logits.gather(1, torch.tensor([[p.answer_token] for p in ps]))[:, 0]}
        if len(lab_ids):
            part["label_logits"] = out.logits[:, lab_ids]
        if store_heads:
            part["head_out"] = out.head_out.float()
            part["z"] = out.z.float()
            part["resid"] = out.resid.float()
            part.update(summarise_attention(out.attn.float(), ps))
        for k, v in part.items():
            chunks.setdefault(k, []).append((idx, v))
    result = {}
    inv = torch.empty(len(order), dtype=torch.long)
    inv[torch.tensor(order)] = torch.arange(len(order))
    for k, parts in chunks.items():
        cat = torch.cat([v for _, v in parts], 0)
        result[k] = cat[inv]
    result["answer_token"] = torch.tensor([p.answer_token for p in prompts], dtype=torch.long)
    if len(lab_ids):
        pos = {int(t): i for i, t in enumerate(lab_ids)}
        result["answer_index"] = torch.tensor([pos.get(p.answer_token, -1) for p in prompts], dtype=torch.long)
        result["W_Y"] = model.unembed()[lab_ids].float()
        result["label_tokens"] = lab_ids
    result["n_tokens"] = torch.tensor([len(p.input_ids) for p in prompts], dtype=torch.long)
    return result


def accuracy_and_tr_ratio(argmax: torch.Tensor, answer_token: torch.Tensor, label_tokens: torch.Tensor):
    """Accuracy = full-vocabulary argmax is the answer token; TR ratio = argmax in the label set."""
    acc = (argmax == answer_token).float()
    in_set = torch.isin(argmax, label_tokens).float()
    return acc, in_set
