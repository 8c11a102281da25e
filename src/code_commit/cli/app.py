"""The `code-commit` command: flags -> settings, errors -> exit codes. No logic of its own.

Only typer and the light modules are imported at start-up; the run loop (and with it the
model SDK) is imported when a command actually needs it.
"""

from __future__ import annotations

import contextlib
import importlib
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from code_commit import __version__
from code_commit.cli import events as event_stream
from code_commit.cli.endings import report_error
from code_commit.cli.flags import honoured_before, setting_option, with_setting_flags
from code_commit.config.project_root import find_project_root
from code_commit.config.settings import Flags, flag_name, load_settings
from code_commit.console.output import Console, to_stdout
from code_commit.errors import CodeCommitError, Ending, Interrupted, SetupError, Stopped, exit_code_for
from code_commit.exits import EXIT, help_text
from code_commit.logs.run_log import internal_error

if TYPE_CHECKING:
    from code_commit.run.record import RunRecord

# A command's JSON report of an ending by an error (with the time it took): what --json prints then.
_JsonReport = Callable[[Ending, float], str]

_HELP = f"""Ask a model for a change, apply it behind a guard, and repair the build until build.sh passes.

Run it anywhere in the project: the root is the nearest folder up with agent-config/, else the
top of the git repository. It reads agent-config/query.txt and agent-config/codeRollup.txt,
sends them to the model, applies the answer's ^^^path blocks, runs ./build.sh, and sends up to
three repair queries while the build fails. Logs go to agent-config/logs/<run-id>/.

\b
{help_text()}
"""

# Each command's action and the module it lives in, imported only when that command runs: start-up,
# --help and a setup error load none of them. A command is one row here and its declaration (flags,
# help) below; its module's action takes the console and the command's values, and returns the exit code.
COMMANDS = {
    "run": "code_commit.cli.run",
    "rollup": "code_commit.cli.rollup",
    "init": "code_commit.cli.scaffold",
    "demo": "code_commit.cli.demo",
    "config": "code_commit.cli.config_report",
    "apply": "code_commit.cli.apply",
    "check": "code_commit.cli.check",
    "recover": "code_commit.cli.recover",
}


def _command(name: str) -> Any:
    """The module of a command's action (COMMANDS), imported now."""
    return importlib.import_module(COMMANDS[name])


app = typer.Typer(
    help=_HELP,
    add_completion=False,
    no_args_is_help=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
)


def _guarded(
    action: Any,
    quiet: bool = False,
    verbose: bool = False,
    json_report: _JsonReport | None = None,
    events: event_stream.Events | None = None,
) -> int:
    """Run a command's action and turn every failure into its exit code, with a message on stderr
    and, given `json_report` (--json), the command's own JSON report of that ending on stdout; the
    `--events` stream the action opened ends with the same outcome.

    The last line of defence for every command: any exception nothing expected becomes an internal
    error (exit 9) with a one-line message, never a traceback and exit 1, which would read as "the
    build still fails". Inside a session it already is one, its traceback in the run folder."""
    started = time.monotonic()
    console = Console.for_terminal(quiet=quiet, verbose=verbose)
    try:
        _distrust_build_folders()
        code = int(action(console))
        if events is not None:
            events.end(None, time.monotonic() - started)
        return code
    except (CodeCommitError, Stopped) as exc:
        error: Ending = exc
    except KeyboardInterrupt:  # a Ctrl-C outside a run's watch (signals.py)
        error = Interrupted("interrupted")
    except Exception as exc:
        error = internal_error(exc, None, console.redact)
    with contextlib.suppress(Exception):  # stderr may be what failed; the exit code and the record still count
        report_error(console, error)
    if events is not None:
        events.end(error, time.monotonic() - started)
    if json_report is not None:
        to_stdout(console.redact(json_report(error, time.monotonic() - started)))
    return exit_code_for(error)


def _distrust_build_folders() -> None:
    """Before any command's first git call, whatever the command (`demo` and `init` included): the
    project around the current folder, and the paths its settings let a build write, are where an
    earlier build may have planted a `git`; code-commit never looks up its own programs there. A
    command that finds the project or loads the settings does the same again (git/env.py)."""
    with contextlib.suppress(OSError, CodeCommitError):  # the command itself reports a bad setup
        load_settings(find_project_root(Path.cwd()).path)


