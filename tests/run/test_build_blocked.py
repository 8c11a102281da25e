"""A build the sandbox keeps from running stops the run before its next paid call: the baseline build,
before any answer, finds it, so no model call at all, exit 11, and the cause, the command and the fix
on the console, in run.log and in the record.
An ordinary failing build is still repaired. Through the real loop, the real SDK, the fake service
and bubblewrap."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from code_commit.exits import EXIT

from fakeapi import FakeAPI
from support import Project
from support.record import valid_record

if shutil.which("bwrap") is None and not (os.environ.get("CI") or os.environ.get("REQUIRE_SANDBOX_TESTS")):
    pytest.skip("bubblewrap (bwrap) is not installed here", allow_module_level=True)

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
PYTHON = os.path.realpath(sys.executable)  # not the venv's link: a venv under /tmp is hidden from builds


@pytest.fixture
def tool_under_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A tool the user keeps in a folder under the host's /tmp, on their PATH: builds cannot see it."""
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "lint-all").write_text("#!/bin/sh\necho linted\n")
    (tools / "lint-all").chmod(0o755)
    monkeypatch.setenv("PATH", f"{tools}:{os.environ['PATH']}")
    return tools


def test_a_build_the_sandbox_keeps_from_running_ends_the_run_before_any_call(
    project: Project, api: FakeAPI, cli, tool_under_tmp: Path
) -> None:
    """Before: four paid calls, the console saying only "build.sh exited with code 127", `error` null."""
    project.build_script("set -e\nlint-all\ntest -f fixed.txt\n")
    project.commit_all()
    for _ in range(4):
        api.reply(FIX)

    result = cli("--json", "--sandbox", "require")

    assert result.exit_code == EXIT.BUILD_BLOCKED == 11, result.stderr
    assert api.requests == [], "no call was made: the baseline build found it"
    record = json.loads(result.stdout)
    fix = f'sandbox_readable = ["{tool_under_tmp}"] in agent-config/config.toml'
    assert record["outcome"] == "build_blocked" and record["attempts"] == 0
    assert record["error"].startswith(f"the build could not find lint-all: it is at {tool_under_tmp}/lint-all")
    assert fix in record["error"] and record["error"] in result.stderr
    assert record["diagnosis"] == {
        "kind": "hidden",
        "subject": f"{tool_under_tmp}/lint-all",
        "cause": record["error"].split(". Fix: ")[0],
        "fix": record["error"].split(". Fix: ")[1],
        "evidence": "./build.sh: 3: lint-all: not found",
    }
    run_log = (Path(record["log_dir"]) / "run.log").read_text()
    assert f"call 0: kept from running: {record['error']}" in run_log
    assert "read from this line of its output: ./build.sh: 3: lint-all: not found" in run_log
    assert valid_record((Path(record["log_dir"]) / "summary.json").read_text()) == record


def test_with_the_setting_it_names_the_same_build_runs_and_is_repaired(
    project: Project, api: FakeAPI, cli, tool_under_tmp: Path
) -> None:
    project.build_script("set -e\nlint-all\ntest -f fixed.txt\n")
    project.write("agent-config/config.toml", f'sandbox_readable = ["{tool_under_tmp}"]\n')
    project.commit_all()
    api.reply("^^^app.txt\nnot the fix\n^^^end\n")
    api.reply(FIX)

    result = cli("--json", "--sandbox", "require")

    assert result.exit_code == EXIT.OK, result.stderr
    assert len(api.requests) == 2 and json.loads(result.stdout)["diagnosis"] is None


