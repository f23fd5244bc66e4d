"""The run hook that cancels Snakemake's scheduler re-evaluation timers at the end of a run."""
import threading

from icl_heads.smk_hooks import cancel_reevaluation_timers


class JobScheduler:
    """Named as Snakemake's scheduler: its timer's function is made inside a JobScheduler method,
    as snakemake.scheduling.job_scheduler.JobScheduler._schedule_reevalutation makes its own."""

    def reevaluate_later(self, delay: float) -> threading.Timer:
        t = threading.Timer(delay, lambda: None)
        t.start()
        return t


def test_the_scheduler_s_timers_are_cancelled_and_no_other():
    fired = threading.Event()
    scheduler_timer = JobScheduler().reevaluate_later(60)
    other = threading.Timer(60, fired.set)
    other.start()
    try:
        assert cancel_reevaluation_timers() >= 1
        scheduler_timer.join(5)
        assert not scheduler_timer.is_alive()   # cancelled: the thread ends at once instead of after 60 s
        assert other.is_alive() and not other.finished.is_set()
    finally:
        other.cancel()
        scheduler_timer.cancel()
    assert not fired.is_set()


def test_a_snakemake_timer_s_function_is_named_as_the_hook_expects():
    """The filter reads the qualname Snakemake gives its timer's function; if Snakemake renames it,
    this fails instead of the hook silently cancelling nothing."""
    import inspect

    from snakemake.scheduling import job_scheduler

    src = inspect.getsource(job_scheduler.JobScheduler._schedule_reevalutation)
    assert "threading.Timer(" in src
