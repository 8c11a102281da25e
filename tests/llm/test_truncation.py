"""Answers that are not whole: cut off at the output limit (continued without prefill, or refused), refused
by the model, or too long for the model's context (exit 3 from the service, exit 2 from the check before any
call).

The fake refuses a request that ends with the assistant's turn on every model the real service refuses it
for (Claude 4.6 and later), with the real status and message, so these tests cannot pass on prefill."""

from __future__ import annotations

import pytest

from code_commit.llm.continuation import LEADING_LINES, continuation_of, join

from fakeapi import PREFILL_MESSAGE, FakeAPI
from support import Project, git, logged

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
OPENAI_KEY = "sk-openai-test-0123456789-KEYab"


def turns(request) -> list[tuple[str, str]]:
    """(role, text) of each message, in either provider's shape."""
    out = []
    for message in request.json["messages"]:
        content = message["content"]
        text = content if isinstance(content, str) else "".join(block["text"] for block in content)
        out.append((message["role"], text))
    return out


PROVIDERS = [
    pytest.param(("--model", "claude-sonnet-5-5"), id="claude-sonnet-5-5"),
    pytest.param(("--model", "claude-opus-5-5"), id="claude-opus-5-5"),
    pytest.param(("--provider", "openai", "--model", "gpt-6-sol"), id="openai gpt-6-sol"),
]


@pytest.fixture
def run(api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)

    def invoke(provider: tuple[str, ...], *args: str, env=None):
        where = ("--base-url", f"{api.url}/v1") if "openai" in provider else ()
        return cli(*provider, *where, *args, env=env)

    return invoke


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize(
    ("first", "rest", "whole"),
    [
        pytest.param(
            "Making it.\n^^^fixed.txt\nfix",
            "Making it.\n^^^fixed.txt\nfixed\n^^^end\n",
            "Making it.\n^^^fixed.txt\nfixed\n^^^end\n",
            id="cut inside a block",
        ),
        pytest.param(
            "^^^fixed.txt\nfixed\n^^^e",
            "^^^fixed.txt\nfixed\n^^^end\n",
            "^^^fixed.txt\nfixed\n^^^end\n",
            id="cut inside a fence line",
        ),
        pytest.param(
            "^^^fixed.txt\nline1\ncafé ✓\nna\ufffd",  # a server's U+FFFD for a character's first bytes
            "line1\ncafé ✓\nnaïve\n^^^end\n",
            "^^^fixed.txt\nline1\ncafé ✓\nnaïve\n^^^end\n",
            id="cut inside a multi-byte character",
        ),
        pytest.param(
            "^^^fixed.txt\nline1\n  \nsmile \ud83d",  # half of a surrogate pair, as a JSON escape may carry it
            "^^^fixed.txt\nline1\n  \nsmile \U0001f600\n^^^end\n",
            "^^^fixed.txt\nline1\n  \nsmile \U0001f600\n^^^end\n",
            id="cut inside a surrogate pair, after white space",
        ),
        pytest.param(
            "^^^fixed.txt\nline1\nline2\n",
            "Sure, continuing from there:\nline1\nline2\nline3\n^^^end\n",
            "^^^fixed.txt\nline1\nline2\nline3\n^^^end\n",
            id="cut after a newline, continuation with a preamble",
        ),
    ],
)
def test_a_cut_off_answer_is_continued_in_a_user_turn_and_joined_exactly(
    project: Project, api: FakeAPI, run, provider, first: str, rest: str, whole: str
) -> None:
    api.reply(first, stop_reason="max_tokens")
    api.reply(rest)

    result = run(provider, env={"CODE_COMMIT_MAX_REPAIRS": "0"})

    assert result.exit_code == 0, result.stderr
    assert api.refused == [], "the fake refused a request the real service refuses"
    initial, continuation = api.requests
    assert turns(initial)[-1][0] == "user"
    # Sent back: the answer up to its last complete line that is not blank (the cut line is written again).
    kept = first[: first.rfind("\n") + 1].rstrip()
    *same, (assistant, partial), (user, instruction) = turns(continuation)
    assert same == turns(initial), "the prompt goes again unchanged, so the prompt cache serves it"
    assert (assistant, user) == ("assistant", "user")
    assert partial == kept
    assert "--- LAST LINES ---" in instruction
    assert logged(project)["01-response.txt"] == whole
    answer_file = whole.split("\n", 1)[1] if whole.startswith("Making") else whole
    assert project.read("fixed.txt") == answer_file.split("\n", 1)[1].removesuffix("^^^end\n")
    assert "continuation 1 of 3" in result.stderr


