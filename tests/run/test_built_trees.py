"""The rule that tells a tree a build of the run already started from (run/built_trees.py): files the
run touched later are compared with what they held before it did, and whatever cannot be read for
sure (a symlink, a build's original not kept) is never the same: in doubt, the tree is built."""

from __future__ import annotations

import os
from pathlib import Path

from code_commit.builds.changes import Before
from code_commit.run.built_trees import BuiltTrees
from code_commit.run.revert import Original


def test_a_file_a_build_created_after_the_snapshot_must_be_gone_again(tmp_path: Path) -> None:
    trees = BuiltTrees()
    (tmp_path / "a.txt").write_text("one\n")
    trees.note({}, {"a.txt": Original("a.txt", None, 0)}, tmp_path)
    trees.building(1, trees.current(tmp_path))
    (tmp_path / "out.txt").write_text("made by the build\n")  # a file git shows, made by build 1
    trees.note({"out.txt": Before(None)}, {}, tmp_path)
    assert trees.judged(trees.current(tmp_path)) is None
    (tmp_path / "out.txt").unlink()
    assert trees.judged(trees.current(tmp_path)) == 1


def test_a_file_an_answer_first_wrote_later_is_compared_with_what_it_held_before(tmp_path: Path) -> None:
    trees = BuiltTrees()
    (tmp_path / "a.txt").write_text("one\n")
    trees.note({}, {"a.txt": Original("a.txt", None, 0)}, tmp_path)
    trees.building(1, trees.current(tmp_path))
    (tmp_path / "b.txt").write_text("changed\n")
    trees.note({}, {"b.txt": Original("b.txt", b"original\n", 0o644)}, tmp_path)
    assert trees.judged(trees.current(tmp_path)) is None
    (tmp_path / "b.txt").write_text("original\n")
    assert trees.judged(trees.current(tmp_path)) == 1


def test_a_symlink_is_never_the_same_tree(tmp_path: Path) -> None:
    trees = BuiltTrees()
    os.symlink("elsewhere", tmp_path / "link")
    trees.note({}, {"link": Original("link", None, 0)}, tmp_path)
    trees.building(1, trees.current(tmp_path))
    assert trees.judged(trees.current(tmp_path)) is None


def test_a_build_s_original_not_kept_is_never_the_same(tmp_path: Path) -> None:
    trees = BuiltTrees()
    trees.building(1, trees.current(tmp_path))  # nothing touched yet
    trees.note({"big.bin": Before(None, known=False)}, {}, tmp_path)
    assert trees.judged(trees.current(tmp_path)) is None  # absent now, but what it was is unknown
