"""The repair loop end to end through `code-commit`, the real SDK and the loopback fake service."""

from __future__ import annotations

import json
from pathlib import Path

from fakeapi import FakeAPI
from support import TEST_KEY, Project, git, logged

FIX = "^^^fixed.txt\nfixed\n^^^end\n"


def user_text(request) -> str:
    """The user turn of a recorded Messages request: everything but the system prompts."""
    return "".join(block["text"] for message in request.json["messages"] for block in message["content"])


def test_build_passes_after_the_initial_answer(project: Project, api: FakeAPI, cli) -> None:
    api.reply("Creating the file.\n" + FIX)
    result = cli()
    assert result.exit_code == 0, result.stderr
    assert project.read("fixed.txt") == "fixed\n"
    assert len(api.requests) == 1
    files = logged(project)
    assert {"01-query.txt", "01-response.txt", "01-build.txt", "run.log"} <= set(files)
    assert "exited with code 0" in files["01-build.txt"]
    assert "build passes" in result.stderr


def test_the_request_streams_sends_the_key_in_a_header_and_keeps_the_spec_order(
    project: Project, api: FakeAPI, cli
) -> None:
    api.reply(FIX)
    cli("--model", "claude-test-model", "--max-tokens", "1234")
    (request,) = api.requests
    assert request.path == "/v1/messages"
    assert TEST_KEY not in request.path + request.query
    assert TEST_KEY in (request.headers.get("x-api-key", "") + request.headers.get("authorization", ""))
    body = request.json
    assert body["stream"] is True
    assert body["model"] == "claude-test-model" and body["max_tokens"] == 1234
    system = "".join(block["text"] for block in body["system"])
    assert system.index("automated code-modification agent") < system.index("HOW TO CHANGE FILES")
    assert system.index("HOW TO CHANGE FILES") < system.index("TASK")
    (message,) = body["messages"]
    texts = [block["text"] for block in message["content"]]
    assert texts == ["--- QUERY ---\nMake the build pass.\n", "--- CODEBASE ---\n==> app.txt <==\nhello\n"]


def test_repairs_until_the_build_passes(project: Project, api: FakeAPI, cli) -> None:
    api.reply("^^^wrong.txt\nnope\n^^^end\n")
    api.reply(FIX)
    result = cli()
    assert result.exit_code == 0, result.stderr
    assert len(api.requests) == 2
    repair = user_text(api.requests[1])
    assert "--- BUILD OUTPUT ---" in repair and "build.sh exited with code 1" in repair
    assert "--- FILE REPLACEMENT [wrong.txt] ---\nnope\n" in repair
    assert "REPAIR TASK" in api.requests[1].prompt_text and "Make the build pass." in repair
    files = logged(project)
    assert {"01-build.txt", "02-query.txt", "02-response.txt", "02-build.txt"} <= set(files)


def test_exit_1_after_three_failed_repairs(project: Project, api: FakeAPI, cli) -> None:
    for n in range(4):
        api.reply(f"^^^attempt.txt\n{n}\n^^^end\n")
    result = cli()
    assert result.exit_code == 1
    assert len(api.requests) == 4
    assert api.pending == 0
    names = set(logged(project))
    assert {f"0{n}-build.txt" for n in range(1, 5)} <= names
    assert "05-query.txt" not in names
    assert "still fails after 3 repairs" in result.stderr


def test_repair_prompts_carry_only_the_latest_state_of_each_file(project: Project, api: FakeAPI, cli) -> None:
    api.reply("^^^a.txt\nversion one\n^^^end\n^^^b.txt\nbee\n^^^end\n")
    api.reply("^^^a.txt\nversion two\n^^^end\n^^^b.txt\n^^^delete\n")
    api.reply("^^^c.txt\nsee\n^^^end\n")
    api.reply(FIX)
    assert cli().exit_code == 0
    third = user_text(api.requests[2])
    assert "version one" not in third
    assert third.count("--- FILE REPLACEMENT [a.txt] ---\nversion two\n") == 1
    assert "--- FILE REMOVED [b.txt] ---" in third and "bee" not in third
    fourth = user_text(api.requests[3])
    assert fourth.index("[a.txt]") < fourth.index("[b.txt]") < fourth.index("[c.txt]")
    # Earlier answers are not resent: the model only sees their effect.
    assert "^^^a.txt" not in fourth


def test_a_refused_answer_writes_nothing_and_uses_up_an_attempt(project: Project, api: FakeAPI, cli) -> None:
    api.reply("^^^innocent.txt\nfine\n^^^end\n^^^build.sh\nexit 0\n^^^end\n")
    api.reply(FIX)
    before = git(project.root, "status", "--porcelain")
    result = cli()
    assert result.exit_code == 0
    files = logged(project)
    assert "01-build.txt" not in files, "a refused answer runs no build"
    assert "'build.sh': build.sh is a protected file" in files["01-refused.txt"]
    repair = user_text(api.requests[1])
    assert "--- ANSWER REFUSED ---" in repair and "build.sh is a protected file" in repair
    assert "--- BUILD OUTPUT ---" not in repair
    assert "innocent.txt" not in repair, "nothing of the refused answer was applied"
    assert not (project.root / "innocent.txt").exists()
    assert sorted(git(project.root, "status", "--porcelain").splitlines()) == sorted(
        [*before.splitlines(), "?? fixed.txt"]
    )


