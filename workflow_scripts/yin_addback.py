"""Rule yin_addback (Y7; one evaluation task): the task's function vector (sum of the top FV
heads' mean outputs) added at layer L/3 of shuffled-label and zero-shot prompts, against
clean 10-shot accuracy and a vector of as many random heads."""
from common import Job  # noqa: I001
import random

import pandas as pd

from icl_heads.config import job_seed
from icl_heads.model import evaluate
from icl_heads.io import write_csv
from icl_heads.prompts import build_prompts
from icl_heads.tsla import top_heads
from icl_heads.yin import add_back, function_vector, mean_head_outputs

job = Job(snakemake)  # noqa: F821
smk = snakemake  # noqa: F821
w, cfg = job.wildcards, job.config["fv"]
model = job.load_model(attn="sdpa")
task = job.load_task(w["task"])
seed = job_seed(job.config, "yin_addback", w["model"], w["task"])
bs = job.config["prompts"]["batch_size"]
kw = dict(n_queries=cfg["n_eval"], seed=seed, balanced=False)
sets = {"clean 10-shot": build_prompts(task, model.tokenizer, n_shot=cfg["n_shot"], **kw),
        "shuffled": build_prompts(task, model.tokenizer, n_shot=cfg["n_shot"], perturbation="shuffle_labels", **kw),
        "zero-shot": build_prompts(task, model.tokenizer, n_shot=0, **kw)}
# Mean head outputs over clean prompts whose queries come from the training split (not evaluated).
ref = build_prompts(task, model.tokenizer, n_shot=cfg["n_shot"], query_split="train", n_queries=cfg["n_prompts"],
                    seed=seed + 1, balanced=False)
means = mean_head_outputs(model, ref, batch_size=bs)
heads = pd.read_csv(smk.input.heads)
fv_heads = top_heads(heads, "fv", cfg["top_percent"])
layer = cfg["addback_layer"] if cfg["addback_layer"] >= 0 else model.n_layers // 3
pool = [(l, h) for l in range(model.n_layers) for h in range(model.n_heads)]
vectors = {"FV": function_vector(means, fv_heads)}
for s in range(cfg["ablation"]["random_seeds"]):
    vectors[f"random#{s}"] = function_vector(means, random.Random(f"{seed}/{s}").sample(pool, len(fv_heads)))
rows = []
for base in ("clean 10-shot", "shuffled", "zero-shot"):
    prompts = sets[base]
    conds = {base: []}
    if base != "clean 10-shot":
        conds.update({f"{base} + {name}": [add_back(layer, v)] for name, v in vectors.items()})
    answers = sorted({p.answer_token for p in prompts})
    runs = evaluate(model, prompts, answers, conds, share="layers", batch_size=bs, progress=True, desc=f"Y7 {base}")
    for name, res in runs.items():
        cond, rseed = (name.split("#")[0], int(name.split("#")[1])) if "#" in name else (name, None)
        for p, c in zip(prompts, res.correct.tolist()):
            rows.append({"model": w["model"], "task": w["task"], "condition": cond, "random_seed": rseed,
                         "query": p.index, "correct": int(c)})
df = pd.DataFrame(rows)
df["random_seed"] = df["random_seed"].astype("Int64")
df["layer"], df["n_fv_heads"], df["n"], df["seed"] = layer, len(fv_heads), len(sets["shuffled"]), seed
prov = job.provenance(seed=seed, model=job.model_record(), data=task.provenance(),
                      choices={"vector": f"sum over the top {cfg['top_percent']}% FV heads of their mean output at N "
                                         f"(residual space) over {len(ref)} clean {cfg['n_shot']}-shot prompts with training-split queries",
                               "injection": f"added to the input of block {layer} (L/3 unless fv.addback_layer) at the final position",
                               "random": "as many heads drawn uniformly, one draw per seed"},
                      config_keys=["fv.n_shot", "fv.n_eval", "fv.n_prompts", "fv.top_percent", "fv.addback_layer"])
write_csv(df, smk.output[0], prov)
