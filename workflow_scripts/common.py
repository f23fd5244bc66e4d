"""Shared set-up for the thin rule scripts: log redirection, config, provenance."""
from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from icl_heads.warm import hand_off  # noqa: E402

hand_off()   # in a local run: continue in the warm interpreter, which has torch imported (icl_heads/warm.py)

from icl_heads.provenance import SUFFIX, Provenance  # noqa: E402


class Job:
    """What a rule script needs from its `snakemake` object."""

    def __init__(self, smk):
        from icl_heads.config import declared_config

        self.smk = smk
        self.rule = smk.rule
        self.wildcards = dict(smk.wildcards.items())
        params = {k: v for k, v in smk.params.items()}
        # The config keys the rule declares (`params: cfg=cfg(...)`, rules/common.smk), and only
        # those: reading another raises, naming it. The whole config is not passed on.
        self.config_used = params.pop("cfg", {})
        self.cfg = declared_config(self.config_used, rule=self.rule)
        self.params = params
        self._log = None
        if smk.log:
            Path(smk.log[0]).parent.mkdir(parents=True, exist_ok=True)
            self._log = open(smk.log[0], "w", buffering=1)
            sys.stderr = self._log
        logging.basicConfig(stream=sys.stderr, level=logging.INFO,
                            format=f"%(asctime)s {self.rule} %(message)s", force=True)
        self.log = logging.getLogger(self.rule)
        self.threads = smk.threads
        # A damaged input (truncated, edited: not what its provenance record hashed) is marked for a
        # rebuild (Snakemake's incomplete record), so the same snakemake command rebuilds it; this job fails naming it.
        from icl_heads.integrity import DamagedFile, verify_inputs

        try:
            verify_inputs(self.inputs())
        except DamagedFile as e:
            self.log.error(str(e))
            raise
        try:
            import torch

            torch.set_num_threads(max(1, int(smk.threads)))
        except ImportError:
            pass

    def inputs(self) -> list[str]:
        """The job's input files; sidecars a rule declares as inputs (it reads an input's
        provenance record) are described by their files' entries and left out."""
        return [str(p) for p in self.smk.input if not str(p).endswith(SUFFIX)]

    @property
    def outputs(self) -> list[str]:
        """The job's output files, without their provenance sidecars (declared outputs too,
        named `prov`: rules/common.smk declare_sidecars)."""
        return [str(p) for p in self.smk.output if not str(p).endswith(SUFFIX)]

    def section(self, prefix: str) -> dict:
        """The declared keys directly under `prefix` as a plain dict (e.g. the palette entries a
        figure declares: cfg(*palette_keys("tr", "tl"))); empty where none is declared."""
        head = prefix + "."
        return {k[len(head):]: v for k, v in self.config_used.items() if k.startswith(head) and "." not in k[len(head):]}

    def palette(self) -> dict:
        """The colours of the head families this figure declares (plots.palette.<family>)."""
        return self.section("plots.palette")

    def load_model(self, attn: str = "eager"):
        """The rule's model (its input `manifest`) as a HookedModel; attn='sdpa' where a rule
        reads no attention pattern (the fused kernel is faster)."""
        from icl_heads.models import load_hooked

        return load_hooked(Path(self.smk.input.manifest).parent, attn=attn)

    def load_task(self, name: str):
        """Dataset `name` as configured under `datasets.<name>` (local files under data_dir): the
        rule declares both keys, cfg("datasets.{dataset}", "data_dir")."""
        from icl_heads.data import load_dataset

        return load_dataset(name, self.cfg, self.cfg["data_dir"], check_sizes=False)

    def model_record(self, manifest_path=None) -> dict:
        """The model fields of the provenance, from the rule's manifest (or `manifest_path`)."""
        from icl_heads.models import model_layer_record

        mpath = Path(manifest_path or self.smk.input.manifest)
        man = json.loads(mpath.read_text())
        return {"name": man["name"], "source": man["source"], "source_file": man["source_file"],
                "source_sha256": man["source_sha256"], "dtype": man.get("dtype"),
                "model_layer": model_layer_record(mpath.parent)}

    def provenance(self, *, seed=None, model=None, data=None, choices=None) -> Provenance:
        """The output's record; its `config` is every config key the rule declares (its cfg param)."""
        return Provenance(self.rule, wildcards=self.wildcards, params=self.params, config=self.config_used,
                          inputs=self.inputs(), seed=seed, model=model, data=data, choices=choices)
