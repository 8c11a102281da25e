"""--review at a real terminal: `code-commit` on a pseudo-terminal (pexpect) against the fake
service, keys sent as a supervisor types them. Each run is forked from the fork server
(tests/terminal.py), which imported the SDK once; each test still walks a whole run and checks
everything it can on the way."""

from __future__ import annotations

import io
import os
import termios

import pexpect
import pytest

from fakeapi import FakeAPI
from support import Project
from support.record import valid_record
from terminal import Spawner

TWENTY = "".join(f"line {n}\n" for n in range(1, 21))
TWO_HUNKS = TWENTY.replace("line 2\n", "LINE 2\n").replace("line 18\n", "LINE 18\n")
KEPT = TWENTY.replace("line 2\n", "LINE 2\n")  # the first hunk only
FIX = "^^^fixed.txt\nfixed\n^^^end\n"


@pytest.fixture
def files(project: Project) -> Project:
    project.write("app.txt", TWENTY)
    project.write("old.txt", "old\n")
    project.commit_all()
    return project


class Session:
    def __init__(self, terminal: Spawner, project: Project, **env: str) -> None:
        environment = {k: v for k, v in os.environ.items() if k != "NO_COLOR"} | {"TERM": "xterm"} | env
        self.output = io.StringIO()
        self.child = terminal(
            ["--review"],
            cwd=project.root,
            env=environment,
            encoding="utf-8",
            timeout=60,  # only a guard against a hang; nothing here is timed
            dimensions=(50, 200),
        )
        self.child.logfile_read = self.output

    def expect(self, text: str) -> None:
        self.child.expect_exact(text)

    def keys(self, *steps: tuple[str, str]) -> None:
        """Send each key once the text before it is on the screen: typeahead would be discarded."""
        for key, then in steps:
            self.child.send(key)
            self.expect(then)

    def cbreak(self) -> bool:
        """Whether the terminal is in cbreak mode now (the pty's settings, read from our side)."""
        lflag = termios.tcgetattr(self.child.child_fd)[3]
        return not lflag & (termios.ICANON | termios.ECHO)

    def finish(self) -> int:
        self.expect(pexpect.EOF)
        restored = not self.cbreak()
        self.child.close()
        assert restored, "the terminal is back in its normal mode"
        return self.child.exitstatus if self.child.signalstatus is None else -self.child.signalstatus


def test_keep_some_hunks_then_accept_a_whole_repair(files: Project, api: FakeAPI, terminal: Spawner) -> None:
    api.reply(f"^^^app.txt\n{TWO_HUNKS}^^^end\n^^^new.txt\nnew\n^^^end\n^^^old.txt\n^^^delete\n")
    api.reply(FIX)
    run = Session(terminal, files)

    run.expect("(1/4) Accept this hunk [a,r,n,p,A,R,q,?]? ")
    assert run.cbreak()
    run.keys(
        ("?", "q - finish: write what was accepted"),
        ("a", "(2/4) Accept this hunk"),
        ("r", "(3/4) Create this file"),
        ("p", "(2/4) Accept this hunk"),
        ("n", "(3/4) Create this file"),
        ("a", "(4/4) Delete this file"),
        ("r", "every hunk is decided (2 accepted, 2 rejected)"),
        ("q", "review: 2 accepted, 2 rejected"),
    )
    run.expect("running build.sh")
    assert not run.cbreak(), "the terminal is restored as soon as the review ends"
    run.expect("(1/1) Create this file")
    run.keys(("A", "every hunk is decided (1 accepted, 0 rejected)"))
    run.child.send("q")
    assert run.finish() == 0

    assert files.read("app.txt") == KEPT
    assert files.read("new.txt") == "new\n" and files.read("old.txt") == "old\n"
    shown = run.output.getvalue()
    assert "Progress: 1/4 accepted, 1 rejected, 2 pending" in shown
    assert "\x1b[32m+LINE 2\x1b[0m" in shown and "\x1b[31m-line 18\x1b[0m" in shown, "colour on a terminal"
    repair = api.requests[1].prompt_text
    assert f"--- FILE REPLACEMENT [app.txt] ---\n{KEPT}" in repair, "the model sees what was really applied"
    assert "--- REVIEW ---" in repair and "-line 18\n+LINE 18\n" in repair
    assert "Rejected: the deletion of old.txt (the file stays)" in repair
    (log,) = files.run_dirs()
    events = (log / "run.log").read_text()
    assert "call 1: review: accepted app.txt hunk 1 of 2 @@ -1,5 +1,5 @@" in events
    assert "call 1: review: rejected old.txt deleted file" in events
    assert "call 2: review: accepted fixed.txt new file" in events