def test_malformed_answer_is_refused(project: Project, api: FakeAPI, cli) -> None:
    api.reply("^^^fixed.txt\nfixed\n")  # no ^^^end
    api.reply(FIX)
    assert cli().exit_code == 0
    assert "no ^^^end" in user_text(api.requests[1])


def test_answer_cut_off_at_the_output_limit_is_never_applied(project: Project, api: FakeAPI, cli) -> None:
    # Still cut off after the answer and its three continuations: refused, even its complete blocks.
    for _ in range(4):
        api.reply("^^^partial.txt\nwhole\n^^^end\n^^^fixed.txt\nfix", stop_reason="max_tokens")
    api.reply(FIX)
    assert cli().exit_code == 0
    assert len(api.requests) == 5
    assert "still cut off at the output limit" in logged(project)["01-refused.txt"]
    assert not (project.root / "partial.txt").exists()


def test_deleting_a_missing_file_is_a_logged_no_op(project: Project, api: FakeAPI, cli) -> None:
    api.reply("^^^ghost.txt\n^^^delete\n" + FIX)
    assert cli().exit_code == 0
    assert "delete of ghost.txt skipped: the file does not exist" in logged(project)["run.log"]


def test_the_repair_prompt_lists_only_real_removals(project: Project, api: FakeAPI, cli) -> None:
    """A delete of a file that never existed removed nothing; a file the run created and then deleted
    did exist, in an earlier state the model saw."""
    api.reply("^^^ghost.txt\n^^^delete\n^^^made.txt\nmade\n^^^end\n")
    api.reply("^^^made.txt\n^^^delete\n")
    api.reply(FIX)
    result = cli("--json")
    assert result.exit_code == 0
    second, third = user_text(api.requests[1]), user_text(api.requests[2])
    assert "ghost.txt" not in second and "--- FILE REPLACEMENT [made.txt] ---\nmade\n" in second
    assert "ghost.txt" not in third and "--- FILE REMOVED [made.txt] ---" in third
    # The record is the tree's net change, as git status shows it: made.txt came and went.
    assert json.loads(result.stdout)["files_deleted"] == []


def test_the_repair_prompt_shows_each_file_as_the_build_left_it(project: Project, api: FakeAPI, cli) -> None:
    """A formatter or a code generator in build.sh changes what the model wrote: the next edit is
    matched against the file on disk, so the prompt must show that, not the answer's text."""
    project.build_script(
        "[ -f style.txt ] && echo 'formatted by the build' >> style.txt\n"
        "rm -f temp.txt\n"
        "[ -f style.txt ] && ln -sf /etc/hostname linked.txt 2>/dev/null\n"
        "test -f fixed.txt\n"
    )
    api.reply("^^^style.txt\nnope\n^^^end\n^^^temp.txt\nshort-lived\n^^^end\n^^^linked.txt\nmine\n^^^end\n")
    api.reply(FIX)
    assert cli().exit_code == 0
    repair = user_text(api.requests[1])
    assert "--- FILE REPLACEMENT [style.txt] ---\nnope\nformatted by the build\n" in repair
    assert "--- FILE REMOVED [temp.txt] ---" in repair and "short-lived" not in repair
    # A symlink the build put there is never followed into the prompt.
    assert "--- FILE REMOVED [linked.txt] ---" in repair


def test_the_key_never_appears_in_logs_prompts_or_console(project: Project, api: FakeAPI, cli) -> None:
    project.write("agent-config/query.txt", f"Fix it. My key is {TEST_KEY}.\n")
    project.write("agent-config/codeRollup.txt", f"==> .env <==\nKEY={TEST_KEY}\n")
    project.write("secret.txt", TEST_KEY + "\n")
    project.build_script("cat secret.txt\nexit 1\n")
    for _ in range(4):  # an answer that echoed the key would be refused (test_secrets.py): the build prints it
        api.reply("^^^x.txt\nx\n^^^end\n")
    result = cli()
    assert result.exit_code == 1
    censored = "********" + TEST_KEY[-2:]
    for request in api.requests:
        body = request.body.decode()
        assert TEST_KEY not in body
        assert censored in body
    assert user_text(api.requests[1]).startswith("--- BUILD OUTPUT ---\n" + censored)
    for name, text in logged(project).items():
        assert TEST_KEY not in text, name
    assert TEST_KEY not in result.stderr + result.stdout


def test_authentication_failure_exits_3_and_names_the_key_source(project: Project, api: FakeAPI, cli) -> None:
    api.status(401)
    result = cli()
    assert result.exit_code == 3
    assert "environment variable ANTHROPIC_API_KEY" in result.stderr
    assert TEST_KEY not in result.stderr
    assert len(api.requests) == 1


