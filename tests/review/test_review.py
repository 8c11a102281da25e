"""Review mode in process: the key loop with scripted keys, the hook between plan and apply, the
decisions in the log, --review without a terminal, and --diff. The real terminal is in
test_review_terminal.py."""

from __future__ import annotations

import contextlib
import io
import os
import select
import signal
import subprocess
import termios
from collections.abc import Iterator
from pathlib import Path

import pytest

from code_commit.answer.caret_blocks import DeleteFile, WriteFile
from code_commit.answer.plan import AnswerRefused, Plan
from code_commit.answer.planning import plan_changes
from code_commit.apply.transaction import apply_plan
from code_commit.config.redaction import Redactor
from code_commit.config.settings import Settings
from code_commit.console import terminal
from code_commit.console.output import Console
from code_commit.console.terminal import Keys, colour_wanted
from code_commit.errors import AllRejected, Interrupted
from code_commit.guard.policy import Guard
from code_commit.logs.run_log import RunLog
from code_commit.review.diffs import file_diff
from code_commit.review.hunks import FileChange, file_change
from code_commit.review.interactive import ACCEPTED, REJECTED, UNREVIEWED, Reviewer, approve

from fakeapi import FakeAPI
from support import TEST_KEY, Project, git

TWENTY = "".join(f"line {n}\n" for n in range(1, 21))
TWO_HUNKS = TWENTY.replace("line 2\n", "LINE 2\n").replace("line 18\n", "LINE 18\n")
FIX = "^^^fixed.txt\nfixed\n^^^end\n"


def four_changes() -> list[FileChange]:
    """Four decisions: two hunks of app.txt, a new file, a deletion."""
    return [
        file_change("app.txt", TWENTY.encode(), TWO_HUNKS.encode()),
        file_change("new.txt", None, b"new\n"),
        file_change("old.txt", b"old\n", None),
    ]


def review(keys: str, changes: list[FileChange] | None = None, **options) -> tuple[list[str], str]:
    out = io.StringIO()
    decisions = Reviewer(changes or four_changes(), out, **options).run(iter(keys))
    return [d.state for d in decisions], out.getvalue()


def test_keys_decide_move_and_finish_with_pending_hunks_counted_as_rejected() -> None:
    states, shown = review("?paxnnnrq")
    assert states == [ACCEPTED, UNREVIEWED, UNREVIEWED, REJECTED]
    assert "Progress: 0/4 accepted, 0 rejected, 4 pending" in shown
    assert "A - accept every hunk still pending" in shown, "? shows the help"
    assert "this is the first hunk" in shown and "this is the last hunk" in shown
    assert "unknown key 'x': press ? for help" in shown
    assert "(2/4) Accept this hunk" in shown and "(3/4) Create this file" in shown
    assert "(4/4) Delete this file" in shown
    # r on the last item goes round to the first still pending one.
    assert "Progress: 1/4 accepted, 1 rejected, 2 pending\napp.txt: hunk 2 of 2 (pending)" in shown
    assert shown.rstrip().endswith("2 pending hunks not reviewed: counted as rejected")
    assert "@@ -15,6 +15,6 @@ line 14\n line 15\n line 16\n line 17\n-line 18\n+LINE 18\n line 19\n line 20\n(" in shown


def test_A_and_R_settle_only_what_is_pending_and_decisions_can_be_changed_until_q() -> None:
    states, shown = review("rAnprq")
    assert states == [REJECTED, REJECTED, ACCEPTED, ACCEPTED]
    assert "accepted the 3 pending hunks" in shown
    assert "every hunk is decided (3 accepted, 1 rejected): q finishes" in shown
    assert "not reviewed" not in shown
    assert review("Rq")[0] == [REJECTED] * 4


def test_a_closed_terminal_ends_the_review_without_decisions() -> None:
    with pytest.raises(Interrupted, match="terminal closed"):
        review("ar")


