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
    for m in config["run_models"]:
        if m not in config["models"]:
            raise ConfigError(f"config key `run_models`: unknown model {m!r}; known models: {', '.join(sorted(config['models']))}")
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
