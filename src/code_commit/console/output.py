"""What the user sees while a run goes on, on stderr, every line redacted and made visible.

Much of what the console shows comes from outside: the model's explanation (-v), paths named by
an answer, refusal reasons quoting them, build.sh's output (-v). Every line is passed through
`printable.visible`, so none of it can drive the terminal: escape sequences (colours included),
CR and bidi characters show as symbols (␛, ␍, <U+202E>).

stdout is left for results (`--json`, `--dry-run`'s diff, `config`), so scripts can read it cleanly.

Two forms, chosen once per process by `Console.for_terminal`:
- plain: timestamped lines. For pipes, files, cron mail, CI logs (the CI variable is set) and
  TERM=dumb.
- live: on a terminal, the same lines scroll above a status line that shows the step, the
  attempt, the elapsed time and the tokens and cost so far. It uses rich (typer's dependency),
  imported only when the view starts, after the setup checks: `--help` and setup errors never
  pay for it.

NO_COLOR (https://no-color.org) turns colour off; -q keeps only warnings and errors (and no
live view); -v adds details: each answer's explanation and build.sh's output as it runs.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from code_commit.config.redaction import Redactor
from code_commit.console.printable import visible


@dataclass
class Progress:
    """What the status line shows."""

    step: str = "starting"
    attempt: int = 0
    attempts: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float | None = None
    received: int = 0  # characters of the current answer received so far
    started: float = field(default_factory=time.monotonic)

    def status(self, now: float | None = None) -> str:
        elapsed = int((time.monotonic() if now is None else now) - self.started)
        parts = [self.step + (f" ({self.received:,} characters received)" if self.received else "")]
        if self.attempt:
            parts.append(f"attempt {self.attempt} of {self.attempts}")
        parts.append(f"{elapsed // 60:02d}:{elapsed % 60:02d}")
        parts.append(f"{self.tokens_in:,} in / {self.tokens_out:,} out tokens")
        parts.append("cost n/a" if self.cost_usd is None else f"${self.cost_usd:.2f}")
        return " · ".join(parts)


PARTIAL_LINE = 4096  # characters of an unfinished build output line held back, at most


def _lines(text: str) -> list[str]:
    """The lines of a block; CRLF counts as a line end, and any other CR stays in its line (shown as ␍)."""
    lines = text.split("\n")
    if len(lines) > 1 and not lines[-1]:
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def to_stdout(text: str | bytes) -> None:
    """Write a result to stdout: bytes as they are (a patch), text in stdout's encoding, where a
    character it cannot encode (a lone surrogate from a model's answer, say) is written as a
    backslash escape rather than ending the run with a traceback. A reader that went away
    (`| head`) loses the rest, but the exit code still says how the run ended (click would make
    it 1, "the build still fails")."""
    try:
        if isinstance(text, bytes):
            sys.stdout.flush()
            sys.stdout.buffer.write(text)
        else:
            encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
            sys.stdout.write(text.encode(encoding, "backslashreplace").decode(encoding, "replace"))
        sys.stdout.flush()
    except BrokenPipeError:
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - Python flushes stdout again at exit


def is_ci(env: Mapping[str, str]) -> bool:
    """CI services set CI (GitHub Actions, GitLab, CircleCI, Travis...); "false" or "0" means no."""
    return env.get("CI", "").strip().lower() not in ("", "0", "false", "no")


@dataclass
class Console:
    redact: Redactor = field(default_factory=Redactor)
    stream: TextIO = field(default_factory=lambda: sys.stderr)
    quiet: bool = False
    verbose: bool = False
    live_view: bool = False  # show the live status line while `live()` is active
    color: bool = False
    progress: Progress = field(default_factory=Progress)
    _rich: Any = None  # the rich console while the live view runs
    _partial: str = ""  # build output after its last newline, not shown yet

    @classmethod
    def for_terminal(
        cls,
        quiet: bool = False,
        verbose: bool = False,
        stream: TextIO | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Console:
        stream = sys.stderr if stream is None else stream
        env = os.environ if env is None else env
        try:
            tty = stream.isatty()
        except (AttributeError, ValueError):
            tty = False
        fancy = tty and not is_ci(env) and env.get("TERM", "") != "dumb"
        return cls(
            stream=stream,
            quiet=quiet,
            verbose=verbose,
            live_view=fancy and not quiet,
            color=fancy and not env.get("NO_COLOR"),
        )

    # Lines.

    def info(self, text: str) -> None:
        if not self.quiet:
            self._emit(text)

    def detail(self, text: str) -> None:
        """A block shown with -v (an answer's explanation): indented, under the last line."""
        if self.verbose and text:
            self._flush_partial()
            for line in _lines(self.redact(text)):
                self._line(f"  {line}", "dim")

    def excerpt(self, lines: Sequence[str]) -> None:
        """Lines quoted under the last one (a failed build's first errors): indented, as the build
        printed them, one line each; not when quiet."""
        if self.quiet or not lines:
            return
        self._flush_partial()
        for line in lines:
            for part in _lines(self.redact(line))[:1]:
                self._line(f"  | {part}", "dim")

    def warn(self, text: str) -> None:
        self._emit(f"warning: {text}", style="yellow")

    def error(self, text: str) -> None:
        self._emit(f"error: {text}", style="bold red")

    def show(self, text: str) -> None:
        """A block the user asked to see (--diff), verbatim: no timestamps, shown even when quiet.
        It may carry its own colours (ANSI), so the caller makes everything else in it visible
        (`review.display` does); under the live view it scrolls above the status line."""
        self._flush_partial()
        if self._rich is not None:
            from rich.text import Text

            self._rich.print(Text.from_ansi(self.redact(text)), end="", soft_wrap=True)
        else:
            self.stream.write(self.redact(text))
            self.stream.flush()

    def build_output(self, chunk: str) -> None:
        """build.sh's output as it comes (already redacted), shown line by line with -v."""
        if not self.verbose:
            return
        *lines, self._partial = (self._partial + chunk).split("\n")
        for line in lines:
            line = line.removesuffix("\r")  # CRLF ends a line; a lone CR shows as ␍
            self._line(f"  | {line}", style="dim")
        # A line that never ends (a gigabyte with no newline) is shown in pieces: memory stays flat,
        # and each chunk costs its own size, not the size of the line so far.
        while len(self._partial) > PARTIAL_LINE:
            piece, self._partial = self._partial[:PARTIAL_LINE], self._partial[PARTIAL_LINE:]
            self._line(f"  | {piece}", style="dim")

    def _flush_partial(self) -> None:
        if self._partial:  # a build output line without its newline yet: show it before moving on
            partial, self._partial = self._partial, ""
            self._line(f"  | {partial}", style="dim")

    def _emit(self, text: str, style: str = "") -> None:
        self._flush_partial()
        stamp = time.strftime("%H:%M:%S")
        for line in _lines(self.redact(text)):
            self._line(f"{stamp} {line}", style)

    def _line(self, line: str, style: str = "") -> None:
        line = visible(line)
        if self._rich is not None:
            from rich.text import Text

            self._rich.print(Text(line, style=style if self.color else ""), soft_wrap=True)
        else:
            self.stream.write(line + "\n")
            self.stream.flush()

    # Progress.

    def step(self, text: str, status: str | None = None) -> None:
        """A new step of the run: a line, and the status line's (shorter) text."""
        self.progress.step = status or text
        self.progress.received = 0
        self.info(text)

    def attempt(self, number: int, of: int) -> None:
        self.progress.attempt, self.progress.attempts = number, of

    def receiving(self, text: str) -> None:
        """A piece of the model's answer has arrived (the provider's streaming callback)."""
        self.progress.received += len(text)

    def spent(self, tokens_in: int, tokens_out: int, cost_usd: float | None) -> None:
        """The run's token and cost totals so far, for the status line (each call also gets a line)."""
        self.progress.tokens_in = tokens_in
        self.progress.tokens_out = tokens_out
        self.progress.cost_usd = cost_usd
        self.progress.received = 0

    @contextlib.contextmanager
    def live(self, enabled: bool = True) -> Iterator[None]:
        """Show the live status line for the duration of the block (on a terminal only)."""
        if not (enabled and self.live_view) or self._rich is not None:
            yield
            return
        from rich.console import Console as RichConsole
        from rich.live import Live
        from rich.spinner import Spinner
        from rich.text import Text

        progress = self.progress
        spinner = Spinner("dots", style="cyan" if self.color else "")

        class StatusLine:
            def __rich__(self) -> Spinner:
                # One line, cut to the terminal's width: a wrapped status line would leave debris.
                status = visible(self_console.redact(progress.status()))
                spinner.update(text=Text(status, no_wrap=True, overflow="ellipsis"))
                return spinner

        self_console = self
        rich = RichConsole(file=self.stream, force_terminal=True, no_color=not self.color, highlight=False)
        # transient: the status line goes away at the end; the lines above it stay.
        with Live(
            StatusLine(),
            console=rich,
            refresh_per_second=8,
            transient=True,
            redirect_stdout=False,
            redirect_stderr=False,
        ):
            self._rich = rich
            try:
                yield
            finally:
                self._rich = None
