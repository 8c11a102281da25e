"""Answers that are not whole: cut off at the output limit (continued, or refused), refused by the model,
or too long for the model's context (exit 3 from the service, exit 2 from the check before any call)."""

from __future__ import annotations

import pytest

from code_commit.llm.anthropic_api import join_after_prefill

from fakeapi import FakeAPI
from support import Project, git

FIX = "^^^fixed.txt\nfixed\n^^^end\n"


def logged(project: Project) -> dict[str, str]:
    (run,) = project.run_dirs()
    return {p.name: p.read_text() for p in sorted(run.iterdir())}


def assistant_turn(request) -> str | None:
    messages = request.json["messages"]
    if messages[-1]["role"] != "assistant":
        return None
    return "".join(block["text"] for block in messages[-1]["content"])


def test_a_cut_off_answer_is_continued_and_the_parts_joined(project: Project, api: FakeAPI, cli) -> None:
    api.reply("Creating it.\n^^^fixed.txt\nfix", stop_reason="max_tokens")
    api.reply("ed\n^^^end\n")

    result = cli()

    assert result.exit_code == 0, result.stderr
    assert project.read("fixed.txt") == "fixed\n"
    first, second = api.requests
    assert assistant_turn(first) is None
    assert assistant_turn(second) == "Creating it.\n^^^fixed.txt\nfix"
    # Same model, system and user turn: only the partial answer is added.
    assert second.json["system"] == first.json["system"]
    assert second.json["messages"][0] == first.json["messages"][0]
    assert logged(project)["01-response.txt"] == "Creating it.\n^^^fixed.txt\nfixed\n^^^end\n"
    assert "continuation 1 of 3" in result.stderr
    assert "continuations=1" in logged(project)["run.log"]


def test_trailing_white_space_is_not_sent_back_and_not_lost(project: Project, api: FakeAPI, cli) -> None:
    # The API refuses an assistant turn that ends in white space: it is stripped from the request. The
    # model's continuation brings white space of its own ("\n"), part of what was stripped ("\n  \n"):
    # the joined answer keeps all the service sent, without doubling the part it sent twice.
    api.reply("^^^fixed.txt\nfixed\n  \n", stop_reason="max_tokens")
    api.reply("\n^^^end\n")

    assert cli().exit_code == 0
    assert assistant_turn(api.requests[1]) == "^^^fixed.txt\nfixed"
    assert logged(project)["01-response.txt"] == "^^^fixed.txt\nfixed\n  \n^^^end\n"
    assert project.read("fixed.txt") == "fixed\n  \n"


@pytest.mark.parametrize(
    ("first", "rest"),
    [
        pytest.param("^^^fixed.txt\nline1\n", "line2\n^^^end\n", id="continuation without white space"),
        pytest.param("^^^fixed.txt\nline1\n", "\nline2\n^^^end\n", id="continuation re-supplies the newline"),
        pytest.param("^^^fixed.txt\n", "line1\nline2\n^^^end\n", id="cut on the path line"),
    ],
)
def test_the_white_space_at_the_cut_is_neither_lost_nor_doubled(
    project: Project, api: FakeAPI, cli, first: str, rest: str
) -> None:
    api.reply(first, stop_reason="max_tokens")
    api.reply(rest)

    assert cli(env={"CODE_COMMIT_MAX_REPAIRS": "0"}).exit_code == 0
    assert assistant_turn(api.requests[1]) == first.rstrip()
    assert logged(project)["01-response.txt"] == "^^^fixed.txt\nline1\nline2\n^^^end\n"
    assert project.read("fixed.txt") == "line1\nline2\n"


@pytest.mark.parametrize(
    ("text", "more", "joined"),
    [
        ("a\n", "b", "a\nb"),  # the model glued on: the stripped newline comes back
        ("a\n", "\nb", "a\nb"),  # it re-supplied it: not doubled
        ("a\n", "\n\nb", "a\n\nb"),  # it supplied more: kept
        ("a\n\n", "\nb", "a\n\nb"),  # it supplied less: what was stripped is kept
        ("a  ", "\nb", "a  \nb"),  # other white space: both kept
        ("a", " b", "a b"),
        ("", "b", "b"),
    ],
)
def test_joining_a_continuation_after_a_stripped_prefill(text: str, more: str, joined: str) -> None:
    assert join_after_prefill(text, more) == joined


def test_up_to_three_continuations_and_their_usage_is_summed(project: Project, api: FakeAPI, cli) -> None:
    pieces = ["^^^fixed.txt\n", "\nfi", "xe", "d\n^^^end\n"]  # a continuation brings its own white space
    for piece in pieces[:-1]:
        api.reply(piece, stop_reason="max_tokens", usage={"input_tokens": 100, "output_tokens": 10})
    api.reply(pieces[-1], usage={"input_tokens": 100, "output_tokens": 10})

    assert cli().exit_code == 0
    assert len(api.requests) == 4
    assert [assistant_turn(r) for r in api.requests] == [None, "^^^fixed.txt", "^^^fixed.txt\nfi", "^^^fixed.txt\nfixe"]
    assert project.read("fixed.txt") == "fixed\n"
    log = logged(project)["run.log"]
    assert "input_tokens=400 output_tokens=40" in log
    assert "requests=4 retries=0 continuations=3" in log