def test_what_is_shown_cannot_hide_a_line_and_never_shows_the_key() -> None:
    sneaky = f"ok\x1b[2K\rinnocent\nabc\u202edef\nkey={TEST_KEY}\n"
    changes = [file_change("evil.txt", None, sneaky.encode())]
    _, shown = review("aq", changes, redact=Redactor.of([TEST_KEY]))
    assert "\x1b" not in shown and "\r" not in shown and "\u202e" not in shown
    assert "+ok␛[2K␍innocent\n+abc<U+202E>def\n" in shown
    assert TEST_KEY not in shown and "key=********" + TEST_KEY[-2:] in shown


def test_colour_only_when_wanted() -> None:
    _, plain = review("Aq")
    _, coloured = review("Aq", colour=True)
    assert "\x1b[" not in plain
    assert "\x1b[32m+LINE 2\x1b[0m" in coloured and "\x1b[31m-line 2\x1b[0m" in coloured
    assert "\x1b[36m@@ -1,5 +1,5 @@\x1b[0m" in coloured


def test_colour_wanted_on_a_terminal_unless_no_color_or_a_dumb_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    leader, follower = os.openpty()
    with os.fdopen(follower, "w") as terminal:
        monkeypatch.delenv("NO_COLOR", raising=False)
        monkeypatch.setenv("TERM", "xterm")
        assert colour_wanted(terminal) and not colour_wanted(io.StringIO())
        monkeypatch.setenv("NO_COLOR", "1")
        assert not colour_wanted(terminal)
        monkeypatch.setenv("NO_COLOR", "")  # no-color.org: an empty NO_COLOR does not count
        assert colour_wanted(terminal)
        monkeypatch.setenv("TERM", "dumb")
        assert not colour_wanted(terminal)
    os.close(leader)


class Setup:
    """A project, a plan for its answer, and the log and console `approve` writes to."""

    def __init__(self, root: Path, *edits: WriteFile | DeleteFile, review: bool = True, diff: bool = False) -> None:
        self.root = root
        self.plan = plan_changes(root, list(edits), Guard(root))
        self.log = RunLog.create(root / "agent-config", Redactor())
        self.console = Console(stream=io.StringIO())
        self.settings = Settings(review=review, diff=diff)

    def approve(self, keys: Iterator[str]) -> Plan:
        approved = approve(self.root, self.plan, 1, self.settings, self.log, self.console, keys)
        self.note = approved.note
        return approved.plan

    def logged(self, name: str) -> str:
        return (self.log.folder / name).read_text()


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / ".gitignore").write_text("/agent-config\n")
    (tmp_path / "app.txt").write_text(TWENTY)
    (tmp_path / "old.txt").write_text("old\n")
    return tmp_path


def test_only_the_accepted_hunks_are_written_and_the_log_says_who_decided_what(root: Path) -> None:
    run = Setup(root, WriteFile("app.txt", TWO_HUNKS), WriteFile("new.txt", "new\n"), DeleteFile("old.txt"))
    plan = run.approve(iter("araq"))
    apply_plan(root, plan, run.log.path(1, "journal"))
    kept = TWENTY.replace("line 2\n", "LINE 2\n")
    assert (root / "app.txt").read_text() == kept
    assert (root / "new.txt").read_text() == "new\n" and (root / "old.txt").exists()
    assert plan.final == {"app.txt": kept.encode(), "new.txt": b"new\n"}

    events = run.logged("run.log")
    assert "call 1: review: accepted app.txt hunk 1 of 2 @@ -1,5 +1,5 @@" in events
    assert "call 1: review: rejected app.txt hunk 2 of 2 @@ -15,6 +15,6 @@ line 14" in events
    assert "call 1: review: accepted new.txt new file" in events
    assert "call 1: review: rejected (left pending at q) old.txt deleted file" in events
    assert "call 1: review: 2 accepted, 2 rejected (1 left pending at q)" in events
    record = run.logged("01-review.txt")
    assert record.startswith("Review of the answer to call 1: 2 accepted, 2 rejected (1 left pending at q).\n")
    assert "[rejected app.txt hunk 2 of 2 @@ -15,6 +15,6 @@ line 14]\ndiff --git a/app.txt b/app.txt\n" in record
    # The log's diff is exactly what was written.
    applied = file_diff("app.txt", TWENTY.encode(), kept.encode()) + file_diff("new.txt", None, b"new\n")
    assert run.logged("01-changes.diff") == applied
    # And the model hears what was turned down.
    assert run.note.startswith("--- REVIEW ---\n") and "Do not propose the rejected changes again" in run.note
    assert "-line 18\n+LINE 18\n" in run.note and "-line 2\n" not in run.note
    assert "Rejected: the deletion of old.txt (the file stays)" in run.note and "new.txt" not in run.note


