"""Build output that never ends its line: the console (-v) shows it in pieces rather than holding
the whole line, which cost memory and a copy of the line so far for every read (quadratic)."""

from __future__ import annotations

from code_commit.ui import PARTIAL_LINE

from fakeapi import FakeAPI
from support import Project

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
LINE = 1_000_000


def test_a_build_line_without_a_newline_is_shown_in_bounded_pieces(project: Project, api: FakeAPI, cli) -> None:
    project.build_script(f"head -c {LINE} /dev/zero | tr '\\0' x\ntest -f fixed.txt\n")
    project.commit_all()
    api.reply(FIX)

    result = cli("-v")

    assert result.exit_code == 0, result.stderr
    shown = [line for line in result.stderr.splitlines() if line.startswith("  | x")]
    assert sum(line.count("x") for line in shown) == LINE, "all of it is shown"
    assert max(len(line) for line in shown) <= len("  | ") + PARTIAL_LINE
