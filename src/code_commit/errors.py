"""Every way code-commit ends other than its verdict, in one hierarchy, and each one's exit code.

    CodeCommitError                    an error code-commit reports to its user (an Exception)
      SetupError            exit 2     the project or the invocation is not usable; nothing was sent
        LockHeld            exit 4     another run holds the project's lock
      ServiceError          exit 3     the model service failed (llm.transport's Rejected too)
        BudgetExceeded                 the next request could take the run over --max-cost
      AnswerError                      the answer cannot be used as it is
        AnswerRefused       exit 7     (answer/plan.py, beside the Problems it lists) malformed, guarded...
          ApplyFailed                  a write failed part-way and everything was put back
        AllRejected         exit 6     the supervisor rejected every change in review
        NeedsHuman          exit 13    the model handed the task back (^^^needs-human): a person must decide
        RestoreFailed       exit 8     an apply could not be undone; its journal is kept
      BuildError                       the build cannot be believed
        BuildTampered       exit 10    it changed what the run's integrity rests on
        BuildBlocked        exit 11    the sandbox or the setup kept it from running: no answer can help
        BuildChangedTests   exit 12    it changed the tests or the runners' configuration (tests = "protect")
      InternalError         exit 9     nothing expected it: a bug, or the environment (a full disk)
    Stopped                            ended from outside (a BaseException, as KeyboardInterrupt is)
      Interrupted           exit 130   SIGINT or SIGTERM (a bare Ctrl-C outside a run, too)
      RunTimeout            exit 5     the run's time limit

`Stopped` is no `Exception` on purpose: the model SDK turns any `Exception` raised inside a
request into a connection error, which would report a stop as a service failure (exit 3), and no
`except Exception` of code-commit's own may swallow one either. Only a session and the command's
last line of defence catch it. An ending is one or the other (`Ending`).

A refused answer is not a failure of a run: it uses up one attempt and its problems become the
next repair prompt's feedback; only `code-commit apply` ends with it (exit 7).

Exceptions that never leave their module (a match failure, an unanswered git call, a
transient service fault) are declared where they are raised and handled. exits.py says what each
code means; `EXIT_CODES` below is the only place a class meets its code.
"""

from __future__ import annotations

import os
import re
from typing import Protocol

from code_commit.exits import EXIT


class _BlockedBy(Protocol):
    """What kept a build from running (builds/diagnosis/: Diagnosis): its one line."""

    def line(self) -> str: ...


class CodeCommitError(Exception):
    """Base of every error code-commit reports to its user."""


class SetupError(CodeCommitError):
    """The project or the invocation is not usable; nothing was sent to the model."""


class LockHeld(SetupError):
    """Another code-commit run holds the project's lock."""


class ServiceError(CodeCommitError):
    """The model service failed: authentication, network, overload after retries, prompt too long."""


class BudgetExceeded(ServiceError):
    """The next request could take the run's estimated cost over --max-cost; the run stops before it."""


class AnswerError(CodeCommitError):
    """The answer cannot be used as it is (AnswerRefused, in answer/plan.py, lists why)."""


class AllRejected(AnswerError):
    """Every change of an answer was rejected in review."""


class NeedsHuman(AnswerError):
    """The answer hands the task back with a `^^^needs-human` block: the tests contradict the query, or
    the failure lies outside the code. A person must decide, so nothing of that answer is applied (its
    file blocks neither) and the run stops before another call. `reason` is the model's text: untrusted,
    censored and capped by the parser (answer/caret_blocks.py); the message gives it on one line."""

    def __init__(self, reason: str) -> None:
        super().__init__(
            "a person must decide: the answer hands the task back (a ^^^needs-human block) instead of changing "
            "the code, so nothing of it was applied and the model is not asked again. Its reason: "
            + " ".join(reason.split())
        )
        self.reason = reason


class RestoreFailed(AnswerError):
    """An interrupted or failed apply could not be undone; its journal is kept for `code-commit recover`."""


class _BuildError(CodeCommitError):
    """The build's verdict cannot be believed."""


