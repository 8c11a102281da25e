"""The three ways `bench repair` gets its model, each running code-commit end to end on a prepared task:

- scripted: code-commit's own loop in this process, as `code-commit demo` runs it, with the scripted
  provider answering the task's known fix (offline; it measures the tool alone);
- live: the `code-commit` command itself, with `--provider/--model` and the user's key from the
  environment;
- local: the same command against a llama.cpp server the bench starts with the bundled small model.

Each returns code-commit's record of the run (the `--json` object) and the wall time it took.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from .task import Task

SCRIPTED_MODEL = "scripted-known-fix"
MODES = ("scripted", "live", "local")


@dataclass(frozen=True)
class Ran:
    record: dict[str, Any]  # code-commit's record of the run, as --json prints it
    wall_s: float


class Mode(Protocol):
    name: str
    provider: str
    model: str

    def run(self, task: Task, root: Path) -> Ran: ...


@dataclass(frozen=True)
class Scripted:
    """The known fix as the model's one answer (for an impossible task, the task handed back)."""

    name: str = "scripted"
    provider: str = "scripted"
    model: str = SCRIPTED_MODEL

    def run(self, task: Task, root: Path) -> Ran:
        from code_commit.config.settings import Settings
        from code_commit.console.output import Console
        from code_commit.llm.scripted import ScriptedProvider
        from code_commit.run.loop import execute
        from code_commit.run.signals import TimeLimit
        from code_commit.run.workspace import open_workspace

        settings = Settings(model=self.model)
        console = Console(stream=io.StringIO(), quiet=True)
        started = time.perf_counter()
        model = ScriptedProvider([task.answer()])
        record = execute(open_workspace(root), None, settings, console, TimeLimit.of(settings), provider=model)
        wall = time.perf_counter() - started
        document: dict[str, Any] = json.loads(record.to_json())
        return Ran(document, wall)


@dataclass(frozen=True)
class Live:
    """The `code-commit` command, as a user runs it: its key comes from the environment."""

    provider: str
    model: str
    base_url: str | None = None
    name: str = "live"

    def run(self, task: Task, root: Path) -> Ran:
        argv = [sys.executable, "-m", "code_commit", "--json", "--provider", self.provider, "--model", self.model]
        if self.base_url:
            argv += ["--base-url", self.base_url]
        env = {k: v for k, v in os.environ.items() if not k.startswith("CODE_COMMIT_")}  # the run's flags only
        started = time.perf_counter()
        done = subprocess.run(argv, cwd=root, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        wall = time.perf_counter() - started
        try:
            document: dict[str, Any] = json.loads(done.stdout)
        except json.JSONDecodeError:
            raise RuntimeError(
                f"code-commit exited {done.returncode} with no JSON record: {done.stderr.strip()[-2000:]}"
            ) from None
        return Ran(document, wall)


@dataclass(frozen=True)
class LocalServerInfo:
    """What `bench.local_server.LocalServer` gives: where the server listens and the model it serves."""

    base_url: str
    model: str


ServerFactory = Callable[[], AbstractContextManager[LocalServerInfo]]


class ServerUnavailable(RuntimeError):
    """Local mode's server cannot start here: the message says what to install."""


@contextmanager
def bundled_server() -> Iterator[LocalServerInfo]:
    """llama.cpp's server with the bundled small model, started and stopped by the bench
    (bench/local_server.py); what it lacks (llama-cpp-python, the model) is a `ServerUnavailable`."""
    try:
        from bench.local_server import LocalServerUnavailable, local_server  # type: ignore[import-not-found,unused-ignore]
    except ImportError as error:
        raise ServerUnavailable(f"local mode needs bench/local_server.py, which cannot be imported: {error}") from None
    try:
        with local_server() as server:
            yield LocalServerInfo(server.base_url, server.model)
    except LocalServerUnavailable as error:
        raise ServerUnavailable(str(error)) from None


@contextmanager
def local(server: ServerFactory = bundled_server) -> Iterator[Live]:
    """Live mode against a local OpenAI-compatible server, for as long as the block runs."""
    with server() as started:
        yield Live("openai", started.model, base_url=started.base_url, name="local")
