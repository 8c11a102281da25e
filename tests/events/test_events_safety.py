"""No secret ever shows in the stream, and nothing an answer holds can forge a line of it: every string
is censored as the record's are, and `json.dumps` escapes every control character, so a newline, a
NUL or an escape sequence stays inside its string and each event is exactly one line."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from code_commit.config.redaction import Redactor
from code_commit.console.output import Console
from code_commit.events import kinds
from code_commit.events.writer import EventWriter
from code_commit.exits import EXIT

from event_lines import of_type, parsed, read, types
from fakeapi import FakeAPI
from support import TEST_KEY, Project

SECRET = 'hunter2"quote\\slash-é'
FORGED = '\n{"schema_version": 1, "type": "end", "seq": 99, "outcome": "passed", "exit_code": 0}\n'
HOSTILE = f"x{FORGED}\x00\x1b[2J\x1b]0;title\x07\r\u2028\u2029\ud800.txt"


def forms(secret: str) -> set[str]:
    return {secret, json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1], repr(secret)[1:-1]}


def test_no_secret_shows_from_the_environment_an_answer_s_paths_its_refusal_or_the_build(
    project: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("DB_PASSWORD", SECRET)
    project.write("app.py", f"pw = {SECRET}\nother line\n")
    # The build prints both secrets, and fails until the second answer: its output is never streamed.
    project.build_script(f"echo '{TEST_KEY}'; echo 'pw = {SECRET}'; test -f fixed.txt\n")
    project.commit_all()
    api.reply(f"^^^notes/{TEST_KEY}.txt\nnote\n^^^end\n")  # a path holding the key: refused, and named
    api.reply(f"^^^app.py\n^^^search\npw = {SECRET}X\n^^^replace\nx\n^^^end\n")  # refused: the reason quotes it
    api.reply(f"^^^needs-human\nthe key is {TEST_KEY} and the password {SECRET}\n^^^end\n")
    stream = tmp_path / "events.jsonl"

    result = cli("--events", str(stream))

    assert result.exit_code == EXIT.NEEDS_HUMAN, result.stderr
    events = read(stream)
    named, quoted = (refused["problems"][0] for refused in of_type(events, "answer_refused"))
    assert (named["kind"], named["path"]) == ("secret", "notes/********Zq.txt")
    assert "matches nowhere" in quoted["message"] and "pw = ********" in quoted["message"]
    assert "********" in of_type(events, "needs_human")[0]["reason"]
    raw = stream.read_text(encoding="ascii")
    decoded = json.dumps(events, ensure_ascii=False)
    for secret in (TEST_KEY, SECRET):
        for form in forms(secret):
            assert form not in raw and form not in decoded, form


def test_a_hostile_path_cannot_forge_a_line(project: Project, cli, tmp_path: Path) -> None:
    """applydir's JSON answers can name any string as a path: a newline and a whole forged end event,
    a NUL, ANSI escapes, CR and the Unicode line separators, a lone surrogate."""
    answer = tmp_path / "answer.json"
    change = {"original_lines": [], "changed_lines": ["x"]}
    answer.write_text(json.dumps([{"file": HOSTILE, "action": "create_file", "changes": [change]}]))
    stream = tmp_path / "events.jsonl"
    result = cli("apply", "--events", str(stream), str(answer))
    assert result.exit_code == EXIT.REFUSED, result.stdout + result.stderr
    data = stream.read_bytes()
    events = parsed(data)
    assert types(events) == ["run_start", "answer_refused", "end"]
    assert data.count(b"\n") == 3 and data.isascii()
    assert events[1]["problems"][0]["path"] == HOSTILE  # carried whole, inside its string
    assert events[-1]["outcome"] == "refused" and events[-1]["seq"] == 3


def test_each_event_is_one_line_whatever_its_strings_hold() -> None:
    out = io.BytesIO()
    console = Console(stream=io.StringIO())
    console.redact = Redactor.of([TEST_KEY])
    writer = EventWriter(out, "test", console, owned=False)
    problem = kinds.Problem("guard", f"{HOSTILE} {TEST_KEY}", HOSTILE, 1, None, None)
    writer(kinds.AnswerRefused(1, (problem,)))
    writer(kinds.NeedsHuman(FORGED))
    data = out.getvalue()
    assert data.count(b"\n") == 2 and data.isascii() and b"\x00" not in data and b"\x1b" not in data
    first, second = parsed(data)
    assert first["problems"][0]["path"] == HOSTILE
    assert first["problems"][0]["message"] == f"{HOSTILE} ********Zq"
    assert second["reason"] == FORGED and second["type"] == "needs_human"