def test_everything_rejected_stops_the_run_and_writes_nothing(root: Path) -> None:
    run = Setup(root, WriteFile("app.txt", TWO_HUNKS), WriteFile("new.txt", "new\n"))
    with pytest.raises(AllRejected, match="rejected in review: nothing of it was written, no build ran"):
        run.approve(iter("rRq"))
    assert "call 1: review: 0 accepted, 3 rejected" in run.logged("run.log")
    assert "every change was rejected in review; the run stops" in run.logged("run.log")
    assert not (run.log.folder / "01-changes.diff").exists()


def test_a_file_edited_during_the_review_is_never_overwritten(root: Path) -> None:
    run = Setup(root, WriteFile("app.txt", TWO_HUNKS), WriteFile("new.txt", "new\n"))

    def supervisor_edits_meanwhile() -> Iterator[str]:
        yield "a"
        (root / "app.txt").write_text(TWENTY + "my own line\n")
        yield from "Aq"

    with pytest.raises(AnswerRefused, match=r"'app\.txt' changed on disk during the review"):
        run.approve(supervisor_edits_meanwhile())
    assert (root / "app.txt").read_text() == TWENTY + "my own line\n"


def test_an_interrupted_review_is_logged(root: Path) -> None:
    run = Setup(root, WriteFile("app.txt", TWO_HUNKS))

    def ctrl_c() -> Iterator[str]:
        yield "a"
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run.approve(ctrl_c())
    assert "call 1: review interrupted; nothing of this answer was written" in run.logged("run.log")


def test_an_answer_that_changes_nothing_asks_nothing(root: Path) -> None:
    run = Setup(root, WriteFile("app.txt", TWENTY), DeleteFile("ghost.txt"))
    assert run.approve(iter("")) == run.plan
    assert "review" not in run.console.stream.getvalue()


def test_review_without_a_terminal_exits_2_before_any_model_call(project: Project, api: FakeAPI, cli) -> None:
    result = cli("--review")
    assert result.exit_code == 2
    assert "--review needs a terminal, but stdin and stderr are not one" in result.stderr
    assert "Cron jobs and CI cannot answer questions" in result.stderr
    project.write("agent-config/config.toml", "review = true\n")
    result = cli()
    assert result.exit_code == 2 and "(review is on from config file)" in result.stderr
    assert api.requests == [] and project.run_dirs() == []
    api.reply(FIX)
    assert cli("--no-review").exit_code == 0, "a cron job can switch off a review the config asks for"
    api.reply("^^^other.txt\nnew\n^^^end\n")
    result = cli("--dry-run")
    assert result.exit_code == 0, "a dry run writes nothing, so it has nothing to review"
    assert "the answer is acceptable" in result.stderr and "+new" in result.stdout


