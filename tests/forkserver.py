"""The fork server behind tests/terminal.py (read that first): a fresh interpreter that imports the
CLI and the model SDK once, then forks a `python -m code_commit` on a new pseudo-terminal for each
request. Run as a script by terminal.py. Standard library only: a child finds imported what the
interpreter's start-up imports, PRELOADED and what it imports, and the few standard modules below.

Its clients are the test processes of one pytest session (each xdist worker): argv[1] is the fd of a
listening SOCK_SEQPACKET socket, and each connection to it is one client; argv[2] the lock file they
connect under. Protocol, one JSON object a packet:
  server -> {"ready": [names]}  on each connection, after the imports: the environment variables they read
  client -> {"args": [...], "cwd": "...", "env": {...}, "rows": n, "cols": n}
  server -> {"pid": n} with the pty's master fd (SCM_RIGHTS), or {"error": "..."}
  server -> {"pid": n, "status": n}  when that child ends (its os.waitpid status), to the client that asked
End of file on a connection (the test process ended, however it ended): the server kills what is left
of that client's children's process groups. When its last client has gone, and none waits under the
lock, it removes its address, reaps them all and exits.
"""

from __future__ import annotations

import atexit
import builtins
import contextlib
import fcntl
import importlib
import io
import json
import os
import pty
import runpy
import select
import signal
import socket
import struct
import sys
import termios
import threading
import traceback
import types
from collections.abc import Iterable, Iterator, Mapping
from typing import NoReturn

PRELOADED = ("code_commit.cli.app", "anthropic")  # typer and the light CLI; the SDK (2.4 s of CPU)

# What an interpreter reads of its environment as it starts: its own PYTHON* variables, the locale, the
# time zone, OpenSSL's (read in C, where no Python hook sees them), and what site's .pth files read
# (HOME and PYTHONUSERBASE for the user site, setuptools' distutils switch). A child forked from the
# server started with the server's values of these, so a request must carry the same.
STARTUP_PREFIXES = ("PYTHON", "LC_", "OPENSSL_")
STARTUP_NAMES = frozenset({"LANG", "TZ", "HOME", "SETUPTOOLS_USE_DISTUTILS", "__PYVENV_LAUNCHER__"})

MESSAGE_BYTES = 1 << 20  # a request carries a whole environment


def startup_variable(name: str) -> bool:
    return name.startswith(STARTUP_PREFIXES) or name in STARTUP_NAMES


def import_recording_reads(modules: Iterable[str]) -> set[str]:
    """Import `modules`, and return the names of the environment variables read meanwhile (os.environ,
    os.getenv and os.environb all read through os._Environ.__getitem__; "*" for a read of all)."""
    environ = type(os.environ)
    real_getitem, real_iter = environ.__getitem__, environ.__iter__
    read: set[str] = set()

    def getitem(self: os._Environ[str], key: str) -> str:
        read.add(os.fsdecode(key))
        return real_getitem(self, key)

    def iterate(self: os._Environ[str]) -> Iterator[str]:
        read.add("*")
        return real_iter(self)

    environ.__getitem__, environ.__iter__ = getitem, iterate
    try:
        for module in modules:
            importlib.import_module(module)
    finally:
        environ.__getitem__, environ.__iter__ = real_getitem, real_iter
    return read


def refusal(env: Mapping[str, str], read_at_import: set[str]) -> str | None:
    """Why a child forked from here would not be what `python -m code_commit` started with `env` is:
    a variable read at start-up or at import whose value differs from the server's."""
    if "*" in read_at_import:
        return "an import read the whole environment: every child would see the server's"
    names = {name for name in (*env, *os.environ) if startup_variable(name)} | read_at_import
    differ = sorted(name for name in names if env.get(name) != os.environ.get(name))
    if differ:
        return (
            f"{', '.join(differ)}: read as the interpreter starts or as the preloaded modules import, and "
            "this request's values differ from the fork server's; spawn a real process for it"
        )
    return None


