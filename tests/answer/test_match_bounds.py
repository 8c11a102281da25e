"""Matching an answer is bounded: past `max_failed_pairs` failures the rest are not tried, and the lines
matched in all stay under `match_work`. Counted through `planning.resolve` (every pair goes through it)
and the `MatchWork` record, never timed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from code_commit.answer import planning
from code_commit.answer.caret_blocks import EditFile, Replacement
from code_commit.answer.plan import AnswerRefused
from code_commit.answer.planning import MatchLimits, MatchWork, plan_changes
from code_commit.config.settings import Settings
from code_commit.guard.policy import Guard

from support import Project


def _ambiguous_answer(pairs: int) -> str:
    return "^^^big.py\n" + "^^^search\nx = 1\n^^^replace\ny = 1\n" * pairs + "^^^end\n"


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The lines of the file each search/replace pair was matched against."""
    lines: list[int] = []
    real = planning.resolve

    def resolve(text: str, *args, **kwargs):
        lines.append(text.count("\n"))
        return real(text, *args, **kwargs)

    monkeypatch.setattr(planning, "resolve", resolve)
    return lines


@pytest.mark.parametrize("as_json", [False, True])
def test_an_answer_of_a_thousand_failing_pairs_stops_at_the_first_failures(
    project: Project, cli, counted: list[int], as_json: bool
) -> None:
    """The audit's repro: 1,000 copies of one ambiguous pair on a 20,000-line file (22 s in `apply
    --check`, 83 s and 700 MB with --json). Only the first max_failed_pairs are worked out. A 2,000-line
    file does here: the pairs are counted, and all 1,000 reported would be 14 MB of JSON."""
    project.write("big.py", "".join(f"x = {i % 10}\n" for i in range(2_000)))
    project.commit_all()
    limit = Settings().max_failed_pairs
    flags = ("--json",) if as_json else ()
    result = cli("apply", "--check", *flags, "-", input=_ambiguous_answer(1000))
    assert result.exit_code != 0
    assert len(counted) == limit, "no pair after the limit is matched"
    unchecked = f"{1000 - limit} search/replace pair(s) of the answer were not checked"
    if as_json:
        problems = json.loads(result.stdout)["problems"]
        assert [p["kind"] for p in problems] == ["ambiguous"] * limit + ["unchecked"]
        assert problems[-1]["message"].startswith(unchecked)
    else:
        assert unchecked in result.stdout and "max_failed_pairs" in result.stdout
    assert len(result.stdout) < 2_000_000, "the report no longer grows with the pairs"


def test_the_failure_limit_is_a_setting(project: Project, cli, counted: list[int]) -> None:
    project.write("big.py", "".join(f"x = {i % 10}\n" for i in range(100)))
    project.commit_all()
    result = cli("apply", "--check", "-", input=_ambiguous_answer(50), env={"CODE_COMMIT_MAX_FAILED_PAIRS": "3"})
    assert len(counted) == 3
    assert "47 search/replace pair(s) of the answer were not checked" in result.stdout


def test_matching_work_across_an_answer_is_bounded(project: Project, cli, counted: list[int]) -> None:
    """Pairs that each succeed still cost a pass over their file: the lines matched in all stay under
    match_work, and the answer is refused with what to do instead."""
    project.write("big.py", "".join(f"line {i}\n" for i in range(20_000)))
    project.commit_all()
    answer = "^^^big.py\n" + "".join(f"^^^search\nline {i * 7}\n^^^replace\nL {i}\n" for i in range(2000)) + "^^^end\n"
    result = cli("apply", "--check", "-", input=answer, env={"CODE_COMMIT_MATCH_WORK": "1000000"})
    assert result.exit_code != 0
    assert sum(counted) <= 1_000_000 and len(counted) == 1_000_000 // 20_003
    assert f"{2000 - len(counted)} search/replace pair(s) of the answer were not checked" in result.stdout
    assert "match_work" in result.stdout and "give the whole file" in result.stdout
    assert project.read("big.py").startswith("line 0\n")


