rule materialise_model:
    """Fetch/convert a configured model once (GGUF -> float32 safetensors), with its source sha256."""
    output:
        manifest=f"{RES}/{{model}}/manifest.json",
    params:
        entry=lambda w: config["models"][w.model],
    log:
        "logs/materialise_model/{model}.log",
    resources:
        mem_mb=model_mem_mb,
        runtime=30,
    conda:
        "../envs/icl.yaml"
    script:
        "../workflow_scripts/materialise_model.py"