class Fresh:
    """What a fresh interpreter started as the server was starts with, recorded before anything changes
    it: the signal dispositions and the standard streams' encodings and buffering."""

    def __init__(self) -> None:
        self.dispositions: dict[int, object] = {}
        for signum in signal.valid_signals():
            try:
                handler = signal.getsignal(signum)
            except (OSError, ValueError):
                continue
            if handler is not None:
                self.dispositions[signum] = handler
        streams = (sys.__stdin__, sys.__stdout__, sys.__stderr__)
        self.codecs = [(stream.encoding, stream.errors) for stream in streams]
        self.buffered = not sys.__stdout__.write_through  # PYTHONUNBUFFERED, -u

    def restore_signals(self) -> None:
        for signum, handler in self.dispositions.items():
            with contextlib.suppress(OSError, ValueError, RuntimeError):  # SIGKILL, SIGSTOP
                signal.signal(signum, handler)
        signal.pthread_sigmask(signal.SIG_SETMASK, ())

    def open_stdio(self) -> None:
        """sys.stdin, stdout and stderr on fds 0, 1 and 2, made as pylifecycle.c's create_stdio makes
        them: stdin always buffered, line buffering on a terminal (stderr: always), write-through
        when unbuffered."""
        streams = []
        names = ("<stdin>", "<stdout>", "<stderr>")
        for fd, name, (encoding, errors) in zip((0, 1, 2), names, self.codecs, strict=True):
            writes = fd != 0
            buffering = 0 if writes and not self.buffered else -1
            buffer = open(fd, "wb" if writes else "rb", buffering, closefd=False)  # noqa: SIM115
            raw = buffer if buffering == 0 else buffer.raw
            raw.name = name
            tty = raw.isatty()
            stream = io.TextIOWrapper(
                buffer,
                encoding,
                errors,
                newline="\n",
                line_buffering=self.buffered and (tty or fd == 2),
                write_through=not self.buffered,
            )
            stream.mode = "w" if writes else "r"
            streams.append(stream)
        _discarded.extend((sys.stdin, sys.stdout, sys.stderr))  # the server's; never flushed into the terminal
        sys.stdin, sys.stdout, sys.stderr = streams
        sys.__stdin__, sys.__stdout__, sys.__stderr__ = streams


_discarded: list[object] = []


def serve(listener: socket.socket, lock: str) -> None:
    fresh = Fresh()
    read_at_import = import_recording_reads(PRELOADED)
    wake, woken = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.signal(signal.SIGCHLD, lambda *_: None)  # the wakeup fd wakes the select below
    signal.set_wakeup_fd(woken)
    open_fds = {int(fd) for fd in os.listdir("/proc/self/fd")} - {0, 1, 2, listener.fileno(), wake, woken}
    open_fds = {fd for fd in open_fds if os.path.exists(f"/proc/self/fd/{fd}")}  # the listing's own is gone
    if open_fds:
        raise RuntimeError(f"the imports left fds {sorted(open_fds)} open: each child would inherit them")
    ready = json.dumps({"ready": sorted(read_at_import)}).encode()
    clients: dict[socket.socket, set[int]] = {}  # each connection's children not yet reaped
    owners: dict[int, socket.socket] = {}  # every child not yet reaped, and the connection that asked for it
    try:
        while True:
            readable, _, _ = select.select([listener, wake, *clients], [], [])
            if wake in readable:
                with contextlib.suppress(BlockingIOError):
                    while os.read(wake, 4096):
                        pass
                _reap(owners, clients)
            if listener in readable:
                connection, _ = listener.accept()
                clients[connection] = set()
                _send(connection, ready)
            for control in [c for c in readable if c in clients]:
                message, _, _, _ = socket.recv_fds(control, MESSAGE_BYTES, 0)
                if not message:
                    for pid in clients.pop(control):
                        with contextlib.suppress(ProcessLookupError):
                            os.killpg(pid, signal.SIGKILL)
                    control.close()
                    continue
                request = json.loads(message)
                problem = refusal(request["env"], read_at_import)
                if problem:
                    _send(control, json.dumps({"error": problem}).encode())
                    continue
                sys.stderr.flush()  # nothing of the server's may reach a child's terminal
                pid, master = pty.fork()
                if pid == 0:
                    _child(request, fresh, (wake, woken))
                clients[control].add(pid)
                owners[pid] = control
                _send(control, json.dumps({"pid": pid}).encode(), master)
                os.close(master)
            if not clients:  # the first client connected as the server started: only the last gets here
                connection = _last_call(listener, lock)
                if connection is None:
                    return
                clients[connection] = set()
                _send(connection, ready)
    finally:
        for pid in owners:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
        for pid in owners:
            os.waitpid(pid, 0)


