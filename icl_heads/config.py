"""Config validation against config/schema.yaml, with defaults filled in and
errors that name the offending key."""
from __future__ import annotations

import copy
from pathlib import Path

import yaml

from .errors import ConfigError

SCHEMA_PATH = Path(__file__).resolve().parent.parent / "config" / "schema.yaml"


def _validator(schema):
    from jsonschema import Draft202012Validator, validators

    def set_defaults(validator, properties, instance, schema):
        if isinstance(instance, dict):
            for key, sub in properties.items():
                if "default" in sub and key not in instance:
                    instance[key] = copy.deepcopy(sub["default"])
        yield from Draft202012Validator.VALIDATORS["properties"](validator, properties, instance, schema)

    cls = validators.extend(Draft202012Validator, {"properties": set_defaults})
    return cls(schema)


def _key(path) -> str:
    return ".".join(str(p) for p in path) or "(top level)"


def validate(config: dict, schema_path: str | Path = SCHEMA_PATH, log=None) -> dict:
    """Validate in place (defaults filled) and return the config; ConfigError names the key.
    `log` (default: a line on stderr) receives a note for each value completed beyond the schema's defaults."""
    schema = yaml.safe_load(Path(schema_path).read_text())
    errors = sorted(_validator(schema).iter_errors(config), key=lambda e: list(e.absolute_path))
    if errors:
        lines = []
        for e in errors[:10]:
            if e.validator == "additionalProperties":
                lines.append(f"config key `{_key(e.absolute_path)}`: {e.message} (check the spelling against config/schema.yaml)")
            elif e.validator == "required":
                lines.append(f"config key `{_key(e.absolute_path)}`: {e.message}")
            else:
                desc = e.schema.get("description", "") if isinstance(e.schema, dict) else ""
                lines.append(f"config key `{_key(e.absolute_path)}`: {e.message}" + (f" — {desc}" if desc else ""))
        raise ConfigError("invalid configuration:\n  " + "\n  ".join(lines))
    expand_checkpoints(config)
    for m in config["run_models"]:
        if m not in config["models"]:
            raise ConfigError(f"config key `run_models`: unknown model {m!r}; known models: {', '.join(sorted(config['models']))}")
    for m in artifact_models(config):
        arts = config["models"][m]["artifacts"]
        if "Y9" in arts and not checkpoint_models(config, m):
            raise ConfigError(f"config key `models.{m}.artifacts` asks for Y9 but the model has no training checkpoints; "
                              "give it `checkpoints`, or source: train with train.checkpoint_steps")
    for d in config["classification_datasets"]:
        if d not in config["datasets"]:
            raise ConfigError(f"config key `classification_datasets`: unknown dataset {d!r}; "
                              f"known datasets: {', '.join(sorted(config['datasets']))}")
    fv = config.get("fv", {})
    for key in ("scoring_tasks", "eval_tasks"):
        for d in fv.get(key, []):
            if d not in config["datasets"]:
                raise ConfigError(f"config key `fv.{key}`: unknown dataset {d!r}; known datasets: "
                                  f"{', '.join(sorted(config['datasets']))}")
    both = sorted(set(fv.get("scoring_tasks", [])) & set(fv.get("eval_tasks", [])))
    if both:
        raise ConfigError(f"config keys `fv.scoring_tasks` and `fv.eval_tasks` share {both}; scoring and "
                          "evaluation tasks must be disjoint")
    _complete_threshold_sweep(config, log or _stderr)
    problems = []
    for name, roles in dataset_roles(config).items():
        problems += _dataset_problems(config, name, roles)
    if problems:
        raise ConfigError("\n".join(dict.fromkeys(problems)))
    return config


# ------------------------------------------------------------------ checks beyond the schema
# Each problem is one line that starts with the config key to change and says how; validate()
# needs no file, check_data() reads the datasets' files (still no model and no torch).
def _stderr(msg: str) -> None:
    import sys

    print(msg, file=sys.stderr)  # Snakemake's console hides Python warnings


