"""match_work counted a file's lines, so a file of few, long lines (minified code, data) let an
answer of thousands of small pairs each cost a pass over megabytes: 5,000 pairs on a 10 MB file of
1,000 lines took 39 s in `apply --check`. Its characters count too (LINE_CHARS to a line)."""

from __future__ import annotations

import pytest

from code_commit import apply
from code_commit.apply import LINE_CHARS

from support import Project

WORK = 100_000


@pytest.fixture
def matched(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The characters of the file each search/replace pair was matched against."""
    chars: list[int] = []
    real = apply.resolve

    def resolve(text: str, *args, **kwargs):
        chars.append(len(text))
        return real(text, *args, **kwargs)

    monkeypatch.setattr(apply, "resolve", resolve)
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
