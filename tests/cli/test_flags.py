"""Flags mean what they say: a flag before a subcommand that cannot honour it is an error naming the
right form, never silently ignored."""

from __future__ import annotations

import dataclasses
import json

import pytest

from code_commit.config.settings import Settings

from support import Project, git

ANSWER = "^^^fixed.txt\nfixed\n^^^end\n"


def snapshot(project: Project) -> tuple[str, list]:
    """What git sees, and the run folders: a command that did nothing changes neither."""
    return git(project.root, "status", "--porcelain", "--untracked-files=all"), project.run_dirs()


@pytest.mark.parametrize(
    ("flags", "right_form"),
    [
        (["--dry-run"], "code-commit apply --check FILE"),
        (["--json"], "code-commit apply --json FILE"),
        (["--revert-on-failure"], "code-commit apply --check FILE"),
        (["--review"], "code-commit --review"),
        (["--diff"], "code-commit --diff"),
        (["--model", "claude-x"], "code-commit --model"),
        (["--max-cost", "2"], "code-commit --max-cost"),
        (["--provider", "openai"], "code-commit --provider"),
    ],
)
def test_a_run_only_flag_before_apply_is_an_error_naming_the_right_form(
    project: Project, cli, flags: list[str], right_form: str
) -> None:
    before = snapshot(project)
    result = cli(*flags, "apply", "--build", "-", input=ANSWER)
    assert result.exit_code == 2, result.output
    assert f"{flags[0]} does nothing for `code-commit apply`" in result.stderr
    assert right_form in result.stderr
    assert not (project.root / "fixed.txt").exists()
    assert snapshot(project) == before


def test_apply_dry_run_is_check(project: Project, cli) -> None:
    result = cli("apply", "--dry-run", "-", input=ANSWER)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("ok: the answer from standard input applies cleanly")
    assert not (project.root / "fixed.txt").exists()


def test_a_revert_on_failure_before_apply_leaves_no_failing_change(project: Project, cli) -> None:
    project.build_script("exit 1\n")
    project.commit_all()
    result = cli("--revert-on-failure", "apply", "--build", "-", input=ANSWER)
    assert result.exit_code == 2
    assert not (project.root / "fixed.txt").exists()


@pytest.mark.parametrize(
    ("command", "flags"),
    [
        (["config"], ["--json"]),
        (["config"], ["--dry-run"]),
        (["config"], ["--revert-on-failure"]),
        (["rollup"], ["--dry-run"]),
        (["rollup"], ["--json"]),
        (["rollup"], ["--model", "claude-x"]),
        (["init"], ["--dry-run"]),
        (["init"], ["--review"]),
        (["recover"], ["--revert-on-failure"]),
        (["recover"], ["--timeout", "5"]),
        (["demo", "--dir", "demo-here"], ["--json"]),
        (["demo", "--dir", "demo-here"], ["--diff"]),
    ],
)
def test_a_flag_a_subcommand_cannot_honour_is_an_error(
    project: Project, cli, command: list[str], flags: list[str]
) -> None:
    git(project.root, "rm", "-q", "--cached", ".gitignore")  # init would change it: it must not run at all
    (project.root / ".gitignore").unlink()
    git(project.root, "commit", "-qm", "no .gitignore")
    before = snapshot(project)
    result = cli(*flags, *command)
    assert result.exit_code == 2, result.output
    assert f"{flags[0]} does nothing for `code-commit {command[0]}`" in result.stderr
    assert result.stdout == ""
    assert snapshot(project) == before


def test_json_before_config_names_config_json(project: Project, cli) -> None:
    result = cli("--json", "config")
    assert result.exit_code == 2
    assert "code-commit config --json" in result.stderr


def test_flags_a_subcommand_honours_still_work(project: Project, cli) -> None:
    shown = cli("--review", "--diff", "--model", "claude-x", "config", "--json")
    assert shown.exit_code == 0, shown.output
    settings = json.loads(shown.stdout)["settings"]
    assert settings["review"]["value"] is True and settings["model"]["value"] == "claude-x"
    assert cli("--no-review", "--no-diff", "apply", "--check", "-", input=ANSWER).exit_code == 0
    assert cli("--wait-lock", "1", "recover").exit_code == 0
    quiet = cli("-q", "rollup")
    assert quiet.exit_code == 0 and quiet.stderr == ""
    assert cli("rollup").stderr != "", "without -q, rollup reports what it wrote"


def sample(setting: dataclasses.Field) -> list[str]:
    """Arguments the flag of a setting parses: its default or example; a switch takes none."""
    value = setting.metadata["example"] if setting.default in (None, dataclasses.MISSING) else setting.default
    if isinstance(value, bool) and setting.type == "bool":
        return []
    if isinstance(value, bool):  # a switch that may name what it is on for: `--flag true`
        return [str(value).lower()]
    return [str(value[0] if isinstance(value, list) else value)]


# Every flag of a run: those of a run only, and one per setting whose declaration gives it a flag.
RUN_ONLY = {"--json": [], "--dry-run": [], "--revert-on-failure": [], "--events": ["events.jsonl"]}
SETTING_FLAGS = {"--" + f.name.replace("_", "-"): sample(f) for f in dataclasses.fields(Settings) if f.metadata["flag"]}
FLAG_ARGS = RUN_ONLY | SETTING_FLAGS
# The spec, written out independently of the declarations: what each subcommand honours before it.
SANDBOX = {"--sandbox", "--sandbox-network", "--sandbox-writable", "--sandbox-readable"}  # apply: with --build
HONOURED = {
    "config": set(SETTING_FLAGS),  # it shows every setting, so every setting's flag counts
    "apply": {"--build-timeout", "--timeout", "--wait-lock", "--tests"} | SANDBOX,
    "check": {"--build-timeout", "--timeout", "--wait-lock", "--tests"} | SANDBOX,
    "recover": {"--wait-lock"},
    "rollup": set(),
    "init": set(),
    "demo": set(),
}
COMMAND_ARGS = {"apply": ["-"], "demo": ["--dir", "demo-here"]}


@pytest.mark.parametrize(
    ("command", "flag"),
    [(command, flag) for command in HONOURED for flag in FLAG_ARGS if flag not in HONOURED[command]],
)
def test_every_flag_a_subcommand_cannot_honour_is_refused(project: Project, cli, command: str, flag: str) -> None:
    before = snapshot(project)
    result = cli(flag, *FLAG_ARGS[flag], command, *COMMAND_ARGS.get(command, []), input=ANSWER)
    assert result.exit_code == 2, result.output
    assert f"{flag} does nothing for `code-commit {command}`" in result.stderr
    assert snapshot(project) == before


def test_the_table_above_covers_every_flag_of_a_run() -> None:
    import typer

    from code_commit.cli.app import app

    flags = {opt for param in typer.main.get_command(app).params for opt in param.opts if opt.startswith("--")}
    assert flags - {"--quiet", "--verbose", "--help", "--version"} == set(FLAG_ARGS)