def _complete_threshold_sweep(config: dict, log) -> None:
    """T5 and T7 read their claims at tsla.top_percent, so the F3 sweep must hold it: where it
    does not, it is added (changing top_percent alone is a valid edit), with a note."""
    tsla = config.get("tsla", {})
    top, sweep = tsla.get("top_percent"), tsla.get("threshold_sweep")
    if top is None or sweep is None or top in sweep:
        return
    tsla["threshold_sweep"] = sorted([*sweep, top])
    log(f"config key `tsla.threshold_sweep`: {sweep} does not include tsla.top_percent ({top}), at which T5 and T7 "
        f"report their claims; running the sweep {tsla['threshold_sweep']} (write it so in the config to silence this)")


def dataset_roles(config: dict) -> dict[str, list[str]]:
    """The datasets the configured workflow reads, each with the config keys that list it
    (names not in `datasets` are left out: they are refused, or ignored, elsewhere)."""
    registry = config.get("datasets", {})
    roles: dict[str, list[str]] = {}

    def add(names, key):
        for n in names:
            if n and n in registry and key not in roles.setdefault(n, []):
                roles[n].append(key)

    add(config.get("classification_datasets", []), "classification_datasets")
    fv = config.get("fv", {})
    if fv.get("scoring_tasks"):
        add(fv["scoring_tasks"], "fv.scoring_tasks")
        add(fv.get("eval_tasks", []), "fv.eval_tasks")
        if fv.get("eval_tasks"):
            add([fv.get("token_loss", {}).get("dataset")], "fv.token_loss.dataset")
    ltv = config.get("ltv", {})
    if ltv.get("datasets"):  # rules/ltv.smk: Paper B runs only with ltv.datasets
        add(ltv["datasets"], "ltv.datasets")
        add(ltv.get("mechanism_datasets") or ltv["datasets"][:1], "ltv.mechanism_datasets")
        add([ltv.get("peft", {}).get("dataset")], "ltv.peft.dataset")
        comp = ltv.get("composition", {})
        if comp.get("tasks"):
            add(comp["tasks"], "ltv.composition.tasks")
            add([comp.get("composed")], "ltv.composition.composed")
    return roles


def _dataset_problems(config: dict, name: str, roles: list[str]) -> list[str]:
    """Problems of dataset `name`'s entry that need no file: its kind where a role needs labels,
    its label words, its template's slots."""
    import string

    entry = config["datasets"][name]
    key = f"datasets.{name}"
    label_words, template, kind = entry.get("label_words"), dict(entry.get("template") or {}), entry.get("kind")
    if entry.get("source", "builtin") == "builtin":
        from .builtin_tasks import builtin_task
        from .builtin_texts import BUILTIN_TEXTS, builtin_text

        bname = entry.get("task", name)
        try:
            task = builtin_text(bname) if bname in BUILTIN_TEXTS else builtin_task(bname)
        except KeyError as e:
            return [f"config key `{key}.task`: {e.args[0]}"]
        kind = kind or task["kind"]
        template = {**task["template"], **template}
        label_words = label_words or task.get("label_words")
        fields = ["input"]
    elif entry.get("source") == "hub" or entry.get("format") in ("jsonl", "tsv", "csv", "parquet"):
        fields = list(entry.get("fields") or {"input": "text" if entry.get("source") == "hub" else "input"})
    else:
        fields = ["input"]
    kind = kind or ("classification" if label_words else "generation")
    out = []
    if "classification_datasets" in roles and kind != "classification":
        why = "it has no label words" if not label_words else f"datasets.{name}.kind is {kind}"
        out.append(f"config key `classification_datasets`: {name!r} is a {kind} task ({why}), but the TSLA "
                   f"analyses need a fixed label set; remove it from classification_datasets, or give "
                   f"{key}.label_words (raw label -> label word)")
    if kind == "classification" and not label_words:
        out.append(f"config key `{key}.label_words`: {key}.kind is classification but no label words are given; "
                   "map each raw label to its word")
    for raw, word in (label_words or {}).items():
        if not str(word).strip():
            out.append(f"config key `{key}.label_words`: raw label {raw!r} has the empty label word {word!r}, so "
                       f"its label token would be a bare space; give {raw!r} a non-empty word")
    seen: dict[str, str] = {}
    for raw, word in (label_words or {}).items():
        w = str(word).strip()
        if w and w in seen:
            out.append(f"config key `{key}.label_words`: raw labels {seen[w]!r} and {raw!r} share the label word "
                       f"{w!r}, so predictions could not tell them apart; give each its own word")
        seen.setdefault(w, raw)
    query = template.get("query")
    if query is None:
        out.append(f"config key `{key}.template.query` is missing (e.g. 'Review: {{input}}\\nSentiment:')")
    else:
        have = set(fields) | {"output"} | ({"label"} if kind == "classification" else set())
        try:
            slots = [f for _, f, _, _ in string.Formatter().parse(query) if f is not None]
        except ValueError as e:
            return out + [f"config key `{key}.template.query`: {query!r} is not a valid template ({e}); "
                          "write fields as {field} and a literal brace as {{ or }}"]
        for slot in dict.fromkeys(slots):
            if slot not in have:
                hint = (f"map it to a column in {key}.fields (e.g. {key}.fields.{slot}: <column>)"
                        if entry.get("source") == "hub" or entry.get("format") in ("jsonl", "tsv")
                        else f"format {entry.get('format') or 'builtin'} gives the fields {sorted(have)}")
                out.append(f"config key `{key}.template.query`: slot {{{slot}}} is not a field of the examples "
                           f"(fields: {sorted(have)}); {hint}, or fix the template")
    return out


