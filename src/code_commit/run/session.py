"""The session of every command that changes the tree (run/orchestrator.py opens it): the process
made non-dumpable, SIGINT/SIGTERM and the time limit watched, the project's lock taken, a run
folder made, a half-done apply of a killed run recovered, old run folders pruned, and the record
written on every ending.

Whatever ends the session is recorded: a `CodeCommitError` or a stop becomes `Session.error`, and
any other exception (a bug, a full disk, a record that cannot be written) an `InternalError` (exit
9) with its traceback in the run folder, never exit 1, which reads as "the build still fails". The
record is written with it, and then that error is raised for the command's last line of defence
(`cli._guarded`) to say; an error before the folder exists (the lock, say) is the command's alone.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from code_commit import stops
from code_commit.apply.journal import recover
from code_commit.config.paths import CONFIG_DIR, LOGS_DIR
from code_commit.config.redaction import Redactor, redacted_logging
from code_commit.config.settings import Settings
from code_commit.console.output import Console
from code_commit.errors import CodeCommitError, Ending, Stopped
from code_commit.logs.run_log import RunLog, internal_error, prune_runs
from code_commit.run import signals
from code_commit.run.hardening import not_dumpable
from code_commit.run.lock import ProjectLock
from code_commit.run.signals import TimeLimit


@dataclass
class Session:
    log: RunLog
    error: Ending | None = None  # what ended the session early, if anything did


@contextmanager
def session(
    root: Path,
    settings: Settings,
    console: Console,
    redact: Redactor,
    limit: TimeLimit,
    *,
    begin: Callable[[RunLog], None],
    end: Callable[[Session], None],
    live: bool = False,
) -> Iterator[Session]:
    """`limit`: the run's time limit (`signals.TimeLimit`). `begin(log)` runs
    once the folder exists, before the recovery (the run's first log lines); `end(session)` writes the
    record, shielded from stops, on every ending once the folder exists, `session.error` set. An error
    before the folder exists (the lock, say) is raised as it is: there is no folder to record it in."""
    config_dir = root / CONFIG_DIR
    with (
        not_dumpable(),  # the key in this process's environment and memory, out of same-user reach
        signals.watch(limit),  # SIGINT/SIGTERM and the time limit end the session through `Stopped`
        console.live(enabled=live),
        ProjectLock.take(config_dir, settings.wait_lock, console.info),
        redacted_logging(redact),
    ):
        log = RunLog.create(config_dir, redact)
        current = Session(log)
        try:
            begin(log)
            for line in recover(root, settings.protected_patterns).lines():  # an apply a killed run left half done
                log.event(f"recovery: {line}")
                console.warn(f"recovery: {line}")
            for old in prune_runs(config_dir / LOGS_DIR, settings.keep_runs, log.folder):
                log.event(f"deleted the old run folder {old.name} (keep_runs = {settings.keep_runs})")
            yield current
        except (CodeCommitError, Stopped) as exc:
            current.error = exc
            raise
        except Exception as exc:  # the last line of defence: a bug, or the disk, never "build fails"
            current.error = internal_error(exc, log.folder, redact)
            raise current.error from exc
        finally:
            with stops.shielded(final=True):
                try:
                    end(current)
                except Exception as exc:  # the record is lost (a full disk): not a clean ending
                    if current.error is None:  # else the first error, which explains the session, stands
                        current.error = internal_error(exc, log.folder, redact)
                        raise current.error from exc