def test_the_fake_refuses_the_old_prefill_continuation_on_current_models(project: Project, api: FakeAPI, cli) -> None:
    # As code-commit used to continue: the partial answer as the last, assistant, turn. The real service
    # answers 400 on Sonnet 5.5; the fake must too, or the test above proves nothing.
    import anthropic

    client = anthropic.Anthropic(api_key="sk-ant-test-key-0000", base_url=api.url, max_retries=0)
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "^^^fixed.txt\nfix"}]
    with pytest.raises(anthropic.BadRequestError) as refused:
        client.messages.create(model="claude-sonnet-5-5", max_tokens=100, messages=messages)  # type: ignore[arg-type]
    assert refused.value.status_code == 400
    assert refused.value.body == {
        "type": "error",
        "error": {"type": "invalid_request_error", "message": PREFILL_MESSAGE},
    }
    api.reply("ed")  # Haiku 4.5 still takes it
    older = client.messages.create(model="claude-haiku-4-5", max_tokens=100, messages=messages)  # type: ignore[arg-type]
    assert older.content[0].text == "ed"  # type: ignore[union-attr]


def test_up_to_three_continuations_and_their_usage_is_summed(project: Project, api: FakeAPI, cli) -> None:
    pieces = [
        "^^^fixed.txt\nline1\nli",
        "^^^fixed.txt\nline1\nline2\nli",
        "line1\nline2\nline3\nli",
        "line2\nline3\nline4\n^^^end\n",
    ]
    for piece in pieces[:-1]:
        api.reply(piece, stop_reason="max_tokens", usage={"input_tokens": 100, "output_tokens": 10})
    api.reply(pieces[-1], usage={"input_tokens": 100, "output_tokens": 10})

    assert cli().exit_code == 0
    assert len(api.requests) == 4
    assistant_turns = [turns(r)[1][1] if len(turns(r)) > 1 else None for r in api.requests]
    assert assistant_turns == [
        None,
        "^^^fixed.txt\nline1",
        "^^^fixed.txt\nline1\nline2",
        "^^^fixed.txt\nline1\nline2\nline3",
    ]
    assert all(turns(r)[-1][0] == "user" for r in api.requests)
    assert project.read("fixed.txt") == "line1\nline2\nline3\nline4\n"
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
    assert "still cut off at the output limit (128000 tokens) after 3 continuation(s)" in refusal
    assert "--- ANSWER REFUSED ---" in api.requests[4].prompt_text
    assert len(turns(api.requests[4])) == 1, "the repair call starts afresh"
    assert not (project.root / "partial.txt").exists()


CUT = "^^^partial.txt\nwhole\n^^^end\n^^^fixed.txt\nfix"
STARTS_OVER = "I will start again.\n^^^fixed.txt\nfixed\n^^^end\n"


def test_a_continuation_that_does_not_go_on_from_the_cut_is_asked_again(project: Project, api: FakeAPI, cli) -> None:
    # The model starts over instead of repeating the last lines: where its text belongs is unknown, so it is
    # not guessed at; the same continuation is asked again, insisting, and this time the model repeats them.
    api.reply(CUT, stop_reason="max_tokens")
    api.reply(STARTS_OVER)
    api.reply("^^^end\n^^^fixed.txt\nfixed\n^^^end\n")

    result = cli()

    assert result.exit_code == 0, result.stderr
    assert len(api.requests) == 3
    assert "did not begin with the answer's last lines" in result.stderr
    assert "asking again (continuation 2 of 3), insisting on its last lines" in result.stderr
    first, again = api.requests[1].prompt_text, api.requests[2].prompt_text
    assert "Your last reply did not begin with those lines" not in first
    assert "Your last reply did not begin with those lines" in again
    assert again.endswith(first.split("Your answer above was cut off", 1)[1])  # the same lines asked for
    assert project.read("partial.txt") == "whole\n" and project.read("fixed.txt") == "fixed\n"
    assert "requests=3 retries=0 continuations=2 " in logged(project)["run.log"]


def test_a_continuation_never_placed_is_refused_after_the_last_one(project: Project, api: FakeAPI, cli) -> None:
    api.reply(CUT, stop_reason="max_tokens")
    for _ in range(3):
        api.reply(STARTS_OVER)
    api.reply(FIX)

    result = cli()

    assert result.exit_code == 0, result.stderr
    assert len(api.requests) == 5, "three continuations, then the repair call"
    assert "the answer stays cut off (3 of 3 continuations used)" in result.stderr
    assert "still cut off" in logged(project)["01-refused.txt"]
    assert not (project.root / "partial.txt").exists()
    assert project.read("fixed.txt") == "fixed\n"