def test_quit_with_hunks_pending_then_reject_everything(files: Project, api: FakeAPI, terminal: Spawner) -> None:
    api.reply(f"^^^app.txt\n{TWO_HUNKS}^^^end\n")
    api.reply(f"^^^app.txt\n{TWO_HUNKS}^^^end\n{FIX}")
    run = Session(terminal, files, NO_COLOR="1")

    run.expect("(1/2) Accept this hunk")
    run.keys(("a", "(2/2) Accept this hunk"), ("q", "1 pending hunk not reviewed: counted as rejected"))
    run.expect("build fails")
    run.expect("(1/2) Accept this hunk")  # the repair proposes the rejected hunk again, and a new file
    run.keys(("R", "every hunk is decided (0 accepted, 2 rejected)"))
    run.child.send("q")
    run.expect("every change of the answer to call 2 was rejected in review")
    assert run.finish() == 6

    assert len(api.requests) == 2, "rejected means stop: no retry"
    assert files.read("app.txt") == KEPT and not (files.root / "fixed.txt").exists()
    assert "\x1b[" not in run.output.getvalue(), "NO_COLOR"
    (log,) = files.run_dirs()
    assert not (log / "02-build.txt").exists()
    events = (log / "run.log").read_text()
    assert "call 1: review: 1 accepted, 1 rejected (1 left pending at q)" in events
    assert "call 2: review: 0 accepted, 2 rejected" in events
    assert valid_record((log / "summary.json").read_text())["outcome"] == "rejected"


def test_ctrl_c_mid_review_writes_nothing_and_restores_the_terminal(
    files: Project, api: FakeAPI, terminal: Spawner
) -> None:
    api.reply(f"^^^app.txt\n{TWO_HUNKS}^^^end\n")
    run = Session(terminal, files)
    run.expect("(1/2) Accept this hunk")
    run.keys(("a", "(2/2) Accept this hunk"))
    run.child.sendintr()
    run.expect("interrupted")
    assert run.finish() == 130
    assert files.read("app.txt") == TWENTY
    (log,) = files.run_dirs()
    assert "call 1: review interrupted; nothing of this answer was written" in (log / "run.log").read_text()


def test_keeping_part_of_a_change_to_a_file_that_is_not_utf8(files: Project, api: FakeAPI, terminal: Spawner) -> None:
    """The merged file keeps the original's non-UTF-8 bytes; the repair prompt shows them as U+FFFD."""
    old = "caf\xe9\n".encode("latin-1") + b"pad\n" * 20 + b"end\n"
    (files.root / "latin.txt").write_bytes(old)
    files.commit_all()
    api.reply("^^^latin.txt\ncafe\n" + "pad\n" * 20 + "END\n^^^end\n")
    api.reply(FIX)
    run = Session(terminal, files)
    run.expect("(1/2) Accept this hunk")
    run.keys(("r", "(2/2) Accept this hunk"), ("a", "every hunk is decided"), ("q", "build fails"))
    run.expect("(1/1) Create this file")
    run.keys(("a", "every hunk is decided"))
    run.child.send("q")
    run.expect("build passes")
    assert run.finish() == 0
    assert (files.root / "latin.txt").read_bytes() == old.replace(b"end\n", b"END\n")
    assert "--- FILE REPLACEMENT [latin.txt] ---\ncaf\ufffd\npad\n" in api.requests[1].prompt_text


CALC = "def test_add():\n    assert 1 + 1 == 2\n\n\ndef test_sub():\n    assert 2 - 1 == 1\n"
ADD_ONLY = "def test_add():\n    assert 1 + 1 == 2\n"
SUB_ONLY = "def test_sub():\n    assert 2 - 1 == 1\n"


def test_the_user_sees_a_rewrite_of_their_edit_first_and_a_new_test_the_review_keeps_is_judged_apart(
    files: Project, api: FakeAPI, terminal: Spawner
) -> None:
    """A whole-file answer over an uncommitted edit is named before the review starts; a new test file
    the user keeps is kept, and judged apart from the pass."""
    files.write("tests/test_calc.py", ADD_ONLY)
    files.commit_all()
    files.write("old.txt", "old, and my uncommitted edit\n")
    failing = "def test_sub():\n    assert 2 - 1 == 0\n"
    api.reply(f"^^^old.txt\nold, from the rollup\n^^^end\n^^^tests/test_sub.py\n{failing}^^^end\n{FIX}")
    run = Session(terminal, files, NO_COLOR="1")
    run.expect("the answer rewrites 1 file whole that has uncommitted changes of yours: old.txt")
    run.expect("(1/3) Accept this hunk")
    run.keys(("r", "(2/3) Create this file"), ("a", "(3/3) Create this file"), ("a", "every hunk is decided"))
    run.child.send("q")
    run.expect("build passes")
    assert run.finish() == 0
    assert files.read("tests/test_sub.py") == failing and files.read("old.txt") == "old, and my uncommitted edit\n"
    summary = valid_record((files.run_dirs()[-1] / "summary.json").read_text())
    assert summary["new_tests"] == ["tests/test_sub.py"] and summary["new_tests_pass"] is True  # build.sh runs no test
