"""L2: LTV as parameter-efficient fine-tuning, against prefix tuning, prompt tuning and LoRA
from the peft library, trained and measured in one harness on the same queries: the same
loss (-log p of the label's first token at N... or all label tokens), optimiser, steps and
batches; accuracy, trainable parameters, mean training-step latency, peak inference memory."""
from __future__ import annotations

import threading
import time

import torch

from . import ltv
from .model import HookedModel, left_pad


def lora_rank_for(budget: int, d_in: int, d_out: int) -> int:
    """LoRA rank on one d_in -> d_out linear whose r * (d_in + d_out) parameters come closest to budget."""
    return max(1, round(budget / (d_in + d_out)))


class PeakMemory:
    """Peak memory of a block: CUDA allocator peak on a GPU; on the CPU the process RSS sampled
    every millisecond (psutil), minus the RSS before the block."""

    def __init__(self, device):
        self.device = torch.device(device)
        self.method = ("torch.cuda.max_memory_allocated (peak) and its rise during inference" if self.device.type == "cuda"
                       else "process RSS peak (psutil, 1 ms sampling) and its rise during inference")

    def __enter__(self):
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
            torch.cuda.reset_peak_memory_stats(self.device)
            self.before = torch.cuda.memory_allocated(self.device)
            return self
        import psutil

        proc = psutil.Process()
        self.before = proc.memory_info().rss
        self.peak = self.before
        self._stop = False

        def sample():
            while not self._stop:
                self.peak = max(self.peak, proc.memory_info().rss)
                time.sleep(0.001)

        self._t = threading.Thread(target=sample, daemon=True)
        self._t.start()
        return self

    def __exit__(self, *exc):
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
            self.peak_bytes = torch.cuda.max_memory_allocated(self.device)
            self.bytes = self.peak_bytes - self.before
        else:
            self._stop = True
            self._t.join()
            self.peak_bytes = self.peak
            self.bytes = self.peak - self.before
        return False


def _loss_from_logits(logits, targets):
    K = targets.shape[1]
    logp = torch.log_softmax(logits[:, -K:].float(), -1)
    ok = targets >= 0
    tok = logp.gather(-1, targets.clamp(min=0)[..., None])[..., 0] * ok
    return -(tok.sum(1) / ok.sum(1)).mean()


def train_and_measure(method: str, model: HookedModel, train, evalp, *, steps: int, lr: float, weight_decay: float,
                      batch_size: int, seed: int, budget: int, layer: int, label_mode: str = "all",
                      lr_scale: str = "none") -> dict:
    """Train `method` (ltv | lora | prefix | prompt) on `train`, evaluate on `evalp`. The LTV's
    step size follows `lr_scale` exactly as in ltv.train_ltv (the other methods use lr as is)."""
    from peft import LoraConfig, PrefixTuningConfig, PromptTuningConfig

    dev = model.device
    model.freeze()
    g = torch.Generator().manual_seed(seed)
    order = torch.randperm(len(train), generator=g).tolist()
    chunks = [order[s:s + batch_size] for s in range(0, len(order), batch_size)]
    batches = [ltv.train_batch([train[i] for i in c], [ltv.label_ids(model.tokenizer, train[i], label_mode) for i in c],
                               model.pad_id) for c in chunks]
    detail = ""
    use_pos = True
    if method == "ltv":
        site = ltv.Site((layer,), (-1,))
        scale = ltv.step_scale(model, train, site, lr_scale, batch_size)
        phi = ltv.zero_theta(model, site).to(dev).requires_grad_(True)
        params = [phi]
        net = None
    else:
        if method == "lora":
            target = model.o_proj_name()
            r = lora_rank_for(budget, model.n_heads * model.d_head, model.d_model)
            conf = LoraConfig(r=r, lora_alpha=r, lora_dropout=0.0, target_modules=[target], layers_to_transform=[layer],
                              bias="none")
            detail = f"rank {r} on {target.split('.')[-1]} of layer {layer}"
        elif method == "prefix":
            conf = PrefixTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=1)
            detail = "1 virtual token, keys and values at every layer (the smallest prefix peft allows)"
            use_pos = False
        elif method == "prompt":
            conf = PromptTuningConfig(task_type="CAUSAL_LM", num_virtual_tokens=1)
            detail = "1 virtual input token (soft prompt)"
            use_pos = False
        else:
            raise ValueError(method)
        torch.manual_seed(seed)
        net = model.peft(conf)
        params = [p for p in net.parameters() if p.requires_grad]
    n_params = sum(p.numel() for p in params)
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay)
    times, losses = [], []
    for step in range(steps):
        tb = batches[step % len(batches)]
        K = tb.targets.shape[1]
        t0 = time.perf_counter()
        opt.zero_grad()
        if net is None:
            logits = model.run(tb.batch, ivs=ltv.injection(model, site, phi * scale, tb.batch, tb.query_end),
                               keep=K, grad=True).logits
        else:
            logits = model.forward_logits(tb.batch, K, net, use_pos)
        loss = _loss_from_logits(logits, tb.targets.to(dev))
        loss.backward()
        opt.step()
        if dev.type == "cuda":
            torch.cuda.synchronize(dev)
        times.append(time.perf_counter() - t0)
        losses.append(float(loss.detach()))
    correct = []
    mem = PeakMemory(dev)
    with torch.no_grad(), mem:
        for s in range(0, len(evalp), batch_size):
            ps = evalp[s:s + batch_size]
            b = left_pad([p.input_ids for p in ps], model.pad_id)
            if net is None:
                logits = model.run(b, ivs=ltv.injection(model, site, (phi * scale).detach(), b), keep=1).logits
            else:
                logits = model.forward_logits(b, 1, net, use_pos)
            correct += (logits[:, -1].argmax(-1).cpu() == torch.tensor([p.answer_token for p in ps])).float().tolist()
    if net is not None:
        net.unload() if method == "lora" else None
    return {"method": method, "detail": detail or (f"theta at resid_pre of layer {layer}, N"
                                                   + (" (step size x residual RMS)" if lr_scale == "resid_rms" else "")), "trainable_params": n_params,
            "accuracy": sum(correct) / len(correct), "correct": correct,
            "train_step_latency_s": sum(times[1:]) / max(1, len(times) - 1), "peak_inference_memory_mb": mem.peak_bytes / 2**20,
            "inference_memory_rise_mb": mem.bytes / 2**20,
            "memory_method": mem.method, "final_loss": losses[-1], "first_loss": losses[0]}
