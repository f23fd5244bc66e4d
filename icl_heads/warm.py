"""A warm interpreter for local runs: rule scripts start without importing torch again.

On this project's 2-core default run, a job spends about 6 s importing torch, transformers and
the project before it does anything, and most of the 250 jobs compute for 5-30 s, so imports
were about a third of `make run`. Snakemake starts every `script:` in a fresh interpreter, and
neither Snakemake nor transformers offers a way to keep one, so the workflow does it itself:

- `onstart` in the Snakefile starts `python -m icl_heads.warm serve SOCKET` (local runs only) and
  puts SOCKET in the jobs' environment (`ICL_HEADS_WARM`). The server imports the heavy modules
  once and waits.
- The first line of every rule script (`workflow_scripts/common.py`) calls `hand_off()`. With a
  server it sends its argv, working directory, environment and sys.path, and passes its
  stdin/stdout/stderr file descriptors; the server forks, and the fork runs the very same script
  file (Snakemake's generated script, whose preamble rebuilds the `snakemake` object) with those
  descriptors, in that directory and environment. The client waits and exits with the fork's exit
  status; if the client is killed, the fork is killed with it (it watches the connection).
- Without a server (plain `python`, a Slurm job, `ICL_HEADS_WARM` unset or dead), `hand_off()`
  returns at once and the script runs in its own interpreter as before: the same code runs the
  same way either way, the fork only skips the imports (tests/test_kill_and_determinism.py
  builds the tiny workflow both ways and compares the bytes).

The server never runs torch code itself, so its OpenMP pool is never started and each fork sets
its own thread count; the native pools its imports do start are sized one thread (THREAD_VARS).
A fork takes nothing from the server but the imported modules. The server exits when the
Snakemake process that started it exits.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import struct
import sys
import time

ENV = "ICL_HEADS_WARM"
_IN_FORK = "ICL_HEADS_WARM_FORK"
_OFF = ("0", "off", "false")
# What the server imports once (each optional: a missing one is skipped).
PRELOAD = (
    "numpy", "pandas", "scipy.stats", "safetensors.torch", "torch", "transformers",
    "transformers.modeling_utils", "transformers.models.llama.modeling_llama",
    "transformers.models.gemma3.modeling_gemma3", "transformers.models.gpt2.modeling_gpt2",
    "transformers.models.gpt_neox.modeling_gpt_neox", "transformers.models.qwen2.modeling_qwen2",
    "tokenizers", "tqdm", "matplotlib", "matplotlib.pyplot",
    "icl_heads.model", "icl_heads.models", "icl_heads.prompts", "icl_heads.stats", "icl_heads.io",
)


THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "GOTO_NUM_THREADS",
               "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")


def _recv_exact(conn: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        part = conn.recv(n - len(buf))
        if not part:
            raise ConnectionError("closed")
        buf += part
    return buf


def _remove(path: str) -> None:
    """Remove the socket at `path` and the temporary directory holding it, where they exist."""
    for p, rm in ((path, os.unlink), (os.path.dirname(path), os.rmdir)):
        try:
            rm(p)
        except OSError:
            pass


def hand_off() -> None:
    """Run this script in the warm server and exit with its status; return where there is none."""
    path = os.environ.get(ENV)
    if not path or path in _OFF or os.environ.get(_IN_FORK) or os.environ.get("SLURM_JOB_ID"):
        return
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(path)
    except OSError:
        conn.close()
        return
    req = {"argv": sys.argv, "cwd": os.getcwd(), "env": dict(os.environ), "path": sys.path}
    body = json.dumps(req).encode()
    try:
        socket.send_fds(conn, [struct.pack("<I", len(body))], [0, 1, 2])
        conn.sendall(body)
        status = struct.unpack("<i", _recv_exact(conn, 4))[0]
    except (OSError, ConnectionError):
        # the server went away before it answered: the fork (if any) is killed when it sees this
        # connection close, so nothing of it is left; say so and fail (the job is retried as usual)
        sys.stderr.write("icl_heads.warm: the warm server closed the connection; the job did not finish\n")
        status = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


def _run_fork(conn: socket.socket, fds: list[int], req: dict) -> None:
    """In the fork: become the client's process (descriptors, directory, environment) and run its script."""
    import runpy
    import threading
    import traceback

    for i, fd in enumerate(fds[:3]):
        os.dup2(fd, i)
        os.close(fd)
    sys.stdin, sys.stdout, sys.stderr = (os.fdopen(0, "r", closefd=False), os.fdopen(1, "w", buffering=1, closefd=False),
                                         os.fdopen(2, "w", buffering=1, closefd=False))
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)   # the server's SIG_IGN would break subprocess's wait
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.chdir(req["cwd"])
    os.environ.clear()
    os.environ.update(req["env"])
    os.environ[_IN_FORK] = "1"
    sys.path[:] = req["path"]
    sys.argv[:] = req["argv"]

    def watch():   # the client died (Snakemake killed the job): die with it
        try:
            while conn.recv(1):
                pass
        except OSError:
            pass
        os._exit(143)

    threading.Thread(target=watch, daemon=True).start()
    status = 0
    try:
        runpy.run_path(req["argv"][0], run_name="__main__")
    except SystemExit as e:
        status = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        if not isinstance(e.code, (int, type(None))):
            print(e.code, file=sys.stderr)
    except BaseException:  # noqa: BLE001 - report any failure as the script's own would be reported
        traceback.print_exc()
        status = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
        conn.sendall(struct.pack("<i", status))
    except OSError:
        pass
    os._exit(status)