def test_key_from_the_key_file(project: Project, api: FakeAPI, cli, monkeypatch) -> None:
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    project.write("agent-config/anthropic-api-key", "sk-ant-from-the-file-0123456789\n")
    api.reply(FIX)
    assert cli().exit_code == 0
    assert "sk-ant-from-the-file-0123456789" in json.dumps(api.requests[0].headers)


def test_run_folders_sort_in_time_order(project: Project, api: FakeAPI, cli) -> None:
    api.reply("^^^first.txt\n1\n^^^end\n" + FIX)
    cli()
    api.reply(FIX)
    cli()
    first, second = project.run_dirs()
    assert first.name < second.name
    assert (first / "01-response.txt").read_text().startswith("^^^first.txt")


def test_all_state_stays_under_agent_config(project: Project, api: FakeAPI, cli) -> None:
    api.reply(FIX)
    cli()
    status = git(project.root, "status", "--porcelain", "--ignored", "--untracked-files=all")
    outside = [line for line in status.splitlines() if "agent-config/" not in line]
    assert outside == ["?? fixed.txt"]
    assert not any(Path(project.root, ".git").rglob("*code-commit*"))


def test_untracked_files_are_never_changed_or_deleted(project: Project, api: FakeAPI, cli) -> None:
    project.write("notes.txt", "my uncommitted notes, days of work\n")
    (project.root / "assets").mkdir()
    (project.root / "assets" / "logo.png").write_bytes(bytes(range(256)))
    before = git(project.root, "status", "--porcelain")
    api.reply("^^^notes.txt\nreplaced\n^^^end\n^^^assets/logo.png\n^^^delete\n^^^fixed.txt\nfixed\n^^^end\n")
    api.reply(FIX)
    assert cli().exit_code == 0
    assert project.read("notes.txt") == "my uncommitted notes, days of work\n"
    assert (project.root / "assets" / "logo.png").read_bytes() == bytes(range(256))
    assert sorted(git(project.root, "status", "--porcelain").splitlines()) == sorted(
        [*before.splitlines(), "?? fixed.txt"]
    )
    repair = user_text(api.requests[1])
    assert "notes.txt is not tracked by git, so git diff could not show this change" in repair
    assert "git add notes.txt first" in repair and "assets/logo.png is not tracked by git" in repair


def test_files_the_run_created_stay_writable_and_deletable_by_later_calls(project: Project, api: FakeAPI, cli) -> None:
    api.reply("^^^made.txt\none\ntwo\n^^^end\n^^^scratch.txt\nx\n^^^end\n")
    api.reply("^^^made.txt\n^^^search\ntwo\n^^^replace\n2\n^^^end\n^^^scratch.txt\n^^^delete\n")
    api.reply("^^^made.txt\nthree\n^^^end\n" + FIX)
    assert cli().exit_code == 0
    assert len(api.requests) == 3 and "refused" not in user_text(api.requests[1]) + user_text(api.requests[2])
    assert project.read("made.txt") == "three\n" and not (project.root / "scratch.txt").exists()


def test_a_file_an_answer_failed_to_create_is_not_the_runs_to_overwrite_later(
    project: Project, api: FakeAPI, cli, monkeypatch
) -> None:
    """After a failed (rolled back) apply, its new files are not "created by this run": when the
    build later leaves an untracked file there, an answer may not overwrite it unseen."""
    from code_commit.answer.plan import ApplyFailed
    from code_commit.run import orchestrator

    real, calls = orchestrator.apply_plan, []

    def fails_first(*args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise ApplyFailed("applying the answer failed (disk full); nothing was changed")
        return real(*args, **kwargs)

    monkeypatch.setattr(orchestrator, "apply_plan", fails_first)
    project.build_script("echo 'the build made this' > made.txt\ntest -f fixed.txt\n")
    api.reply("^^^made.txt\nfrom the model\n^^^end\n")  # refused: the write failed
    api.reply("^^^other.txt\nx\n^^^end\n")  # applied; the build then writes made.txt and fails
    api.reply("^^^made.txt\nfrom the model\n^^^end\n" + "^^^fixed.txt\nfixed\n^^^end\n")
    api.reply("^^^fixed.txt\nfixed\n^^^end\n")
    assert cli().exit_code == 0
    assert "made.txt is not tracked by git" in logged(project)["03-refused.txt"]
    assert project.read("made.txt") == "the build made this\n"


def test_a_file_the_build_grows_past_what_an_answer_may_hold_is_not_resent_whole(
    project: Project, api: FakeAPI, cli
) -> None:
    """The repair prompt shows the files an answer named as the build left them; a build that grows
    one to megabytes must not make the next request megabytes too."""
    project.build_script("[ -f grown.txt ] && head -c 3000000 /dev/zero | tr '\\0' x >> grown.txt\ntest -f fixed.txt\n")
    api.reply("^^^grown.txt\nsmall\n^^^end\n")
    api.reply(FIX)
    assert cli(env={"CODE_COMMIT_MAX_ANSWER_BYTES": "100000"}).exit_code == 0
    repair = user_text(api.requests[1])
    assert "--- FILE REPLACEMENT [grown.txt] ---\n[code-commit: the build left this file over 100,000 bytes" in repair
    assert len(repair) < 200_000
