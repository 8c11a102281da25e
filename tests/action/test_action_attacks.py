"""The attacker's tests of the action: inputs that a shell would run, model text and file names
that would end an output early or add one, build output that would issue workflow commands, and
a record whose strings would be Markdown or HTML in the job summary."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from simulated_runner import Commands, RunAction, parse_output_file

from code_commit.cli.github_action.facts import Facts, Usage
from code_commit.cli.github_action.runner_files import commands_stopped, encode_outputs
from code_commit.cli.github_action.summary import FileStat, inline, render

from fakeapi import FakeAPI
from support import TEST_KEY, Project

HOSTILE = "$(touch pwned-dollar) `touch pwned-tick` ; touch pwned-semi\n::error::from-the-input\nsecond line"


def _no_pwned(*folders: Path) -> None:
    for folder in folders:
        assert not list(folder.rglob("pwned*")), f"a shell ran input text in {folder}"


def test_hostile_query_and_model_reach_code_commit_as_text(
    project: Project, api: FakeAPI, run: RunAction, tmp_path: Path
) -> None:
    api.reply("^^^fixed.txt\ndone\n^^^end\n")
    model = "claude-x$(touch pwned-model)`touch pwned-model2`"

    done = run({"query": HOSTILE, "model": model, "sandbox": "auto"})

    _no_pwned(project.root, tmp_path)
    assert api.requests[0].json["model"] == model
    assert project.read("agent-config/query.txt") == HOSTILE + "\n"
    assert HOSTILE in api.requests[0].prompt_text
    assert ("error", "from-the-input") not in [c for step in done.steps for c in step.commands]
    assert done.outputs["outcome"] == "passed", done.log
    assert inline(model) in done.summary and "$(touch" not in done.summary


def test_hostile_args_are_split_into_words_and_never_run(
    project: Project, api: FakeAPI, run: RunAction, tmp_path: Path
) -> None:
    done = run({"query": "q", "args": '--effort "$(touch pwned-a)" `touch pwned-b`', "sandbox": "off"})

    _no_pwned(project.root, tmp_path)
    assert api.requests == [] and done.outputs["exit-code"] == "2"
    assert "No such command '`touch'" in done.log  # code-commit's parser got the words, as text


@pytest.mark.parametrize(
    ("args", "input_name"), [("--model x", "model"), ("--max-cost=1", "max-cost"), ("--sandbox off", "sandbox")]
)
def test_a_flag_with_an_input_of_its_own_is_refused_in_args(
    project: Project, api: FakeAPI, run: RunAction, args: str, input_name: str
) -> None:
    done = run(
        {"query": "q", "args": args, "sandbox": "auto"} if input_name != "sandbox" else {"query": "q", "args": args}
    )

    assert done.outputs["exit-code"] == "2" and api.requests == []
    assert f"give it as the `{input_name}` input instead" in done.log


WEIRD_NAME = "a|b <img src=x onerror=alert(1)> [l](javascript:alert(1)) @here ghadelimiter_x **b**.txt"


def test_build_output_issues_no_workflow_command_and_hostile_names_stay_text(
    project: Project, api: FakeAPI, run: RunAction, monkeypatch
) -> None:
    """The build (the model's code) prints workflow commands, one line without its newline, and its
    environment; the model writes a file whose name is Markdown, HTML and a delimiter's look-alike."""
    project.build_script(
        "echo '::error::from-the-build'\necho '::add-mask::hidden-by-the-build'\nenv\n"
        "printf '::warning::no newline at the end'\ntest -f fixed.txt\n"
    )
    project.commit_all()
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    api.reply(f"^^^{WEIRD_NAME}\nx\n^^^end\n")

    done = run(
        {"query": "q", "api-key": TEST_KEY, "args": "-v", "sandbox": "auto"}, env={"CODE_COMMIT_MAX_REPAIRS": "0"}
    )

    assert done.outputs["outcome"] == "build_failed", done.log
    assert "::error::from-the-build" in done.log, "the build's output did reach the log, as text"
    run_step = done.step("Run code-commit")
    acted = [name for name, _ in run_step.commands]
    assert acted == ["add-mask", "stop-commands"], run_step.commands
    assert not done.commands_off_at_end
    assert done.masks == [TEST_KEY]
    assert TEST_KEY not in done.masked(done.log)
    assert TEST_KEY not in done.summary and TEST_KEY not in str(done.outputs)
    log_dir = Path(done.step("Upload the run folder").env["path"])
    assert not [p for p in log_dir.rglob("*") if p.is_file() and TEST_KEY.encode() in p.read_bytes()]
    # The name is one line of changed-files, and the summary shows it as text.
    assert done.outputs["changed-files"] == WEIRD_NAME
    assert set(done.outputs) == {"outcome", "exit-code", "record", "cost", "changed-files"}
    _inert(done.summary)
    assert inline(WEIRD_NAME, 300) in done.summary


def _inert(summary: str) -> None:
    """No tag but ours, no link, no emphasis, no mention, and every table row of two cells."""
    assert set(re.findall(r"<(/?\w+)", summary)) <= {"pre", "/pre"}
    assert summary.count("<pre>") == summary.count("</pre>")
    outside = re.sub(r"<pre>.*?</pre>", "", summary, flags=re.DOTALL)
    assert "](" not in outside and "**" not in outside and "@" not in outside and "javascript:" not in outside
    for row in (line for line in outside.splitlines() if line.startswith("|")):
        assert row.count("|") == 3, row


def test_the_summary_of_a_hostile_record_is_inert() -> None:
    hostile = "</pre><script>alert(1)</script>\n# Heading\n| x | y |\n[link](https://evil.example) @org/team **b**"
    facts = Facts(
        exit_code=13,
        outcome="needs_human",
        record_path=Path("/tmp/record.json"),
        problems=(f"the record's outcome is not one code-commit names: {hostile!r}",),
        error=hostile,
        cost_usd=0.5,
        files=(hostile.replace("\n", " "), "ok.txt"),
        log_dir=None,
        calls=2,
        usage=Usage(10, 20),
        model=hostile,
        last_build={"passed": False, "exit_code": 1, "sandbox": hostile},
    )
    stats = [FileStat(hostile.replace("\n", " "), 1, 2)]

    summary = render(facts, stats, "javascript:alert(1)")

    _inert(summary)
    assert "<script" not in summary and "javascript" not in summary.replace(inline("javascript"), "")
    assert "&lt;/pre&gt;&lt;script&gt;" in summary  # the error, shown escaped in its block
    assert html.unescape(inline(hostile, 10_000)) == hostile.replace("\n", "?")
    assert len(summary.encode()) < 128 * 1024


def test_a_huge_record_makes_a_summary_under_the_runner_s_limit() -> None:
    many = tuple(f"dir/{'x' * 200}-{n}.txt" for n in range(10_000))
    facts = Facts(1, "build_failed", Path("r.json"), problems=("p" * 10_000,) * 50, error="e" * 10**6, files=many)
    assert len(render(facts, None, "").encode()) < 128 * 1024


@pytest.mark.parametrize(
    "value",
    [
        "plain",
        "",
        "two\nlines",
        "ends with a newline\n",
        "x\nghadelimiter_guess\nexit-code<<EOF\n0\nEOF\noutcome=passed",
        "=\n<<\n\r\n",
    ],
)
def test_an_output_value_reads_back_exactly_whatever_it_holds(value: str) -> None:
    text = encode_outputs({"changed-files": value, "outcome": "build_failed"})
    assert parse_output_file(text) == {"changed-files": value, "outcome": "build_failed"}


def test_a_delimiter_the_value_holds_is_never_used() -> None:
    """The value holds the first delimiter drawn (as if the model had guessed it): another is drawn."""
    drawn = iter(["ghadelimiter_1", "ghadelimiter_1", "ghadelimiter_2", "ghadelimiter_3"])
    value = "a\nghadelimiter_1\noutcome<<X\npassed\nX"
    text = encode_outputs({"changed-files": value, "outcome": "build_failed"}, lambda: next(drawn))
    assert "changed-files<<ghadelimiter_2\n" in text
    assert parse_output_file(text) == {"changed-files": value, "outcome": "build_failed"}


def test_commands_resume_even_after_text_without_its_newline() -> None:
    import io

    out = io.BytesIO()
    with commands_stopped(out) as relay:
        relay(b"::error::hostile\n::stop-commands::other\nno newline at the end")
    out.write(b"::notice::ours again\n")
    runner = Commands()

    acted = runner.read(out.getvalue().decode())

    assert [name for name, _ in acted] == ["stop-commands", "notice"]
    assert runner.stop_token is None
