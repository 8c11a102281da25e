"""A ^^^needs-human answer ends a run after its call with exit 13, "a person must decide": nothing of
it applied, no build, no further call; the reason on the console, in run.log and in the record,
censored. `code-commit apply` of such an answer applies nothing and exits 13 too. The system prompt
offers the block under tests = protect and report, never under free."""

from __future__ import annotations

import json

import pytest

from code_commit.exits import EXIT

from fakeapi import FakeAPI
from support import TEST_KEY, Project, git
from support.record import valid_record

HAND_BACK = "^^^needs-human\ntest_add expects add(2, 2) == 5; the query says add must sum.\n^^^end\n"


def system_text(request) -> str:
    return "".join(block["text"] for block in request.json["system"])


def test_a_needs_human_answer_ends_the_run_after_one_call_with_exit_13(project: Project, api: FakeAPI, cli) -> None:
    api.reply("The tests contradict the query.\n" + HAND_BACK)
    api.reply("^^^fixed.txt\nfixed\n^^^end\n")  # never asked for
    before = git(project.root, "status", "--porcelain")
    result = cli("--json")
    assert result.exit_code == EXIT.NEEDS_HUMAN == 13
    assert len(api.requests) == 1 and api.pending == 1
    record = json.loads(result.stdout)
    assert record["outcome"] == "needs_human" and record["exit_code"] == 13
    assert record["needs_human"] == "test_add expects add(2, 2) == 5; the query says add must sum."
    assert record["error"].startswith("a person must decide")
    assert "add(2, 2) == 5" in record["error"]
    assert record["last_build"] is None and record["attempts"] == 1
    assert "add(2, 2) == 5" in result.stderr  # the console gives the reason
    (run,) = project.run_dirs()
    assert list(run.glob("*-build.txt")) == [], "no build ran: the baseline was stored by check"
    assert "add(2, 2) == 5" in (run / "run.log").read_text()
    assert valid_record((run / "summary.json").read_text())["needs_human"] == record["needs_human"]
    assert git(project.root, "status", "--porcelain") == before


@pytest.mark.parametrize("tests", ["protect", "free"])
def test_its_file_blocks_are_never_applied_whatever_the_tests_setting(
    project: Project, api: FakeAPI, cli, tests: str
) -> None:
    """Under free the block is not offered; one that comes all the same still ends the run, and the
    fix beside it is not applied: a person must look first."""
    api.reply("^^^fixed.txt\nfixed\n^^^end\n" + HAND_BACK)
    result = cli("--tests", tests, "--json")
    assert result.exit_code == EXIT.NEEDS_HUMAN
    assert not (project.root / "fixed.txt").exists()
    assert len(api.requests) == 1


def test_a_needs_human_answer_in_a_repair_ends_the_run_there(project: Project, api: FakeAPI, cli) -> None:
    api.reply("^^^attempt.txt\none\n^^^end\n")
    api.reply(HAND_BACK)
    result = cli("--json")
    assert result.exit_code == EXIT.NEEDS_HUMAN
    assert len(api.requests) == 2
    record = json.loads(result.stdout)
    assert record["files_changed"] == ["attempt.txt"]  # what the first answer applied stays, and is named
    assert record["last_build"]["passed"] is False


def test_the_reason_is_censored_everywhere(project: Project, api: FakeAPI, cli) -> None:
    api.reply(f"^^^needs-human\nthe key {TEST_KEY} is refused by the service\n^^^end\n")
    result = cli("--json")
    assert result.exit_code == EXIT.NEEDS_HUMAN
    (run,) = project.run_dirs()
    for text in (result.stdout, result.stderr, (run / "run.log").read_text(), (run / "summary.json").read_text()):
        assert TEST_KEY not in text
    assert "is refused by the service" in json.loads(result.stdout)["needs_human"]


def test_a_malformed_needs_human_block_is_refused_and_the_next_call_is_told_why(
    project: Project, api: FakeAPI, cli
) -> None:
    api.reply("^^^needs-human\n\n^^^end\n")
    api.reply("^^^fixed.txt\nfixed\n^^^end\n")
    result = cli()
    assert result.exit_code == EXIT.OK
    repair = "".join(b["text"] for m in api.requests[1].json["messages"] for b in m["content"])
    assert "--- ANSWER REFUSED ---" in repair and "holds no reason" in repair


def test_a_dry_run_ends_with_exit_13_too(project: Project, api: FakeAPI, cli) -> None:
    api.reply(HAND_BACK)
    result = cli("--dry-run", "--json")
    assert result.exit_code == EXIT.NEEDS_HUMAN
    assert json.loads(result.stdout)["outcome"] == "needs_human"


@pytest.mark.parametrize(("tests", "offered"), [("protect", True), ("report", True), ("free", False)])
def test_the_system_prompt_offers_the_block_unless_tests_are_free(
    project: Project, api: FakeAPI, cli, tests: str, offered: bool
) -> None:
    api.reply("^^^fixed.txt\nfixed\n^^^end\n")
    assert cli("--tests", tests).exit_code == EXIT.OK
    system = system_text(api.requests[0])
    assert ("^^^needs-human" in system) is offered
    assert ("read-only" in system) is (tests == "protect")
    assert ("reported to the supervisor" in system) is (tests == "report")


@pytest.mark.parametrize("check", [False, True])
def test_apply_of_a_saved_needs_human_answer_applies_nothing_and_exits_13(project: Project, cli, check: bool) -> None:
    project.write("answer.txt", "^^^fixed.txt\nfixed\n^^^end\n" + HAND_BACK)
    project.commit_all()
    result = cli("apply", *(["--check"] if check else []), "--json", "answer.txt")
    assert result.exit_code == EXIT.NEEDS_HUMAN
    record = json.loads(result.stdout)
    assert record["outcome"] == "needs_human" and record["ok"] is False and record["applied"] is False
    assert record["needs_human"].startswith("test_add expects")
    assert "a person must decide" in result.stderr
    assert not (project.root / "fixed.txt").exists()