def test_a_cut_inside_thinking_is_not_continued(project: Project, api: FakeAPI, cli) -> None:
    # The whole output limit went to thinking: there is no line to go on from.
    api.reply("", stop_reason="max_tokens", thinking="Let me think about the build at length...")
    api.reply(FIX)

    result = cli()

    assert result.exit_code == 0, result.stderr
    assert len(api.requests) == 2
    assert "in thinking, before any answer" in result.stderr
    assert "Let me think" in logged(project)["01-thinking.txt"]


@pytest.mark.parametrize(
    ("text", "more", "joined"),
    [
        ("a\nb\nc", "a\nb\nc!\n", "a\nb\nc!\n"),  # the cut line is written again, whole
        ("a\nb\n", "a\nb\nc\n", "a\nb\nc\n"),
        ("a\n\nb\n\n\nc", "a\n\nb\n\nd\n", "a\n\nb\n\nd\n"),  # blank lines after the anchor: the model's
        ("a\nb  \nc", "a\nb\nc\n", "a\nb  \nc\n"),  # the anchor's trailing white space: ours is kept
        ("x\na\nb\nc", "preamble\n\n\na\nb\nc\n", "x\na\nb\nc\n"),  # up to LEADING_LINES lines before it
        ("x\na\nb\nc", "1\n2\n3\n4\na\nb\nc\n", None),  # more than that: not guessed at
        ("a\nb\nc", "a\nb\n", None),  # nothing after the anchor: no progress
        ("a\nb\nc", "a\nb", None),
        ("a\nb\nc", "b\nc\n", None),  # another line
    ],
)
def test_joining_a_continuation(text: str, more: str, joined: str | None) -> None:
    continuation = continuation_of(text)
    assert continuation is not None
    assert join(continuation, more) == joined
    assert LEADING_LINES == 3


@pytest.mark.parametrize("text", ["", "no newline yet", "\n\n", "  \n\t\n"])
def test_nothing_to_continue_from(text: str) -> None:
    assert continuation_of(text) is None


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
                    "error": {
                        "type": "invalid_request_error",
                        "message": "prompt is too long: 1212000 tokens > 1000000",
                    },
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
    # claude-haiku-4-5 takes 200,000 tokens: even at 4 characters a token, 1,000,000 characters cannot fit.
    project.write("agent-config/codeRollup.txt", "==> big.txt <==\n" + "x = 1\n" * 170_000)

    result = cli("--model", "claude-haiku-4-5")

    assert result.exit_code == 2
    assert api.requests == []
    assert project.run_dirs() == []
    assert "its context is 200,000 tokens" in result.stderr
    assert "Shrink the rollup" in result.stderr and "Nothing was sent" in result.stderr


def test_a_large_rollup_reaches_a_1m_token_model(project: Project, api: FakeAPI, cli) -> None:
    # 1.6 MB of rollup, about 400,000 tokens: too much for the 200,000 tokens the old catalog assumed,
    # and well within the 1M tokens of the current Sonnet. The fake refuses a prompt past 1M tokens.
    project.write("agent-config/codeRollup.txt", "==> big.txt <==\n" + "y = 22\n" * 230_000)
    api.reply(FIX)

    result = cli()

    assert result.exit_code == 0, result.stderr
    assert api.refused == []
    (request,) = api.requests
    assert len(request.body) > 1_600_000


def test_an_unknown_model_gets_no_local_context_check(project: Project, api: FakeAPI, cli) -> None:
    project.write("agent-config/codeRollup.txt", "==> big.txt <==\n" + "x = 1\n" * 170_000)
    api.reply(FIX)

    result = cli("--model", "claude-unknown-9")

    assert result.exit_code == 0, result.stderr
    assert "context window unknown for claude-unknown-9: no prompt is refused before it is sent" in result.stderr
    assert "cost unknown: the model catalog has no price for claude-unknown-9" in result.stderr


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
    # The continuation request gets a 400 (the prompt no longer fits, say).
    api.reply("^^^partial.txt\nwhole\n^^^end\n^^^fixed.txt\nfix", stop_reason="max_tokens")
    api.status(400, body={"type": "error", "error": {"type": "invalid_request_error", "message": "no room"}})
    api.reply(FIX)

    result = cli()

    assert result.exit_code == 0, result.stderr
    assert len(api.requests) == 3
    assert "not continuing the cut-off answer: the Anthropic service answered HTTP 400" in result.stderr
    assert "still cut off at the output limit (128000 tokens) after 0 continuation(s)" in result.stderr
    assert "requests=2 retries=0 continuations=0" in logged(project)["run.log"]
    assert not (project.root / "partial.txt").exists()
    assert project.read("fixed.txt") == "fixed\n"