def dataset_sizes(config: dict, name: str) -> dict:
    """Query counts drawn from dataset `name`: prompts.n_score, prompts.n_eval (TSLA prompt sets)
    and ltv.n_train, each unless the dataset sets its own under `datasets.<name>.sizes` (a small
    dataset, e.g. CB's 56 test examples, beside large ones)."""
    return {k: dataset_size(config, name, k) for k in ("n_score", "n_eval", "ltv_n_train")}


def addback_n_eval(fv: dict) -> int:
    """Y7's query count per evaluation task: fv.addback_n_eval, else fv.n_eval."""
    return fv.get("addback_n_eval") or fv["n_eval"]


def sweep_n(n: int, limit: int | None) -> int:
    """Queries of a figures-only sweep (tsla.sweep_n_eval, fv.addback_sweep.n_eval) or of the TSLA
    ablation rules (tsla.ablation_n_eval): the first `limit` of the n held-out queries; all n where
    the limit is null or larger."""
    return n if limit is None else min(n, int(limit))


_SIZE_KEYS = {"n_score": ("prompts", "n_score"), "n_eval": ("prompts", "n_eval"), "ltv_n_train": ("ltv", "n_train")}


def dataset_size(config: dict, name: str, which: str):
    """One of dataset_sizes (reading only the keys it needs: a rule script declares just those)."""
    own = (config.get("datasets", {}).get(name) or {}).get("sizes") or {}
    if which in own:
        return own[which]
    section, key = _SIZE_KEYS[which]
    return config.get(section, {}).get(key)


def check_data(config: dict, data_dir: str | Path | None = None) -> None:
    """At DAG build, before any model is loaded: every dataset the workflow reads loads (built-in
    tasks; local files exist, hold the declared columns and only mapped labels) and is large
    enough for the sizes drawn from it (size_problems). Hub datasets are not downloaded here:
    data.load_dataset checks their sizes with the same messages. Imports no torch."""
    from .data import peek_dataset

    problems = []
    for name in dataset_roles(config):
        try:
            sizes = peek_dataset(name, config, data_dir)
        except ConfigError as e:
            problems.append(str(e))
            continue
        if sizes is not None:
            problems += size_problems(config, name, sizes)
    if problems:
        raise ConfigError("\n".join(dict.fromkeys(problems)))


