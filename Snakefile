# ICL attention heads: TSLA (task recognition / learning), learned task vectors,
# induction vs function-vector heads. `snakemake --cores all figures/` builds every
# table and figure of the configured models and datasets; see README.md.
from snakemake.utils import min_version

min_version("9.0")


configfile: "config/config.yaml"


report: "report/workflow.rst"


include: "rules/common.smk"
include: "rules/report.smk"
include: "rules/resources.smk"
include: "rules/cache.smk"
include: "rules/heads.smk"
include: "rules/tsla.smk"
include: "rules/fv.smk"
include: "rules/yin.smk"
include: "rules/synthesis.smk"
include: "rules/ltv.smk"
include: "rules/figures.smk"


rule all:
    default_target: True
    input:
        "figures",
        all_tables(),


# Local runs start one warm interpreter with torch imported; each rule script continues in a fork of
# it instead of importing torch itself (icl_heads/warm.py; ICL_HEADS_WARM=0 turns it off).
onstart:
    if workflow.local_exec and not workflow.remote_exec:
        from icl_heads.warm import start

        start()


# The scheduler's re-evaluation timers (profiles/default: max-jobs-per-timespan 1000/10s) would hold
# the exit up to 10 s after the last job; the run is over here, so they are cancelled.
onsuccess:
    from icl_heads.smk_hooks import cancel_reevaluation_timers

    cancel_reevaluation_timers()


onerror:
    from icl_heads.smk_hooks import cancel_reevaluation_timers

    cancel_reevaluation_timers()


# Last: provenance sidecars are declared outputs of the rules that write them.
declare_sidecars()
