"""Hunk splitting and partial application: every byte outside the accepted hunks is the original's."""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from code_commit.answer.plan import Change, Plan
from code_commit.review.diffs import file_diff, hunk_diff
from code_commit.review.hunks import Hunk, file_change, merge, partial_plan, split

TWENTY = b"".join(b"line %d\n" % n for n in range(1, 21))


def edit(text: bytes, *replacements: tuple[int, bytes]) -> bytes:
    """`text` with line n (1-based) replaced."""
    lines = text.split(b"\n")
    for number, line in replacements:
        lines[number - 1] = line
    return b"\n".join(lines)


def test_changes_seven_lines_apart_are_two_adjacent_hunks_and_either_can_be_taken_alone() -> None:
    new = edit(TWENTY, (2, b"two"), (10, b"ten"))  # lines 3..9 unchanged: more than twice the context
    first, second = split(TWENTY, new)
    assert first.header == "@@ -1,5 +1,5 @@" and second.header == "@@ -7,7 +7,7 @@ line 6", "with the heading git gives"
    assert first.old_start + len(first.old_lines) == 5 and second.old_start == 6  # one line between them
    assert merge(TWENTY, (first, second), (True, False)) == edit(TWENTY, (2, b"two"))
    assert merge(TWENTY, (first, second), (False, True)) == edit(TWENTY, (10, b"ten"))


def test_changes_six_lines_apart_share_their_context_so_they_are_one_hunk() -> None:
    new = edit(TWENTY, (2, b"two"), (9, b"nine"))
    (hunk,) = split(TWENTY, new)
    assert hunk.header == "@@ -1,12 +1,12 @@"
    assert merge(TWENTY, (hunk,), (False,)) == TWENTY


def test_a_file_without_a_final_newline() -> None:
    old = TWENTY + b"last"
    new = edit(old, (3, b"three")) + b" line\n"  # also changes the last line and gives it a newline
    first, second = split(old, new)
    assert "\\ No newline at end of file" in hunk_diff(second)
    assert merge(old, (first, second), (True, False)) == edit(old, (3, b"three"))  # still no newline
    assert merge(old, (first, second), (False, True)) == old + b" line\n"
    (only,) = split(b"a\nb", b"a\nb\n")  # adding nothing but the newline is a hunk of its own
    assert merge(b"a\nb", (only,), (False,)) == b"a\nb"


def test_crlf_lines_keep_their_endings_whichever_hunks_are_taken() -> None:
    old = TWENTY.replace(b"\n", b"\r\n")
    new = edit(old, (2, b"two\r"), (15, b"fifteen\r"))
    first, second = split(old, new)
    result = merge(old, (first, second), (False, True))
    assert result == edit(old, (15, b"fifteen\r"))
    assert result.count(b"\r\n") == result.count(b"\n") == 20


def test_bytes_that_are_not_utf8_survive_outside_and_inside_hunks() -> None:
    old = b"caf\xe9\n" + TWENTY + b"\xff\xfe end\n"
    new = edit(old, (2, b"first"), (22, b"\xff\xfe END"))
    first, second = split(old, new)
    assert merge(old, (first, second), (True, False)) == edit(old, (2, b"first"))
    assert merge(old, (first, second), (False, True)) == edit(old, (22, b"\xff\xfe END"))


def test_a_hunk_of_another_file_is_refused_not_misapplied() -> None:
    (hunk,) = split(b"a\nb\n", b"a\nc\n")
    with pytest.raises(ValueError, match="does not belong"):
        merge(b"x\ny\n", (hunk,), (True,))
    with pytest.raises(ValueError, match="1 decisions for 2"):
        merge(TWENTY, split(TWENTY, edit(TWENTY, (2, b"x"), (19, b"y"))), (True,))


def test_a_new_or_deleted_file_is_one_decision_and_a_modified_file_one_per_hunk() -> None:
    created, deleted = file_change("new.txt", None, TWENTY), file_change("gone.txt", TWENTY, None)
    modified = file_change("app.txt", TWENTY, edit(TWENTY, (2, b"x"), (19, b"y")))
    empty = file_change("empty.txt", None, b"")
    assert [c.kind for c in (created, deleted, modified, empty)] == ["create", "delete", "modify", "create"]
    assert [c.decisions for c in (created, deleted, modified, empty)] == [1, 1, 2, 1]