class BuildTampered(_BuildError):
    """The build changed what the run's integrity rests on (build.sh, an ignore file, git's hooks or
    config, agent-config/): the run stops at once, sends nothing more to the model, never passes.

    The message lists every changed path itself and advises no command that would run what the
    build planted: `git status` runs core.fsmonitor and a filter's clean command from a config the
    build may have changed, and a `git` planted on PATH would stand in for git. So it names git by
    its full path in a system folder, with fsmonitor off (status runs no hook), and, where a git
    config is among the changed paths, says to restore that first."""

    def __init__(self, paths: list[str]) -> None:
        git = next((path for path in _SYSTEM_GITS if os.access(path, os.X_OK)), _SYSTEM_GITS[0])
        configs = [path for path in paths if _GIT_CONFIG.search(path)]
        first = (
            f" One of them is git's config ({', '.join(configs)}): read it and put it back with an editor before "
            "you run git there at all, as it can name a program git runs."
            if configs
            else ""
        )
        super().__init__(
            "the build changed files it must never change, so the run stopped: nothing more was sent to "
            "the model and this build does not count. Changed: "
            + ", ".join(paths)
            + ". Look at each of them (with a viewer: less, an editor) and restore them before running again; "
            "run nothing there before, not build.sh, not a plain `git status`, which runs what a changed git "
            "config names (core.fsmonitor, a filter) and whatever `git` comes first on PATH."
            + first
            + f" To see the rest of the tree: {git} -c core.fsmonitor=false status (git by its full path; "
            'agent-config/ is not in git). With sandbox = "require" no build can change them.'
        )
        self.paths = list(paths)


# Where the system's git is: folders no build writes (PATH's first `git` may be one a build planted).
_SYSTEM_GITS = ("/usr/bin/git", "/bin/git", "/usr/local/bin/git", "/opt/homebrew/bin/git")
# A changed path that is git's configuration (the repository's, a worktree's, the user's or an included one).
_GIT_CONFIG = re.compile(r"(?:^|/)(?:[^/]*gitconfig|config(?:\.worktree)?|\.gitmodules)(?: \(|$)")


class BuildBlocked(_BuildError):
    """The sandbox or the setup kept the build from running (a tool it hides, a read-only cache, no
    network, a missing virtualenv): no answer can change that, so the run stops before its next
    paid call. The message is the diagnosis's one line: the cause, the command or path, the fix."""

    def __init__(self, diagnosis: _BlockedBy) -> None:
        super().__init__(diagnosis.line())
        self.diagnosis = diagnosis


class BuildChangedTests(_BuildError):
    """The build changed the tests or the runners' configuration, under `tests = "protect"`: the
    model's code (or build.sh) did it while it ran, so its verdict is no pass, and the run stops
    before its next paid call. `findings`: what was done, one line each (testguard's TestChange)."""

    NAMED = 10  # findings the message names; run.log and the record have them all

    def __init__(self, findings: list[str], reverted: bool = False) -> None:
        """`reverted`: the command puts back what its builds changed (a run's --revert-on-failure)."""
        named = findings[: self.NAMED]
        if len(findings) > self.NAMED:
            named.append(f"and {len(findings) - self.NAMED} more (run.log and the record list them all)")
        undo = (
            "the run puts back the files its builds changed (--revert-on-failure); check the rest (git status, "
            "git diff)"
            if reverted
            else "check those files (git status, git diff) and put them back (git checkout -- <file>; a run "
            "with --revert-on-failure does it itself)"
        )
        super().__init__(
            "the build changed the tests (tests = protect), so it does not count as a pass, and a run stops "
            "there, before another call to the model: "
            + "; ".join(named)
            + f". The model's code, or build.sh, did it while the build ran: {undo} before running again. A "
            "build.sh that rewrites tests on purpose (a snapshot update, a formatter that writes) runs with "
            "--tests report."
        )
        self.findings = list(findings)


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


class Stopped(BaseException):
    """The run was ended from outside, wherever the main thread was (run/signals.py raises it)."""


class Interrupted(Stopped):
    """SIGINT or SIGTERM stopped the run (or the review's terminal went away)."""


class RunTimeout(Stopped):
    """The whole run's time limit was reached."""


Ending = CodeCommitError | Stopped  # what can end a command before its verdict

# Each class's exit code (a subclass not listed has its nearest base's); exits.TABLE says what each means.
EXIT_CODES: dict[type[BaseException], int] = {
    SetupError: EXIT.SETUP,
    LockHeld: EXIT.LOCK_HELD,
    ServiceError: EXIT.SERVICE,
    AnswerError: EXIT.REFUSED,
    AllRejected: EXIT.REJECTED,
    NeedsHuman: EXIT.NEEDS_HUMAN,
    RestoreFailed: EXIT.RESTORE_FAILED,
    BuildTampered: EXIT.TAMPERED,
    BuildBlocked: EXIT.BUILD_BLOCKED,
    BuildChangedTests: EXIT.BUILD_CHANGED_TESTS,
    InternalError: EXIT.INTERNAL,
    Interrupted: EXIT.INTERRUPTED,
    RunTimeout: EXIT.TIMEOUT,
}


def exit_code_for(error: Ending) -> int:
    for cls in type(error).__mro__:
        if cls in EXIT_CODES:
            return EXIT_CODES[cls]
    return EXIT.INTERNAL  # a new family without a code: never "build fails", never a setup error
