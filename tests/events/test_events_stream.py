"""`--events FILE`: what a run, `demo`, `check` and `apply` do, one JSON object a line as it happens,
each line valid against the shipped schema, and the end the record's own outcome. Through the CLI
in-process, the real SDK against the fake service, real git and real builds."""

from __future__ import annotations

import json
from pathlib import Path

from code_commit import __version__
from code_commit.exits import EXIT

from event_lines import of_type, parsed, read, types
from fakeapi import FakeAPI
from support import Project

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
WRONG = "^^^app.txt\nstill wrong\n^^^end\n"


def test_a_repaired_run_streams_each_call_answer_and_build_and_ends_as_its_record(
    project: Project, api: FakeAPI, cli, tmp_path: Path
) -> None:
    project.forget_baseline()
    api.reply(WRONG)
    api.reply(FIX)
    stream = tmp_path / "events.jsonl"
    result = cli("--events", str(stream), "--json")
    assert result.exit_code == EXIT.OK
    record = json.loads(result.stdout)
    events = read(stream)
    assert types(events) == [
        "run_start",
        *["build_start", "build_end"],  # the baseline
        *["call_start", "call_end", "answer_applied", "build_start", "build_end"],
        *["call_start", "call_end", "answer_applied", "build_start", "build_end"],
        "end",
    ]
    start = events[0]
    assert start["command"] == "run" and start["version"] == __version__
    assert (start["provider"], start["model"]) == (record["provider"], record["model"])
    assert start["project"] == str(project.root) and start["log_dir"] == record["log_dir"]
    assert start["sandbox"] == record["sandbox"] and start["settings"]["tests"] == "protect"
    assert [e["build"] for e in of_type(events, "build_end")] == ["baseline", "verdict", "verdict"]
    assert [e["passed"] for e in of_type(events, "build_end")] == [False, False, True]
    assert [e["written"] for e in of_type(events, "answer_applied")] == [["app.txt"], ["fixed.txt"]]
    for ended, call in zip(of_type(events, "call_end"), record["calls"], strict=True):
        assert ended["usage"] == call["usage"] and ended["cost_usd"] == call["cost_usd"]
        assert ended["stop_reason"] == call["stop_reason"] == "end_turn"
    end = events[-1]
    assert (end["outcome"], end["exit_code"], end["log_dir"]) == (record["outcome"], 0, record["log_dir"])


def test_a_refused_answer_streams_its_problems_as_the_record_states_them(
    project: Project, api: FakeAPI, cli, tmp_path: Path
) -> None:
    project.forget_baseline()
    for _ in range(4):
        api.reply("^^^.git/config\n[core]\n^^^end\n")
    stream = tmp_path / "events.jsonl"
    result = cli("--events", str(stream), "--json")
    record = json.loads(result.stdout)
    assert result.exit_code == EXIT.BUILD_FAILS and record["outcome"] == "refused"
    events = read(stream)
    refused = of_type(events, "answer_refused")
    assert [e["call"] for e in refused] == [1, 2, 3, 4]
    assert "answer_applied" not in types(events) and types(events).count("build_start") == 1  # the baseline only
    (problem,) = refused[-1]["problems"]  # a run's record states its last refusal in its `error`
    assert problem["kind"] == "guard" and problem["path"] == ".git/config"
    assert record["error"].endswith(f"the last one because: {problem['message']}")
    assert events[-1]["outcome"] == "refused"


def test_a_needs_human_answer_streams_its_reason_then_the_end(project: Project, api: FakeAPI, cli, tmp_path) -> None:
    api.reply("^^^needs-human\nThe tests contradict the query.\n^^^end\n")
    stream = tmp_path / "events.jsonl"
    result = cli("--events", str(stream), "--json")
    record = json.loads(result.stdout)
    assert result.exit_code == EXIT.NEEDS_HUMAN
    events = read(stream)
    assert types(events)[-2:] == ["needs_human", "end"]
    assert events[-2]["reason"] == record["needs_human"] == "The tests contradict the query."
    assert (events[-1]["outcome"], events[-1]["exit_code"]) == ("needs_human", 13)


