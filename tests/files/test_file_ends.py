"""A log's two ends: one bounded read of each, the whole file when it is short, never a byte twice."""

from __future__ import annotations

from pathlib import Path

import pytest

from code_commit.files.ends import Ends, read_ends


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "build.txt"
    path.write_bytes(bytes(range(100)))
    return path


def test_the_ends_of_a_long_file_with_what_lies_between_counted(log: Path) -> None:
    assert read_ends(log, 10, 20) == Ends(bytes(range(10)), bytes(range(80, 100)), 70)


def test_a_file_no_longer_than_both_ends_is_read_once_whole(log: Path) -> None:
    ends = read_ends(log, 60, 60)
    assert ends.head + ends.tail == bytes(range(100)) and ends.left_out == 0, "no byte twice"


def test_a_file_no_longer_than_whole_comes_in_the_head(log: Path) -> None:
    assert read_ends(log, 10, 20, whole=100) == Ends(bytes(range(100)), b"", 0)
    assert read_ends(log, 10, 20, whole=99).left_out == 70


def test_a_huge_file_costs_only_its_ends(tmp_path: Path) -> None:
    huge = tmp_path / "huge.txt"
    with open(huge, "wb") as fh:
        fh.truncate(1 << 34)  # a sparse 16 GiB: reading it whole would never end
    ends = read_ends(huge, 4096, 4096)
    assert len(ends.head) == len(ends.tail) == 4096 and ends.left_out == (1 << 34) - 8192


def test_a_missing_file_is_an_oserror(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        read_ends(tmp_path / "missing.txt", 10, 10)
