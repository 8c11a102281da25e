"""The repair corpus (bench/repair/vendor/): every task is read by the loader, carries its project's
licence, fits the size bound, and its known fix touches no test, by code-commit's own testguard. A bad
task.toml is an error naming the file and the key. (That each build fails as broken and passes with
its fix is what the scripted mode checks: tests/bench/test_repair_modes.py, and .ci/run's corpus step.)"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from bench.repair.task import ECOSYSTEMS, FIX, PROJECT, TASKS, TaskError, load_task, load_tasks
from code_commit.config.paths import CONFIG_DIR
from code_commit.testguard.files import TestPaths
from code_commit.testguard.rule import judge_answer

MAX_TASK_BYTES = 300_000  # a snapshot is the files the build needs, small enough to vendor
LICENCE_NAMES = ("LICENSE", "LICENCE", "COPYING")
CORPUS = load_tasks()
IDS = [task.id for task in CORPUS]


def test_the_corpus_has_what_the_issue_asks_of_this_part() -> None:
    """At least 12 repairable Python and Node tasks across pip, uv, npm and pnpm, and impossible tasks."""
    ours = [t for t in CORPUS if t.ecosystem.startswith(("python-", "node-"))]
    assert len([t for t in ours if not t.impossible]) >= 12
    assert {"python-pip", "python-uv", "node-npm", "node-pnpm"} <= {t.ecosystem for t in ours}
    assert len([t for t in CORPUS if t.impossible]) >= 2
    assert {t.break_kind for t in CORPUS} >= {"history", "mutation", "impossible"}


@pytest.mark.parametrize("task", CORPUS, ids=IDS)
def test_each_task_is_a_vendorable_snapshot_with_its_licence(task) -> None:
    project = task.project_dir
    names = [p.name for p in project.iterdir()]
    assert any(name.upper().startswith(LICENCE_NAMES) for name in names), f"{task.id}: no licence file in project/"
    assert ".git" not in names and CONFIG_DIR not in names  # the bench makes the repository and agent-config/
    build = project / "build.sh"
    assert os.access(build, os.X_OK), f"{task.id}: build.sh is not executable"
    text = build.read_text(encoding="utf-8")
    assert text.startswith("#!/bin/sh\n") and "set -eu" in text
    size = sum(p.stat().st_size for p in task.folder.rglob("*") if p.is_file())
    assert 0 < size <= MAX_TASK_BYTES, f"{task.id}: {size:,} bytes"
    for path in task.delete:
        assert (project / path).is_file(), f"{task.id}: delete names {path}, which project/ lacks"
    assert task.ecosystem in ECOSYSTEMS and task.id.startswith(task.ecosystem + "-")


REPAIRABLE = [task for task in CORPUS if not task.impossible]


@pytest.mark.parametrize("task", REPAIRABLE, ids=[task.id for task in REPAIRABLE])
def test_each_fix_changes_no_test_and_no_runner_configuration(task) -> None:
    """By code-commit's own rule (testguard): the fix is one the default `tests = "protect"` accepts."""
    proposed: dict[str, bytes | None] = {fix.path: fix.content.encode() for fix in task.fix}
    proposed.update(dict.fromkeys(task.delete))
    judged = judge_answer(task.project_dir, proposed, (), TestPaths())
    assert judged.changes == () and judged.new_tests == () and judged.unanswered is None, judged
    for fix in task.fix:  # each fix file changes what the snapshot holds
        original = task.project_dir / fix.path
        assert not original.exists() or original.read_text(encoding="utf-8") != fix.content, fix.path


# --- the loader: every bad task.toml is named, by file and key ---

GOOD = """\
id = "python-pip-demo-x"
ecosystem = "python-pip"
project = "demo"
upstream = "https://example.invalid/demo"
commit = "0123456"
licence = "MIT"
break = "mutation"
break_source = "a.py: + made -"
query = "The tests fail; fix a.py."
expect = "pass"
delete = []
tests = ["test_a.py"]
"""


def write_task(
    root: Path, toml: str = GOOD, fix: dict[str, str] | None = None, name: str = "python-pip-demo-x"
) -> Path:
    folder = root / name
    (folder / PROJECT).mkdir(parents=True)
    (folder / PROJECT / "a.py").write_text("x = 1 - 1\n")
    for path, content in ({"a.py": "x = 1 + 1\n"} if fix is None else fix).items():
        (folder / FIX / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / FIX / path).write_text(content)
    (folder / "task.toml").write_text(toml)
    return folder