def test_partial_plan_keeps_the_accepted_part_and_reports_disk_for_the_rest() -> None:
    app = file_change("app.txt", TWENTY, edit(TWENTY, (2, b"x"), (19, b"y")))
    created, deleted = file_change("new.txt", None, b"new\n"), file_change("gone.txt", b"bye\n", None)
    rejected = file_change("kept.txt", b"same\n", b"other\n")
    changes = (app, created, deleted, rejected)
    plan = Plan(
        {"app.txt": app.new, "new.txt": b"new\n", "gone.txt": None, "kept.txt": b"other\n", "same.txt": b"s\n"},
        tuple(Change(c.path, c.new) for c in changes),
        ("ghost.txt",),
    )
    reduced = partial_plan(
        plan,
        changes,
        {"app.txt": [False, True], "new.txt": [True], "gone.txt": [False], "kept.txt": [False]},
    )
    assert reduced.changes == (Change("app.txt", edit(TWENTY, (19, b"y"))), Change("new.txt", b"new\n"))
    # Rejected files leave `final`: the repair prompt then keeps what is really on disk.
    assert reduced.final == {"app.txt": edit(TWENTY, (19, b"y")), "new.txt": b"new\n", "same.txt": b"s\n"}
    assert reduced.missing_deletes == ("ghost.txt",)
    everything = partial_plan(plan, changes, {c.path: [True] * c.decisions for c in changes})
    assert everything == plan


def test_file_diff_prints_what_git_diff_prints(tmp_path: Path) -> None:
    """The hunks are git's own: the same lines as context, the same headings, byte for byte."""
    old, new = TWENTY + b"tail", edit(TWENTY, (2, b"x"), (12, b"y")) + b"tail\n"
    assert (
        file_diff("f", old, new).partition("@@")[2]
        == git_diff_no_index(tmp_path, old, new).partition(b"@@")[2].decode()
    )


def git_diff_no_index(tmp_path: Path, old: bytes, new: bytes) -> bytes:
    (tmp_path / "old").write_bytes(old)
    (tmp_path / "new").write_bytes(new)
    done = subprocess.run(
        ["git", "diff", "--no-index", "--no-color", "old", "new"], cwd=tmp_path, capture_output=True, check=False
    )
    assert done.returncode == 1, done.stderr
    return done.stdout


# Few distinct lines, so that alignments are ambiguous; CRLF and a missing final newline included.
LINES = st.sampled_from(["a\n", "b\n", "c\n", "a\r\n", "\n", "é\n"])


@st.composite
def versions(draw: st.DrawFn) -> tuple[bytes, bytes]:
    """Unchanged runs, some long enough to separate hunks and some not, between changed stretches."""
    old: list[str] = []
    new: list[str] = []
    for _ in range(draw(st.integers(1, 6))):
        run = draw(st.lists(LINES, max_size=12))
        old += run + draw(st.lists(LINES, max_size=3))
        new += run + draw(st.lists(LINES, max_size=3))
    old_text, new_text = "".join(old).encode(), "".join(new).encode()
    if draw(st.booleans()):
        old_text = old_text.removesuffix(b"\n")
    if draw(st.booleans()):
        new_text = new_text.removesuffix(b"\n")
    return old_text, new_text


@settings(max_examples=300)
@given(versions())
def test_accepting_every_hunk_gives_the_new_file_and_rejecting_every_hunk_the_old(pair: tuple[bytes, bytes]) -> None:
    old, new = pair
    hunks = split(old, new)
    assert merge(old, hunks, [True] * len(hunks)) == new
    assert merge(old, hunks, [False] * len(hunks)) == old


def git_apply(hunks: list[Hunk], before: bytes) -> bytes:
    """What `git apply` makes of `before` with exactly these hunks: an oracle independent of merge()."""
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "f").write_bytes(before)
        patch = "diff --git a/f b/f\n--- a/f\n+++ b/f\n" + "".join(hunk_diff(h) for h in hunks)
        subprocess.run(["git", "apply", "-"], cwd=folder, input=patch.encode(), check=True, capture_output=True)
        return (Path(folder) / "f").read_bytes()


@settings(max_examples=100, deadline=None)
@given(versions(), st.data())
def test_any_subset_gives_a_file_whose_diff_from_the_original_is_exactly_the_accepted_hunks(
    pair: tuple[bytes, bytes], data: st.DataObject
) -> None:
    old, new = pair
    hunks = split(old, new)
    accepted = data.draw(st.lists(st.booleans(), min_size=len(hunks), max_size=len(hunks)))
    result = merge(old, hunks, accepted)
    # A recomputed diff may align equal lines differently (difflib's choice, not a difference), so the
    # proof is that the accepted hunks, as a patch, take the original to the result, and the rejected
    # ones take the result to the new file: the two sets partition the change, each applied in place.
    taken, left, shift = [], [], 0
    for hunk, take in zip(hunks, accepted, strict=True):
        if take:
            taken.append(Hunk(hunk.old_start, hunk.old_start + shift, hunk.lines))
            shift += len(hunk.new_lines) - len(hunk.old_lines)
        else:
            left.append(Hunk(hunk.old_start + shift, hunk.new_start, hunk.lines))
    assert (git_apply(taken, old) if taken else old) == result
    assert (git_apply(left, result) if left else result) == new
