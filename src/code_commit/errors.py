"""One exception type per failure class, and each one's exit code (exits.py says what each code means).

The run loop raises these; only `cli` turns them into exit codes, through `exit_code_for`.
"""

from __future__ import annotations

from code_commit.exits import EXIT


class CodeCommitError(Exception):
    """Base of every error code-commit reports to its user."""


class SetupError(CodeCommitError):
    """The project or the invocation is not usable; nothing was sent to the model."""


class ServiceError(CodeCommitError):
    """The model service failed: authentication, network, overload after retries, prompt too long."""


class BudgetExceeded(ServiceError):
    """The next request could take the run's estimated cost over --max-cost; the run stops before it."""


class LockHeld(CodeCommitError):
    """Another code-commit run holds the project's lock."""


class RunTimeout(CodeCommitError):
    """The whole run's time limit was reached."""


class AllRejected(CodeCommitError):
    """Every change of an answer was rejected in review."""


class RestoreFailed(CodeCommitError):
    """An interrupted or failed apply could not be undone; its journal is kept for `code-commit recover`."""


class BuildTampered(CodeCommitError):
    """The build changed what the run's integrity rests on (build.sh, an ignore file, git's hooks or
    config, agent-config/): the run stops at once, sends nothing more to the model, never passes."""

    def __init__(self, paths: list[str]) -> None:
        super().__init__(
            "the build changed files it must never change, so the run stopped: nothing more was sent to "
            "the model and this build does not count. Changed: "
            + ", ".join(paths)
            + ". Check them (git status, git diff; agent-config/ is not in git) and restore them before "
            'running again; with sandbox = "require" no build can change them.'
        )
        self.paths = list(paths)


class Interrupted(CodeCommitError):
    """SIGINT or SIGTERM stopped the run."""


class InternalError(CodeCommitError):
    """An exception nothing else expected: a bug in code-commit, or its environment (a full disk,
    permissions). The last line of defence turns it into this, so that the run still ends with its
    own exit code, a one-line message and its record, never a traceback and exit 1 ("the build
    still fails"). `details` is the (redacted) traceback; `traceback_file` where it was saved, if it was.
    """

    def __init__(self, message: str, details: str = "", traceback_file: str | None = None) -> None:
        super().__init__(message)
        self.details = details
        self.traceback_file = traceback_file


class AnswerRefused(Exception):
    """The model's answer is malformed or asks for something the guard forbids.

    Not a run failure: the refusal uses up one attempt and its reasons go to the next repair prompt.
    """

    def __init__(self, *reasons: str) -> None:
        super().__init__("; ".join(reasons))
        self.reasons = list(reasons)


# Each failure class's exit code; exits.TABLE says what each code means.
EXIT_CODES: dict[type[CodeCommitError], int] = {
    SetupError: EXIT.SETUP,
    ServiceError: EXIT.SERVICE,
    BudgetExceeded: EXIT.SERVICE,
    LockHeld: EXIT.LOCK_HELD,
    RunTimeout: EXIT.TIMEOUT,
    AllRejected: EXIT.REJECTED,
    RestoreFailed: EXIT.RESTORE_FAILED,
    InternalError: EXIT.INTERNAL,
    BuildTampered: EXIT.TAMPERED,
    Interrupted: EXIT.INTERRUPTED,
}


def exit_code_for(error: CodeCommitError) -> int:
    for cls in type(error).__mro__:
        if cls in EXIT_CODES:
            return EXIT_CODES[cls]
    return EXIT.SETUP


def error_of(exc: CodeCommitError | KeyboardInterrupt) -> CodeCommitError:
    """The error a run reports for what ended it. A stops.Stopped (a KeyboardInterrupt) carries its
    own: interrupted, or the time limit; a bare Ctrl-C is an interruption."""
    if isinstance(exc, CodeCommitError):
        return exc
    return getattr(exc, "error", None) or Interrupted("interrupted")
