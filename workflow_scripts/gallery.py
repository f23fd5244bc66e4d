"""Rule gallery: gather every figure into figures/ with an index a reader opens."""
from common import Job  # noqa: I001
import json
import shutil
from pathlib import Path

from icl_heads.provenance import read

job = Job(snakemake)  # noqa: F821
out = Path(snakemake.output[0])  # noqa: F821
tmp = out.with_name("." + out.name + ".part")
if tmp.exists():
    shutil.rmtree(tmp)
tmp.mkdir(parents=True)
lines = ["# Figures", "", "Each figure has a `.prov.json` beside it: the rule, code version, parameters, "
         "inputs (sha256), model file and seed that made it. "
         "`python -m icl_heads.provenance figures/<file>` follows it back to the raw data.", ""]
for src in map(Path, snakemake.input.figs):  # noqa: F821
    model = src.parts[1]
    name = f"{src.stem}__{model}{src.suffix}"
    shutil.copy2(src, tmp / name)
    rec = read(src) or {}
    rec = dict(rec, gathered_from=str(src))
    (tmp / (name + ".prov.json")).write_text(json.dumps(rec, indent=2))
    if src.suffix == ".png":
        lines += [f"## {src.stem} — {model}", "", f"![{src.stem} {model}]({name})", "",
                  f"source: `{src}`, rule `{rec.get('rule')}`, commit `{(rec.get('code') or {}).get('git_commit')}`", ""]
lines += ["## Tables", ""] + [f"- `{t}`" for t in snakemake.input.tables]  # noqa: F821
(tmp / "README.md").write_text("\n".join(lines) + "\n")
if out.exists():
    shutil.rmtree(out)
tmp.rename(out)
