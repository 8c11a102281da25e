"""The one table of exit codes: each code's constant, its name in the JSON record, what it means,
and which commands return it. Everything else derives from it: the constants every command
returns (`EXIT.BUILD_FAILS`), `errors.EXIT_CODES` (an exception class's code), the record's
`outcome` names, both `--help` texts, and the docs' tables (tests/cli/test_exit_codes.py renders them
from here and compares them with the pages).

A pure leaf: no imports from the package, nothing heavy (cli imports it at start-up).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

# The commands, as `commands` names them: "run" is `code-commit` itself, with no subcommand.
COMMANDS = ("run", "apply", "check", "recover", "rollup", "init", "demo", "config")
_EVERY_COMMAND = frozenset(COMMANDS)


@dataclass(frozen=True)
class _ExitCode:
    code: int
    constant: str  # its name in EXIT
    outcome: str  # the JSON record's `outcome` for it
    meaning: str  # Markdown; --help shows it without the backticks
    commands: frozenset[str]  # the commands that can end with it
    detail: str = ""  # more for the docs page only: whole sentences
    apply: str = ""  # what it means for `code-commit apply`, where that differs from `meaning`
    dry_run_outcome: str = ""  # the record's `outcome` for it with --dry-run, where that differs
    check: str = ""  # what it means for `code-commit check`, where that differs from `meaning`

    def meaning_for(self, command: str) -> str:
        own = {"apply": self.apply, "check": self.check}.get(command, "")
        return own or self.meaning


_RUN_LIKE = frozenset({"run", "demo"})  # demo runs the real loop, against a scripted model
_BUILDING = _RUN_LIKE | {"apply", "check"}  # the commands that can run build.sh

TABLE: tuple[_ExitCode, ...] = (
    _ExitCode(
        0,
        "OK",
        "passed",
        "the build passes",
        _EVERY_COMMAND,
        apply="applied (and with `--build`, the build passes); with `--check`: the answer is valid",
        dry_run_outcome="acceptable",
        check="the build passes, run as a run runs it",
    ),
    _ExitCode(
        1,
        "BUILD_FAILS",
        "build_failed",
        "the build still fails after the repairs, or no answer could be applied",
        _BUILDING,
        detail="When every answer was refused, so no build ran, the record's outcome is `refused`",
        apply="with `--build`: applied, but the build fails",
        dry_run_outcome="refused",
        check="the build fails on its own terms (a failing test, a compile error): a run would ask for repairs",
    ),
    _ExitCode(
        2,
        "SETUP",
        "setup_error",
        "usage or setup error; nothing was sent to the model",
        _EVERY_COMMAND,
        apply="usage or setup error: unreadable answer, bad flags, `.gitignore` without `/agent-config`, "
        "no `build.sh` with `--build`",
    ),
    _ExitCode(
        3,
        "SERVICE",
        "service_error",
        "model service error (authentication, network or overload after retries, prompt too long), "
        "or `--max-cost` reached",
        frozenset({"run"}),
    ),
    _ExitCode(
        4,
        "LOCK_HELD",
        "lock_held",
        "another run holds the project's lock",
        _BUILDING | {"recover"},
        apply="another run holds the project's lock (`--check` takes none)",
    ),
    _ExitCode(
        5,
        "TIMEOUT",
        "timeout",
        "the run's time limit was reached",
        frozenset({"run", "apply", "check"}),
        apply="the `--timeout` was reached",
        check="the `--timeout` was reached",
    ),
    _ExitCode(6, "REJECTED", "rejected", "every change was rejected in review", frozenset({"run"})),
    _ExitCode(
        7,
        "REFUSED",
        "refused",
        "`code-commit apply` only: the answer was refused; nothing was applied",
        frozenset({"apply"}),
        detail="In a run a refused answer uses up an attempt instead",
        apply="the answer was refused (malformed, a guarded path, a search text that does not match exactly "
        "once): nothing was applied; with `--check`: it would be refused",
    ),
    _ExitCode(
        8,
        "RESTORE_FAILED",
        "restore_failed",
        "an apply could not be undone (the journal is kept); fix the cause, then run `code-commit recover`",
        _RUN_LIKE | {"apply", "recover"},
        apply="an apply could not be undone: an interrupted one found at the start (a killed run's), or this "
        "one's after a failed write; the journal is kept: fix the cause, then run `code-commit recover`",
    ),
    _ExitCode(
        9,
        "INTERNAL",
        "internal_error",
        "internal error: a bug in code-commit, or its environment (a full disk, permissions); the message "
        "names the exception, and the run folder's `traceback.txt` keeps the traceback",
        _EVERY_COMMAND,
        detail="Before a run folder exists, `-v` shows the traceback. Never exit 1: an unexpected failure is "
        "not a failing build",
    ),
    _ExitCode(
        10,
        "TAMPERED",
        "tampered",
        "the build changed `build.sh`, an ignore file, git's hooks or config, or `agent-config/`: the run "
        "stopped at once; the message names each changed path",
        _BUILDING,
        detail="What the run watches: `build.sh`, `codeRollup.sh`, an ignore or attributes file (a new one "
        "too, but for a tool's cache: a `.gitignore` of `*` in a new `.pytest_cache/`, `.ruff_cache/` or "
        "`.mypy_cache/`), "
        "`.git/config`, `.git/hooks/`, `.git/info/` (a submodule's too, and its `.git` file), git's index "
        "flags and refs, git's global and included config files, and anything in `agent-config/` but the "
        "run's own folder. Nothing more went to the model and the run never reports `passed`; `run.log` and "
        "the record's `tampered` name each path: inspect them before running again",
        apply="with `--build`: the build changed `build.sh`, an ignore file, git's hooks or config, or "
        "`agent-config/`; the message names each changed path",
        check="the build changed `build.sh`, an ignore file, git's hooks or config, or `agent-config/`; the "
        "message names each changed path",
    ),
    _ExitCode(
        11,
        "BUILD_BLOCKED",
        "build_blocked",
        "the sandbox or the setup keeps `build.sh` from running (a tool it hides, a read-only cache, no "
        "network, a virtualenv a fresh clone lacks): no repair was asked for; the message names the cause "
        "and the fix",
        _BUILDING,
        detail="A run stops after that build, before its next paid call: no answer can change the sandbox. "
        "The console, `run.log` and the record's `error` name the cause, the command or path and the fix (a "
        'setting, an environment variable, a step to take once outside the sandbox, or `sandbox = "off"` '
        "with what that gives up); the record's `diagnosis` has them apart, with the line of the build's output "
        "it was read from. An ordinary failure (a failing test, a compile error) is never this",
        apply="with `--build`: applied, but the sandbox or the setup keeps `build.sh` from running; the message "
        "names the cause and the fix",
        check="the sandbox or the setup keeps `build.sh` from running; the message names the cause and the fix",
    ),
    _ExitCode(
        12,
        "BUILD_CHANGED_TESTS",
        "build_changed_tests",
        'the build changed the tests or a test runner\'s configuration (`tests = "protect"`): it is no pass, and '
        "the run stopped before its next call; the message names each file",
        _BUILDING,
        detail="The model's code runs in the build, and under protect the tests are read-only to it: an existing "
        "test file it changes or deletes counts, and so does a runner's configuration it creates or changes (a "
        "`conftest.py`, a `pytest.toml`, `[tool.pytest]` in `pyproject.toml`) or test code a runner collects by "
        "its name (`test_*.py`); a new snapshot does not. Nothing more went to the model: a model whose code "
        'changes the tests is not asked again. `run.log` and the record\'s `tests_changed` (`by: "build"`) '
        "name each file; the files are left as the build left them (`git diff` shows them; "
        "`--revert-on-failure` puts them back). With `--tests report` the run goes on and may pass, and they are "
        "named",
        apply="with `--build`: applied, but the build changed the tests or a runner's configuration (`tests = "
        '"protect"`): it is no pass; the message names each file',
        check='the build changed the tests or a runner\'s configuration (`tests = "protect"`), so a run would '
        "stop there; usually a `build.sh` that writes tests (a snapshot update, a formatter that writes): make it "
        "check, or use `--tests report`",
    ),
    _ExitCode(
        13,
        "NEEDS_HUMAN",
        "needs_human",
        "a person must decide: the model handed the task back (a `^^^needs-human` block: the tests contradict "
        "the query, or the failure lies outside the code); nothing of that answer was applied and no further "
        "call was made; the message gives its reason",
        frozenset({"run", "apply"}),
        detail='The system prompt offers the block under `tests = "protect"` and `"report"`, not under '
        '`"free"`; one that comes anyway (under `free`, or beside file blocks) ends the run all the same, and '
        "none of that answer's blocks is applied: a person must look first. What earlier answers applied stays "
        "(`--revert-on-failure` puts it back). A malformed one (no `^^^end`, an empty reason, two of them) is "
        "refused like any malformed answer. The console, `run.log` and the record's `error` give the reason; the "
        "record's `needs_human` holds it as the model wrote it, censored and capped",
        apply="the answer hands the task back (a `^^^needs-human` block): nothing was applied; the message gives "
        "its reason; with `--check`: it is such an answer",
    ),
    _ExitCode(130, "INTERRUPTED", "interrupted", "interrupted (SIGINT or SIGTERM)", _EVERY_COMMAND),
)

BY_CODE = {row.code: row for row in TABLE}


@dataclass(frozen=True)
class _Codes:
    """The codes by name, for the code that returns them: `return EXIT.BUILD_FAILS`. Built from TABLE,
    so a row without a field here, or a field without a row, fails at import."""

    OK: int
    BUILD_FAILS: int
    SETUP: int
    SERVICE: int
    LOCK_HELD: int
    TIMEOUT: int
    REJECTED: int
    REFUSED: int
    RESTORE_FAILED: int
    INTERNAL: int
    TAMPERED: int
    BUILD_BLOCKED: int
    BUILD_CHANGED_TESTS: int
    NEEDS_HUMAN: int
    INTERRUPTED: int


EXIT = _Codes(**{row.constant: row.code for row in TABLE})

# The record's outcome when a run ended with exit 1 but no answer could be applied, so no build ran:
# the same name as apply's exit 7, as it is the same event (a refused answer) ending a run.
REFUSED_OUTCOME = BY_CODE[EXIT.REFUSED].outcome
_UNKNOWN_OUTCOME = "error"  # a code not in the table: never returned, but the record must name something


def outcome_name(code: int, dry_run: bool = False) -> str:
    """The record's `outcome` for an exit code."""
    row = BY_CODE.get(code)
    if row is None:
        return _UNKNOWN_OUTCOME
    return (row.dry_run_outcome if dry_run else "") or row.outcome


