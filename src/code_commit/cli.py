"""The `code-commit` command: flags -> settings, errors -> exit codes. No logic of its own.

Only typer and the light modules are imported at start-up; the run loop (and with it the
model SDK) is imported when a command actually needs it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, Any

import typer

from .errors import EXIT_BUILD_FAILS, EXIT_CODE_HELP, EXIT_OK, CodeCommitError, Interrupted, exit_code_for

HELP = f"""Ask a model for a change, apply it behind a guard, and repair the build until build.sh passes.

Run it from the project root. It reads agent-config/query.txt and agent-config/codeRollup.txt,
sends them to the model, applies the answer's ^^^path blocks, runs ./build.sh, and sends up to
three repair queries while the build fails. Logs go to agent-config/logs/<run-id>/.

\b
{EXIT_CODE_HELP}
"""

app = typer.Typer(
    help=HELP,
    add_completion=False,
    no_args_is_help=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
    pretty_exceptions_enable=False,
)


def _guarded(action: Any) -> int:
    """Run an action and turn every failure into its exit code, with a message on stderr."""
    from .ui import Console

    console = Console()
    try:
        return int(action(console))
    except CodeCommitError as exc:
        console.error(str(exc))
        return exit_code_for(exc)
    except KeyboardInterrupt:
        console.error("interrupted")
        return exit_code_for(Interrupted())


@app.callback(invoke_without_command=True)
def main_command(
    ctx: typer.Context,
    model: Annotated[str | None, typer.Option(help="Model id.")] = None,
    max_tokens: Annotated[int | None, typer.Option(help="Output-token limit of one model call.")] = None,
    base_url: Annotated[str | None, typer.Option(help="Endpoint of the model provider.")] = None,
    build_timeout: Annotated[float | None, typer.Option(help="Seconds before build.sh is killed.")] = None,
) -> None:
    if ctx.invoked_subcommand is not None:
        return
    flags = {"model": model, "max_tokens": max_tokens, "base_url": base_url, "build_timeout": build_timeout}

    def action(console: Any) -> int:
        from .settings import load_settings
        from .workspace import check_setup

        root = Path.cwd()
        settings = load_settings(root, flags=flags).settings
        workspace, key = check_setup(root, settings, os.environ)

        from .run import execute  # imported only once the setup is known to be good

        outcome = execute(workspace, key, settings, console)
        console.info(f"logs: {outcome.log_dir}")
        return EXIT_OK if outcome.passed else EXIT_BUILD_FAILS

    raise typer.Exit(_guarded(action))


@app.command()
def rollup(
    output: Annotated[
        Path | None, typer.Option(help="Where to write the rollup. [default: agent-config/codeRollup.txt]")
    ] = None,
    max_file_size: Annotated[
        int | None,
        typer.Option(
            min=0,
            envvar="CODE_COMMIT_ROLLUP_MAX_FILE_SIZE",
            help="Files over this many bytes are listed as omitted. [default: 262144, i.e. 256 KiB]",
        ),
    ] = None,
) -> None:
    """Write agent-config/codeRollup.txt: every file git tracks or would show as untracked, framed for the model.

    Run it from the project root (./codeRollup.sh does). Binary files, symlinks and files over the
    size cap are listed as omitted; agent-config/ is never included.
    """

    def action(console: Any) -> int:
        from .rollup import command

        return command(console, Path.cwd(), output, max_file_size)

    raise typer.Exit(_guarded(action))


@app.command()
def recover() -> None:
    """Undo an apply that a killed run left half done, from its journal in agent-config/logs/.

    Every run does this itself before its first model call; this does it now, without a run. Files
    changed by hand since the interruption are left as they are and listed. Run it from the project
    root.
    """

    def action(console: Any) -> int:
        from .journal import recover as undo_interrupted

        lines = undo_interrupted(Path.cwd()).lines()
        for line in lines:
            console.info(line)
        if not lines:
            console.info("nothing to recover: no apply was interrupted")
        return EXIT_OK

    raise typer.Exit(_guarded(action))


def main() -> None:
    app()
