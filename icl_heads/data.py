"""One loader for every dataset, normalised to one schema.

A dataset is a set of examples `{"input": ..., "output": ..., <extra fields>}` per split,
with a kind (classification: fixed label set; generation: free answer; text: long
documents), a prompt template and, for classification, the label words.

Sources (config key `datasets.<name>.source`):
- `builtin`: tasks shipped with the project (icl_heads.builtin_tasks), no files needed;
- `local`: files under the configured `data_dir`, in the formats of the papers' data
  (SST-2, TREC, SUBJ/MR jsonl, SNLI tsv/jsonl, RTE/CB jsonl, Todd et al. task JSON, raw text);
- `hub`: a Hugging Face `datasets` id, for users who can reach the hub.
"""
from __future__ import annotations

import csv
import hashlib
import json
import random
from dataclasses import dataclass, field
from pathlib import Path

from .errors import ConfigError, DataError


@dataclass
class TaskData:
    name: str
    kind: str
    splits: dict[str, list[dict]]
    template: dict
    label_words: dict[str, str] | None = None
    source: str = "builtin"
    files: dict[str, str] = field(default_factory=dict)  # path or id -> sha256
    test_fraction: float | None = None  # the share of examples split off as test queries, if split here

    @property
    def label_set(self) -> list[str]:
        """The label words in a fixed order (the order of `label_words`)."""
        return list(self.label_words.values()) if self.label_words else []

    def split(self, name: str) -> list[dict]:
        if name not in self.splits:
            raise ConfigError(f"dataset {self.name!r} has no split {name!r}; it has {sorted(self.splits)}")
        return self.splits[name]

    def provenance(self) -> dict:
        out = {"name": self.name, "source": self.source, "kind": self.kind, "files": self.files,
               "n": {k: len(v) for k, v in self.splits.items()}}
        if self.test_fraction is not None:
            out["test_fraction"] = self.test_fraction
        return out


