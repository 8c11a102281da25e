"""The run folder (agent-config/logs/<run-id>/), its numbered files, and secret redaction.

Everything written here, and everything shown on the console, passes through a `Redactor`
first, so a key never reaches disk or a terminal except censored to its last two characters.
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from code_commit.files.private import FOLDER_MODE, make_private_dir, make_private_dirs, open_private
from code_commit.logs.folder import CONFLICTS, JOURNAL_SUFFIX, LOGS_DIR, MANIFEST, RUN_ID, TRACEBACK_FILE

if TYPE_CHECKING:
    import logging

    from code_commit.errors import InternalError


def censor(secret: str) -> str:
    """The only form in which a secret may appear: a fixed mask and its last two characters."""
    return "********" + secret[-2:]


@dataclass(frozen=True)
class Redactor:
    secrets: tuple[str, ...] = ()

    @classmethod
    def of(cls, secrets: Iterable[str]) -> Redactor:
        # Each secret also in the forms code-commit itself escapes text into: a JSON record (`"`, `\`,
        # and non-ASCII in `apply --json`), a message that quotes with repr(), and its UTF-8 bytes read
        # as Latin-1 (how diffs.redact_bytes censors a patch); each decodes back to the secret. Longest
        # first, so one that contains another is masked whole.
        forms = {form for s in secrets if s for form in _escaped_forms(s)}
        return cls(tuple(sorted(forms, key=len, reverse=True)))

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, censor(secret))
        return text


def _escaped_forms(secret: str) -> set[str]:
    import json

    utf8_as_latin1 = secret.encode("utf-8", "surrogatepass").decode("latin-1")  # how a patch's bytes are censored
    return {
        secret,
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        repr(secret)[1:-1],
        utf8_as_latin1,
    }


def _censor_record(record: logging.LogRecord, redact: Redactor) -> None:
    record.msg = redact(record.getMessage())
    record.args = None
    if record.exc_info and not record.exc_text:
        import logging

        # Formatted now, so a handler prints the censored text rather than formatting it afresh.
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.exc_text:
        record.exc_text = redact(record.exc_text)
    if record.stack_info:
        record.stack_info = redact(record.stack_info)


@contextlib.contextmanager
def redacted_logging(redact: Redactor) -> Iterator[None]:
    """Censor every log record as it is made, whatever logger makes it and whatever handler prints
    it: the SDK's own debug logging (ANTHROPIC_LOG=debug) adds its handler when the SDK is first
    imported, which is after this is in place, and a handler's filters would miss it."""
    import logging  # not at start-up: only a run logs

    previous = logging.getLogRecordFactory()

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        _censor_record(record, redact)
        return record

    logging.setLogRecordFactory(factory)
    try:
        yield
    finally:
        logging.setLogRecordFactory(previous)


def new_run_id(now: float | None = None) -> str:
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
        run_id = new_run_id()
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

    def write_file(self, name: str, text: str) -> Path:
        """Write an unnumbered file of the run (redacted)."""
        target = self.folder / name
        _write_text(target, self.redact(text))
        return target

    def event(self, message: str) -> None:
        """Append a timestamped line to run.log."""
        line = f"{datetime.now(tz=UTC).strftime('%Y-%m-%dT%H:%M:%S.%fZ')} {self.redact(message)}\n"
        fd = open_private(self.folder / "run.log", os.O_WRONLY | os.O_APPEND)
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
