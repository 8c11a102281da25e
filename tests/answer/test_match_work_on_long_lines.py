"""match_work counted a file's lines, so a file of few, long lines (minified code, data) let an
answer of thousands of small pairs each cost a pass over megabytes: 5,000 pairs on a 10 MB file of
1,000 lines took 39 s in `apply --check`. Its characters count too (LINE_CHARS to a line)."""

from __future__ import annotations

import pytest

from code_commit.answer import planning
from code_commit.answer.planning import LINE_CHARS

from support import Project, count_file_reads

WORK = 100_000


@pytest.fixture
def matched(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The characters of the file each search/replace pair was matched against."""
    chars: list[int] = []
    real = planning.resolve

    def resolve(text: str, *args, **kwargs):
        chars.append(len(text))
        return real(text, *args, **kwargs)

    monkeypatch.setattr(planning, "resolve", resolve)
    return chars


def test_a_file_of_long_lines_costs_its_characters(project: Project, cli, matched: list[int]) -> None:
    project.write("data.txt", ("x" * 2000 + "\n") * 1000 + "a\n")
    project.commit_all()
    pairs = "".join("^^^search\n{}\n^^^replace\n{}\n".format(*("ab" if n % 2 == 0 else "ba")) for n in range(1000))
    answer = f"^^^data.txt\n{pairs}^^^end\n"
    result = cli("apply", "--check", "-", input=answer, env={"CODE_COMMIT_MATCH_WORK": str(WORK)})
    assert result.exit_code != 0
    assert "match_work" in result.stdout
    assert sum(matched) <= WORK * LINE_CHARS, "characters matched in all stay within the budget"


def test_blocks_past_a_matching_limit_do_not_even_read_their_file(project: Project, cli, monkeypatch) -> None:
    """2,000 one-pair blocks for a 10 MB file (72 KB of answer): each block past max_failed_pairs was
    still read and decoded before its pair was skipped, 29 s in all."""
    project.write("big.txt", "line\n" * 1000)
    project.commit_all()
    reads = count_file_reads(monkeypatch)
    result = cli("apply", "--check", "-", input="^^^big.txt\n^^^search\nzz\n^^^replace\ny\n^^^end\n" * 2000)
    assert result.exit_code == 7, result.stdout
    assert "1990 search/replace pair(s) of the answer were not checked" in result.stdout
    assert reads.count("big.txt") <= 10