def serve(path: str, parent: int | None = None) -> None:
    """Import PRELOAD once, then fork a runner per connection until `parent` exits."""
    import importlib

    os.environ.setdefault("MPLBACKEND", "Agg")
    # Native thread pools size themselves from these when first loaded, here, not in the fork: one
    # thread each, as a 1-thread job's cold interpreter gets them from Snakemake (a 2-thread job
    # sets torch's own count itself, torch.set_num_threads in workflow_scripts/common.Job); so no
    # pool of the server's outlives the fork to compete with the job running next to it.
    for var in THREAD_VARS:
        os.environ[var] = "1"
    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - optional: the fork imports what it needs
            pass
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)   # forks are reaped by the kernel
    if os.path.exists(path):
        os.unlink(path)
    srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    srv.bind(path + ".tmp")
    os.replace(path + ".tmp", path)   # a client connects only once the imports are done
    srv.listen(64)
    srv.settimeout(1.0)
    try:
        while parent is None or os.getppid() == parent:
            try:
                conn, _ = srv.accept()
            except socket.timeout:
                continue
            conn.settimeout(None)
            try:
                msg, fds, _, _ = socket.recv_fds(conn, 4, 3)
                n = struct.unpack("<I", msg)[0]
                req = json.loads(_recv_exact(conn, n))
            except (OSError, ConnectionError, ValueError, struct.error):
                conn.close()
                continue
            if os.fork() == 0:
                srv.close()
                _run_fork(conn, fds, req)
            for fd in fds:
                os.close(fd)
            conn.close()
    finally:
        srv.close()
        _remove(path)


def start(python: str = sys.executable, wait_s: float = 60.0) -> str | None:
    """Start a server for this process (the Snakefile's onstart), put its socket in this process's
    environment (which the jobs inherit) and stop it at exit; returns the socket path. Off where
    ICL_HEADS_WARM is set to 0 in the environment."""
    import atexit
    import subprocess
    import tempfile

    if os.environ.get(ENV, "") in _OFF:
        return None
    path = os.path.join(tempfile.mkdtemp(prefix="icl-warm-"), "socket")
    proc = subprocess.Popen([python, "-m", "icl_heads.warm", "serve", path, str(os.getpid())],
                            stdin=subprocess.DEVNULL, start_new_session=True)

    def stop():
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
        _remove(path)

    atexit.register(stop)
    # Wait for it to listen (its imports take about as long as one job's would): the jobs started
    # before then would each import torch themselves. A server that does not come up is not used.
    deadline = time.monotonic() + wait_s
    while not os.path.exists(path) and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    if not os.path.exists(path):
        return None
    os.environ[ENV] = path
    return path


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "serve":
        serve(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else None)
    else:
        sys.exit("usage: python -m icl_heads.warm serve SOCKET [PARENT_PID]")
