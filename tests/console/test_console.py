"""The console: a live status view on a real pseudo-terminal, plain timestamped lines elsewhere and
in CI, NO_COLOR, -q and -v, and what start-up does not import."""

from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path

import pexpect
import pytest

from fakeapi import FakeAPI
from support import Project
from terminal import Spawner, spawn_process

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
COLOR = re.compile(r"\x1b\[(?:[0-9;]*;)?(?:3[0-9]|9[0-7]|38;[0-9;]+)m")  # SGR foreground colours
STAMPED = re.compile(r"^\d\d:\d\d:\d\d ")
DIFF_LINE = re.compile(r"diff --git |--- |\+\+\+ |@@ |[ +-]")


def demo_in_a_terminal(spawn: Spawner, target: Path, **env: str) -> str:
    """`code-commit demo` on a pseudo-terminal; returns everything it drew."""
    environment = {k: v for k, v in os.environ.items() if k not in ("CI", "NO_COLOR")}
    environment.update(TERM="xterm-256color", **env)
    child = spawn(["demo", "--dir", str(target)], env=environment, dimensions=(40, 160), timeout=120, encoding="utf-8")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    return child.before


def test_a_terminal_gets_the_live_status_view_in_colour(tmp_path: Path) -> None:
    """A real `python -m code_commit` process, not one forked from the fork server: start-up on a terminal."""
    drawn = demo_in_a_terminal(spawn_process, tmp_path / "demo")
    # The status line: step, attempt n of 4, elapsed time, tokens and cost so far.
    assert re.search(r"running build\.sh · attempt 1 of 4 · \d\d:\d\d · [\d,]+ in / [\d,]+ out tokens · \$0\.00", drawn)
    assert "asking scripted-demo-model" in drawn and "attempt 2 of 4" in drawn
    assert "\x1b[2K" in drawn, "the status line is redrawn in place"
    assert COLOR.search(drawn)
    assert "the build passes" in drawn


def test_no_color_turns_colour_off_in_the_live_view(tmp_path: Path, terminal: Spawner) -> None:
    drawn = demo_in_a_terminal(terminal, tmp_path / "demo", NO_COLOR="1")
    assert "attempt 1 of 4" in drawn and "\x1b[2K" in drawn, "still the live view"
    assert not COLOR.search(drawn)


def test_ci_gets_plain_timestamped_lines_even_on_a_terminal(tmp_path: Path, terminal: Spawner) -> None:
    drawn = demo_in_a_terminal(terminal, tmp_path / "demo", CI="true")
    assert "\x1b[" not in drawn
    lines = [line for line in drawn.replace("\r\n", "\n").split("\n") if line]
    # Timestamped lines, indented details, and the diffs (--diff, on in the demo) verbatim.
    assert all(STAMPED.match(line) or line.startswith("  ") or DIFF_LINE.match(line) for line in lines), lines
    assert any("build passes" in line for line in lines)


def test_plain_lines_when_not_a_terminal(project: Project, api: FakeAPI, cli) -> None:
    api.reply(FIX)
    result = cli()
    assert result.exit_code == 0
    lines = result.stderr.splitlines()
    assert lines and all(STAMPED.match(line) for line in lines)
    assert any("running build.sh" in line for line in lines) and "\x1b[" not in result.stderr


def test_quiet_shows_only_warnings_and_errors(project: Project, api: FakeAPI, cli) -> None:
    api.reply("^^^build.sh\nexit 0\n^^^end\n")
    api.reply(FIX)
    result = cli("-q")
    assert result.exit_code == 0
    assert [STAMPED.sub("", line) for line in result.stderr.splitlines()] == [
        "warning: answer refused, nothing was written:",
        "- 'build.sh': build.sh is a protected file",
    ]


def test_verbose_shows_the_answer_and_the_build_output(project: Project, api: FakeAPI, cli) -> None:
    project.build_script("echo checking the fix\ntest -f fixed.txt\n")
    api.reply("Adding the missing file.\n" + FIX)
    result = cli("-v")
    assert result.exit_code == 0
    assert "  Adding the missing file." in result.stderr and "^^^" not in result.stderr
    assert "  | checking the fix" in result.stderr
    api.reply(FIX)
    quiet = cli()
    assert "checking the fix" not in quiet.stderr and "Adding" not in quiet.stderr


HEAVY = (
    "rich",
    "code_commit.run.loop",
    "code_commit.apply.transaction",
    "code_commit.git.ignore",
    "anthropic",
    "httpx2",
    "tree_sitter",  # the rollup's outlines load it when a file is outlined, never before
)


@pytest.mark.parametrize("args", [["--help"], []])
def test_help_and_setup_errors_import_neither_rich_nor_the_run(project: Project, args: list[str]) -> None:
    """Start-up stays light: rich, the run's modules, the SDK and the ignore engine load only once
    the setup checks pass (the .gitignore check does not need the engine)."""
    (project.root / "build.sh").unlink()
    probe = (
        "import sys\n"
        "from code_commit.cli.app import main\n"
        f"sys.argv = ['code-commit', *{args!r}]\n"
        f"HEAVY = {HEAVY!r}\n"
        "try:\n    main()\nexcept SystemExit as exit:\n    code = exit.code\n"
        "heavy = sorted(m for m in HEAVY if m in sys.modules)\n"
        "print('EXIT', code, heavy, file=sys.stderr)\n"
    )
    # On a pseudo-terminal, where a run would get the live view.
    env = {k: v for k, v in os.environ.items() if k != "CI"} | {"TERM": "xterm-256color"}
    drawn = pexpect.run(f"{sys.executable} -c {shlex.quote(probe)}", cwd=str(project.root), env=env, encoding="utf-8")
    assert f"EXIT {0 if args else 2} []" in drawn


