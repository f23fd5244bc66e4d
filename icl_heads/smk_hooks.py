"""Run hooks of the workflow (Snakefile `onsuccess` / `onerror`)."""
from __future__ import annotations

import threading


def cancel_reevaluation_timers() -> int:
    """Cancel the scheduler's pending re-evaluation timers once a run has ended; return how many.

    Snakemake 9's job scheduler starts a `threading.Timer` of `--max-jobs-per-timespan`'s timespan
    after every scheduling pass (snakemake/snakemake#2967), and the interpreter waits for those
    non-daemon threads before it exits: with the workflow profile's 1000/10s, up to 10 s after the
    last job. After `onsuccess` / `onerror` the scheduler has returned and nothing waits on them.
    Only timers whose function was made in Snakemake's `JobScheduler` are touched."""
    n = 0
    for t in threading.enumerate():
        fn = getattr(t, "function", None)
        if isinstance(t, threading.Timer) and "JobScheduler" in getattr(fn, "__qualname__", ""):
            t.cancel()
            n += 1
    return n
