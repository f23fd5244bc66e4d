rule materialise_model:
    """Fetch/convert a configured model once (GGUF -> float32 safetensors), with its source sha256."""
    input:
        trained=training_record,  # source train and its checkpoints: rule train_model's record
    output:
        manifest=f"{RES}/{{model}}/manifest.json",
    log:
        "logs/materialise_model/{model}.log",
    conda:
        "../envs/icl.yaml"
    resources:
        mem_mb=model_mem_mb,
        runtime=30,
    params:
        # mem_gb / gpu only size the jobs, artifacts says what runs on the model: changing them must not rerun the conversion
        # a trained model (or checkpoint) also reads where it was trained and its parent's source
        cfg=cfg(
            "models.{model}",
            "resources_dir",
            lambda w: [f"models.{p}.source"] if (p := config["models"][w.model].get("checkpoint_of")) else [],
            drop=[f"models.{{model}}.{k}" for k in NOT_MODEL_KEYS],
        ),
    script:
        "../workflow_scripts/materialise_model.py"


rule train_model:
    """Train a `source: train` model from scratch (icl_heads/model/train.py): a BPE tokenizer and a
    small GPT-NeoX on the configured corpus, saving checkpoints/step<k>/ (the Y9 checkpoint models)
    and hf/ (the final weights, the model itself) beside the training record."""
    input:
        corpus=training_corpus,
    output:
        record=f"{RES}/{{model}}/trained/training.json",
    log:
        "logs/train_model/{model}.log",
    conda:
        "../envs/icl.yaml"
    threads: train_threads
    resources:
        mem_mb=2048,
        runtime=job_runtime("train_model"),
    params:
        cfg=cfg("models.{model}.train", "data_dir"),
    script:
        "../workflow_scripts/train_model.py"
