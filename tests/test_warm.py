"""The warm interpreter (icl_heads/warm.py): a script handed to the server runs in a fork that
already has the heavy modules imported, with the client's descriptors, directory, environment
and arguments, and the client exits with its status; a killed client takes its fork with it;
without a server the script runs on its own. (That a whole workflow gives the same bytes with
and without it: tests/test_kill_and_determinism.py.)"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import ROOT

SCRIPT = textwrap.dedent("""
    import os, sys
    warm_before = "torch" in sys.modules      # imported already only in a fork of the server
    from icl_heads.warm import hand_off
    hand_off()
    import torch
    mode = sys.argv[1]
    print("warm" if warm_before else "cold", os.environ.get("PROBE"), sys.argv[2:], flush=True)
    print("to stderr", file=sys.stderr)
    Path = __import__("pathlib").Path
    Path("written.txt").write_text(str(torch.tensor([1.5, 2.0]).sum().item()))
    if mode == "fail":
        raise ValueError("a clear error")
    if mode == "exit":
        sys.exit(3)
    if mode == "sleep":
        Path("pid.txt").write_text(str(os.getpid()))
        import time; time.sleep(60)
        Path("finished.txt").write_text("yes")
""")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    d = tmp_path_factory.mktemp("warm")
    path = str(d / "socket")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "icl_heads.warm", "serve", path], env=env, start_new_session=True)
    deadline = time.monotonic() + 120
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert os.path.exists(path), "the warm server did not come up"
    yield path
    proc.terminate()
    proc.wait(10)


def _client(tmp_path: Path, socket_path: str | None, *args, extra_env=None, wait=True):
    script = tmp_path / "job.py"
    script.write_text(SCRIPT)
    env = {k: v for k, v in os.environ.items() if k not in ("ICL_HEADS_WARM", "SLURM_JOB_ID")}
    env.update(PYTHONPATH=str(ROOT), PROBE="from-the-client", **(extra_env or {}))
    if socket_path:
        env["ICL_HEADS_WARM"] = socket_path
    cmd = [sys.executable, str(script), *args]
    if not wait:
        return subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    return subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def test_a_script_runs_in_the_warm_fork_as_the_client(server, tmp_path):
    r = _client(tmp_path, server, "ok", "a", "b")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split("\n")[0] == "warm from-the-client ['a', 'b']"
    assert "to stderr" in r.stderr
    assert (tmp_path / "written.txt").read_text() == "3.5"     # in the client's working directory


def test_the_client_exits_with_the_scripts_status_and_traceback(server, tmp_path):
    r = _client(tmp_path, server, "exit")
    assert r.returncode == 3 and r.stdout.startswith("warm")
    r = _client(tmp_path, server, "fail")
    assert r.returncode == 1 and "ValueError: a clear error" in r.stderr and "Traceback" in r.stderr


def test_without_a_server_the_script_runs_on_its_own(server, tmp_path):
    for sock, extra in ((None, None), (str(tmp_path / "no-such-socket"), None), ("0", None),
                        (server, {"SLURM_JOB_ID": "7"})):   # a Slurm job never hands off
        r = _client(tmp_path, sock, "ok", extra_env=extra)
        assert r.returncode == 0 and r.stdout.startswith("cold from-the-client"), (sock, r.stdout, r.stderr)


def test_a_killed_client_takes_its_fork_with_it(server, tmp_path):
    proc = _client(tmp_path, server, "sleep", wait=False)
    deadline = time.monotonic() + 60
    while not (tmp_path / "pid.txt").is_file() and time.monotonic() < deadline:
        time.sleep(0.05)
    fork = int((tmp_path / "pid.txt").read_text())
    assert fork != proc.pid          # the script runs in the server's fork, not in the client
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            os.kill(fork, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    else:
        pytest.fail(f"the fork {fork} outlived its killed client")
    assert not (tmp_path / "finished.txt").exists()


def test_the_server_exits_with_the_process_that_started_it(tmp_path):
    """A server whose parent is gone (snakemake killed) stops and removes its socket."""
    path = str(tmp_path / "s" / "socket")
    os.makedirs(os.path.dirname(path))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    parent = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import subprocess, sys, time
        subprocess.Popen([sys.executable, "-m", "icl_heads.warm", "serve", {path!r}, str(__import__("os").getpid())])
        time.sleep(600)
    """)], env=env)
    deadline = time.monotonic() + 120
    while not os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert os.path.exists(path)
    parent.kill()
    parent.wait()
    deadline = time.monotonic() + 15
    while os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not os.path.exists(path) and not os.path.exists(os.path.dirname(path))