def size_problems(config: dict, name: str, sizes: dict[str, int]) -> list[str]:
    """The sizes (prompts, fv, ltv keys) that dataset `name`, with `sizes` examples per split,
    is too small for, for every role it has in the config."""
    roles = dataset_roles(config).get(name, [])
    out = []

    def split(which: str, key: str) -> int | None:
        if which not in sizes:
            out.append(f"config key `datasets.{name}.files`: dataset {name!r} has no {which} split (it has "
                       f"{sorted(sizes)}), which {key} draws from; add a {which} file, or give one file and "
                       f"datasets.{name}.test_fraction")
        return sizes.get(which)

    def too_few_demos(key: str, k, role: str):
        train = split("train", key) if k else None
        if k and train is not None and k > train:
            out.append(f"config key `{key}`: {k} demonstrations a prompt, but dataset {name!r} ({role}) has {train} "
                       f"examples in its train split, which they are drawn from; set {key} to at most {train}, or "
                       f"remove {name!r} from {role}")

    if "classification_datasets" in roles:
        p, role = config.get("prompts", {}), "classification_datasets"
        too_few_demos("prompts.n_shot", p.get("n_shot"), role)
        counts = dataset_sizes(config, name)
        n_score, n_eval = counts["n_score"], counts["n_eval"]
        test = split("test", "prompts.n_score") if n_score else None
        if test is not None and n_score > test:
            out.append(f"config key `prompts.n_score`: heads are scored on the first {n_score} queries of the test "
                       f"split, but dataset {name!r} ({role}) has {test} examples there; set prompts.n_score + "
                       f"prompts.n_eval (now {n_score} + {n_eval}) to at most {test}, or remove {name!r} from {role}")
        elif test is not None and n_eval and n_score + n_eval > test:
            out.append(f"config key `prompts.n_eval`: prompts.n_score + prompts.n_eval = {n_score} + {n_eval} = "
                       f"{n_score + n_eval} queries come from the test split, but dataset {name!r} ({role}) has "
                       f"{test} examples there, so its evaluation set would shrink to {test - n_score}; set "
                       f"prompts.n_eval to at most {test - n_score}, or datasets.{name}.sizes.n_eval for this "
                       f"dataset alone, or remove {name!r} from {role}")
    fv = config.get("fv", {})
    for role in ("fv.scoring_tasks", "fv.eval_tasks"):
        if role in roles:
            too_few_demos("fv.n_shot", fv.get("n_shot"), role)
    def over_split(key: str, n, which: str, message):
        """message(size) when `n` (config key `key`) exceeds the dataset's `which` split."""
        size = split(which, key) if n else None
        if size is not None and n > size:
            out.append(message(size))

    if "fv.scoring_tasks" in roles:
        n = fv.get("n_prompts")
        over_split("fv.n_prompts", n, "test", lambda test: (
            f"config key `fv.n_prompts`: {n} prompts a scoring task, their queries from the test split, "
            f"but dataset {name!r} (fv.scoring_tasks) has {test} examples there, so fewer would be "
            f"scored; set fv.n_prompts to at most {test}, or remove {name!r} from fv.scoring_tasks"))
    if "fv.eval_tasks" in roles:
        n = fv.get("n_eval")
        over_split("fv.n_eval", n, "test", lambda test: (
            f"config key `fv.n_eval`: {n} evaluation queries a task (Y5, Y7, Y8) from the test split, "
            f"but dataset {name!r} (fv.eval_tasks) has {test} examples there, so fewer would be "
            f"evaluated; set fv.n_eval to at most {test}, or remove {name!r} from fv.eval_tasks"))
        a = fv.get("addback_n_eval")
        over_split("fv.addback_n_eval", a, "test", lambda test: (
            f"config key `fv.addback_n_eval`: {a} Y7 queries a task from the test split, but dataset "
            f"{name!r} (fv.eval_tasks) has {test} examples there, so fewer would be evaluated; set "
            f"fv.addback_n_eval to at most {test} (or null: fv.n_eval), or remove {name!r} from fv.eval_tasks"))
        m = fv.get("n_prompts")
        over_split("fv.n_prompts", m, "train", lambda train: (
            f"config key `fv.n_prompts`: Y7 averages head outputs over {m} prompts whose queries come "
            f"from the train split, but dataset {name!r} (fv.eval_tasks) has {train} examples there; "
            f"set fv.n_prompts to at most {train}, or remove {name!r} from fv.eval_tasks"))
    ltv_roles = [r for r in roles if r.startswith("ltv.")]
    if ltv_roles:
        ltv = config.get("ltv", {})
        n, test = dataset_sizes(config, name)["ltv_n_train"], split("test", "ltv.n_train")
        if n and test is not None and n >= test:
            out.append(f"config key `ltv.n_train`: LTVs train on the first {n} queries of the test split and are "
                       f"evaluated on the next ones, but dataset {name!r} ({', '.join(ltv_roles)}) has {test} "
                       f"examples there, none left to evaluate; set ltv.n_train to at most {test - 1}, or "
                       f"datasets.{name}.sizes.ltv_n_train for this dataset alone, or remove {name!r} from {ltv_roles[0]}")
        icl = [r for r in ltv_roles if r in ("ltv.datasets", "ltv.composition.composed")]  # n-shot prompts
        if icl:
            too_few_demos("ltv.n_shot", ltv.get("n_shot"), icl[0])
    return list(dict.fromkeys(out))


