"""Planning (verification before any write) and the all-or-nothing apply."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from code_commit import apply as apply_module
from code_commit.apply import ApplyFailed, Change, PlanRefused, apply_plan, plan_changes
from code_commit.edits import DeleteFile, EditFile, Replacement, WriteFile
from code_commit.errors import AnswerRefused
from code_commit.guard import Guard
from code_commit.matching import Lines


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / ".gitignore").write_text("/agent-config\n")
    (tmp_path / "keep.txt").write_text("same\n")
    (tmp_path / "run.sh").write_text("#!/bin/sh\necho old\n")
    (tmp_path / "run.sh").chmod(0o755)
    (tmp_path / "old.txt").write_text("old\n")
    return tmp_path


def snapshot(root: Path) -> dict[str, tuple[bytes, int] | None]:
    result: dict[str, tuple[bytes, int] | None] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        result[rel] = None if path.is_dir() else (path.read_bytes(), stat.S_IMODE(path.stat().st_mode))
    return result


def test_plan_is_the_net_effect_in_answer_order(root: Path) -> None:
    edits = [
        WriteFile("new.txt", "1\n"),
        WriteFile("new.txt", "2\n"),
        WriteFile("keep.txt", "same\n"),
        WriteFile("gone.txt", "x\n"),
        DeleteFile("gone.txt"),
        DeleteFile("never-existed.txt"),
        DeleteFile("old.txt"),
    ]
    plan = plan_changes(root, edits, Guard(root))
    assert plan.changes == (Change("new.txt", b"2\n"), Change("old.txt", None))
    assert plan.final == {
        "new.txt": b"2\n",
        "keep.txt": b"same\n",
        "gone.txt": None,
        "never-existed.txt": None,
        "old.txt": None,
    }
    assert plan.missing_deletes == ("gone.txt", "never-existed.txt")


def test_refusal_lists_every_refused_path_and_writes_nothing(root: Path) -> None:
    before = snapshot(root)
    edits = [
        WriteFile("fine.txt", "ok\n"),
        WriteFile("build.sh", "x\n"),
        DeleteFile(".gitignore"),
        WriteFile("../x", ""),
    ]
    with pytest.raises(AnswerRefused) as caught:
        plan_changes(root, edits, Guard(root))
    assert len(caught.value.reasons) == 3
    assert all(any(p in r for r in caught.value.reasons) for p in ("'build.sh'", "'.gitignore'", "'../x'"))
    assert snapshot(root) == before


def test_apply_writes_creates_parents_keeps_modes_and_deletes(root: Path) -> None:
    plan = plan_changes(
        root,
        [WriteFile("run.sh", "#!/bin/sh\necho new\n"), WriteFile("a/b/c.txt", "deep\n"), DeleteFile("old.txt")],
        Guard(root),
    )
    apply_plan(root, plan)
    assert (root / "run.sh").read_text() == "#!/bin/sh\necho new\n"
    assert os.access(root / "run.sh", os.X_OK)
    assert (root / "a/b/c.txt").read_text() == "deep\n"
    assert not (root / "old.txt").exists()
    assert not [p for p in root.rglob(".code-commit-*")], "no temp file is left behind"


@pytest.mark.parametrize("fail_at", range(4))
def test_a_failure_at_any_step_restores_everything(root: Path, monkeypatch: pytest.MonkeyPatch, fail_at: int) -> None:
    edits = [
        WriteFile("run.sh", "changed\n"),
        WriteFile("new/dir/file.txt", "new\n"),
        DeleteFile("old.txt"),
        WriteFile("keep.txt", "changed too\n"),
    ]
    plan = plan_changes(root, edits, Guard(root))
    before = snapshot(root)
    steps = {"n": 0}
    real_replace, real_unlink = os.replace, Path.unlink

    def count() -> None:
        if steps["n"] == fail_at:
            steps["n"] += 1
            raise OSError(28, "No space left on device")
        steps["n"] += 1

    def failing_replace(src: str, dst: str) -> None:
        count()
        real_replace(src, dst)

    def failing_unlink(self: Path, missing_ok: bool = False) -> None:
        if self.name == "old.txt":
            count()
        real_unlink(self, missing_ok=missing_ok)

    monkeypatch.setattr(apply_module.os, "replace", failing_replace)
    monkeypatch.setattr(Path, "unlink", failing_unlink)
    with pytest.raises(ApplyFailed, match="No space left"):
        apply_plan(root, plan)
    monkeypatch.undo()
    assert snapshot(root) == before


# --- edit blocks in the plan ---

BIG = "".join(f"line {n}\n" for n in range(1, 601))


def edit(path: str, *pairs: tuple[str, str], line: int | None = None) -> EditFile:
    return EditFile(path, tuple(Replacement(s, r, line) for s, r in pairs))


def test_an_edit_block_resolves_into_the_whole_resulting_file(root: Path) -> None:
    (root / "big.txt").write_text(BIG)
    plan = plan_changes(root, [edit("big.txt", ("line 300\nline 301\n", "line 300\nchanged\n"))], Guard(root))
    expected = BIG.replace("line 301\n", "changed\n").encode()
    assert plan.final == {"big.txt": expected}
    assert plan.changes == (Change("big.txt", expected),)


def test_edits_match_the_file_as_earlier_blocks_and_pairs_of_the_answer_left_it(root: Path) -> None:
    edits = [
        WriteFile("new.txt", "alpha\nbeta\n"),
        edit("new.txt", ("beta\n", "gamma\n"), ("gamma\n", "gamma\ndelta\n")),
        edit("keep.txt", ("same\n", "edited\n")),
        edit("keep.txt", ("edited\n", "edited twice\n")),
    ]
    plan = plan_changes(root, edits, Guard(root))
    assert plan.final == {"new.txt": b"alpha\ngamma\ndelta\n", "keep.txt": b"edited twice\n"}


def test_a_later_whole_file_block_replaces_an_edit(root: Path) -> None:
    plan = plan_changes(root, [edit("keep.txt", ("same\n", "x\n")), WriteFile("keep.txt", "whole\n")], Guard(root))
    assert plan.final == {"keep.txt": b"whole\n"}


def test_an_edit_that_changes_nothing_is_no_change(root: Path) -> None:
    plan = plan_changes(root, [edit("keep.txt", ("same\n", "same\n"))], Guard(root))
    assert plan.changes == ()


@pytest.mark.parametrize(
    ("edits", "kind", "fragment"),
    [
        ([edit("nope.txt", ("a\n", "b\n"))], "missing_file", "does not exist; create a new file with a whole-file"),
        ([DeleteFile("old.txt"), edit("old.txt", ("old\n", "b\n"))], "missing_file", "an earlier block of this"),
        ([edit("old.txt", ("", "b\n"))], "blank_search", "anchors nothing"),
        ([edit("old.txt", ("new\n", "b\n"))], "no_match", "matches nowhere"),
        ([edit("build.sh", ("x\n", "y\n"))], "guard", "build.sh is a protected file"),
    ],
)
def test_edit_block_refusals(root: Path, edits: list, kind: str, fragment: str) -> None:
    before = snapshot(root)
    with pytest.raises(PlanRefused) as caught:
        plan_changes(root, edits, Guard(root))
    (problem,) = caught.value.problems
    assert problem.kind == kind
    assert fragment in problem.message
    assert caught.value.reasons == [problem.message]
    assert snapshot(root) == before


def test_an_edit_block_on_a_binary_file_is_refused(root: Path) -> None:
    (root / "blob.bin").write_bytes(b"\xff\xfe\x00data\n")
    with pytest.raises(PlanRefused) as caught:
        plan_changes(root, [edit("blob.bin", ("data\n", "x\n"))], Guard(root))
    assert caught.value.problems[0].kind == "not_text"


def test_every_failing_pair_is_reported_with_its_block_search_and_answer_line(root: Path) -> None:
    (root / "dup.txt").write_text("x\ny\nx\n")
    edits = [
        WriteFile("fine.txt", "ok\n"),
        edit("dup.txt", ("x\n", "z\n"), ("y\n", "Y\n"), ("Y!\n", "w\n"), line=7),
        DeleteFile("build.sh"),
    ]
    with pytest.raises(PlanRefused) as caught:
        plan_changes(root, edits, Guard(root))
    ambiguous, missing, guarded = caught.value.problems
    assert (ambiguous.kind, ambiguous.block, ambiguous.search, ambiguous.answer_line) == ("ambiguous", 2, 1, 7)
    assert ambiguous.locations == (Lines(1, 1), Lines(3, 3)) and ambiguous.min_context == 2
    assert ambiguous.message.startswith("'dup.txt': block 2 (an edit block), search 1 of 3 (answer line 7): ")
    assert (missing.kind, missing.search) == ("no_match", 3)
    assert "as the earlier edits of this answer left it" in missing.message
    assert [line.number for line in missing.closest] == [2], "the file with pair 2 applied"
    assert (guarded.kind, guarded.block) == ("guard", 3)


def test_allow_delete_false_refuses_every_delete(root: Path) -> None:
    with pytest.raises(PlanRefused) as caught:
        plan_changes(root, [DeleteFile("old.txt"), DeleteFile("ghost.txt")], Guard(root), allow_delete=False)
    assert [p.kind for p in caught.value.problems] == ["delete_disabled", "delete_disabled"]
    assert "allow_delete = false" in caught.value.reasons[0]
    assert (root / "old.txt").exists()
    # Whole-file and edit blocks are still fine.
    plan = plan_changes(root, [edit("old.txt", ("old\n", "new\n"))], Guard(root), allow_delete=False)
    assert plan.changes == (Change("old.txt", b"new\n"),)
