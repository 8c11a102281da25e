"""The session a run and `code-commit apply` share (`session.session`): its ending is recorded and
said the same way however it comes, an error in its own first steps (the recovery) included."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from code_commit.apply.journal import MANIFEST

from fakeapi import FakeAPI
from interrupted import interrupt_an_apply
from support import Project, git
from support.record import valid_record

FIX = "^^^fixed.txt\nfixed\n^^^end\n"


def test_apply_over_a_journal_that_cannot_be_undone_exits_8_and_records_why(
    with_build_txt: Project,
    cli,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = with_build_txt
    journal = interrupt_an_apply(project, monkeypatch)
    manifest = json.loads((journal / MANIFEST).read_text())
    (journal / manifest["entries"][0]["saved"]).unlink()
    result = cli("apply", "--json", "-", input=FIX)
    assert result.exit_code == 8, result.stderr
    report = json.loads(result.stdout)
    assert report["applied"] is False and "could not be undone" in report["error"]
    assert not (project.root / "fixed.txt").exists(), "nothing is applied over a half-applied tree"
    run = Path(report["log_dir"])
    assert f"apply ended: {report['error']}" in (run / "run.log").read_text(), "the run folder says how it ended"
    assert (journal / MANIFEST).exists(), "the journal is kept for a later recover"


@pytest.mark.parametrize("command", [["--json"], ["apply", "-"]])
def test_an_unexpected_exception_in_the_recovery_is_exit_9_with_its_traceback(
    project: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch, command: list[str]
) -> None:
    def unreadable_logs(*args: object, **kwargs: object) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", "agent-config/logs")

    monkeypatch.setattr("code_commit.run.session.recover", unreadable_logs)
    api.reply(FIX)
    result = cli(*command, input=FIX)
    assert result.exit_code == 9, result.stderr
    assert "internal error: PermissionError" in result.stderr and "Traceback" not in result.stderr
    (run,) = project.run_dirs()
    assert "unreadable_logs" in (run / "traceback.txt").read_text(), "the traceback of the cause, in the run folder"
    if command == ["--json"]:
        assert json.loads(result.stdout) == valid_record((run / "summary.json").read_text())
        assert json.loads(result.stdout)["outcome"] == "internal_error"
    assert api.requests == [] and git(project.root, "status", "--porcelain") == ""
    assert cli("recover").exit_code == 0, "the session let go of the lock"  # recover takes it too
