"""`--revert-on-failure`'s record of the originals (`revert.Originals`): restored without ever
following a symlink the build may have made, and every folder the run created removed."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from code_commit.answer.plan import ApplyFailed, Change, Plan
from code_commit.config.redaction import Redactor
from code_commit.run.revert import Originals


def plan(*changes: Change) -> Plan:
    return Plan({c.path: c.content for c in changes}, changes)


def apply(root: Path, *changes: Change) -> None:
    for change in changes:
        target = root / change.path
        if change.content is None:
            target.unlink()
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(change.content)


def test_a_file_replaced_by_a_symlink_is_left_alone(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "outside.txt"
    root.mkdir()
    outside.write_text("VICTIM\n")
    (root / "a.txt").write_text("original\n")
    originals = Originals()
    changes = (Change("a.txt", b"model\n"), Change("new.txt", b"new\n"))
    originals.remember(root, plan(*changes))
    apply(root, *changes)
    for name in ("a.txt", "new.txt"):  # the build swaps both files for links to a file outside the root
        (root / name).unlink()
        os.symlink(outside, root / name)
    assert b"VICTIM" not in originals.patch(root, Redactor())
    problems = originals.restore(root)
    assert problems == [
        "a.txt: a.txt is a symlink now; left as it is (a revert never follows a symlink)",
        "new.txt: new.txt is a symlink now; left as it is (a revert never follows a symlink)",
    ]
    assert outside.read_text() == "VICTIM\n" and (root / "a.txt").is_symlink()


def test_restore_puts_back_mode_and_folders_the_build_removed(tmp_path: Path) -> None:
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "tool").write_text("v1\n")
    (tmp_path / "bin" / "tool").chmod(0o750)
    originals = Originals()
    originals.remember(tmp_path, plan(Change("bin/tool", None)))
    apply(tmp_path, Change("bin/tool", None))
    (tmp_path / "bin").rmdir()
    assert originals.restore(tmp_path) == []
    assert (tmp_path / "bin" / "tool").read_text() == "v1\n"
    assert stat.S_IMODE((tmp_path / "bin" / "tool").stat().st_mode) == 0o750


def test_every_folder_the_run_created_is_removed_deepest_first(tmp_path: Path) -> None:
    originals = Originals()
    first = (Change("a/x.txt", b"x\n"),)
    second = (Change("a/b/y.txt", b"y\n"), Change("a/b/c/z.txt", b"z\n"))
    for changes in (first, second):  # two answers: a/ is created by the first, a/b/ and a/b/c/ by the second
        originals.remember(tmp_path, plan(*changes))
        apply(tmp_path, *changes)
    (tmp_path / "a" / "b" / "build-output.o").write_text("made by the build\n")
    assert originals.restore(tmp_path) == []
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")) == [
        "a",
        "a/b",
        "a/b/build-output.o",
    ], "a folder that is not empty stays, and so do its parents"
    (tmp_path / "a" / "b" / "build-output.o").unlink()
    assert originals.restore(tmp_path) == [] and list(tmp_path.iterdir()) == []


def test_originals_are_recorded_all_or_none(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    os.mkfifo(tmp_path / "b.txt")  # cannot be read as a file: the answer is refused
    originals = Originals()
    with pytest.raises(ApplyFailed, match="could not be recorded"):
        originals.remember(tmp_path, plan(Change("a.txt", b"x\n"), Change("new.txt", b"y\n"), Change("b.txt", b"z\n")))
    assert originals.files == {} and originals.created() == frozenset()


def test_a_forgotten_apply_leaves_no_record(tmp_path: Path) -> None:
    originals = Originals()
    first = originals.remember(tmp_path, plan(Change("kept.txt", b"k\n")))
    second = originals.remember(tmp_path, plan(Change("kept.txt", b"k2\n"), Change("failed.txt", b"f\n")))
    assert (first, second) == (["kept.txt"], ["failed.txt"]), "a file is recorded at first sight only"
    originals.forget(second)  # that apply failed and rolled back
    assert originals.created() == frozenset({"kept.txt"})
