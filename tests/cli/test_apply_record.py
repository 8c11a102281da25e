"""`code-commit apply` records how it ended in its run folder's summary.json, as a run does, on
every ending: its outcome and exit code from the exit table, the same document `--json` prints."""

from __future__ import annotations

import errno
import json
from pathlib import Path

import pytest

from code_commit.exits import BY_CODE, EXIT
from code_commit.logs.run_log import RunLog

from support import Project, git
from support.record import valid_record

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
GUARDED = "^^^.git/config\n[core]\n^^^end\n"


def tampering(project: Project) -> None:
    project.build_script("echo '# changed by the build' >> build.sh\ntest -f fixed.txt\n")
    project.commit_all()


@pytest.mark.parametrize(
    ("args", "answer", "setup", "code"),
    [
        (["apply", "--build"], FIX, None, EXIT.OK),
        (["apply"], GUARDED, None, EXIT.REFUSED),
        (["--sandbox", "off", "apply", "--build"], FIX, tampering, EXIT.TAMPERED),
    ],
    ids=["applied", "refused", "tampered"],
)
def test_apply_names_its_ending_in_summary_json(
    project: Project, cli, args: list[str], answer: str, setup, code: int
) -> None:
    if setup:
        setup(project)
    result = cli(*args, "--json", "-", input=answer)
    assert result.exit_code == code, result.stderr
    (run,) = project.run_dirs()
    record = valid_record((run / "summary.json").read_text())
    assert (record["outcome"], record["exit_code"]) == (BY_CODE[code].outcome, code)
    assert json.loads(result.stdout) == record, "--json prints the same record"
    assert record["log_dir"] == str(run)


def test_apply_whose_record_cannot_be_written_is_an_internal_error_with_its_traceback(
    project: Project, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = RunLog.write_file

    def write_file(self: RunLog, name: str, text: str) -> Path:
        if name == "summary.json":
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(self, name, text)

    monkeypatch.setattr(RunLog, "write_file", write_file)
    result = cli("apply", "--json", "-", input=FIX)
    assert result.exit_code == EXIT.INTERNAL, "applied, but its record is lost: not a clean ending"
    report = json.loads(result.stdout)
    assert (report["outcome"], report["exit_code"], report["applied"]) == ("internal_error", EXIT.INTERNAL, True)
    (run,) = project.run_dirs()
    assert "write_file" in (run / "traceback.txt").read_text()
    assert f"the traceback is in {run / 'traceback.txt'}" in result.stderr and "Traceback" not in result.stderr


def test_a_bug_in_apply_check_is_exit_9_with_its_json_report(
    project: Project, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--check takes no session: the command's last line of defence says it, with apply's report."""

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr("code_commit.cli.apply.checked_plan", broken)
    result = cli("apply", "--check", "--json", "-", input=FIX)
    assert result.exit_code == EXIT.INTERNAL
    report = json.loads(result.stdout)
    assert (report["outcome"], report["exit_code"], report["ok"]) == ("internal_error", EXIT.INTERNAL, False)
    assert report["dry_run"] is True and report["format"] == "caret"
    assert report["error"].startswith("internal error: RuntimeError: a bug") and "run with -v" in report["error"]
    assert "Traceback" not in result.stderr
    assert project.run_dirs() == [] and git(project.root, "status", "--porcelain") == ""
