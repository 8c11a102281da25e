"""One exception type per failure class, and the single table mapping each to an exit code.

The run loop raises these; only `cli` turns them into exit codes, through `exit_code_for`.
"""

from __future__ import annotations


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


EXIT_OK = 0
EXIT_BUILD_FAILS = 1
EXIT_REFUSED = 7  # `code-commit apply` only: in a run, a refused answer uses up an attempt instead
EXIT_INTERNAL = 9

EXIT_CODES: dict[type[CodeCommitError], int] = {
    SetupError: 2,
    ServiceError: 3,
    BudgetExceeded: 3,
    LockHeld: 4,
    RunTimeout: 5,
    AllRejected: 6,
    RestoreFailed: 8,
    InternalError: EXIT_INTERNAL,
    BuildTampered: 10,
    Interrupted: 130,
}

EXIT_CODE_HELP = """\
Exit codes:
  0    the build passes
  1    the build still fails after the repairs, or every answer was refused (no build ran)
  2    usage or setup error; nothing was sent to the model
  3    model service error (authentication, network or overload after retries, prompt too long),
       or the next call could go over --max-cost
  4    another run holds the project's lock
  5    the run's time limit was reached
  6    every change was rejected in review
  7    code-commit apply: the answer was refused; nothing was applied
  8    an apply could not be undone; run code-commit recover once the cause is fixed
  9    internal error: a bug, or the environment (disk full, permissions); the message says
       which exception, and the run folder keeps the traceback
  10   the build changed build.sh, an ignore file, git's hooks or config, or agent-config/:
       the run stopped at once; the message names each changed path
  130  interrupted"""


def exit_code_for(error: CodeCommitError) -> int:
    for cls in type(error).__mro__:
        if cls in EXIT_CODES:
            return EXIT_CODES[cls]
    return EXIT_CODES[SetupError]


def error_of(exc: CodeCommitError | KeyboardInterrupt) -> CodeCommitError:
    """The error a run reports for what ended it. A stops.Stopped (a KeyboardInterrupt) carries its
    own: interrupted, or the time limit; a bare Ctrl-C is an interruption."""
    if isinstance(exc, CodeCommitError):
        return exc
    return getattr(exc, "error", None) or Interrupted("interrupted")
