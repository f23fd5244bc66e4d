rule materialise_model:
    """Fetch/convert a configured model once (GGUF -> float32 safetensors), with its source sha256."""
    output:
        manifest=f"{RES}/{{model}}/manifest.json",
    params:
        # mem_gb / gpu only size the jobs: changing them must not rerun the conversion
        # (sorted: params are compared as text, the config's key order must not matter)
        entry=lambda w: {k: v for k, v in sorted(config["models"][w.model].items()) if k not in SCHEDULING_KEYS},
    log:
        "logs/materialise_model/{model}.log",
    resources:
        mem_mb=model_mem_mb,
        runtime=30,
    conda:
        "../envs/icl.yaml"
    script:
        "../workflow_scripts/materialise_model.py"
