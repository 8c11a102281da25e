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
    review: Annotated[
        bool | None,
        typer.Option(
            "--review/--no-review",
            help="Show each answer hunk by hunk and write only the hunks you accept (needs a terminal).",
        ),
    ] = None,
    diff: Annotated[
        bool | None,
        typer.Option("--diff/--no-diff", help="Print the unified diff of what each attempt applies, on stderr."),
    ] = None,
    provider: Annotated[
        str | None, typer.Option(help="anthropic, or openai: any OpenAI-compatible server (with --base-url).")
    ] = None,
    prompt_order: Annotated[
        str | None,
        typer.Option(help="spec (the default), or cache: the codebase first, so repairs read it from cache."),
    ] = None,
    max_cost: Annotated[
        float | None, typer.Option(help="Budget in US dollars: stop (exit 3) before a call that could go over it.")
    ] = None,
) -> None:
    if ctx.invoked_subcommand is not None:
        return
    flags = {"model": model, "max_tokens": max_tokens, "base_url": base_url, "build_timeout": build_timeout}
    flags |= {"review": review, "diff": diff}
    flags |= {"provider": provider, "prompt_order": prompt_order, "max_cost": max_cost}

    def action(console: Any) -> int:
        from .settings import load_settings
        from .workspace import check_setup

        root = Path.cwd()
        loaded = load_settings(root, flags=flags)
        settings = loaded.settings
        if settings.review:
            from .terminal import require_terminal

            require_terminal(loaded.sources["review"])
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


APPLY_EXIT_CODES = """\
Exit codes:
  0    applied (with --build: and the build passes); with --check: the answer is valid
  1    with --build: the build fails after applying
  2    usage or setup error: unreadable answer, bad flags, .gitignore or build.sh missing
  7    the answer was refused (malformed, a guarded path, a search text that does not match
       exactly once): nothing was applied; with --check: it would be refused
  130  interrupted"""


@app.command(
    "apply",
    help=f"""Apply a saved answer: the same parser, guard and all-or-nothing apply, no model call.

FILE is a ^^^ answer (a logged NN-response.txt, say) or an applydir JSON answer, or - to read
standard input. Nothing runs the build unless --build is given. The report goes to stdout;
the answer and what happened are logged under agent-config/logs/<run-id>/.

\b
{APPLY_EXIT_CODES}
""",
)
def apply_command(
    answer: Annotated[str, typer.Argument(metavar="FILE|-", help="The saved answer, or - for standard input.")],
    check: Annotated[
        bool, typer.Option("--check", help="Validate only: write nothing, report every problem, exit 7 if any.")
    ] = False,
    build: Annotated[bool, typer.Option("--build", help="Run build.sh after applying.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    answer_format: Annotated[
        str, typer.Option("--format", help="auto (JSON if the answer starts with '['), caret or json.")
    ] = "auto",
) -> None:
    def action(console: Any) -> int:
        from .apply_command import command

        return command(
            console, Path.cwd(), answer, check=check, build=build, as_json=as_json, answer_format=answer_format
        )

    raise typer.Exit(_guarded(action))


def main() -> None:
    app()