def test_a_failed_call_streams_its_end_with_stop_reason_error(project: Project, api: FakeAPI, cli, tmp_path) -> None:
    api.status(401)
    stream = tmp_path / "events.jsonl"
    result = cli("--events", str(stream), "--json")
    assert result.exit_code == EXIT.SERVICE
    events = read(stream)
    assert types(events)[-3:] == ["call_start", "call_end", "end"]
    assert events[-2]["stop_reason"] == "error" and events[-1]["outcome"] == json.loads(result.stdout)["outcome"]


def test_a_dry_run_builds_nothing_and_ends_acceptable(project: Project, api: FakeAPI, cli, tmp_path: Path) -> None:
    api.reply(FIX)
    stream = tmp_path / "events.jsonl"
    result = cli("--dry-run", "--json", "--events", str(stream))
    assert result.exit_code == EXIT.OK
    events = read(stream)
    assert types(events) == ["run_start", "call_start", "call_end", "end"]
    assert events[0]["sandbox"] is None and events[0]["settings"]["dry_run"] is True
    assert events[-1]["outcome"] == "acceptable"


def test_a_setup_error_streams_only_the_end_and_sends_nothing(project: Project, api: FakeAPI, cli, tmp_path) -> None:
    (project.root / "agent-config" / "query.txt").unlink()
    stream = tmp_path / "events.jsonl"
    result = cli("--events", str(stream), "--json")
    assert result.exit_code == EXIT.SETUP
    (end,) = read(stream)
    assert (end["type"], end["outcome"], end["exit_code"], end["log_dir"]) == ("end", "setup_error", 2, None)
    assert end["outcome"] == json.loads(result.stdout)["outcome"] and not api.requests


def test_events_to_stdout_leave_nothing_else_there(project: Project, api: FakeAPI, cli) -> None:
    api.reply(FIX)
    result = cli("--events", "-")
    assert result.exit_code == EXIT.OK
    events = parsed(result.stdout)  # standard output holds the stream and nothing else
    assert types(events)[0] == "run_start" and types(events)[-1] == "end"


def test_check_streams_its_build_and_ends_as_its_record(project: Project, cli, tmp_path: Path) -> None:
    project.build_script("echo '3 passed in 0.01s'\n")  # pytest's summary line
    project.commit_all()
    stream = tmp_path / "events.jsonl"
    result = cli("check", "--json", "--events", str(stream))
    record = json.loads(result.stdout)
    assert result.exit_code == EXIT.OK
    events = read(stream)
    assert types(events) == ["run_start", "build_start", "build_end", "end"]
    assert events[0]["command"] == "check" and events[0]["provider"] is None
    assert events[2]["runner_counts"] == [{"runner": "pytest", "passed": 3, "failed": 0, "skipped": 0, "unit": "test"}]
    assert (events[-1]["outcome"], events[-1]["exit_code"]) == (record["outcome"], record["exit_code"])


def test_apply_with_build_streams_the_answer_and_the_build(project: Project, cli, tmp_path: Path) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text(FIX)
    stream = tmp_path / "events.jsonl"
    result = cli("apply", "--build", "--json", "--events", str(stream), str(answer))
    assert result.exit_code == EXIT.OK, result.stderr
    events = read(stream)
    assert types(events) == ["run_start", "answer_applied", "build_start", "build_end", "end"]
    assert events[0]["command"] == "apply" and events[1]["written"] == ["fixed.txt"]
    assert events[-1]["outcome"] == json.loads(result.stdout)["outcome"]


def test_demo_streams_its_run(cli, tmp_path: Path) -> None:
    stream = tmp_path / "events.jsonl"
    result = cli("demo", "-q", "--dir", str(tmp_path / "demo"), "--events", str(stream))
    assert result.exit_code == EXIT.OK, result.stderr
    events = read(stream)
    assert types(events).count("answer_applied") == 2 and events[-1]["outcome"] == "passed"
    assert (events[0]["provider"], events[0]["model"]) == ("scripted", "scripted-demo-model")