def test_a_good_task_loads_as_a_typed_frozen_record_and_answers_its_fix(tmp_path: Path) -> None:
    task = load_task(write_task(tmp_path))
    assert (task.id, task.break_kind, task.expect) == ("python-pip-demo-x", "mutation", "pass")
    assert task.tests == ("test_a.py",) and task.impossible is False
    assert task.answer() == "^^^a.py\nx = 1 + 1\n^^^end\n"
    with pytest.raises(AttributeError):
        task.id = "other"  # type: ignore[misc]


def replaced(old: str, new: str) -> str:
    assert old in GOOD
    return GOOD.replace(old, new)


@pytest.mark.parametrize(
    ("toml", "fix", "named"),
    [
        ("id = [", None, "cannot be read as TOML"),
        (replaced('licence = "MIT"\n', ""), None, "key 'licence' is missing"),
        (replaced('licence = "MIT"', "licence = 3"), None, "key 'licence' must be a non-empty string"),
        (replaced('query = "The tests fail; fix a.py."', 'query = "  "'), None, "key 'query' must be a non-empty"),
        (GOOD + 'hint = "x"\n', None, "unknown key 'hint'"),
        (replaced('ecosystem = "python-pip"', 'ecosystem = "cobol"'), None, "key 'ecosystem' is 'cobol'"),
        (replaced('break = "mutation"', 'break = "rewrite"'), None, "key 'break' is 'rewrite'"),
        (replaced('id = "python-pip-demo-x"', 'id = "python-pip-other"'), None, "key 'id' is 'python-pip-other'"),
        (replaced('expect = "pass"', 'expect = "needs_human"'), None, "key 'expect' is 'needs_human'"),
        (replaced('tests = ["test_a.py"]', "tests = []"), None, "key 'tests' is empty"),
        (replaced('tests = ["test_a.py"]', "tests = [1]"), None, "key 'tests' must be a list of non-empty strings"),
        (replaced("delete = []", 'delete = ["../x"]'), None, "key 'delete' holds '../x'"),
        (replaced("delete = []", 'delete = ["/etc/x"]'), None, "key 'delete' holds '/etc/x'"),
        (GOOD, {}, "fix/ is empty and key 'delete' too"),
        (GOOD, {"a.py": "x = 2"}, "fix/a.py does not end with a newline"),
        (GOOD, {"a.py": "^^^end\n"}, "fix/a.py has a line beginning with ^^^"),
        (
            replaced('break = "mutation"', 'break = "impossible"').replace('"pass"', '"needs_human"'),
            None,
            "an impossible task has no fix",
        ),
    ],
)
def test_each_bad_task_toml_is_an_error_naming_the_file_and_the_key(tmp_path: Path, toml, fix, named) -> None:
    folder = write_task(tmp_path, toml, fix)
    with pytest.raises(TaskError) as error:
        load_task(folder)
    assert str(error.value).startswith(f"{folder / 'task.toml'}: ") and named in str(error.value)


def test_a_fix_that_is_not_text_or_a_task_without_its_project_is_named(tmp_path: Path) -> None:
    folder = write_task(tmp_path)
    (folder / FIX / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\xff\xfe")
    with pytest.raises(TaskError, match=r"fix/logo.png is not UTF-8 text"):
        load_task(folder)
    other = write_task(tmp_path, name="python-pip-demo-y", toml=GOOD.replace("demo-x", "demo-y"))
    shutil.rmtree(other / PROJECT)
    with pytest.raises(TaskError, match=r"python-pip-demo-y/task.toml: the task has no project/ folder"):
        load_task(other)


def test_asking_for_a_task_the_corpus_lacks_is_an_error_not_a_smaller_run(tmp_path: Path) -> None:
    write_task(tmp_path)
    assert [t.id for t in load_tasks(tmp_path)] == ["python-pip-demo-x"]
    with pytest.raises(TaskError, match="no task python-pip-typo"):
        load_tasks(tmp_path, only=("python-pip-demo-x", "python-pip-typo"))
    assert load_tasks(tmp_path / "none") == ()
    assert TASKS.is_dir()
