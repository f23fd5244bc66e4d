"""Rule figure_provenance: one figure's provenance as an HTML page of the report."""
from common import Job  # noqa: I001
import html
import json

from icl_heads.io import write_text
from icl_heads.provenance import origins, read, sidecar, trace

job = Job(snakemake)  # noqa: F821
fig = str(snakemake.input.figure)  # noqa: F821
rec = read(fig)
if rec is None:
    raise SystemExit(f"{fig} has no provenance record ({sidecar(fig)}); rebuild it with its rule")
code = rec.get("code") or {}
orig = origins(fig)


def table(rows):
    return "<table>" + "".join(f"<tr><th>{html.escape(k)}</th><td>{v}</td></tr>" for k, v in rows) + "</table>"


def code_cell(obj):
    return f"<code>{html.escape(json.dumps(obj, sort_keys=True))}</code>"


summary = [
    ("figure", f"<code>{html.escape(fig)}</code> (sha256 <code>{html.escape(str(rec.get('sha256')))}</code>)"),
    ("rule", f"<code>{html.escape(str(rec.get('rule')))}</code>, wildcards {code_cell(rec.get('wildcards'))}"),
    ("code", f"commit <code>{code.get('git_commit')}</code> dirty={code.get('git_dirty')}, "
             f"icl_heads {html.escape(str(code.get('package_version')))}"),
    ("parameters", code_cell(rec.get("params"))),
    ("config", code_cell(rec.get("config"))),
    ("choices", code_cell(rec.get("choices"))),
    ("seed", html.escape(str(rec.get("seed")))),
    ("inputs", "<br>".join(f"<code>{html.escape(i['path'])}</code> sha256 <code>{i.get('sha256')}</code>"
                           for i in rec.get("inputs", []))),
    ("model files", "<br>".join(f"{html.escape(k)} sha256 <code>{v}</code>" for k, v in orig["models"].items())
     or "none reached"),
    ("data files", "<br>".join(f"{html.escape(k)} sha256 <code>{v}</code>" for k, v in sorted(orig["data"].items()))
     or "none reached"),
    ("rules in the chain", ", ".join(f"<code>{html.escape(r)}</code>" for r in orig["rules"])),
    ("versions", code_cell(rec.get("versions"))),
]
# (the record's `created` time stamp stays in the record: the page says what made the figure, so
# two runs of the same config give the same page, byte for byte)
page = f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Provenance of {html.escape(fig)}</title>
<style>body{{font-family:sans-serif;font-size:13px;margin:1em}} th{{text-align:left;vertical-align:top;padding-right:1em}}
td{{word-break:break-all}} pre{{font-size:11px;background:#f6f6f6;padding:.5em;white-space:pre-wrap}}</style></head>
<body>
<h1 id="provenance">Provenance of <code>{html.escape(fig)}</code></h1>
<p>Rebuild: <code>snakemake --cores all {html.escape(fig)}</code>; on the command line:
<code>python -m icl_heads.provenance {html.escape(fig)}</code> prints the chain below.</p>
{table(summary)}
<h2>Chain of records back to the model file and the raw data</h2>
<pre id="chain">{html.escape(chr(10).join(trace(fig)))}</pre>
</body></html>
"""
write_text(page, snakemake.output[0], job.provenance())  # noqa: F821