def _sha(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for b in iter(lambda: f.read(1 << 20), b""):
            h.update(b)
    return h.hexdigest()


# ------------------------------------------------------------------ file readers
def _read_sst2(path: Path, name: str = "*") -> list[dict]:
    out = []
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        line = line.strip()
        if not line:
            continue
        label, _, text = line.partition(" ")
        if not text or label not in ("0", "1"):
            raise DataError(f"config key `datasets.{name}.format`: sst2 expects lines '<0|1> <sentence>', but "
                            f"{path}:{i + 1} is {line[:60]!r}; fix the file or set the format it is in")
        out.append({"input": text, "output": label})
    return out


def _read_trec(path: Path, name: str = "*") -> list[dict]:
    out = []
    for i, line in enumerate(path.read_text(encoding="latin-1").splitlines()):
        line = line.strip()
        if not line:
            continue
        head, _, text = line.partition(" ")
        coarse = head.split(":")[0]
        if not text or ":" not in head:
            raise DataError(f"config key `datasets.{name}.format`: trec expects lines 'COARSE:fine question', but "
                            f"{path}:{i + 1} is {line[:60]!r}; fix the file or set the format it is in")
        out.append({"input": text, "output": coarse})
    return out


def _read_jsonl(path: Path, fields: dict, label_key: str, name: str = "*") -> list[dict]:
    out, first = [], None
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            raise DataError(f"config key `datasets.{name}.format`: jsonl, but {path}:{i + 1} is not valid JSON ({e}); "
                            "fix the file or set the format it is in") from e
        if not isinstance(rec, dict):
            raise DataError(f"config key `datasets.{name}.format`: jsonl expects one JSON object a line, but "
                            f"{path}:{i + 1} is {line[:60]!r}")
        if first is None:
            first = rec
            check_columns(name, fields, label_key, list(rec), f"the first record of {path}", label=False)
        if label_key not in rec:
            continue  # unlabelled rows (e.g. SuperGLUE test) cannot be scored
        out.append(_map_fields(rec, fields, label_key, f"{path}:{i + 1}", name))
    if first is not None and not out:
        check_columns(name, fields, label_key, list(first), f"the first record of {path} (no record has it)")
    return out


def check_columns(name: str, fields: dict, label_key: str, columns: list[str], where: str, label: bool = True,
                  fmt: str | None = None):
    """DataError naming the key whose column (datasets.<name>.fields.<slot> or .label_key) is
    not among `columns` (a file's header or first record), with the columns found."""
    cols = [str(c) for c in columns]
    if fmt == "csv" and len(cols) == 1 and "\t" in cols[0]:
        raise DataError(f"config key `datasets.{name}.format`: csv, but {where} has no comma and does have tabs: "
                        f"the file looks tab-separated (columns found: {cols}); set datasets.{name}.format: tsv")
    if fmt == "tsv" and len(cols) == 1 and "," in cols[0]:
        raise DataError(f"config key `datasets.{name}.format`: tsv, but {where} has no tab and does have commas: "
                          f"the file looks comma-separated (columns found: {cols}). Save it tab-separated, or as "
                          "jsonl with format: jsonl")
    wanted = [(f"fields.{slot}", key) for slot, key in fields.items()] + ([("label_key", label_key)] if label else [])
    for sub, key in wanted:
        if key not in cols:
            raise DataError(f"config key `datasets.{name}.{sub}`: column {key!r} is not in {where}; columns found: "
                              f"{sorted(cols)}. Set datasets.{name}.{sub} to one of them")


def _map_fields(rec: dict, fields: dict, label_key: str, where: str, name: str = "*") -> dict:
    ex = {}
    for slot, key in fields.items():
        if key not in rec:
            check_columns(name, fields, label_key, list(rec), f"record {where}")
        ex[slot] = str(rec[key]).strip()
    ex["output"] = str(rec[label_key]).strip()
    return ex


def _read_tsv(path: Path, fields: dict, label_key: str, name: str = "*") -> list[dict]:
    with open(path, encoding="utf-8", newline="") as f:
        reader = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        if reader.fieldnames is not None:
            check_columns(name, fields, label_key, list(reader.fieldnames), f"the header of {path}", fmt="tsv")
        rows = list(reader)
    return [_map_fields(r, fields, label_key, f"{path}:{i + 2}", name) for i, r in enumerate(rows)
            if r.get(label_key) not in (None, "", "-")]


def _read_icl_json(path: Path, name: str = "*") -> list[dict]:
    try:
        recs = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise DataError(f"config key `datasets.{name}.files`: {path} is not valid JSON ({e}); use its _train/_val "
                        "files instead") from e
    if not isinstance(recs, list):
        raise DataError(f"config key `datasets.{name}.format`: icl_json, but {path} does not hold a JSON list of "
                        f"{{\"input\": ..., \"output\": ...}} records")
    out = []
    for i, r in enumerate(recs):
        if not isinstance(r, dict) or "input" not in r or "output" not in r:
            raise DataError(f"config key `datasets.{name}.format`: icl_json, but {path}: record {i} lacks an input "
                            f"or output key: {str(r)[:80]}")
        out.append({"input": str(r["input"]).strip(), "output": str(r["output"]).strip()})
    return out


def _read_text(path: Path) -> list[dict]:
    """Long documents: WikiText-style ' = Title = ' headings split articles; otherwise blank-line blocks."""
    text = path.read_text(encoding="utf-8")
    docs, cur = [], []
    for line in text.splitlines():
        s = line.strip()
        if s.startswith("= ") and s.endswith(" =") and not s.startswith("= ="):
            if cur:
                docs.append(" ".join(cur))
            cur = []
            continue
        if s:
            cur.append(s)
    if cur:
        docs.append(" ".join(cur))
    return [{"input": d, "output": ""} for d in docs if d]


def _read_with_datasets(path: Path, builder: str, fields: dict, label_key: str, name: str = "*") -> list[dict]:
    """A csv (comma-separated, with a header row) or parquet file through the `datasets` library's
    local builder of that name (its type inference and quoting rules); the header / schema is
    checked against datasets.<name>.fields and .label_key before any row is used. The Arrow
    cache goes to a temporary folder, so nothing is left behind."""
    import tempfile

    import datasets as hfd

    hfd.disable_progress_bars()
    with tempfile.TemporaryDirectory(prefix="icl_heads_datasets_") as cache:
        try:
            ds = hfd.load_dataset(builder, data_files=str(path), split="train", cache_dir=cache)
        except Exception as e:   # the builders raise many types; the message names the file and key
            raise DataError(f"config key `datasets.{name}.format`: {builder}, but `datasets` could not read {path} "
                            f"({type(e).__name__}: {str(e)[:200]}); fix the file or set the format it is in") from e
        check_columns(name, fields, label_key, list(ds.column_names), f"the header of {path}", fmt=builder)
        rows = ds.to_list()
    first_line = 2 if builder == "csv" else 1
    return [_map_fields(r, fields, label_key, f"{path}:{i + first_line}", name) for i, r in enumerate(rows)
            if r.get(label_key) not in (None, "")]


READERS = {"sst2", "trec", "jsonl", "tsv", "csv", "parquet", "icl_json", "text"}


def _read_prompt_set(name: str, entry: dict, data_dir: Path, hashes: bool = True) -> tuple[dict, dict]:
    """Source prompt_set: ready prompts from a JSON list or JSONL file. Split test holds one
    query a prompt, in file order, carrying its given demonstrations (`_demos`) or its text
    (`_text`); split train holds every distinct demonstration (what rules that draw training
    queries, e.g. Y7's mean head outputs, sample from)."""
    key = f"datasets.{name}.path"
    if not entry.get("path"):
        raise ConfigError(f"config key `{key}` is missing: source prompt_set reads its prompts from a JSON or JSONL file")
    path = Path(entry["path"]).expanduser()
    path = path if path.is_absolute() else data_dir / path
    if not path.is_file():
        raise DataError(f"config key `{key}`: {path} does not exist; give a JSON list or JSONL file of prompts")
    text = path.read_text(encoding="utf-8")
    try:
        records = json.loads(text) if text.lstrip().startswith("[") else [json.loads(line) for line in text.splitlines() if line.strip()]
    except ValueError as e:
        raise DataError(f"config key `{key}`: {path} is not a JSON list or JSONL file ({e})") from e
    queries, pool, seen = [], [], set()
    for i, r in enumerate(records):
        where = f"{path} prompt {i}"
        if not isinstance(r, dict) or not isinstance(r.get("output"), str) or not r["output"].strip():
            raise DataError(f"{where}: each prompt is an object with a non-empty string `output` (the answer) "
                            f"(config key `{key}`)")
        if isinstance(r.get("text"), str):
            queries.append({"input": r["text"], "output": r["output"], "_text": True})
            continue
        if not isinstance(r.get("input"), str):
            raise DataError(f"{where}: give `input` (the query, with `demonstrations`) or `text` (the whole prompt) "
                            f"(config key `{key}`)")
        demos = r.get("demonstrations", [])
        if not isinstance(demos, list) or not all(isinstance(d, dict) and isinstance(d.get("input"), str)
                                                   and isinstance(d.get("output"), str) for d in demos):
            raise DataError(f"{where}: `demonstrations` is a list of {{input, output}} objects (config key `{key}`)")
        demos = [{"input": d["input"], "output": d["output"]} for d in demos]
        for d in demos:
            k = (d["input"], d["output"])
            if k not in seen:
                seen.add(k)
                pool.append(dict(d))
        queries.append({"input": r["input"], "output": r["output"], "_demos": demos})
    if not queries:
        raise DataError(f"config key `{key}`: {path} holds no prompts")
    splits = {"test": queries, "train": pool or [{"input": q["input"], "output": q["output"]} for q in queries]}
    return splits, ({str(entry["path"]): _sha(path)} if hashes else {})


def _read_local(name: str, entry: dict, data_dir: Path, hashes: bool = True) -> tuple[dict, dict]:
    fmt = entry.get("format")
    if fmt not in READERS:
        raise ConfigError(f"config key `datasets.{name}.format` is {fmt!r}; use one of {sorted(READERS)}")
    files = entry.get("files") or {}
    if not files:
        raise ConfigError(f"config key `datasets.{name}.files` must map split names to files under data_dir")
    splits, shas = {}, {}
    for split, rel in files.items():
        path = (data_dir / rel)
        if not path.is_file():
            raise DataError(f"config key `datasets.{name}.files.{split}`: data file {path} does not exist; set the "
                            f"config key `data_dir` (now {data_dir}) to the folder holding {rel}, or fix "
                            f"datasets.{name}.files")
        fields = entry.get("fields", {"input": "input"})
        label_key = entry.get("label_key", "label")
        if fmt == "sst2":
            rows = _read_sst2(path, name)
        elif fmt == "trec":
            rows = _read_trec(path, name)
        elif fmt == "jsonl":
            rows = _read_jsonl(path, fields, label_key, name)
        elif fmt == "tsv":
            rows = _read_tsv(path, fields, label_key, name)
        elif fmt in ("csv", "parquet"):
            rows = _read_with_datasets(path, fmt, fields, label_key, name)
        elif fmt == "icl_json":
            rows = _read_icl_json(path, name)
        else:
            rows = _read_text(path)
        splits[split] = rows
        if hashes:
            shas[str(rel)] = _sha(path)
    return splits, shas


def _read_hub(name: str, entry: dict) -> tuple[dict, dict]:
    try:
        import datasets as hfds
    except ImportError as e:
        raise ConfigError("source: hub needs the `datasets` package") from e
    repo = entry.get("hub_id")
    if not repo:
        raise ConfigError(f"config key `datasets.{name}.hub_id` is required for source: hub")
    fields = entry.get("fields", {"input": "text"})
    label_key = entry.get("label_key", "label")
    splits, hashes = {}, {}
    for split, hub_split in (entry.get("hub_splits") or {"train": "train", "test": "test"}).items():
        try:
            ds = hfds.load_dataset(repo, entry.get("hub_config"), split=hub_split, revision=entry.get("revision"))
        except Exception as e:  # the hub raises many types when offline
            raise DataError(f"could not load {repo} split {hub_split} from the Hugging Face hub ({e}); "
                            f"without a hub, copy the files under data_dir and use source: local for datasets.{name}") from e
        check_columns(name, fields, label_key, list(ds.column_names), f"{repo} split {hub_split}")
        names = ds.features[label_key].names if hasattr(ds.features.get(label_key), "names") else None
        rows = []
        for i, rec in enumerate(ds):
            rec = dict(rec)
            if names is not None:
                rec[label_key] = names[rec[label_key]] if rec[label_key] >= 0 else None
            if rec.get(label_key) is None:
                continue
            rows.append(_map_fields(rec, fields, label_key, f"{repo}[{hub_split}][{i}]", name))
        splits[split] = rows
        hashes[f"{repo}@{entry.get('revision') or 'main'}:{hub_split}"] = ds._fingerprint
    return splits, hashes


def _split_one(rows: list[dict], test_fraction: float, seed: int) -> dict:
    idx = list(range(len(rows)))
    random.Random(seed).shuffle(idx)
    n_test = int(round(len(rows) * test_fraction))
    test = sorted(idx[:n_test])
    train = sorted(idx[n_test:])
    return {"train": [rows[i] for i in train], "test": [rows[i] for i in test]}


def load_dataset(name: str, config: dict, data_dir: str | Path | None = None, check_sizes: bool = True) -> TaskData:
    """Load dataset `name` as configured under `datasets.<name>`. With check_sizes, a hub dataset
    (whose sizes only now are known) is checked against every size the config draws from it; a rule
    script passes False (it sees only its own keys), and the prompt builders then name the key
    whose size a split cannot meet (icl_heads.prompts)."""
    task = _load(name, config, data_dir)
    if task.source == "hub" and check_sizes:
        # sizes of a hub dataset are known only now; the other sources are checked at DAG build
        from .config import size_problems

        problems = size_problems(config, name, {k: len(v) for k, v in task.splits.items()})
        if problems:
            raise ConfigError("\n".join(problems))
    return task


def peek_dataset(name: str, config: dict, data_dir: str | Path | None = None) -> dict[str, int] | None:
    """Examples per split of dataset `name` as load_dataset makes them, without a model or torch
    (for checks at DAG build): builtin tasks and local files are read (not hashed), and every
    error load_dataset would raise is raised here; None for a hub dataset (not downloaded here)."""
    entry = config.get("datasets", {}).get(name)
    if entry is not None and entry.get("source", "builtin") == "hub":
        return None
    return {k: len(v) for k, v in _load(name, config, data_dir, hashes=False).splits.items()}


def _load(name: str, config: dict, data_dir: str | Path | None = None, hashes: bool = True) -> TaskData:
    entries = config.get("datasets", {})
    if name not in entries:
        raise ConfigError(f"unknown dataset {name!r} (config key `datasets`); known datasets: {', '.join(sorted(entries))}")
    entry = entries[name]
    src = entry.get("source", "builtin")
    data_dir = Path(data_dir if data_dir is not None else config.get("data_dir", "data"))
    template = dict(entry.get("template") or {})
    label_words = entry.get("label_words")
    kind = entry.get("kind")
    if src == "builtin":
        from .builtin_tasks import builtin_task
        from .builtin_texts import BUILTIN_TEXTS, builtin_text
        from .config import builtin_sha256

        try:
            bname = entry.get("task", name)
            task = builtin_text(bname) if bname in BUILTIN_TEXTS else builtin_task(bname)
        except KeyError as e:
            raise ConfigError(f"config key `datasets.{name}.task`: {e.args[0]}") from e
        rows = task["examples"]
        kind = kind or task["kind"]
        template = {**task["template"], **template}
        label_words = label_words or task.get("label_words")
        # the digest every job that reads the task also gets as a param (config.declared_params)
        shas = {f"builtin:{bname}": builtin_sha256(bname)} if hashes else {}
        # a built-in task brings its own test fraction (icl_heads/builtin_data/<task>.json); the config's wins
        fraction = entry.get("test_fraction", task.get("test_fraction", 0.5))
        splits = _split_one(rows, fraction, entry.get("split_seed", 0))
        from_fraction = True
    elif src == "local":
        splits, shas = _read_local(name, entry, data_dir, hashes)
        from_fraction = False
        for split, rows in splits.items():
            if not rows:
                raise DataError(f"config key `datasets.{name}.files.{split}`: {data_dir / entry['files'][split]} "
                                f"holds no examples (format {entry.get('format')}); give it a file with examples")
    elif src == "hub":
        splits, shas = _read_hub(name, entry)
        from_fraction = False
    elif src == "prompt_set":
        splits, shas = _read_prompt_set(name, entry, data_dir, hashes)
        template = {"query": "{input}", **template}
        if kind == "classification" and not label_words:
            label_words = {o: o for o in sorted({r["output"] for r in splits["test"]})}
        from_fraction = False
    else:
        raise ConfigError(f"config key `datasets.{name}.source` is {src!r}; use builtin, local, hub or prompt_set")
    if "train" not in splits and entry.get("test_fraction", 0.5):
        only = next(iter(splits.values()))
        fraction = entry.get("test_fraction", 0.5)
        splits = _split_one(only, fraction, entry.get("split_seed", 0))
        from_fraction = True
    kind = kind or ("classification" if label_words else "generation")
    if kind == "classification":
        if not label_words:
            raise ConfigError(f"config key `datasets.{name}.label_words` must map each raw label to its word "
                              f"(datasets.{name}.kind is classification)")
        label_words = {str(k): str(v) for k, v in label_words.items()}
        for split, rows in splits.items():
            unknown = sorted({r["output"] for r in rows} - set(label_words))
            if unknown:
                raise ConfigError(f"config key `datasets.{name}.label_words`: split {split!r} of dataset {name!r} has "
                                  f"labels {unknown} that datasets.{name}.label_words does not map (it maps "
                                  f"{sorted(label_words)}); add them, or check datasets.{name}.label_key")
            for r in rows:
                r["label"] = r["output"]
                r["output"] = label_words[r["output"]]
                for d in r.get("_demos", ()):  # a prompt set's given demonstrations (also in split train)
                    d["output"] = label_words[d["output"]]
    if "query" not in template:
        raise ConfigError(f"config key `datasets.{name}.template.query` is missing (e.g. 'Review: {{input}}\\nSentiment:')")
    template.setdefault("separator", "\n\n")
    for split, rows in splits.items():
        if not rows:
            key = "test_fraction" if from_fraction else f"files.{split}"
            raise DataError(f"config key `datasets.{name}.{key}`: split {split!r} of dataset {name!r} is empty; "
                            + ("set test_fraction strictly between 0 and 1" if from_fraction
                               else "give it a file with examples"))
    return TaskData(name=name, kind=kind, splits=splits, template=template,
                    label_words=label_words if kind == "classification" else None, source=src, files=shas,
                    test_fraction=fraction if from_fraction else None)
