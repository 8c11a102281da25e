"""`code-commit` on a real pseudo-terminal, forked from a server that imported the model SDK once.

Why: every `python -m code_commit` that makes a model call imports the anthropic SDK, and its import
costs about 2.4 s of CPU (pydantic builds its models as they are defined): about half of what the
terminal tests cost, spawn after spawn, on the suite's 2 cores. So, as multiprocessing's
forkserver does, a pytest session starts one fresh interpreter (tests/forkserver.py: a new process,
not a fork of pytest, so none of pytest's monkeypatches, captured fds or threads reach it) that imports
the CLI and the SDK, and forks a child on a new pty for each `spawn`; its xdist workers share it.
The child sets the window size, takes the request's environment and folder, resets the signal
dispositions and the standard streams to a fresh interpreter's, runs `code_commit`'s __main__ as
`python -m` runs it, and exits with the status Python would have. The master fd comes back over a
Unix socket; pexpect drives it as it drives a spawn, and Ctrl-C is the terminal's VINTR character,
turned into SIGINT by the line discipline.

What differs from a spawn: nothing the CLI looks at. Modules are imported already (the CLI's light
start-up modules, the SDK and what it imports); every child has the server as its parent and shares its
string-hash seed (one random seed, as a fresh process would draw; `random` reseeds at fork). What
the imports read of the environment would be the server's, so the server records each variable they
read (ANTHROPIC_LOG, DEFER_PYDANTIC_BUILD, TYPER_USE_RICH...), and refuses a request whose environment
differs from its own in one of those or in what the interpreter reads as it starts (PYTHON*, the
locale, HOME): such a test must spawn a real process (tests/config/test_log_redaction.py does).
tests/console/test_console.py keeps one real spawn on a terminal, so start-up stays tested there.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import signal
import socket
import subprocess
import sys
import tempfile
import termios
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pexpect
from pexpect.fdpexpect import fdspawn

from forkserver import MESSAGE_BYTES, startup_variable

SERVER = Path(__file__).with_name("forkserver.py")
GUARD = 120  # seconds: only a guard against a hang; nothing here is timed
SUN_PATH_BYTES = 108  # the longest path a Unix socket is bound to, its final NUL included


# What `terminal` gives a test: spawn_process's signature, whichever of the two spawns (a real process,
# or ForkServer.spawn).
Spawner = Callable[..., Any]


def spawn_process(
    args: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: str | Path | None = None,
    dimensions: tuple[int, int] = (24, 80),
    timeout: float = 60,
    encoding: str | None = None,
) -> pexpect.spawn:
    """A real `python -m code_commit ARGS` on a new pty: for what the fork server cannot stand for,
    start-up itself."""
    return pexpect.spawn(
        sys.executable,
        ["-m", "code_commit", *args],
        cwd=None if cwd is None else str(cwd),
        env=dict(env),
        dimensions=dimensions,
        timeout=timeout,
        encoding=encoding,
    )


class ForkServer:
    """A connection to the fork server of this pytest session, started by the first test process that
    asks (under a lock in `folder`, which every xdist worker of the session passes), so the SDK is
    imported once a session, not once a worker. `close` (or the end of this process, however it ends)
    ends the connection; the server ends with its last one."""

    def __init__(self, folder: Path) -> None:
        self._log = folder / "forkserver.log"
        self._process: subprocess.Popen[bytes] | None = None
        address = folder / "forkserver.sock"
        if len(os.fsencode(address)) >= SUN_PATH_BYTES:  # too long for a socket's address: a server of our own
            address = Path(tempfile.mkdtemp(prefix="forkserver-")) / "sock"
        lock = address.parent / "forkserver.lock"
        with lock.open("wb") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            try:
                self._socket = _connect(address)
            except (FileNotFoundError, ConnectionRefusedError):  # none yet, or the last one ended (or died)
                with contextlib.suppress(FileNotFoundError):
                    address.unlink()
                self._process = self._start(address, lock)
                self._socket = _connect(address)
        self._ended: dict[int, int] = {}  # pid -> wait status, of children not yet waited for
        self.read_at_import: list[str] = self._receive(GUARD)[0]["ready"]

    def _start(self, address: Path, lock: Path) -> subprocess.Popen[bytes]:
        with socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET) as listener, self._log.open("wb") as log:
            listener.bind(os.fsencode(address))
            listener.listen()
            return subprocess.Popen(
                [sys.executable, str(SERVER), str(listener.fileno()), str(lock)],
                pass_fds=[listener.fileno()],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=log,
                cwd=address.parent,
                # Only what an interpreter reads as it starts, from this process's environment: no test's
                # variables; a request must agree on these (forkserver.refusal).
                env={name: value for name, value in os.environ.items() if startup_variable(name)},
                start_new_session=True,  # a Ctrl-C at the developer's terminal is pytest's to handle
            )

    def spawn(
        self,
        args: Sequence[str],
        *,
        env: Mapping[str, str],
        cwd: str | Path | None = None,
        dimensions: tuple[int, int] = (24, 80),
        timeout: float = 60,
        encoding: str | None = None,
    ) -> Terminal:
        rows, cols = dimensions
        request = {"args": list(args), "cwd": str(cwd or os.getcwd()), "env": dict(env), "rows": rows, "cols": cols}
        self._socket.send(json.dumps(request).encode())
        reply, fds = self._receive(GUARD)
        if "error" in reply:
            raise RuntimeError(f"the fork server refused `code-commit {' '.join(args)}`: {reply['error']}")
        (master,) = fds
        return Terminal(self, reply["pid"], master, timeout=timeout, encoding=encoding)

    def wait(self, pid: int, timeout: float | None) -> int | None:
        """The child's wait status once it has ended; None if it has not within `timeout` seconds."""
        while pid not in self._ended:
            if self._receive(timeout, status_only=True) is None:
                return None
        return self._ended.pop(pid)

    def close(self) -> None:
        self._socket.close()  # end of file: the server kills and reaps what is left of ours
        if self._process is not None:
            # The server ends with its last client: the other workers', whose sessions end on their own.
            self._process.wait()

    def _receive(self, timeout: float | None, status_only: bool = False) -> Any:
        """The next reply (with its fds), filing away the children's statuses that come before it; with
        `status_only`, returns after one status (None on timeout)."""
        while True:
            if not select.select([self._socket], [], [], timeout)[0]:
                if status_only:
                    return None
                raise TimeoutError(f"no answer from the fork server in {timeout} s:\n{self._server_log()}")
            message, fds, _, _ = socket.recv_fds(self._socket, MESSAGE_BYTES, 1)
            if not message:
                raise RuntimeError(f"the fork server ended:\n{self._server_log()}")
            reply = json.loads(message)
            if "status" in reply:
                self._ended[reply["pid"]] = reply["status"]
                if status_only:
                    return reply
                continue
            return reply, fds

    def _server_log(self) -> str:
        return self._log.read_text(errors="replace")