def _json_of(record: RunRecord) -> _JsonReport:
    """A command's JSON record of an ending by `error`: whatever the record holds by then, which the
    command's session has recorded already if it had begun."""

    def report(error: Ending, duration: float) -> str:
        return record.ended_by(error, duration).to_json()

    return report


@dataclass(frozen=True)
class _BeforeCommand:
    """What was given before a subcommand (typer's ctx.obj): the setting flags, -q and -v."""

    flags: Flags = field(default_factory=Flags)
    quiet: bool = False
    verbose: bool = False


def _before(ctx: typer.Context) -> _BeforeCommand:
    return ctx.obj if isinstance(ctx.obj, _BeforeCommand) else _BeforeCommand()


# -q and -v count before every subcommand; a setting's flag before those its declaration names
# (flags.honoured_before); any other flag given there is an error, never ignored.
_CONSOLE_FLAGS = frozenset({"quiet", "verbose"})
_EVENTS_COMMANDS = frozenset({"apply", "check", "demo"})  # and a run: the commands with --events
# The form that does what a misplaced flag meant, where there is one.
_RIGHT_FORM = {
    ("apply", "dry_run"): "to validate an answer and write nothing: code-commit apply --check FILE",
    ("apply", "json_output"): "for the report as JSON: code-commit apply --json FILE",
    ("apply", "revert_on_failure"): (
        "apply keeps what it applied; to see first whether an answer applies: code-commit apply --check FILE"
    ),
    ("config", "json_output"): "for the settings as JSON: code-commit config --json",
}


def _unhonoured_flag(command: str, params: dict[str, Any]) -> str | None:
    """The error for the first flag given before `command` that the command cannot honour, if any.
    A --no-review or --no-diff is honoured by every command: none of them reviews or prints diffs."""
    honoured = honoured_before(command) | _CONSOLE_FLAGS
    for name, value in params.items():
        if name in honoured or value is None or value is False or (isinstance(value, list | tuple) and not value):
            continue  # not given (a repeatable flag given no times is an empty list)
        flag = _flag_name(name)
        form = _RIGHT_FORM.get((command, name)) or f"it is a flag of a run: code-commit {flag}"
        if name == "events_target" and command in _EVENTS_COMMANDS:
            form = f"give it after the command: code-commit {command} --events FILE"
        return f"{flag} does nothing for `code-commit {command}`, so nothing was done; {form}."
    return None


def _flag_name(name: str) -> str:
    return {"json_output": "--json", "events_target": "--events"}.get(name) or flag_name(name)


def _console_flags(ctx: typer.Context) -> tuple[bool, bool]:
    """-q and -v, given before the subcommand."""
    before = _before(ctx)
    return before.quiet, before.verbose


def _project_root(console: Any) -> tuple[Path, str | None]:
    """The project root, found from anywhere in the project as git finds its repository, and the
    line that says so when it is not the current folder (also shown, then, on the console)."""
    root = find_project_root(Path.cwd())
    if root.found:
        console.info(root.note())
        return root.path, root.note()
    return root.path, None


def _fail(message: str) -> Any:
    def action(console: Any) -> int:
        raise SetupError(message)

    return action


def _print_version(value: bool) -> None:
    if value:
        to_stdout(f"code-commit {__version__}\n")
        raise typer.Exit(EXIT.OK)


_QUIET = typer.Option("--quiet", "-q", help="Show only warnings and errors.")
_VERBOSE = typer.Option(
    "--verbose", "-v", help="Also show each answer's explanation and build.sh's output as it runs (--diff: the diffs)."
)