CKPT_SEP = "--"


def expand_checkpoints(config: dict) -> dict:
    """Y9: each checkpoint of a model entry becomes a model of its own, `<model>--<name>`,
    loaded from its local directory or from the parent's hub repo at its revision."""
    models = config["models"]
    for name, entry in list(models.items()):
        if entry.get("source") == "train":
            if entry.get("checkpoints"):
                raise ConfigError(f"config key `models.{name}.checkpoints`: a model with source: train gets its "
                                  "checkpoints from train.checkpoint_steps; remove `checkpoints`")
            if "train" not in entry:
                raise ConfigError(f"config key `models.{name}.train` is required for source: train")
            steps = entry["train"].get("steps")
            bad = [k for k in entry["train"].get("checkpoint_steps", []) if steps is not None and k > steps]
            if bad:
                raise ConfigError(f"config key `models.{name}.train.checkpoint_steps`: {bad} lie beyond "
                                  f"train.steps ({steps})")
            # rule train_model writes them under the model's resources folder (icl_heads/model/train.py)
            cks = [{"name": f"step{k}", "step": k, "path": f"{trained_dir(config, name)}/checkpoints/step{k}"}
                   for k in sorted(set(entry["train"].get("checkpoint_steps", [])))]
        else:
            cks = entry.get("checkpoints") or []
        for ck in cks:
            child = {k: v for k, v in entry.items() if k not in ("checkpoints", "path", "revision", "sha256",
                                                                   "package", "version", "file", "train",
                                                                   "artifacts")}
            if ck.get("path"):
                child.update(source="local", path=ck["path"])
            elif ck.get("revision") and entry.get("repo_id"):
                child.update(source="hub", revision=ck["revision"])
            else:
                raise ConfigError(f"config key `models.{name}.checkpoints` entry {ck.get('name')!r} needs a `path` "
                                  "(local directory) or a `revision` (with the model's repo_id)")
            child.update(checkpoint_of=name, step=ck["step"])
            models[f"{name}{CKPT_SEP}{ck['name']}"] = child
    return config


def artifact_models(config: dict) -> list[str]:
    """Models outside run_models that run only the artifacts their `artifacts` key lists
    (checkpoint models are run through their parent's Y9)."""
    run = set(config["run_models"])
    return [m for m, e in config["models"].items()
            if e.get("artifacts") and m not in run and not e.get("checkpoint_of")]


def trained_dir(config: dict, model: str) -> str:
    """Where rule train_model writes a source-train model: training.json, hf/, checkpoints/, tokenizer/."""
    return f"{config.get('resources_dir', 'resources')}/{model}/trained"