def _last_call(listener: socket.socket, lock: str) -> socket.socket | None:
    """With no client left: under the lock clients connect under, one that connected meanwhile, or
    None once the address is gone (a client that comes later starts a server of its own)."""
    with open(lock, "wb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        listener.setblocking(False)
        try:
            connection, _ = listener.accept()
        except BlockingIOError:
            os.unlink(listener.getsockname())
            return None
        connection.setblocking(True)
        listener.setblocking(True)
        return connection


def _reap(owners: dict[int, socket.socket], clients: dict[socket.socket, set[int]]) -> None:
    while owners:
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            return
        control = owners.pop(pid)
        if control in clients:  # else it has gone, and killed its children
            clients[control].discard(pid)
            _send(control, json.dumps({"pid": pid, "status": status}).encode())


def _send(control: socket.socket, message: bytes, fd: int | None = None) -> None:
    """A client that has gone is seen at its end of file, which the select loop reads next."""
    with contextlib.suppress(OSError):
        socket.send_fds(control, [message], [] if fd is None else [fd])


def _child(request: dict, fresh: Fresh, wakeup: tuple[int, int]) -> NoReturn:
    """In the forked child, on the pty: become what `python -m code_commit ARGS` would have started as."""
    try:
        signal.set_wakeup_fd(-1)
        fresh.restore_signals()
        for fd in (*wakeup, *(int(fd) for fd in os.listdir("/proc/self/fd") if int(fd) > 2)):
            with contextlib.suppress(OSError):  # the listing's own, closed already
                os.close(fd)
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", request["rows"], request["cols"], 0, 0))
        os.environ.clear()  # unsetenv and putenv too: C code and subprocesses see the request's
        os.environ.update(request["env"])
        os.chdir(request["cwd"])
        fresh.open_stdio()
        main = types.ModuleType("__main__")
        main.__builtins__ = builtins
        main.__annotations__ = {}
        _discarded.append(sys.modules["__main__"])
        sys.modules["__main__"] = main
        sys.argv = ["-m", *request["args"]]
        sys.orig_argv = [sys.executable, "-m", "code_commit", *request["args"]]
        sys.path[0] = os.getcwd()  # what -m puts first; the server had its own folder there
    except BaseException:
        os.write(2, traceback.format_exc().encode())
        os._exit(1)
    os._exit(_run_as_main())


def _run_as_main() -> int:
    """What Py_RunMain does for `python -m code_commit`, up to the exit status: run __main__, turn
    SystemExit into a status and anything else into a traceback and 1, join the threads, run the atexit
    callbacks, flush stdout (120 if it fails), and die by SIGINT after an unhandled KeyboardInterrupt."""
    interrupted = False
    try:
        runpy._run_module_as_main("code_commit")  # what -m calls
        status = 0
    except SystemExit as exit:
        status = _exit_status(exit.code)
    except BaseException as error:
        interrupted = isinstance(error, KeyboardInterrupt)
        sys.excepthook(type(error), error, error.__traceback__)
        status = 1
    threading._shutdown()
    atexit._run_exitfuncs()
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except Exception:
        status = 120
    try:
        if sys.stderr is not None:
            sys.stderr.flush()
    except Exception:
        pass
    if interrupted:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        status = 130
    return status & 0xFF


def _exit_status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    if sys.stderr is not None:
        sys.stderr.write(f"{code}\n")
    return 1


if __name__ == "__main__":
    serve(socket.socket(fileno=int(sys.argv[1])), sys.argv[2])