# Terminal escape injection: what the model writes, and what build.sh prints, is hostile input.
HOSTILE = "Explanation \x1b]52;c;ZWNobyBwd25lZA==\x07 and \x1b[2J\x1b[Hfake: build passes\rcover \u202eevil\n"
RAW = ("\x1b", "\x07", "\u202e", "\r")


def test_verbose_shows_the_answer_and_build_output_with_every_escape_visible(
    project: Project, api: FakeAPI, cli
) -> None:
    project.build_script("printf 'out \\033]0;title\\007 \\033[31mred\\033[0m\\r\\n'\ntest -f fixed.txt\n")
    api.reply(HOSTILE + FIX)
    result = cli("-v")
    assert result.exit_code == 0
    assert not [c for c in RAW if c in result.stderr], "no escape, BEL, CR or bidi override reaches the terminal"
    assert "  Explanation ␛]52;c;ZWNobyBwd25lZA==␇ and ␛[2J␛[Hfake: build passes" in result.stderr
    assert "cover <U+202E>evil" in result.stderr
    # The build's escape sequences are removed before anything reads its output; CRLF ends the line.
    assert "  | out  red\n" in result.stderr, "build output: no escapes; CRLF ends the line"


def test_the_live_view_shows_the_answer_with_every_escape_visible(project: Project, terminal: Spawner) -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("CI", "NO_COLOR")} | {"TERM": "xterm-256color"}
    with FakeAPI() as api:
        api.reply(HOSTILE + FIX)
        env |= {"ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": "sk-ant-test-live-view-0123456789"}
        child = terminal(["-v"], cwd=project.root, env=env, timeout=60, dimensions=(40, 200))
        child.expect(pexpect.EOF)
        child.close()
    drawn = child.before
    assert child.exitstatus == 0, drawn
    assert b"\x1b[2K" in drawn, "the live view ran"
    assert b"\x1b]52" not in drawn and b"\x1b[2J" not in drawn and b"\xe2\x80\xae" not in drawn
    assert "␛]52;c;ZWNobyBwd25lZA==␇".encode() in drawn


def test_a_dry_run_diff_on_a_terminal_shows_escapes_but_a_piped_one_is_the_exact_patch(
    project: Project, terminal: Spawner, cli
) -> None:
    answer = "^^^app.txt\nhello \x1b]52;c;ZWNobw==\x07 world\n^^^end\n"
    env = {k: v for k, v in os.environ.items() if k != "CI"} | {"TERM": "dumb"}
    with FakeAPI() as api:
        api.reply(answer)
        api.reply(answer)
        env |= {"ANTHROPIC_BASE_URL": api.url, "ANTHROPIC_API_KEY": "sk-ant-test-dry-run-0123456789"}
        child = terminal(["--dry-run", "-q"], cwd=project.root, env=env)
        child.expect(pexpect.EOF)
        child.close()
        shown = child.before
        piped = cli("--dry-run", "-q", env=env)  # in this process, its output a pipe: no terminal
    assert b"+hello \xe2\x90\x9b]52;c;ZWNobw==\xe2\x90\x87 world" in shown and b"\x1b" not in shown
    assert b"+hello \x1b]52;c;ZWNobw==\x07 world\n" in piped.stdout_bytes, "a patch for git apply: byte for byte"


def test_the_saved_answer_cannot_drive_a_terminal_and_the_raw_one_re_applies_exactly(
    project: Project, api: FakeAPI, cli
) -> None:
    """A model's answer with escape sequences was saved raw as NN-response.txt: `cat` of it ran them
    (cleared the screen, wrote "build passes", set the clipboard with OSC 52). It is saved with every
    control character shown as a symbol; the exact answer goes to NN-response.raw, which `apply` takes."""
    content = "colour \x1b[31mred\x1b[0m\n"
    api.reply(HOSTILE + f"^^^fixed.txt\n{content}^^^end\n")

    result = cli()

    assert result.exit_code == 0, result.stderr
    (run,) = project.run_dirs()
    shown = (run / "01-response.txt").read_text()
    assert not any(raw in shown for raw in RAW) and "\u241b[2J" in shown
    assert "\x1b" not in (run / "01-query.txt").read_text()
    raw = run / "01-response.raw"
    assert raw.read_bytes().decode() == HOSTILE + f"^^^fixed.txt\n{content}^^^end\n"
    assert project.read("fixed.txt") == content
    (project.root / "fixed.txt").unlink()
    assert cli("apply", str(raw)).exit_code == 0
    assert project.read("fixed.txt") == content, "the raw answer re-applies byte for byte"


def test_an_answer_without_control_characters_has_no_raw_copy(project: Project, api: FakeAPI, cli) -> None:
    api.reply(FIX)
    assert cli().exit_code == 0
    (run,) = project.run_dirs()
    assert (run / "01-response.txt").read_text() == FIX and not (run / "01-response.raw").exists()