def checkpoint_models(config: dict, model: str) -> list[str]:
    """The expanded checkpoint models of `model`, by training step."""
    kids = [(e["step"], n) for n, e in config["models"].items() if e.get("checkpoint_of") == model]
    return [n for _, n in sorted(kids)]


def load(path: str | Path, overrides: dict | None = None) -> dict:
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"config file {path} does not exist")
    cfg = yaml.safe_load(path.read_text()) or {}
    if overrides:
        cfg = deep_merge(cfg, overrides)
    return validate(cfg)


def deep_merge(base: dict, over: dict) -> dict:
    """`over` wins, merged key by key into nested dicts (as Snakemake merges --config)."""
    out = copy.deepcopy(base)
    for k, v in over.items():
        out[k] = deep_merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else copy.deepcopy(v)
    return out


def job_seed(config: dict, *parts) -> int:
    """A per-job seed derived from the master seed and the job's coordinates."""
    import hashlib

    import json

    h = hashlib.sha256(json.dumps([config.get("seed", 0), *parts]).encode()).hexdigest()
    return int(h[:8], 16)


def ltv_sweep_layers(n_layers: int, stride: int) -> list[int]:
    """F4 layers (the LTV injection-layer sweep): every `stride`-th layer from 0, and the last
    layer. Here, not in icl_heads.ltv, so that building the DAG imports no torch."""
    return sorted(set(range(0, n_layers, stride)) | {n_layers - 1})


# ------------------------------------------------------------------ config through params only
# A rule names the config keys its script reads (rules/common.smk: `params: cfg=cfg("fv.n_shot",
# "datasets.{dataset}", ...)`); the job gets them as one flat param {dotted key: value}. Snakemake
# compares params between runs, so a change to any of these keys reruns exactly the jobs that
# read it. The script sees them through declared_config(): the same nested shape as the config,
# holding the declared keys only; reading any other key fails naming it and the fix.


class UndeclaredConfigKey(ConfigError, KeyError):
    """A script read a config key its rule does not declare in `params: cfg=cfg(...)`."""

    def __str__(self):  # KeyError would print the repr of the message
        return self.args[0] if self.args else ""


