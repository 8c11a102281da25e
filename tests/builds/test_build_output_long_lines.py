"""Build output that never ends its line: the console (-v) shows it in pieces rather than holding
the whole line, which cost memory and a copy of the line so far for every read (quadratic)."""

from __future__ import annotations

from code_commit.console.output import PARTIAL_LINE

from fakeapi import FakeAPI
from support import Project

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
LINE = 1_000_000


def test_a_build_line_without_a_newline_is_shown_in_bounded_pieces(project: Project, api: FakeAPI, cli) -> None:
    project.build_script(f"test -f fixed.txt || exit 1\nhead -c {LINE} /dev/zero | tr '\\0' x\n")
    project.commit_all()
    api.reply(FIX)

    result = cli("-v")

    assert result.exit_code == 0, result.stderr
    shown = [line for line in result.stderr.splitlines() if line.startswith("  | x")]
    assert sum(line.count("x") for line in shown) == LINE, "all of it is shown"
    assert max(len(line) for line in shown) <= len("  | ") + PARTIAL_LINE


def test_a_build_that_writes_a_little_at_a_time_keeps_the_log_s_tail_in_bounded_memory(tmp_path) -> None:
    """Each read of a build that writes two bytes at a time was a deque entry of its own: some 60 bytes
    of memory per character of the tail kept, 30 times the build_log_cap it promises."""
    import tracemalloc

    from code_commit.builds.output import OutputLog
    from code_commit.config.redaction import Redactor

    cap, writes = 200_000, 105_000  # 2 characters a write: the head, a full tail, and 10,000 cut between
    log = tmp_path / "build.txt"
    sink = OutputLog(log, Redactor.of(["a-secret-value-0123"]), None, log_cap=cap)
    tracemalloc.start()
    try:
        for n in range(writes):
            sink.write(b"%02d" % (n % 100))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    sink.close("")

    assert peak < 3 * cap, f"{peak:,} bytes of memory for a tail of {cap // 2:,} characters"
    output = "".join(f"{n % 100:02d}" for n in range(writes))
    text = log.read_text()
    head, _, rest = text.partition("\n[... code-commit left 10,000 characters")
    assert head == output[: cap // 2]
    assert rest.endswith(output[-(cap - cap // 2) :])
