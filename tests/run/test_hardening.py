"""The process holding the key is not dumpable while a run holds it, and is again afterwards."""

from __future__ import annotations

from code_commit.run.hardening import not_dumpable


def test_not_dumpable_is_undone_when_the_run_ends() -> None:
    import ctypes

    get_dumpable = ctypes.CDLL(None).prctl
    assert get_dumpable(3, 0, 0, 0, 0) == 1
    with not_dumpable():
        assert get_dumpable(3, 0, 0, 0, 0) == 0
    assert get_dumpable(3, 0, 0, 0, 0) == 1
