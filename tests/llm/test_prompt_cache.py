"""Prompt caching: where the cache_control breakpoints land in each prompt order, that the cache order's
prefix is the same in every call of a run, and that the cached share of the input is reported."""

from __future__ import annotations

from code_commit.llm.prompts import Feedback, SystemPrompts, initial_prompt, load_system_prompts, repair_prompt

from fakeapi import FakeAPI
from support import Project

WRONG = "^^^wrong.txt\nnope\n^^^end\n"
FIX = "^^^fixed.txt\nfixed\n^^^end\n"
SYSTEM = SystemPrompts("<PS>", "<CM>", "<IQ>", "<RQ>")


def layout(request) -> tuple[list[str], list[str]]:
    """The request's system and user blocks, each named (a system prompt by its short name, any other block
    by its first line), with * after each breakpoint."""
    shipped = load_system_prompts()
    short = {
        shipped.project_structure: "PS",
        shipped.code_modification: "CM",
        shipped.initial_query: "IQ",
        shipped.repair_query: "RQ",
    }

    def names(blocks) -> list[str]:
        return [short.get(b["text"], b["text"].splitlines()[0]) + ("*" if "cache_control" in b else "") for b in blocks]

    system = names(request.json["system"])
    (user,) = request.json["messages"]
    for block in [*request.json["system"], *user["content"]]:
        assert block.get("cache_control", {"type": "ephemeral"}) == {"type": "ephemeral"}
    return system, names(user["content"])


def run_two_calls(api: FakeAPI, cli, *args: str):
    api.reply(WRONG)
    api.reply(FIX)
    result = cli(*args)
    assert result.exit_code == 0, result.stderr
    return api.requests


def test_spec_order_one_breakpoint_at_the_end_of_the_shared_system_prompts(project: Project, api: FakeAPI, cli) -> None:
    # The task prompt differs between the initial call (TASK) and the repairs (REPAIR TASK): a breakpoint
    # on it would end a prefix no later call sends, so the initial call's cache write could never be read.
    initial, repair = run_two_calls(api, cli)

    system, user = layout(initial)
    assert system == ["PS", "CM*", "IQ"]
    assert user == ["--- QUERY ---", "--- CODEBASE ---"]
    system, user = layout(repair)
    assert system == ["PS", "CM*", "RQ"]
    assert user == ["--- BUILD OUTPUT ---", "--- QUERY ---", "--- CODEBASE ---", "--- FILE REPLACEMENT [wrong.txt] ---"]
    # What makes the repair read it from the cache: everything up to the breakpoint is what the initial
    # call sent.
    assert repair.json["system"][:2] == initial.json["system"][:2]


def test_cache_order_puts_the_shared_prefix_first_with_breakpoints_on_it(project: Project, api: FakeAPI, cli) -> None:
    initial, repair = run_two_calls(api, cli, "--prompt-order", "cache")

    system, user = layout(initial)
    assert system == ["PS", "CM*"]
    assert user == ["--- QUERY ---", "--- CODEBASE ---*", "IQ"]
    system, user = layout(repair)
    assert system == ["PS", "CM*"]
    assert user == [
        "--- QUERY ---",
        "--- CODEBASE ---*",
        "RQ",
        "--- BUILD OUTPUT ---",
        "--- FILE REPLACEMENT [wrong.txt] ---",
    ]
    # What makes the repair read the codebase from the cache: everything up to the last breakpoint is
    # byte for byte what the initial call sent.
    assert repair.json["system"] == initial.json["system"]
    assert repair.json["messages"][0]["content"][:2] == initial.json["messages"][0]["content"][:2]


def test_cache_order_from_the_config_file(project: Project, api: FakeAPI, cli) -> None:
    project.write("agent-config/config.toml", 'prompt_order = "cache"\n')
    initial, _ = run_two_calls(api, cli)
    assert layout(initial)[1] == ["--- QUERY ---", "--- CODEBASE ---*", "IQ"]


def test_prompt_orders_keep_every_section_and_mark_the_breakpoints() -> None:
    def shape(prompt) -> list[str]:
        return [f"{s.title}{' (system)' if s.system else ''}{' *' if s.cache else ''}" for s in prompt.sections]

    assert shape(initial_prompt(SYSTEM, "q", "c")) == [
        "project structure (system)",
        "code modification (system) *",
        "initial query (system)",
        "query",
        "codebase",
    ]
    assert shape(repair_prompt(SYSTEM, Feedback("out"), "q", "c", {"a": "A"})) == [
        "project structure (system)",
        "code modification (system) *",
        "repair query (system)",
        "build output",
        "query",
        "codebase",
        "file replacements",
    ]
    assert shape(repair_prompt(SYSTEM, Feedback("out"), "q", "c", {"a": "A"}, order="cache")) == [
        "project structure (system)",
        "code modification (system) *",
        "query",
        "codebase *",
        "repair query",
        "build output",
        "file replacements",
    ]
    spec = repair_prompt(SYSTEM, Feedback("out"), "q", "c", {"a": "A"})
    cache = repair_prompt(SYSTEM, Feedback("out"), "q", "c", {"a": "A"}, order="cache")
    assert sorted(s.text for s in spec.sections) == sorted(s.text for s in cache.sections)


def test_an_empty_section_is_not_sent_as_an_empty_block(project: Project, api: FakeAPI, cli) -> None:
    # A refused first answer leaves no file replacements: the real API refuses an empty text block.
    api.reply("^^^build.sh\nexit 0\n^^^end\n")
    api.reply(FIX)

    assert cli().exit_code == 0
    blocks = api.requests[1].json["messages"][0]["content"]
    assert all(block["text"] for block in blocks)
    assert [b["text"].splitlines()[0] for b in blocks] == [
        "--- ANSWER REFUSED ---",
        "--- QUERY ---",
        "--- CODEBASE ---",
    ]


def test_the_cached_share_of_the_input_is_reported(project: Project, api: FakeAPI, cli) -> None:
    api.reply(WRONG, usage={"input_tokens": 500, "cache_creation_input_tokens": 9500, "cache_read_input_tokens": 0})
    api.reply(FIX, usage={"input_tokens": 700, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 9500})

    result = cli("--prompt-order", "cache")

    assert result.exit_code == 0
    assert "10,000 input tokens (0% from cache)" in result.stderr
    assert "10,200 input tokens (93% from cache)" in result.stderr
    assert "20,200 input tokens (47% from cache)" in result.stderr
    (run,) = project.run_dirs()
    log = (run / "run.log").read_text()
    assert "cached_share=0.93" in log and "run total: calls=2" in log and "cached_share=0.47" in log