def test_an_ordinary_failing_test_is_still_repaired(project: Project, api: FakeAPI, cli) -> None:
    """A real unittest failure, which the diagnosis must leave to the model."""
    project.write(
        "test_app.py",
        "import pathlib, unittest\n\n\nclass AppTest(unittest.TestCase):\n    def test_fixed(self):\n"
        "        self.assertEqual(pathlib.Path('fixed.txt').read_text(), 'fixed\\n')\n",
    )
    project.build_script(f"{PYTHON} -B -m unittest -v test_app\n")
    project.commit_all()
    api.reply("^^^fixed.txt\nbroken\n^^^end\n")
    api.reply(FIX)

    result = cli("--json", "--sandbox", "require")

    assert result.exit_code == EXIT.OK, result.stderr
    assert len(api.requests) == 2
    assert "AssertionError: 'broken\\n' != 'fixed\\n'" in api.requests[1].prompt_text, "the repair saw the failure"
    shown = result.stderr.split("build fails: ", 1)[1].split("call 2/", 1)[0]
    assert "  | AssertionError: 'broken\\n' != 'fixed\\n'" in shown, "the console says why, not only the exit code"


def test_apply_build_kept_from_running_exits_11_with_the_fix(project: Project, cli, tool_under_tmp: Path) -> None:
    project.build_script("set -e\nlint-all\n")
    project.commit_all()

    result = cli("--sandbox", "require", "apply", "--build", "--json", "-", input=FIX)

    assert result.exit_code == EXIT.BUILD_BLOCKED, result.output
    record = json.loads(result.stdout)
    assert record["applied"] and record["outcome"] == "build_blocked"
    assert f'sandbox_readable = ["{tool_under_tmp}"]' in record["error"] and record["diagnosis"]["kind"] == "hidden"


# The honest ones: a failure no answer can fix ends the run before any call, with the cause and the fix.


def answered_with_the_fix(project: Project, api: FakeAPI, cli) -> tuple[Any, dict[str, Any]]:
    """A sandboxed run of the project, committed, whose every answer is the fix: its result and record."""
    project.commit_all()
    for _ in range(4):
        api.reply(FIX)
    result = cli("--json", "--sandbox", "require")
    return result, json.loads(result.stdout)


def blocked(project: Project, api: FakeAPI, cli) -> dict[str, Any]:
    """A run of the project whose build no answer can fix: exit 11 from the baseline build, before any
    call, the diagnosis on the console; its record."""
    result, record = answered_with_the_fix(project, api, cli)
    assert result.exit_code == EXIT.BUILD_BLOCKED, result.stderr
    assert api.requests == [], "no call was made: the baseline build found it"
    assert record["error"] in result.stderr
    return record


