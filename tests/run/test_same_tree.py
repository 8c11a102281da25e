"""The same tree is never built twice (issue 30): an answer that changes nothing (no block, or every
file already as it gives it), or that puts the files back as an earlier build of the run found them,
is not built. Its attempt is used up, the record counts it, the console says so in one line and the
next prompt says what happened. Through the CLI, the real SDK and the loopback fake service."""

from __future__ import annotations

import json

from code_commit.exits import EXIT

from fakeapi import FakeAPI
from support import Project

FIX = "^^^fixed.txt\nfixed\n^^^end\n"


def user_text(request) -> str:
    return "".join(block["text"] for message in request.json["messages"] for block in message["content"])


def counting_build(project: Project, script: str = "test -f fixed.txt\n") -> None:
    """build.sh appends a line to builds.txt (git ignores it) each time it runs, then `script`."""
    project.write(".gitignore", "/agent-config\n/builds.txt\n")
    project.build_script("echo ran >> builds.txt\n" + script)
    project.commit_all()


def builds(project: Project) -> tuple[int, list[str]]:
    """How often build.sh ran after an answer, and those builds' logs: the baseline build (00-build.txt,
    before any answer: testguard) is the tree no answer touched, not an answer's."""
    ran = (project.root / "builds.txt").read_text().count("ran") if (project.root / "builds.txt").exists() else 0
    (run,) = project.run_dirs()
    baseline = run / "00-build.txt"
    assert baseline.exists(), "the run took its baseline first"
    return ran - 1, sorted(p.name for p in run.glob("*-build.txt") if p != baseline)


def test_prose_then_an_answer_already_applied_then_a_fix_builds_once(project: Project, api: FakeAPI, cli) -> None:
    counting_build(project)
    api.reply("I think the build is fine as it is.")
    api.reply("^^^app.txt\nhello\n^^^end\n")  # what app.txt already holds
    api.reply(FIX)
    result = cli("--json")
    assert result.exit_code == EXIT.OK, result.stderr
    assert builds(project) == (1, ["03-build.txt"])
    second, third = user_text(api.requests[1]), user_text(api.requests[2])
    assert (
        "--- NO CHANGE ---\nYour previous answer held no ^^^ block and changed nothing, so build.sh was not run"
        in second
    )
    assert "build.sh has not run yet" in second and "--- BUILD OUTPUT ---" not in second
    assert "Your previous answer changed nothing (every file it gave already held that content)" in third
    assert "--- BUILD OUTPUT ---" not in third
    record = json.loads(result.stdout)
    assert record["answers_without_change"] == 2 and record["attempts"] == 3 and record["outcome"] == "passed"
    assert "call 1: the answer has no ^^^ block, so it changed nothing; build.sh was not run again" in result.stderr
    assert "call 2: the answer changed nothing: every file it gave already held that content" in result.stderr
    assert "applied: 0 files" not in result.stderr  # one line says it
    (run,) = project.run_dirs()
    assert "call 1: not built: the answer has no ^^^ block" in (run / "run.log").read_text()


def test_a_run_whose_every_answer_changes_nothing_fails_without_a_build(project: Project, api: FakeAPI, cli) -> None:
    counting_build(project, "exit 0\n")  # it would pass: a tree no answer changed is still no pass
    for _ in range(4):
        api.reply("No change is needed.")
    result = cli("--json")
    assert result.exit_code == EXIT.BUILD_FAILS
    assert builds(project) == (0, [])
    record = json.loads(result.stdout)
    assert record["outcome"] == "build_failed" and record["answers_without_change"] == 4
    assert record["error"] == "no build ran: 4 of the run's 4 answers changed nothing"
    assert record["last_build"] is None
    assert "no build ran: 4 of the run's 4 answers changed nothing" in result.stderr


def test_after_a_build_a_change_of_nothing_keeps_the_build_output_in_the_next_prompt(
    project: Project, api: FakeAPI, cli
) -> None:
    """The build formats the answer's file (a formatter), and fails; an answer that changes nothing
    then is not built, though the tree differs from the one the build started from."""
    counting_build(project, "sed -i 's/one/ONE/' a.txt\necho 'a.txt: not fixed'\ntest -f fixed.txt\n")
    api.reply("^^^a.txt\none\n^^^end\n")
    api.reply("The build should pass now.")
    api.reply("^^^a.txt\nONE\n^^^end\n")  # what the formatter left: already there
    api.reply(FIX)
    result = cli("--json")
    assert result.exit_code == EXIT.OK, result.stderr
    assert builds(project) == (2, ["01-build.txt", "04-build.txt"])
    assert "--- NO CHANGE ---" not in user_text(api.requests[1])
    for request in api.requests[2:4]:
        text = user_text(request)
        assert text.index("--- NO CHANGE ---") < text.index("--- BUILD OUTPUT ---")
        assert "a.txt: not fixed" in text and "is still the last build's" in text
    assert json.loads(result.stdout)["answers_without_change"] == 2


def test_files_put_back_as_an_earlier_build_found_them_are_not_built_again(project: Project, api: FakeAPI, cli) -> None:
    """Build 1 formats what answer 1 wrote, and fails; answer 2 writes it back as answer 1 did: a
    change on disk, but the very tree build 1 started from."""
    counting_build(project, "sed -i 's/one/ONE/' a.txt\ntest -f fixed.txt\n")
    api.reply("^^^a.txt\none\n^^^end\n")
    api.reply("^^^a.txt\none\n^^^end\n")
    api.reply(FIX)
    result = cli("--json")
    assert result.exit_code == EXIT.OK, result.stderr
    assert builds(project) == (2, ["01-build.txt", "03-build.txt"])
    third = user_text(api.requests[2])
    assert "put the files back as they were when the build of call 1 ran (that build failed)" in third
    assert "call 2: the answer left the files as the build of call 1 found them" in result.stderr


def test_a_tree_two_builds_back_is_not_built_again_but_a_new_one_is(project: Project, api: FakeAPI, cli) -> None:
    counting_build(project)
    api.reply("^^^a.txt\none\n^^^end\n")  # build 1
    api.reply("^^^a.txt\ntwo\n^^^end\n^^^b.txt\nnew\n^^^end\n")  # build 2
    api.reply("^^^a.txt\none\n^^^end\n^^^b.txt\n^^^delete\n")  # back to build 1's tree: b.txt did not exist
    api.reply("^^^a.txt\nthree\n^^^end\n")  # a new tree: built
    result = cli("--json")
    assert result.exit_code == EXIT.BUILD_FAILS
    assert builds(project) == (3, ["01-build.txt", "02-build.txt", "04-build.txt"])
    record = json.loads(result.stdout)
    assert record["answers_without_change"] == 1
    assert "1 answer changed nothing" in record["error"]
