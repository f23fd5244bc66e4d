"""The model layer: the only code of the project that registers hooks on, or calls into, a
Hugging Face module. Everything else speaks its vocabulary, TransformerLens's hook names.

- `adapters`: one declarative record per decoder family (where each hook point and weight lives);
- `hooked.HookedModel`: reads at hook points, weights in TransformerLens shapes, one `run` with
  interventions, a reusable key/value prefix, block replay and autograd;
- `interventions`: interventions as values (ablate, patch, add, re-inject, read gradients);
- `evaluate`: the one evaluation loop and its result type.
"""
from .adapters import ADAPTERS, Adapter, adapter_for
from .evaluate import Eval, evaluate, evaluate_one, length_batches
from .hooked import Batch, HookedModel, Prefix, RunOutput, left_pad
from .interventions import (ABLATION_NORM_TEXT, AddAt, HeadAblation, HeadPatch, Intervention, OVReinjection,
                            ResidAdd, RowHeadPatch, ZGrad, first_touched_layer)

__all__ = ["ABLATION_NORM_TEXT", "ADAPTERS", "Adapter", "adapter_for", "Eval", "evaluate", "evaluate_one", "length_batches", "Batch",
           "HookedModel", "Prefix", "RunOutput", "left_pad", "AddAt", "HeadAblation", "HeadPatch", "Intervention",
           "OVReinjection", "ResidAdd", "RowHeadPatch", "ZGrad", "first_touched_layer"]