def _connect(address: Path) -> socket.socket:
    connection = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    try:
        connection.connect(os.fsencode(address))
    except OSError:
        connection.close()
        raise
    return connection


class Terminal(fdspawn):
    """pexpect on the master side of the child's pty, as `pexpect.spawn` gives it: expect, send,
    sendintr, child_fd (for termios), logfile_read, and after `close` exitstatus and signalstatus."""

    def __init__(self, server: ForkServer, pid: int, fd: int, *, timeout: float, encoding: str | None) -> None:
        super().__init__(fd, timeout=timeout, encoding=encoding)
        self.own_fd = True
        self.pid = pid
        self.status: int | None = None
        self.exitstatus: int | None = None
        self.signalstatus: int | None = None
        self._server = server

    def sendintr(self) -> None:
        """Ctrl-C as a user types it: the terminal's interrupt character, which its line discipline
        turns into SIGINT for the foreground process group."""
        os.write(self.child_fd, termios.tcgetattr(self.child_fd)[6][termios.VINTR])

    def sendeof(self) -> None:
        """Ctrl-D at the start of a line: the terminal's end-of-file character, as a user types it."""
        os.write(self.child_fd, termios.tcgetattr(self.child_fd)[6][termios.VEOF])

    def isalive(self) -> bool:
        if self.status is None:
            self._record(self._server.wait(self.pid, 0))
        return self.status is None

    def wait(self) -> int | None:
        self._record(self._server.wait(self.pid, GUARD))
        return self.exitstatus

    def close(self, force: bool = True) -> None:
        """Close our side (a child still running gets SIGHUP, as from a closed terminal window) and
        collect its status; one that is still there after the guard is killed with its process group."""
        super().close()
        if self.status is None:
            self._record(self._server.wait(self.pid, GUARD))
        if self.status is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.pid, signal.SIGKILL)
            self._record(self._server.wait(self.pid, None))
            raise TimeoutError(f"code-commit (pid {self.pid}) was still running {GUARD} s after its terminal closed")

    def _record(self, status: int | None) -> None:
        if status is None or self.status is not None:
            return
        self.status = status
        if os.WIFSIGNALED(status):
            self.signalstatus = os.WTERMSIG(status)
        else:
            self.exitstatus = os.WEXITSTATUS(status)
        self.terminated = True


@contextlib.contextmanager
def spawner(server: ForkServer) -> Iterator[Spawner]:
    """`server.spawn` for one test; whatever it left running is closed (and killed) at the end."""
    spawned: list[Terminal] = []

    def spawn(args: Sequence[str], **options: Any) -> Terminal:
        spawned.append(server.spawn(args, **options))
        return spawned[-1]

    try:
        yield spawn
    finally:
        for terminal in spawned:
            if terminal.status is None or terminal.child_fd != -1:
                terminal.close()