def outcome_names() -> list[str]:
    """Every name the record's `outcome` can take, in the table's order."""
    names = [row.outcome for row in TABLE if row.commands & _RUN_LIKE] + [REFUSED_OUTCOME]
    names += [row.dry_run_outcome for row in TABLE if row.dry_run_outcome]
    return list(dict.fromkeys(names))


def rows_for(command: str) -> tuple[_ExitCode, ...]:
    return tuple(row for row in TABLE if command in row.commands)


def help_text(command: str | None = None) -> str:
    """The "Exit codes:" block of a --help: every code (command None: the whole tool's), or one
    command's, one per line as click prints it verbatim (after a \\b line), wrapped under its meaning."""
    rows = TABLE if command is None else rows_for(command)
    lines = ["Exit codes:"]
    for row in rows:
        text = row.meaning_for(command or "").replace("`", "")
        indent = f"  {row.code:<4} "
        lines += textwrap.wrap(text, 90, initial_indent=indent, subsequent_indent=" " * 7, break_on_hyphens=False)
    return "\n".join(lines)


def _commands_cell(row: _ExitCode) -> str:
    if row.commands == _EVERY_COMMAND:
        return "every command"
    return ", ".join("a run" if name == "run" else f"`{name}`" for name in COMMANDS if name in row.commands)


def reference_table() -> str:
    """docs/unattended.md's table: every code, which commands return it, and all it means."""
    lines = ["| code | returned by | meaning |", "| --- | --- | --- |"]
    for row in TABLE:
        text = f"{row.meaning}. {row.detail}" if row.detail else row.meaning
        lines.append(f"| {row.code} | {_commands_cell(row)} | {text} |")
    return "\n".join(lines) + "\n"


def command_table(command: str) -> str:
    """A command's table (docs/answers.md: apply; docs/setup.md: check): its codes, in its own words."""
    lines = [f"| `{command}` exit code | meaning |", "| --- | --- |"]
    lines += [f"| {row.code} | {row.meaning_for(command)} |" for row in rows_for(command)]
    return "\n".join(lines) + "\n"


def short_table(codes: tuple[int, ...]) -> str:
    """The README's table: the codes a first run is likely to meet."""
    lines = ["| exit code | meaning |", "| --- | --- |"]
    lines += [f"| {code} | {BY_CODE[code].meaning} |" for code in codes]
    return "\n".join(lines) + "\n"
