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


def validate(config: dict, schema_path: str | Path = SCHEMA_PATH) -> dict:
    """Validate in place (defaults filled) and return the config; ConfigError names the key."""
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
    return config


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
