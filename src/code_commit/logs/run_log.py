"""The run folder (agent-config/logs/<run-id>/): its numbered files, its run.log, the internal
error's traceback, and the pruning of old run folders. Everything written here passes through
the run's `Redactor` (config/redaction.py) first.
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from code_commit.config.paths import LOGS_DIR
from code_commit.config.redaction import Redactor
from code_commit.console.printable import visible_lines
from code_commit.files.owner_only import FOLDER_MODE, make_private_dir, make_private_dirs, open_private
from code_commit.logs.run_folder import CONFLICTS, JOURNAL_SUFFIX, MANIFEST, RUN_ID, RUN_LOG, TRACEBACK_FILE

if TYPE_CHECKING:
    from code_commit.errors import InternalError


def _new_run_id(now: float | None = None) -> str:
    """A timestamp id that sorts in time order: 20261122-051600-123456."""
    stamp = datetime.fromtimestamp(time.time() if now is None else now, tz=UTC)
    return stamp.strftime("%Y%m%d-%H%M%S-%f")


@dataclass
class RunLog:
    """One run's log folder. File names carry the number of the model call they belong to."""

    folder: Path
    redact: Redactor

    @classmethod
    def create(cls, config_dir: Path, redact: Redactor) -> RunLog:
        logs = config_dir / LOGS_DIR
        try:
            make_private_dirs(logs)
            if os.path.islink(logs):  # never written (or chmod'ed) through: it may point anywhere
                raise NotADirectoryError(errno.ENOTDIR, "a symlink", str(logs))
            os.chmod(logs, FOLDER_MODE)  # ours alone, even if an older version made it 0755
        except (FileExistsError, NotADirectoryError) as exc:  # the setup checks say so first; this is a race
            from code_commit.errors import SetupError

            where = Path(exc.filename or logs)
            raise SetupError(
                f"{where} is not a directory (or is a symlink): code-commit writes each run's logs in a folder "
                f"under {logs}; move it away or delete it."
            ) from exc
        run_id = _new_run_id()
        for suffix in ("", *(f"-{n}" for n in range(1, 100))):
            folder = logs / (run_id + suffix)
            try:
                make_private_dir(folder)
            except FileExistsError:
                continue
            return cls(folder, redact)
        raise FileExistsError(f"cannot create a run folder under {logs}")

    def path(self, call: int, name: str) -> Path:
        return self.folder / f"{call:02d}-{name}"

    def write(self, call: int, name: str, text: str) -> Path:
        """Write `NN-name` (redacted)."""
        target = self.path(call, name)
        _write_text(target, self.redact(text))
        return target

    def write_shown(self, call: int, name: str, text: str, raw: str | None = None) -> Path:
        """Write `NN-name` as `write` does, with every control character shown as a symbol: text from
        outside (an answer, a prompt holding the project's files and a build's output) printed by
        `cat NN-name` cannot drive the terminal (clear it, rewrite a line, set the clipboard). Where
        that changed a character and `raw` names a file, the text byte for byte goes there too (an
        answer `code-commit apply` can re-apply exactly)."""
        shown = visible_lines(text)
        if raw is not None and shown != text:
            self.write(call, raw, text)
        return self.write(call, name, shown)

    def write_file(self, name: str, text: str) -> Path:
        """Write an unnumbered file of the run (redacted)."""
        target = self.folder / name
        _write_text(target, self.redact(text))
        return target

    def event(self, message: str) -> None:
        """Append a timestamped line to run.log."""
        line = f"{datetime.now(tz=UTC).strftime('%Y-%m-%dT%H:%M:%S.%fZ')} {self.redact(message)}\n"
        fd = open_private(self.folder / RUN_LOG, os.O_WRONLY | os.O_APPEND)
        with open(fd, "a", encoding="utf-8", errors="backslashreplace") as fh:
            fh.write(line)


def internal_error(exc: BaseException, folder: Path | None, redact: Redactor) -> InternalError:
    """The last line of defence: an unexpected exception as an `InternalError` with a one-line
    message, its traceback (redacted) saved in the run folder when there is one."""
    import traceback

    from code_commit.errors import InternalError

    details = redact("".join(traceback.format_exception(exc)))
    saved = None
    if folder is not None:
        with contextlib.suppress(OSError):  # the disk may be the problem
            _write_text(folder / TRACEBACK_FILE, details)
            saved = str(folder / TRACEBACK_FILE)
    what = " ".join(redact(f"{type(exc).__name__}: {exc}").split())
    if len(what) > 400:
        what = what[:400] + "..."
    if saved:
        where = f"the traceback is in {saved}"
    elif folder is not None:
        where = "its traceback could not be saved in the run folder; run with -v to see it"
    else:
        where = "run with -v to see the traceback"
    return InternalError(
        f"internal error: {what} (a bug in code-commit, or its environment: a full disk, permissions); {where}",
        details,
        saved,
    )


def _write_text(path: Path, text: str) -> None:
    """Write a log file. A character UTF-8 cannot encode (a lone surrogate in a model's answer) is
    written as its backslash escape: the bytes stay visible, and a log write never raises for them."""
    fd = open_private(path, os.O_WRONLY | os.O_TRUNC)
    with open(fd, "w", encoding="utf-8", errors="backslashreplace", newline="") as fh:
        fh.write(text)


def _holds_journal(folder: Path) -> bool:

    return any(
        (journal / MANIFEST).exists() or (journal / CONFLICTS).exists() for journal in folder.glob(f"*{JOURNAL_SUFFIX}")
    )


def prune_runs(logs: Path, keep: int, current: Path) -> list[Path]:
    """Delete all but the `keep` newest run folders (0 keeps all), never `current`; return what was deleted.

    Only folders named like a run id are touched: anything else a user keeps in logs/ stays, and so
    does a folder whose apply journal still matters (a manifest recovery has not finished, or the
    originals of files recovery left alone because they were edited since). Run ids sort in time
    order, so the newest are the last by name (`current` is spared even if the clock went back).
    Call it under the project lock, so no other run is writing into a folder it deletes.
    """
    if keep <= 0:
        return []
    runs = sorted(
        p
        for p in logs.iterdir()
        if RUN_ID.fullmatch(p.name) and p.is_dir() and not p.is_symlink() and p != current and not _holds_journal(p)
    )
    import shutil

    doomed = runs[: max(len(runs) - (keep - 1), 0)]
    for folder in doomed:
        shutil.rmtree(folder, ignore_errors=True)
    return doomed
