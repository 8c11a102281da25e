"""Running build.sh: its own process group, stdin from /dev/null, an environment of the variables
the sandbox's tables allow and build_env names, none secret (`withheld`), stdout and stderr
interleaved in write order through one pipe, streamed to the log file so memory stays bounded, and a
hard time limit.

When build.sh ends, the run does not wait for background children that still hold the pipe:
after a short grace (`build_linger`) the whole group is killed, so no child of the build outlives
the run. (A child that leaves the group with setsid escapes this; nothing short of a container
can follow it.) In the sandbox (`sandbox`), bubblewrap is the process started: its PID
namespace ends when build.sh exits, so there every process the build started is killed at once,
setsid or not, and the linger grace has nothing left to wait for.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import os
import re
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from code_commit.builds.output import CHUNK, LOG_CAP, BuildOutput, OutputLog
from code_commit.config.redaction import Redactor
from code_commit.config.settings import Settings
from code_commit.git.env import forget_resolved_paths
from code_commit.sandbox.bubblewrap import SandboxPolicy, wrap
from code_commit.sandbox.limits import REACHED, Confinement, limited
from code_commit.sandbox.withheld import build_environment
from code_commit.stops import shielded

if TYPE_CHECKING:  # the diagnosis and its rules are imported where a build is judged, not at start-up
    from code_commit.builds.diagnosis import Diagnosis

_LINGER_SECONDS = Settings.build_linger  # after build.sh exits, how long children may keep the pipe open
_CAP_CHECK = 0.1  # seconds between two reads of the build's cgroup events (a read per output chunk is waste)


@dataclass(frozen=True)
class BuildResult:
    exit_code: int | None  # None when killed for the time limit
    timed_out: bool
    duration: float
    output: BuildOutput  # its output, as logged: the log file and what was noted of it
    time_limit: float = 0.0
    lingered: bool = False  # background children still held the output when build.sh ended; killed
    start_error: str | None = None  # why build.sh could not be started at all, if it could not
    sandbox: str = "none"  # what it ran under: "bubblewrap" or "none"
    diagnosis: Diagnosis | None = None  # failed because the sandbox or the setup kept it from running
    cap_reached: str | None = None  # ended at once at a cap: the setting naming it (sandbox/limits.py)

    @property
    def log_path(self) -> Path:
        return self.output.log_path

    @property
    def passed(self) -> bool:
        return self.exit_code == 0 and not self.timed_out and self.cap_reached is None

    def describe(self) -> str:
        if self.cap_reached is not None:
            cap = self.cap_reached
            return f"build.sh was ended at once: it reached {cap}, {REACHED[cap]}; raise it if the build needs more"
        if self.timed_out:
            return f"build.sh was killed at its time limit of {self.time_limit:g} s (--build-timeout)"
        if self.start_error is not None:
            code = self.exit_code
            return f"build.sh could not be started: {self.start_error} (exit code {code}, as a shell reports it)"
        return f"build.sh exited with code {self.exit_code} after {self.duration:.1f} s"


def _build_command(root: Path) -> list[str]:
    script = root / "build.sh"
    return ["./build.sh"] if os.access(script, os.X_OK) else ["sh", "build.sh"]


def _start(
    root: Path, env: Mapping[str, str], sandbox: SandboxPolicy | None, prefix: Sequence[str] = ()
) -> subprocess.Popen[bytes]:
    """Start build.sh as a shell would: exec it, and if the kernel cannot (a script with no #! line:
    ENOEXEC), run it with sh. In the sandbox bwrap execs it with execvp, which does the same. `env`
    is the build's whole environment (`withheld.build_environment`)."""
    command = _build_command(root)
    clean = dict(env)
    if sandbox is not None:
        clean["TMPDIR"] = "/tmp"  # the private one: any other is read-only in the sandbox
    while True:
        with _stand_in_pipes(sandbox) as fds:
            try:
                return subprocess.Popen(
                    command if sandbox is None else [*prefix, *wrap(sandbox, command, fds)],
                    cwd=root,
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.STDOUT,
                    env=clean,
                    start_new_session=True,  # its own process group, killed as one; and no terminal signals
                    pass_fds=fds,
                )
            except OSError as exc:
                if exc.errno != errno.ENOEXEC or command[0] == "sh" or sandbox is not None:
                    raise
                command = ["sh", "build.sh"]