def test_a_program_build_sh_runs_off_the_builds_path_ends_the_run_with_where_it_is(
    project: Project, api: FakeAPI, cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """cron's PATH lacks ~/.local/bin, where the tool is: before, three paid repairs of "exit code 127"."""
    home = tmp_path / "home"
    (home / ".local" / "bin").mkdir(parents=True)
    (home / ".local" / "bin" / "lint-all").write_text("#!/bin/sh\necho linted\n")
    (home / ".local" / "bin" / "lint-all").chmod(0o755)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", "/usr/bin:/bin")  # cron's
    project.build_script("set -e\nlint-all\ntest -f fixed.txt\n")

    record = blocked(project, api, cli)

    assert record["diagnosis"]["kind"] == "missing" and record["diagnosis"]["subject"] == "lint-all"
    assert "it is at ~/.local/bin/lint-all" in record["error"]
    assert "PATH=~/.local/bin:/usr/bin:/bin code-commit" in record["diagnosis"]["fix"]


def test_a_fresh_clone_without_node_modules_ends_the_run_with_the_install(project: Project, api: FakeAPI, cli) -> None:
    """`jest: not found` in a clone never installed: the cause is node_modules/, not the code."""
    if shutil.which("npm") is None:
        pytest.skip("npm is not installed")
    project.write("package.json", '{"name": "app", "version": "1.0.0", "scripts": {"test": "jest --ci"}}\n')
    project.build_script("set -e\nnpm test\ntest -f fixed.txt\n")

    record = blocked(project, api, cli)

    assert record["diagnosis"]["subject"] == "node_modules" and "`npm install`" in record["diagnosis"]["fix"]
    assert record["diagnosis"]["evidence"] == "sh: 1: jest: not found"


def test_a_build_that_starts_a_sandbox_of_its_own_is_diagnosed_with_the_setting_that_runs_it(
    project: Project, api: FakeAPI, cli
) -> None:
    """code-commit's own build runs its sandbox tests, which start bwrap. Run as root, the sandbox
    drops the capabilities a nested one needs (probe: nested.py), and no answer can change it; as an
    ordinary user, bwrap nests, and the build runs and is repaired as any other."""
    bwrap = shutil.which("bwrap")
    nested = f"{bwrap} --ro-bind / / --dev /dev --unshare-pid --proc /proc --unshare-net -- true"
    project.build_script(f"set -e\n{nested}\ntest -f fixed.txt\n")
    if os.geteuid() != 0:
        result, record = answered_with_the_fix(project, api, cli)
        assert result.exit_code == EXIT.OK and record["diagnosis"] is None, result.stderr
        return

    record = blocked(project, api, cli)

    assert record["diagnosis"]["kind"] == "namespaces"
    assert 'sandbox = "off"' in record["diagnosis"]["fix"] and "ordinary user" in record["diagnosis"]["fix"]
    assert "code-commit's own probe there: bwrap:" in record["diagnosis"]["cause"]
    project.write("fixed.txt", "fixed\n")  # what the answer would have written: the run ended before any call
    off = cli("--sandbox", "off", "check")  # the setting it names runs it: with the fix in place, it passes
    assert off.exit_code == EXIT.OK, off.output


# The attacker's: lines the model's code prints to end the run with a fix that hands the build more.

FORGED = {
    "path folder": "OSError: [Errno 30] Read-only file system: '{home}/.local/bin/git'",
    "git config": "OSError: [Errno 30] Read-only file system: '{home}/.config/git/config'",
    "start-up file": "OSError: [Errno 30] Read-only file system: '{home}/.bashrc'",
    "autostart": "OSError: [Errno 30] Read-only file system: '{home}/.config/autostart/x.desktop'",
    "npmrc": "OSError: [Errno 30] Read-only file system: '{home}/.npmrc'",
    "host name": "npm error code EAI_AGAIN\nnpm error getaddrinfo EAI_AGAIN attacker.example.com",
}


@pytest.mark.parametrize("name", sorted(FORGED))
def test_a_forged_line_does_not_end_the_run_the_model_gets_the_next_call(
    project: Project, api: FakeAPI, cli, name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: exit 11 on the first build, with sandbox_writable for the path (or sandbox_network):
    the model's code chose both the run's end and the user's next setting."""
    home = tmp_path / "home"
    for folder in (".local/bin", ".config/git", ".config/autostart"):
        (home / folder).mkdir(parents=True)
    for file in (".bashrc", ".npmrc", ".local/bin/git", ".config/git/config"):
        (home / file).write_text("")
    monkeypatch.setenv("HOME", str(home))
    project.write("forged.txt", FORGED[name].format(home=home) + "\n")
    project.build_script("cat forged.txt\ntest -f fixed.txt\n")
    project.commit_all()
    api.reply("^^^app.txt\nnot the fix\n^^^end\n")
    api.reply(FIX)

    result = cli("--json", "--sandbox", "require")

    assert result.exit_code == EXIT.OK, result.stderr
    assert len(api.requests) == 2, "the repair was asked for"
    assert "sandbox_writable" not in result.stderr and "sandbox_network" not in result.stderr


def test_a_tool_in_a_tmp_folder_holding_a_socket_is_diagnosed_without_showing_that_folder(
    project: Project, api: FakeAPI, cli, tool_under_tmp: Path
) -> None:
    """The folder the tool is in also holds an agent's socket: sandbox_readable would hand it to builds."""
    import socket

    with socket.socket(socket.AF_UNIX) as agent:
        agent.bind(str(tool_under_tmp / "agent.sock"))
        project.build_script("set -e\nlint-all\ntest -f fixed.txt\n")
        project.commit_all()
        api.reply(FIX)

        result = cli("--json", "--sandbox", "require")

    assert result.exit_code == EXIT.BUILD_BLOCKED, result.stderr
    record = json.loads(result.stdout)
    assert record["diagnosis"]["kind"] == "hidden" and "sandbox_readable" not in record["diagnosis"]["fix"]
    assert "holds a Unix socket" in record["diagnosis"]["fix"]


def test_after_tampering_the_advice_runs_neither_a_planted_git_nor_a_planted_fsmonitor(
    project: Project, api: FakeAPI, cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The old advice's settings made ~/.local/bin and git's global config writable; the build planted a
    `git` there and a core.fsmonitor command, and the message said `git status`, which ran both."""
    home, out, config = tmp_path / "home", tmp_path / "out", tmp_path / "xdg" / "git"
    for folder in (home / ".local" / "bin", out, config):
        folder.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config.parent))
    monkeypatch.delenv("GIT_CONFIG_GLOBAL")  # the user's global config is git's own: ~/.gitconfig, $XDG_CONFIG_HOME/git
    monkeypatch.setenv("PATH", f"{home / '.local' / 'bin'}{os.pathsep}{os.environ['PATH']}")
    planted = f'#!/bin/sh\\ntouch {out}/PLANTED-GIT-RAN\\nexec {shutil.which("git")} "$@"\\n'
    project.build_script(
        f"printf '{planted}' > {home}/.local/bin/git && chmod +x {home}/.local/bin/git\n"
        f"printf '[core]\\n\\tfsmonitor = touch {out}/FSMONITOR-RAN\\n' >> {config}/config\n"
        "echo a change >> app.txt\n"
        "exit 1\n"
    )
    project.write("agent-config/config.toml", f'sandbox_writable = ["{home}/.local/bin", "{config}"]\n')
    project.commit_all()
    api.reply(FIX)

    result = cli("--json", "--sandbox", "require")

    assert result.exit_code == EXIT.TAMPERED, result.stderr
    record = json.loads(result.stdout)
    assert f"{config}/config (created)" in record["tampered"], record["tampered"]
    assert (home / ".local" / "bin" / "git").exists(), "the build planted it"
    advice = re.search(r"To see the rest of the tree: (\S+ -c core\.fsmonitor=false status)", record["error"])
    assert advice is not None, record["error"]
    assert "git's config" in record["error"], "it says to restore the config first"
    subprocess.run(advice.group(1).split(), cwd=project.root, check=True, capture_output=True)  # as the user would
    assert sorted(p.name for p in out.iterdir()) == [], "the advice ran what the build planted"
    assert "git status" not in record["error"].replace("a plain `git status`", "")


@pytest.mark.parametrize("ignored", [True, False])
def test_a_generated_module_a_fresh_clone_lacks_ends_the_run_only_where_git_ignores_it(
    project: Project, api: FakeAPI, cli, ignored: bool
) -> None:
    """setuptools-scm's version file: the package imports it, git ignores it, a clone has none. Not
    ignored, a missing module is the code's own failure (the model may write it)."""
    project.write("pkg/__init__.py", "from pkg._version import version\n")
    if ignored:
        project.write(".gitignore", "/agent-config\npkg/_version.py\n")
    project.build_script(f"set -e\n{PYTHON} -B -c 'import pkg'\ntest -f fixed.txt\n")
    if not ignored:
        result, record = answered_with_the_fix(project, api, cli)
        assert result.exit_code == EXIT.BUILD_FAILS and record["diagnosis"] is None, result.stderr
        assert len(api.requests) == 4, "each repair was asked for"
        return

    record = blocked(project, api, cli)

    assert record["diagnosis"]["subject"] == "pkg/_version.py" and "pip install -e ." in record["diagnosis"]["fix"]