def test_diff_prints_what_each_attempt_applied_on_stderr(project: Project, api: FakeAPI, cli) -> None:
    project.write("app.txt", TWENTY)
    project.write("secret.txt", f"{TEST_KEY}\n")  # the project's own (an answer may not add one: test_secrets.py)
    project.commit_all()
    api.reply(f"^^^app.txt\n{TWO_HUNKS}^^^end\n^^^secret.txt\n{TEST_KEY}\nmore\n^^^end\n")
    api.reply("^^^app.txt\n" + TWO_HUNKS.replace("line 10\n", "") + "^^^end\n" + FIX)
    result = cli("--diff")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "", "stdout stays free for results (--json)"
    first = result.stderr.index("call 1: the diff it applies:")
    second = result.stderr.index("call 2: the diff it applies:")
    assert first < result.stderr.index("-line 2\n+LINE 2\n") < second
    assert result.stderr.index("@@ -7,7 +7,6 @@ line 6\n line 7\n line 8\n line 9\n-line 10\n") > second
    assert "+++ b/fixed.txt\n@@ -0,0 +1 @@\n+fixed\n" in result.stderr
    assert TEST_KEY not in result.stderr and " ********" + TEST_KEY[-2:] + "\n+more" in result.stderr
    assert "\x1b[" not in result.stderr, "no colour when stderr is not a terminal"

    (run,) = project.run_dirs()
    # Each attempt's diff is in the log too, exact (but for the censored key): undoing the second
    # then the first restores HEAD.
    for name in ("02-changes.diff", "01-changes.diff"):
        undo = ["git", "apply", "-R", "--exclude=secret.txt", "-"]
        subprocess.run(undo, cwd=project.root, input=(run / name).read_bytes(), check=True, capture_output=True)
    assert git(project.root, "status", "--porcelain") == " M secret.txt\n"


def test_the_applied_diff_is_logged_even_without_diff(project: Project, api: FakeAPI, cli) -> None:
    api.reply(FIX)
    result = cli()
    assert result.exit_code == 0 and "the diff it applies" not in result.stderr
    (run,) = project.run_dirs()
    assert (run / "01-changes.diff").read_text().startswith("diff --git a/fixed.txt b/fixed.txt\nnew file mode")


@pytest.fixture
def pty() -> Iterator[tuple[int, int]]:
    leader, follower = os.openpty()
    yield leader, follower
    for fd in (leader, follower):
        with contextlib.suppress(OSError):
            os.close(fd)


def cbreak(fd: int) -> bool:
    return not termios.tcgetattr(fd)[3] & (termios.ICANON | termios.ECHO)


def test_keys_come_one_at_a_time_and_keys_typed_before_the_review_are_dropped(pty: tuple[int, int]) -> None:
    leader, follower = pty
    saved = termios.tcgetattr(follower)
    os.write(leader, b"A\n")  # typed while the model was thinking: not a decision
    select.select([follower], [], [])  # it is in the terminal's input queue now
    with Keys(follower) as keys:
        assert cbreak(follower)
        os.write(leader, "ré\x1b[A\x1bOBq".encode())
        assert [next(keys) for _ in range(5)] == ["r", "é", "\x1b[A", "\x1bOB", "q"]
    assert termios.tcgetattr(follower) == saved


def test_an_escape_sequence_split_across_reads_is_still_one_key(monkeypatch: pytest.MonkeyPatch) -> None:
    chunks = [b"a\x1b", b"[", b"1;5", b"A", b"\xc3", b"\xa9\x1b", b"x", b""]
    monkeypatch.setattr(terminal.os, "read", lambda fd, size: chunks.pop(0))
    keys = Keys(-1)  # reading only: the terminal mode is not touched outside `with`
    assert [next(keys) for _ in range(4)] == ["a", "\x1b[1;5A", "é", "\x1bx"], "never a bare A: accept everything"
    with pytest.raises(Interrupted, match="terminal closed"):
        next(keys)


def test_the_terminal_is_restored_on_sigterm_ctrl_c_and_hangup(pty: tuple[int, int]) -> None:
    leader, follower = pty
    saved, handler = termios.tcgetattr(follower), signal.getsignal(signal.SIGTERM)
    with pytest.raises(Interrupted, match="terminated during the review"), Keys(follower) as keys:
        assert cbreak(follower) and signal.getsignal(signal.SIGTERM) is not handler
        os.kill(os.getpid(), signal.SIGTERM)
        next(keys)  # the signal ends the wait for a key, if it has not ended the review already
    assert termios.tcgetattr(follower) == saved and signal.getsignal(signal.SIGTERM) is handler
    with pytest.raises(KeyboardInterrupt), Keys(follower):
        assert cbreak(follower)
        raise KeyboardInterrupt
    assert termios.tcgetattr(follower) == saved
    with pytest.raises(Interrupted, match="terminal closed"), Keys(follower) as keys:
        os.close(leader)
        next(keys)