@contextlib.contextmanager
def _stand_in_pipes(sandbox: SandboxPolicy | None) -> Iterator[list[int]]:
    """A pipe for each stand-in file of the sandbox, holding its text (a few bytes, far below a
    pipe's buffer), for bwrap to read: its end is closed here once bwrap has been started."""
    fds: list[int] = []
    try:
        for text in sandbox.stand_in_texts() if sandbox is not None else ():
            read, write = os.pipe()
            fds.append(read)
            with open(write, "wb") as fh:
                fh.write(text)
        yield fds
    finally:
        for fd in fds:
            os.close(fd)


# What bwrap prints, alone, when it cannot exec build.sh (then it exits 1): "bwrap: execvp CMD: strerror".
_BWRAP_EXEC_FAILED = re.compile(rb"bwrap: execvp [^\n]*: ([^\n:]+)\n?")
_ERRNO_OF = {os.strerror(code).encode(): code for code in (errno.ENOENT, errno.EACCES, errno.ENOEXEC, errno.ENOTDIR)}


def _exec_failure(exit_code: int, head: bytes) -> OSError | None:
    """The exec error bwrap reported for build.sh, if its whole output is that report."""
    match = _BWRAP_EXEC_FAILED.fullmatch(head) if exit_code == 1 else None
    if match is None:
        return None
    code = _ERRNO_OF.get(match.group(1), errno.EACCES)
    return OSError(code, match.group(1).decode("utf-8", "replace"))


def _why_not_started(root: Path, exc: OSError) -> tuple[int, str]:
    """The exit code a shell gives a command it cannot run (127: not found, 126: found but not
    executable), and why, in words."""
    code = 127 if exc.errno == errno.ENOENT else 126
    reason = exc.strerror or str(exc)
    if _build_command(root)[0] == "sh":  # it was not run through its #! line: sh itself failed
        return code, f"sh: {reason}"
    line = b""
    with contextlib.suppress(OSError), open(root / "build.sh", "rb") as fh:
        line = fh.readline(512).rstrip(b"\n")
    if not line.startswith(b"#!") or exc.errno not in (errno.ENOENT, errno.EACCES):
        return code, reason
    if line.endswith(b"\r"):
        return code, (
            "its #! line ends with a carriage return (the file has Windows CRLF line endings), so the "
            "interpreter it names does not exist; save build.sh with LF line endings"
        )
    interpreter = line[2:].strip().decode("utf-8", "backslashreplace")
    what = "was not found" if exc.errno == errno.ENOENT else "cannot be executed"
    return code, f"its interpreter {interpreter!r} (its #! line) {what}"


def run_build(
    root: Path,
    log_path: Path,
    redact: Redactor,
    timeout: float,
    env: Mapping[str, str] | None = None,
    on_output: Callable[[str], None] | None = None,
    linger: float = _LINGER_SECONDS,
    log_cap: int = LOG_CAP,
    sandbox: SandboxPolicy | None = None,
    pass_env: Sequence[str] = (),
    withhold_env: Sequence[str] = (),
) -> BuildResult:
    """Run build.sh, stream its output (redacted) to `log_path`, and end with its exit status. The
    build's environment is what the tables allow of `env` (this process's by default), without any
    secret (`build_environment`), and the variables `pass_env` names, without those `withhold_env`
    names. In the sandbox, the build runs under its limits on processes and memory (`limits`).

    Whatever ends the wait (exit, time limit, an exception such as a signal's), the whole process
    group is killed before this returns, and the log says how the build ended.
    """
    clean = build_environment(os.environ if env is None else env, pass_env, withhold_env)
    limits: contextlib.AbstractContextManager[Confinement] = (
        contextlib.nullcontext(Confinement()) if sandbox is None else limited(sandbox.limits)
    )
    try:
        with limits as confined:
            return _run_build(root, log_path, redact, timeout, clean, on_output, linger, log_cap, sandbox, confined)
    finally:
        forget_resolved_paths()  # the build could change where a PATH entry leads