def test_work_is_counted_across_blocks_and_the_limit_is_never_passed(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("".join(f"a{i}\n" for i in range(1000)))
    (tmp_path / "b.txt").write_text("".join(f"b{i}\n" for i in range(1000)))
    edits = [
        EditFile(name, tuple(Replacement(f"{name[0]}{i}\n", f"{name[0]}{i}!\n") for i in range(10)))
        for name in ("a.txt", "b.txt")
    ]
    work = MatchWork()
    with pytest.raises(AnswerRefused) as caught:
        plan_changes(tmp_path, edits, Guard(tmp_path), limits=MatchLimits(10, 15_000), work=work)
    assert work.lines <= 15_000 and work.pairs == 14 and work.unchecked == 6 and work.stopped == "work"
    assert [p.kind for p in caught.value.problems] == ["unchecked"]
    # Within the limit the same answer applies.
    plan = plan_changes(tmp_path, edits, Guard(tmp_path), limits=MatchLimits(10, 30_000))
    assert len(plan.changes) == 2


# --- a very large file: work and memory bounded whatever its size ---

BIG = 500_000


def test_a_line_at_half_a_million_places_is_decided_with_bounded_work() -> None:
    """The audit's repro: a 642-byte answer against a 500,000-line file took 28 s and 1 GB an attempt,
    74 s and 4.4 GB with `apply --check --json` (a report naming every place). The places are looked
    for up to MAX_PLACES, and the advice that hashes every line is left out of a file this long."""
    from code_commit.answer.match import finding, mismatch
    from code_commit.answer.match.finding import Work
    from code_commit.answer.match.mismatch import AmbiguousMatch
    from code_commit.answer.match.resolve import resolve

    work = Work()
    with pytest.raises(AmbiguousMatch) as caught:
        resolve("x = 1\n" * BIG, "x = 1\n", "y = 2\n", work=work)
    failure = caught.value
    assert len(failure.locations) == finding.MAX_PLACES
    assert work.jumps <= 3 * finding.MAX_PLACES  # three stages, each up to MAX_PLACES places
    assert (work.hashed, work.min_context) == (0, 0), "no pass of hashing over the file"
    message = failure.describe("big.py")
    assert "matches at least 1,000 places" in message and "and at least 980 more" in message
    assert f"over {mismatch.ADVICE_LINES:,} lines" in message


def test_a_failing_search_text_whose_first_line_is_everywhere_is_decided_in_one_pass() -> None:
    """Its first line is at every one of 500,000 places, the whole text at none: jumping from place to
    place was a step of a Python loop each; past MAX_JUMPS one pass finds the rest. The closest lines
    of a file this long come from equal lines only, found at C speed, no regex on every line."""
    from code_commit.answer.match import finding, mismatch
    from code_commit.answer.match.finding import Work
    from code_commit.answer.match.mismatch import NoMatch
    from code_commit.answer.match.resolve import resolve

    work = Work()
    with pytest.raises(NoMatch) as caught:
        resolve("x = 1\n" * BIG, "x = 1\nx = 1\nx = 2\n", "y\n", work=work)
    assert work.jumps <= 3 * finding.MAX_JUMPS  # the core, the replacement and the closest lines' search
    assert work.word_scanned == 0 and work.scored <= 2 * (mismatch.CANDIDATES + mismatch.SAMPLED)
    assert caught.value.closest, "the closest lines are still shown"


@pytest.mark.parametrize("as_json", [False, True])
def test_apply_check_on_a_500000_line_file_reports_in_bounded_size(project: Project, cli, as_json: bool) -> None:
    project.write("big.py", "x = 1\n" * BIG)
    project.commit_all()
    flags = ("--json",) if as_json else ()
    result = cli("apply", "--check", *flags, "-", input="^^^big.py\n^^^search\nx = 1\n^^^replace\ny = 2\n^^^end\n")
    assert result.exit_code == 7
    assert len(result.stdout) < 100_000  # before: 36 MB, every one of the 500,000 places