def canonical(value):
    """A config value in a form whose text does not depend on the config's key order (Snakemake
    compares params as text): mappings with sorted keys, sequences as lists."""
    if isinstance(value, dict):
        return {str(k): canonical(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, (list, tuple)):
        return [canonical(v) for v in value]
    return value


def config_value(config: dict, key: str):
    """The value of dotted `key` in `config` (a ConfigError naming the key when there is none)."""
    node = config
    for i, part in enumerate(key.split(".")):
        if not isinstance(node, dict) or part not in node:
            raise ConfigError(f"config key {key!r} does not exist (no {'.'.join(key.split('.')[:i + 1])!r})")
        node = node[part]
    return node


def declared_params(config: dict, keys, wildcards: dict | None = None, drop=()) -> dict:
    """The flat param `cfg` of a job: {key: canonical value} for each of `keys` (dotted config
    keys, which may name the job's wildcards, e.g. "datasets.{dataset}"), sorted by key. `drop`
    (dotted keys, templates too) are left out of the values of `keys` (e.g. a model entry's
    scheduling keys, which must not rerun the conversion)."""
    wildcards = dict(wildcards or {})
    names = sorted({k.format(**wildcards) for k in keys})
    out = {k: copy.deepcopy(config_value(config, k)) for k in names}
    for d in {d.format(**wildcards) for d in drop}:
        for k in names:
            if d.startswith(k + "."):
                node, parts = out, [k] + d[len(k) + 1:].split(".")
                for part in parts[:-1]:
                    node = node.get(part) if isinstance(node, dict) else None
                if isinstance(node, dict):
                    node.pop(parts[-1], None)
    for k in names:   # a built-in dataset's content: its file is no input, so its sha256 is a param
        parts = k.split(".")
        if len(parts) == 2 and parts[0] == "datasets" and isinstance(out[k], dict) \
                and out[k].get("source", "builtin") == "builtin":
            task = out[k].get("task", parts[1])
            out[f"{BUILTIN_SHA_KEY}.{task}"] = builtin_sha256(task)
    return {k: canonical(v) for k, v in out.items()}


# The param key under which a job that declares a built-in dataset (datasets.<name>, source
# builtin) also gets the sha256 of that task's content (icl_heads/builtin_data/<task>.json, or a
# built-in text): editing a built-in file reruns exactly the jobs that read it. Not a config key.
BUILTIN_SHA_KEY = "builtin_data_sha256"


def builtin_sha256(task: str) -> str:
    """sha256 of built-in task `task` as data.load_dataset reads it (the same digest the provenance
    records as `builtin:<task>`); "unknown" for a name that is no built-in task (load_dataset then
    raises its ConfigError naming the key)."""
    import hashlib
    import json

    from .builtin_tasks import BUILTIN_TASKS
    from .builtin_texts import BUILTIN_TEXTS, builtin_text

    if task in BUILTIN_TEXTS:
        if task not in _BUILTIN_TEXT_BODIES:   # module constants: built once, not on every call
            _BUILTIN_TEXT_BODIES[task] = builtin_text(task)
        body = _BUILTIN_TEXT_BODIES[task]
    elif task in BUILTIN_TASKS:
        body = BUILTIN_TASKS[task]
    else:
        return "unknown"
    # every job that declares the dataset asks at DAG build: hash each task object once (a task
    # object replaced in BUILTIN_TASKS is hashed anew)
    known = _BUILTIN_DIGESTS.get(task)
    if known is None or known[0] is not body:
        known = _BUILTIN_DIGESTS[task] = (body, hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest())
    return known[1]


_BUILTIN_TEXT_BODIES: dict[str, dict] = {}
_BUILTIN_DIGESTS: dict[str, tuple[dict, str]] = {}


class _Declared(dict):
    """A config node some of whose keys are declared: the others raise UndeclaredConfigKey on any
    read (x[k], x.get(k), k in x, iteration), so a script cannot fall back to a default for a key
    that is not in its params."""

    def __init__(self, items, path: str, rule: str):
        super().__init__(items)
        self._path, self._rule = path, rule

    def _undeclared(self, key):
        full = f"{self._path}.{key}" if self._path else str(key)
        return UndeclaredConfigKey(
            f"rule {self._rule} reads config key {full!r}, which its params do not declare: add {full!r} to "
            f"cfg(...) in the rule's params (rules/*.smk), so that changing it reruns the rule")

    def __getitem__(self, key):
        if not dict.__contains__(self, key):
            raise self._undeclared(key)
        return dict.__getitem__(self, key)

    def get(self, key, default=None):
        return self[key]

    def __contains__(self, key):
        if not dict.__contains__(self, key):
            raise self._undeclared(key)
        return True

    def _whole(self):
        return self._undeclared("<every key>")

    def __iter__(self):
        raise self._whole()

    def keys(self):
        raise self._whole()

    def items(self):
        raise self._whole()

    def values(self):
        raise self._whole()


def declared_config(flat: dict, rule: str = "?") -> dict:
    """The nested view of a job's flat `cfg` param (see declared_params): a declared key's value is
    returned whole (its own sub-keys read freely); any other key raises UndeclaredConfigKey."""
    tree: dict = {}
    for key in sorted(flat, key=lambda k: k.count(".")):
        node, parts = tree, key.split(".")
        for part in parts[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise ConfigError(f"cfg keys of rule {rule} overlap at {key!r}")
        node[parts[-1]] = copy.deepcopy(flat[key])
    declared = set(flat)

    def build(node, path):
        items = {}
        for k, v in dict.items(node):
            sub = f"{path}.{k}" if path else k
            items[k] = v if sub in declared or not isinstance(v, dict) else build(v, sub)
        return _Declared(items, path, rule)

    return build(tree, "")
