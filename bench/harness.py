"""Measuring commands side by side: best of several alternating runs, with each run's peak RSS.

Each command runs under a small launcher that forks it, times it and reads its peak RSS from
wait4(). The launcher is there because Linux carries a process's peak RSS across exec: a command
forked straight from the benchmark would report the benchmark's own peak (grown by generating
10,000-file answers) as its floor. The launcher's start-up is not in the time.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
GIT_ENV = {
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}


def bench_env(**extra: str) -> dict[str, str]:
    """The environment for measured commands: no keys, git isolated, this venv's bin first on PATH."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "CODE_COMMIT_"))}
    env.update(GIT_ENV)
    env["PATH"] = f"{BIN}{os.pathsep}{env.get('PATH', '')}"
    env.update(extra)
    return env


def commit_fixture(root: Path, message: str = "bench") -> None:
    """Make `root` a repository with everything in it committed, and automatic gc off.

    Committing thousands of files otherwise starts `git gc --auto` in the background, which is
    still writing into .git when the scenario removes its temporary directory: the removal fails.
    """
    env = bench_env()
    for argv in (
        ["git", "init", "-q"],
        ["git", "config", "gc.auto", "0"],
        ["git", "add", "-A"],
        ["git", "commit", "-qm", message],
    ):
        subprocess.run(argv, cwd=root, env=env, check=True)


@dataclass(frozen=True)
class Measure:
    seconds: float
    peak_rss: int  # bytes


@dataclass(frozen=True)
class Command:
    argv: Sequence[str]
    cwd: Path
    env: Mapping[str, str] = field(default_factory=bench_env)
    stdin: Path | None = None
    expect: int | None = 0  # exit code; None accepts any
    reset: Callable[[], None] | None = None  # untimed, before every run
    check: Callable[[], None] | None = None  # untimed, after its first run: it did what it claims (checks.py)

    def run(self) -> Measure:
        if self.reset:
            self.reset()
        with tempfile.NamedTemporaryFile("r", prefix="bench-measure-") as result:
            stdin = open(self.stdin, "rb") if self.stdin else subprocess.DEVNULL  # noqa: SIM115
            try:
                done = subprocess.run(
                    [sys.executable, "-c", LAUNCHER, result.name, *self.argv],
                    cwd=self.cwd,
                    env=dict(self.env),
                    stdin=stdin,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                )
            finally:
                if self.stdin:
                    stdin.close()  # type: ignore[union-attr]
            seconds, peak = result.read().split()
        if self.expect is not None and done.returncode != self.expect:
            raise RuntimeError(f"{' '.join(self.argv)} exited {done.returncode}: {done.stderr.decode()[-2000:]}")
        return Measure(float(seconds), int(peak) * 1024)


# Forks the command, waits for it, writes "<wall seconds> <peak RSS in KiB>" to argv[1], exits as it did.
LAUNCHER = """
import os, sys, time
out, argv = sys.argv[1], sys.argv[2:]
started = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.execvp(argv[0], argv)
    finally:
        os._exit(127)
_, status, usage = os.wait4(pid, 0)
elapsed = time.perf_counter() - started
with open(out, "w") as fh:
    fh.write(f"{elapsed} {usage.ru_maxrss}")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def side_by_side(repeat: int, commands: Mapping[str, Command]) -> dict[str, Measure]:
    """Warm every command once (and check what that run did), then run them in turn `repeat` times;
    keep each one's best time. With `repeat` 0 the warm-up runs are the measure (a scenario's smallest
    run, which only shows that it measures something)."""
    warm = {}
    for name, command in commands.items():
        warm[name] = command.run()
        if command.check:
            command.check()
    if repeat == 0:
        return warm
    best: dict[str, Measure] = {}
    for _ in range(repeat):
        for name, command in commands.items():  # alternating: machine noise hits all alike
            measure = command.run()
            if name not in best or measure.seconds < best[name].seconds:
                best[name] = Measure(measure.seconds, max(measure.peak_rss, best.get(name, measure).peak_rss))
    return best


@dataclass(frozen=True)
class Row:
    scenario: str
    size: str
    ours: float | None
    reference: float | None
    peak_rss: int | None = None
    note: str = ""
    target: str = ""
    unit: str = "s"  # of `ours` and `reference`: seconds, or "tok" for token counts

    @classmethod
    def compared(
        cls, scenario: str, size: str, best: Mapping[str, Measure], *, note: str = "", target: str = ""
    ) -> Row:
        """The row of a `side_by_side` of "ours" against "reference": their best times, our peak RSS."""
        ours, reference = best["ours"], best["reference"]
        return cls(scenario, size, ours.seconds, reference.seconds, ours.peak_rss, note=note, target=target)

    @property
    def ratio(self) -> float | None:
        if self.ours is None or not self.reference:
            return None
        return self.ours / self.reference


def _amount(value: float | None, unit: str) -> str:
    if value is None:
        return ""
    return f"{value:.3f}s" if unit == "s" else f"{value:,.0f} {unit}"


HEADER = ("scenario", "size", "ours", "reference", "ratio", "peak RSS", "target", "note")


def format_header() -> str:
    """The table's header, printed before any row: each row is printed as it completes."""
    return _line(HEADER) + "\n|" + "|".join("---" for _ in HEADER) + "|"


def format_row(row: Row) -> str:
    return _line(
        (
            row.scenario,
            row.size,
            _amount(row.ours, row.unit),
            _amount(row.reference, row.unit),
            "" if row.ratio is None else f"{row.ratio:.2f}x",
            "" if row.peak_rss is None else f"{row.peak_rss / 2**20:.0f} MiB",
            row.target,
            row.note,
        )
    )


def error_row(scenario: str, error: BaseException) -> Row:
    """The row of a scenario that failed: its error, on one line (the traceback goes to stderr)."""
    message = " ".join(f"{type(error).__name__}: {error}".split())
    return Row(f"{scenario}: FAILED", "", None, None, note=message[:500])


def _line(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |"