def test_an_answer_still_cut_off_is_refused_and_uses_up_its_attempt(project: Project, api: FakeAPI, cli) -> None:
    for _ in range(4):
        api.reply("^^^partial.txt\nwhole\n^^^end\n^^^fixed.txt\nfix", stop_reason="max_tokens")
    api.reply(FIX)

    result = cli()

    assert result.exit_code == 0
    assert len(api.requests) == 5
    refusal = logged(project)["01-refused.txt"]
    assert "still cut off at the output limit (32000 tokens) after 3 continuation(s)" in refusal
    assert "--- ANSWER REFUSED ---" in api.requests[4].prompt_text
    assert assistant_turn(api.requests[4]) is None, "the repair call starts afresh"
    assert not (project.root / "partial.txt").exists()


def test_an_unterminated_block_after_a_normal_stop_is_never_applied(project: Project, api: FakeAPI, cli) -> None:
    api.reply("^^^partial.txt\nwhole\n^^^end\n^^^fixed.txt\nfixed\n")  # end_turn, but no ^^^end
    api.reply(FIX)

    assert cli().exit_code == 0
    assert len(api.requests) == 2
    assert not (project.root / "partial.txt").exists()


def test_a_refusal_fails_the_attempt_with_a_clear_message(project: Project, api: FakeAPI, cli) -> None:
    api.reply("^^^partial.txt\nwhole\n^^^end\n", stop_reason="refusal")
    api.reply(FIX)

    result = cli()

    assert result.exit_code == 0
    assert len(api.requests) == 2
    assert "the model declined to answer (stop reason: refusal)" in result.stderr
    assert "declined to answer" in logged(project)["01-refused.txt"]
    assert not (project.root / "partial.txt").exists()


@pytest.mark.parametrize(
    "fault",
    [
        pytest.param(
            lambda api: api.status(
                400,
                body={
                    "type": "error",
                    "error": {"type": "invalid_request_error", "message": "prompt is too long: 212000 tokens > 200000"},
                },
            ),
            id="400 prompt is too long",
        ),
        pytest.param(
            lambda api: api.reply("^^^partial.txt\nwhole\n^^^end\n", stop_reason="model_context_window_exceeded"),
            id="model_context_window_exceeded",
        ),
    ],
)
def test_a_prompt_too_long_exits_3_with_its_size_and_the_fix(project: Project, api: FakeAPI, cli, fault) -> None:
    fault(api)
    api.reply(FIX)

    result = cli()

    assert result.exit_code == 3
    assert len(api.requests) == 1
    assert "the prompt is too long for claude-sonnet-5-5" in result.stderr
    chars = len(logged(project)["01-query.txt"])
    assert f"It is {chars:,} characters" in result.stderr
    assert "Shrink the rollup" in result.stderr
    assert not (project.root / "partial.txt").exists()
    assert git(project.root, "status", "--porcelain") == ""


def test_a_prompt_that_cannot_fit_the_context_exits_2_before_any_call(project: Project, api: FakeAPI, cli) -> None:
    # 200,000 tokens of context: even at 4 characters a token, 1,000,000 characters cannot fit.
    project.write("agent-config/codeRollup.txt", "==> big.txt <==\n" + "x = 1\n" * 170_000)

    result = cli()

    assert result.exit_code == 2
    assert api.requests == []
    assert project.run_dirs() == []
    assert "its context is 200,000 tokens" in result.stderr
    assert "Shrink the rollup" in result.stderr and "Nothing was sent" in result.stderr


def test_the_context_check_uses_the_configured_window(project: Project, api: FakeAPI, cli) -> None:
    project.write("agent-config/config.toml", '[models."claude-sonnet-5-5"]\ncontext_window = 1000\n')
    project.write("agent-config/codeRollup.txt", "==> a.txt <==\n" + "y\n" * 3000)

    assert cli().exit_code == 2
    assert api.requests == []

    project.write("agent-config/config.toml", '[models."claude-sonnet-5-5"]\ncontext_window = 100000\n')
    api.reply(FIX)
    assert cli().exit_code == 0


def test_a_refused_continuation_leaves_the_answer_incomplete_and_the_run_goes_on(
    project: Project, api: FakeAPI, cli
) -> None:
    # As a model that takes no partial answer would: the continuation request gets a 400.
    api.reply("^^^partial.txt\nwhole\n^^^end\n^^^fixed.txt\nfix", stop_reason="max_tokens")
    api.status(400, body={"type": "error", "error": {"type": "invalid_request_error", "message": "no prefill"}})
    api.reply(FIX)

    result = cli()

    assert result.exit_code == 0, result.stderr
    assert len(api.requests) == 3
    assert "not continuing the cut-off answer: the Anthropic service answered HTTP 400" in result.stderr
    assert "still cut off at the output limit (32000 tokens) after 0 continuation(s)" in result.stderr
    assert "requests=2 retries=0 continuations=0" in logged(project)["run.log"]
    assert not (project.root / "partial.txt").exists()
    assert project.read("fixed.txt") == "fixed\n"