@app.callback(invoke_without_command=True)
@with_setting_flags  # --model, --build-timeout, ...: one per setting whose declaration gives it a flag
def main_command(
    ctx: typer.Context,
    json_output: Annotated[
        bool,
        typer.Option("--json", help="Print the run's record as one JSON object on stdout when it ends, nothing else."),
    ] = False,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run", help="One model call, then parse and guard; print the diff. Writes nothing, builds nothing."
        ),
    ] = False,
    revert_on_failure: Annotated[
        bool,
        typer.Option(
            "--revert-on-failure",
            help="Unless the build passes in the end, restore the files the run changed; save its proposal as a patch.",
        ),
    ] = False,
    events_target: Annotated[str | None, event_stream.OPTION] = None,
    quiet: Annotated[bool, _QUIET] = False,
    verbose: Annotated[bool, _VERBOSE] = False,
    version: Annotated[
        bool, typer.Option("--version", callback=_print_version, is_eager=True, help="Print the version and exit.")
    ] = False,
    **setting_flags: Any,
) -> None:
    flags = Flags.of(**setting_flags)
    ctx.obj = _BeforeCommand(flags, quiet, verbose)
    if ctx.invoked_subcommand is not None:
        problem = _unhonoured_flag(ctx.invoked_subcommand, ctx.params)
        if problem:
            raise typer.Exit(_guarded(_fail(problem), quiet, verbose))
        return

    taken = "--json" if json_output else "--dry-run's diff" if dry_run else None
    problem = event_stream.stdout_taken(events_target, "", taken)
    if problem:
        raise typer.Exit(_guarded(_fail(problem), quiet, verbose))

    run = _command("run")
    record = run.new_record(dry_run)  # what a setup error reports too, with --json
    ended: list[RunRecord] = []  # the run's own record, once it has one: the end event's
    events = event_stream.Events(events_target, lambda: ended[0] if ended else record)

    def action(console: Any) -> int:
        root, found = _project_root(console)
        observe = events.open(root, console)  # before anything is read or sent: a bad target is a usage error
        options = (dry_run, revert_on_failure, json_output)
        return int(run.command(console, root, found, flags, *options, observe=observe, ran=ended.append))

    raise typer.Exit(_guarded(action, quiet, verbose, _json_of(record) if json_output else None, events))


@app.command()
def rollup(
    ctx: typer.Context,
    output: Annotated[
        Path | None, typer.Option(help="Where to write the rollup. [default: agent-config/codeRollup.txt]")
    ] = None,
    max_file_size: Annotated[int | None, setting_option("rollup_max_file_size", command="rollup")] = None,
    budget: Annotated[int | None, setting_option("rollup_budget", command="rollup")] = None,
) -> None:
    """Write agent-config/codeRollup.txt: the files git tracks, framed for the model.

    Run it anywhere in the project (the root is found as for a run). The files agent-config/query.txt
    names come first. Untracked files, lock files, binary, generated and minified files, images,
    translation catalogs, rollup_exclude's files and what does not fit the budget are left out and
    listed at its end, a source file that does not fit with its outline; agent-config/ is never
    included.
    """

    def action(console: Any) -> int:
        return int(_command("rollup").command(console, _project_root(console)[0], output, max_file_size, budget))

    raise typer.Exit(_guarded(action, *_console_flags(ctx)))


@app.command()
def init(
    ctx: typer.Context,
    no_check: Annotated[
        bool, typer.Option("--no-check", help="Do not run build.sh at the end (code-commit check runs it).")
    ] = False,
) -> None:
    """Set up the project for code-commit; never overwrites anything.

    The project is the one a run from here would use: the nearest folder up with agent-config/,
    else the top of the git repository, else the current folder. Creates agent-config/ with a
    query.txt template and a config.toml listing every setting at its default (and the sandbox
    settings the project's toolchain needs), adds /agent-config to .gitignore (creating it if
    needed), and writes build.sh, guessed from the project's real test runner, and codeRollup.sh
    where they are absent. Then runs build.sh as `code-commit check` does, in the sandbox, and
    says whether it passes and how many tests it ran, and prints the next steps.
    """

    def action(console: Any) -> int:
        return int(_command("init").command(console, no_check))

    raise typer.Exit(_guarded(action, *_console_flags(ctx)))


@app.command()
def demo(
    ctx: typer.Context,
    directory: Annotated[
        Path | None,
        typer.Option(
            "--dir", help="Where to put the demo project (new or empty). [default: a new temporary directory]"
        ),
    ] = None,
    quiet: Annotated[bool, _QUIET] = False,
    events_target: Annotated[str | None, event_stream.OPTION] = None,
) -> None:
    """Watch code-commit repair a small project: offline, no API key.

    Copies a bundled project whose unit tests fail to a new directory and runs the real loop there
    (prompts, parser, guard, apply, build.sh, logs) against a scripted model that answers with a
    wrong fix, then, after seeing the failing build, the right one.
    """
    quiet = quiet or _before(ctx).quiet
    from code_commit.run.record import RunRecord

    ended: list[RunRecord] = []
    events = event_stream.Events(events_target, lambda: ended[0] if ended else RunRecord("run"))

    def action(console: Any) -> int:
        observe = events.open(directory, console)  # not in the demo's project (a new temporary folder else)
        return int(_command("demo").run_demo(console, directory, observe, ended.append))

    raise typer.Exit(_guarded(action, quiet=quiet, verbose=not quiet, events=events))


