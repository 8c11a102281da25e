"""Every change a build makes to the files git shows is reported, never silent, and
`--revert-on-failure` puts those files back too. Through the real loop, the real SDK and the fake
service, in the sandbox and out of it.

The audit's attack: a build edited README.md (an encoded token in a comment) and the tests. The
record listed only the answer's file, and `--revert-on-failure` said `reverted: true` while
leaving those edits."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest

from fakeapi import FakeAPI
from support import Project
from support.sandbox import require_bwrap

require_bwrap()

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
WRONG = "^^^wrong.txt\nnope\n^^^end\n"
SANDBOXES = ["require", "off"]
# The model's code, run by the build: edits beyond the answer.
EDITS = (
    "echo '<!-- ZXhmaWx0cmF0ZWQ= -->' >> README.md\n"
    "echo 'def test(): pass' > tests/test_app.py\n"
    "echo generated > notes.txt\n"
    "mkdir -p build && echo cache > build/out.o\n"  # ignored: not the supervisor's to review
)


@pytest.fixture
def tree(project: Project) -> Project:
    project.write(".gitignore", "/agent-config\n/build\n")
    project.write("README.md", "# readme\n")
    project.write("tests/test_app.py", "def test(): assert 1 + 1 == 2\n")
    project.commit_all()
    return project


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_what_the_build_changed_beyond_the_answer_is_in_the_record_the_log_and_the_console(
    tree: Project, api: FakeAPI, cli, sandbox: str
) -> None:
    tree.build_script(EDITS + "test -f fixed.txt\n")
    tree.commit_all()
    api.reply(FIX)

    result = cli("--json", "--sandbox", sandbox, "--tests", "report")  # protect stops a build that hollows a test

    assert result.exit_code == 0, result.stderr
    record = json.loads(result.stdout)
    changed = ["README.md (changed)", "notes.txt (created)", "tests/test_app.py (changed)"]
    assert record["build_changed"] == changed
    assert [(c["path"], c["by"]) for c in record["tests_changed"]] == [("tests/test_app.py", "build")]
    assert record["files_changed"] == ["fixed.txt"]  # the answer's, apart
    (run,) = tree.run_dirs()
    log = (run / "run.log").read_text()
    assert "the build changed files git shows, beyond the answer: " + ", ".join(changed) in log
    assert "the build changed 3 files git shows, beyond the answer" in result.stderr


def test_revert_on_failure_puts_back_what_the_build_changed_and_keeps_the_user_s_work(
    tree: Project, api: FakeAPI, cli
) -> None:
    tree.build_script(EDITS + "echo 'overwritten' > draft.md\nrm -f doomed.txt\nexit 1\n")
    tree.write("doomed.txt", "tracked, deleted by the build\n")
    tree.commit_all()
    tree.write("README.md", "# readme\nthe user's own edit, not committed\n")
    tree.write("draft.md", "an untracked draft, the user's\n")
    for _ in range(4):
        api.reply(WRONG)

    result = cli("--json", "--revert-on-failure")

    assert result.exit_code == 1, result.stderr  # its write to the test failed: the sandbox keeps it read-only
    record = json.loads(result.stdout)
    assert record["reverted"] is True
    assert record["build_changed"] == [
        "README.md (changed)",
        "doomed.txt (deleted)",
        "draft.md (changed)",
        "notes.txt (created)",
    ]
    assert tree.read("README.md") == "# readme\nthe user's own edit, not committed\n"
    assert tree.read("draft.md") == "an untracked draft, the user's\n"
    assert tree.read("doomed.txt") == "tracked, deleted by the build\n"
    assert tree.read("tests/test_app.py") == "def test(): assert 1 + 1 == 2\n"
    assert not (tree.root / "notes.txt").exists() and not (tree.root / "wrong.txt").exists()
    assert (tree.root / "build" / "out.o").exists(), "what git ignores is not the run's to put back"


def test_a_change_that_could_not_be_kept_is_named_and_revert_says_so(
    tree: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An untracked file is given back only from a copy kept before the build, within KEEP_BYTES."""
    from code_commit.builds.changes import BuildWatch
    from code_commit.run import orchestrator

    monkeypatch.setattr(orchestrator, "BuildWatch", functools.partial(BuildWatch, keep_bytes=10))
    tree.build_script("echo rewritten > data.csv\nexit 1\n")
    tree.commit_all()
    tree.write("data.csv", "a,b,c\n" * 10)  # untracked, not ignored: git status shows it
    for _ in range(4):
        api.reply(WRONG)

    result = cli("--json", "--revert-on-failure")

    record = json.loads(result.stdout)
    assert record["build_changed"] == ["data.csv (changed)"] and record["reverted"] is False
    assert "could not revert data.csv: the build changed it, and no copy of it was kept" in result.stderr


def test_apply_build_reports_what_the_build_changed(tree: Project, cli, tmp_path: Path) -> None:
    tree.build_script("echo formatted >> README.md\ntest -f fixed.txt\n")
    tree.commit_all()
    answer = tmp_path / "answer.txt"
    answer.write_text(FIX)
    result = cli("apply", "--build", "--json", str(answer))
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["build_changed"] == ["README.md (changed)"]


def test_a_formatter_that_leaves_the_bytes_as_they_were_is_no_change(tree: Project, api: FakeAPI, cli) -> None:
    tree.build_script("cp README.md r.tmp && cat r.tmp > README.md && rm r.tmp\ntest -f fixed.txt\n")
    tree.commit_all()
    api.reply(FIX)
    result = cli("--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["build_changed"] == []
    assert "beyond the answer" not in result.stderr