def _run_build(
    root: Path,
    log_path: Path,
    redact: Redactor,
    timeout: float,
    env: Mapping[str, str],
    on_output: Callable[[str], None] | None,
    linger: float,
    log_cap: int,
    sandbox: SandboxPolicy | None,
    confined: Confinement,
) -> BuildResult:
    started = time.monotonic()
    deadline = started + timeout
    sink = OutputLog(log_path, redact, on_output, log_cap)
    kind = "none" if sandbox is None else "bubblewrap"
    process: subprocess.Popen[bytes] | None = None
    timed_out = lingered = False
    cap: str | None = None
    next_cap_check = 0.0
    head = b""  # the output's start, to tell bwrap's report of an exec failure from a build's output
    try:
        # A stop (a signal, the time limit) that comes while build.sh starts is raised only once the
        # finally below has its process group to kill: else a build could outlive the run.
        with shielded():
            try:
                process = _start(root, env, sandbox, confined.prefix)
            except OSError as exc:
                return _not_started(root, exc, sink, sandbox, kind, time.monotonic() - started, timeout)
        assert process.stdout is not None
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            linger_until: float | None = None  # set once build.sh itself has exited
            while True:
                now = time.monotonic()
                if linger_until is None and process.poll() is not None:
                    linger_until = now + linger
                if linger_until is None and now >= deadline:
                    timed_out = True
                    break
                if linger_until is not None and now >= linger_until:
                    lingered = True
                    break  # children still hold the pipe; the group is killed below
                if confined.watch.events and now >= next_cap_check:  # read at most every _CAP_CHECK s
                    next_cap_check, cap = now + _CAP_CHECK, confined.watch.reached()
                    if cap is not None:
                        break  # a fork bomb would spin until the time limit: the group is killed below
                wait = (deadline if linger_until is None else linger_until) - now
                if not selector.select(timeout=min(wait, 0.5)):
                    continue
                chunk = os.read(process.stdout.fileno(), CHUNK)
                if not chunk:
                    break
                if len(head) <= 512:
                    head += chunk[:513]
                sink.write(chunk)
    except BaseException as exc:
        stopped = f"\n--- build.sh was stopped: {exc or type(exc).__name__}; its process group was killed ---\n"
        sink.close(stopped if process is not None else "")
        raise
    finally:
        if process is not None:
            _kill_group(process)
            assert process.stdout is not None
            process.stdout.close()
            process.wait()
    exit_code = process.returncode
    duration = time.monotonic() - started
    sink.flush()
    if not timed_out:  # an OOM kill that ended build.sh itself, or a cap reached as it ended
        cap = cap or confined.watch.reached()
    result = BuildResult(
        None if timed_out or cap else exit_code,
        timed_out,
        duration,
        BuildOutput(log_path, sink.chars),
        timeout,
        lingered,
        sandbox=kind,
        cap_reached=cap,
    )
    failure = None if sandbox is None or timed_out or cap else _exec_failure(exit_code, head)
    if failure is not None:  # as a shell reports a command it cannot run: 127 or 126, and why
        code, why = _why_not_started(root, failure)
        why += " (inside the sandbox, where /tmp is empty and agent-config/ is hidden)"
        result = dataclasses.replace(result, exit_code=code, start_error=why)
    note = (
        f"--- background processes still held build.sh's output {linger:g} s after it exited; they were killed ---\n"
        if lingered
        else ""
    )
    sink.close(f"\n{note}--- {result.describe()} ---\n")
    return dataclasses.replace(result, output=sink.output)


def _not_started(
    root: Path,
    exc: OSError,
    sink: OutputLog,
    sandbox: SandboxPolicy | None,
    kind: str,
    duration: float,
    timeout: float,
) -> BuildResult:
    """A build that cannot start at all is a failed build, as in a shell, and its log says why."""
    code, why = _why_not_started(root, exc)
    if sandbox is not None:
        why = f"bubblewrap ({sandbox.bwrap}) could not be started: {exc.strerror or exc}"
    result = BuildResult(code, False, duration, sink.output, timeout, start_error=why, sandbox=kind)
    sink.write(f"code-commit could not start build.sh: {why}\n".encode())
    sink.close(f"--- {result.describe()} ---\n")
    return dataclasses.replace(result, output=sink.output)


def _kill_group(process: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
