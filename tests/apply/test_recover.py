"""Crash recovery and the guard's settings, through `code-commit`: `recover`, a run's start, exit codes."""

from __future__ import annotations

import errno
import json

import pytest

from code_commit.apply.journal import MANIFEST
from code_commit.files import confined as tree_module

from fakeapi import FakeAPI
from interrupted import interrupt_an_apply
from support import Project, git

FIX = "^^^fixed.txt\nfixed\n^^^end\n"


def test_recover_with_nothing_to_do(project: Project, cli) -> None:
    result = cli("recover")
    assert result.exit_code == 0
    assert "nothing to recover" in result.stderr


def test_recover_undoes_an_interrupted_apply(with_build_txt: Project, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    project = with_build_txt
    journal = interrupt_an_apply(project, monkeypatch)
    result = cli("recover")
    assert result.exit_code == 0, result.stderr
    assert f"undone from {journal}" in result.stderr
    assert "restored app.txt" in result.stderr and "removed new/made.txt" in result.stderr
    assert git(project.root, "status", "--porcelain") == "", "the tree is exactly as committed"
    assert not journal.exists()
    assert "nothing to recover" in cli("recover").stderr


def test_a_run_recovers_before_its_first_model_call(
    with_build_txt: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = with_build_txt
    interrupt_an_apply(project, monkeypatch)
    api.reply(FIX)
    result = cli()
    assert result.exit_code == 0, result.stderr
    assert "warning: recovery: restored app.txt" in result.stderr
    assert result.stderr.index("recovery:") < result.stderr.index("call 1/")
    assert git(project.root, "status", "--porcelain") == "?? fixed.txt\n"
    run = project.run_dirs()[-1]
    assert "recovery: an apply was interrupted" in (run / "run.log").read_text()


def test_a_journal_that_cannot_be_undone_stops_the_run_with_exit_8(
    with_build_txt: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = with_build_txt
    journal = interrupt_an_apply(project, monkeypatch)
    manifest = json.loads((journal / MANIFEST).read_text())
    (journal / manifest["entries"][0]["saved"]).unlink()
    result = cli()
    assert result.exit_code == 8
    assert "could not be undone" in result.stderr and "code-commit recover" in result.stderr
    assert api.requests == [], "nothing is sent to the model over a half-applied tree"
    assert cli("recover").exit_code == 8
    assert (journal / MANIFEST).exists(), "the journal is kept for a later recover"


def test_a_write_failing_mid_apply_changes_nothing_and_tells_the_model(
    project: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_rename = tree_module.Syscalls.rename
    renames = []

    def rename(*args, **kwargs):
        renames.append(args)
        if len(renames) == 3:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_rename(*args, **kwargs)

    monkeypatch.setattr(tree_module.SYSCALLS, "rename", rename)
    api.reply("^^^app.txt\nchanged\n^^^end\n^^^b.txt\nb\n^^^end\n^^^c.txt\nc\n^^^end\n")
    api.reply(FIX)
    result = cli()
    assert result.exit_code == 0, result.stderr
    assert project.read("app.txt") == "hello\n" and not (project.root / "b.txt").exists()
    repair = api.requests[1].prompt_text
    assert "applying the answer failed (b.txt: No space left on device); nothing was changed" in repair
    assert [p.name for p in project.run_dirs()[-1].iterdir() if p.name.endswith("journal")] == []


def test_protected_patterns_from_the_config_file(project: Project, api: FakeAPI, cli) -> None:
    project.write("agent-config/config.toml", 'protected_patterns = [".github/workflows/**", ".env*"]\n')
    api.reply("^^^.github/workflows/ci.yml\non: push\n^^^end\n^^^.ENV\nKEY=1\n^^^end\n")
    api.reply(FIX)
    assert cli().exit_code == 0
    refused = (project.run_dirs()[-1] / "01-refused.txt").read_text()
    assert "'.github/workflows/ci.yml': it matches the protected pattern '.github/workflows/**'" in refused
    assert "'.ENV': it matches the protected pattern '.env*'" in refused
    assert not (project.root / ".github").exists()


def test_protected_patterns_from_the_environment(project: Project, api: FakeAPI, cli) -> None:
    api.reply("^^^secrets/key.pem\nx\n^^^end\n")
    api.reply(FIX)
    result = cli(env={"CODE_COMMIT_PROTECTED_PATTERNS": "*.pem, secrets/"})
    assert result.exit_code == 0
    assert "protected pattern" in (project.run_dirs()[-1] / "01-refused.txt").read_text()


def test_a_protected_pattern_that_can_never_match_is_a_setup_error(project: Project, api: FakeAPI, cli) -> None:
    project.write("agent-config/config.toml", 'protected_patterns = ["secrets["]\n')
    result = cli()
    assert result.exit_code == 2
    assert "protected_patterns" in result.stderr and "unterminated" in result.stderr
    assert api.requests == []


def test_invalid_ignore_lines_are_shown_and_logged_once(project: Project, api: FakeAPI, cli) -> None:
    project.write(".gitignore", "/agent-config\n[oops\n")
    project.commit_all()
    api.reply("^^^a.txt\na\n^^^end\n")
    api.reply(FIX)
    result = cli()
    assert result.exit_code == 0
    warning = ".gitignore:2: pattern '[oops' is skipped, as git skips it"
    assert result.stderr.count(warning) == 1
    assert warning in (project.run_dirs()[-1] / "run.log").read_text()