@app.command()
def config(
    ctx: typer.Context,
    json_output: Annotated[bool, typer.Option("--json", help="Print the settings as a JSON object.")] = False,
) -> None:
    """Print the effective settings, where each came from, and the API key (censored).

    Precedence, highest first: flags (given before `config`, as for a run), CODE_COMMIT_* environment
    variables, agent-config/config.toml, the defaults.
    """
    flags = _before(ctx).flags

    def action(console: Any) -> int:
        return int(_command("config").command(console, _project_root(console)[0], flags, json_output))

    raise typer.Exit(_guarded(action, *_console_flags(ctx)))


@app.command(
    "apply",
    help=f"""Apply a saved answer: the same parser, guard and all-or-nothing apply, no model call.

FILE is a ^^^ answer (a logged NN-response.txt, say) or an applydir JSON answer, or - to read
standard input. Nothing runs the build unless --build is given. The report goes to stdout;
the answer and what happened are logged under agent-config/logs/<run-id>/.

\b
{help_text("apply")}
""",
)
def apply_command(
    ctx: typer.Context,
    answer: Annotated[str, typer.Argument(metavar="FILE|-", help="The saved answer, or - for standard input.")],
    check: Annotated[
        bool,
        typer.Option("--check", "--dry-run", help="Validate only: write nothing, report every problem, exit 7 if any."),
    ] = False,
    build: Annotated[bool, typer.Option("--build", help="Run build.sh after applying.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    answer_format: Annotated[
        str, typer.Option("--format", help="auto (JSON if the answer starts with '['), caret or json.")
    ] = "auto",
    events_target: Annotated[str | None, event_stream.OPTION] = None,
) -> None:
    flags = _before(ctx).flags  # given before `apply`, as for a run: --build-timeout, --wait-lock...
    problem = event_stream.stdout_taken(events_target, "apply", "apply's report")
    if problem:
        raise typer.Exit(_guarded(_fail(problem), *_console_flags(ctx)))
    apply = _command("apply")
    record = apply.new_record(answer, answer_format, check)
    events = event_stream.Events(events_target, lambda: record)

    def action(console: Any) -> int:
        root = _project_root(console)[0]
        observe = events.open(root, console)
        given = {"flags": flags, "build": build, "as_json": as_json, "observe": observe}
        return int(apply.command(console, root, answer, record, **given))

    raise typer.Exit(_guarded(action, *_console_flags(ctx), _json_of(record) if as_json else None, events))


@app.command(
    "check",
    help=f"""Run ./build.sh exactly as a run would: no model call, no key needed.

The same sandbox, environment, time limits, output capture and tamper check as a run, under
the project's lock, logged under agent-config/logs/<run-id>/. Prints where the build runs (the
sandbox, the network, what it may write, what is hidden), its output, the verdict with how many
tests its output says ran, and, when the sandbox or the setup keeps it from running, the cause
and the fix. Setting flags given before `check` count, as for a run: --sandbox-network,
--sandbox-writable, --sandbox-readable, --build-timeout...

\b
{help_text("check")}
""",
)
def check_command(
    ctx: typer.Context,
    as_json: Annotated[bool, typer.Option("--json", help="Print the check's record as JSON.")] = False,
    events_target: Annotated[str | None, event_stream.OPTION] = None,
) -> None:
    flags = _before(ctx).flags
    problem = event_stream.stdout_taken(events_target, "check", "check's report")
    if problem:
        raise typer.Exit(_guarded(_fail(problem), *_console_flags(ctx)))
    check = _command("check")
    checked = check.Checked()
    events = event_stream.Events(events_target, lambda: checked.record)

    def action(console: Any) -> int:
        root = _project_root(console)[0]
        observe = events.open(root, console)
        settings = load_settings(root, flags=flags).settings
        return int(check.command(console, root, settings, as_json, checked, observe))

    raise typer.Exit(_guarded(action, *_console_flags(ctx), _json_of(checked.record) if as_json else None, events))


@app.command()
def recover(ctx: typer.Context) -> None:
    """Undo an apply that a killed run left half done, from its journal in agent-config/logs/.

    Every run does this itself before its first model call; this does it now, without a run. Files
    changed by hand since the interruption are left as they are and listed. Exit 8 if an apply
    cannot be undone.
    """
    flags = _before(ctx).flags

    def action(console: Any) -> int:
        return int(_command("recover").command(console, _project_root(console)[0], flags))

    raise typer.Exit(_guarded(action, *_console_flags(ctx)))


def main() -> None:
    app()
