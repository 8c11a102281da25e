"""Hostile answers against `code-commit apply --check`: the audit's repros, answers as large as a
run reads (`Settings.answer_byte_cap`) on a 100,000-line file, an answer against a 500,000-line file,
450 paths 2,041 folders deep; and a run's setup with a sparse 4 GiB codeRollup.txt.

Ours: `code-commit apply --check [--json]` (or a `--dry-run`) in a fresh process (time and peak RSS).
Each must end as the row claims, or the scenario fails: every answer here is refused (exit 7, with a
report), the sparse rollup stops the setup (exit 2) by its size; a crash would otherwise be timed.
The reference, when BENCH_BEFORE names another `code-commit` (an earlier checkout's), is that one,
measured side by side on the same fixture: before and after. Target: every answer decided in under
3 s, with a report that does not grow with the pairs.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from pathlib import Path

from code_commit.config.settings import Settings
from code_commit.exits import EXIT

from .checks import output_of, require
from .harness import BIN, Command, Measure, Row, bench_env, commit_fixture, side_by_side

TARGET_SECONDS = 3.0
BIG = 500_000  # lines: the audit's very large file
DEEP = "450 paths 2,041 folders deep"  # the cheapest case to decide (a one-line file): the smallest run's
# Another code-commit to measure beside ours, as "before" (the reference column).
BEFORE = os.environ.get("BENCH_BEFORE")


def _pairs_up_to(cap: int, pair: str) -> int:
    return (cap - 20) // len(pair)


def _cases() -> list[tuple[str, int, str, str, tuple[str, ...]]]:
    """(scenario, file lines, file text maker key, answer, flags)."""
    cap = Settings().answer_byte_cap
    ambiguous = "^^^search\nx = 1\n^^^replace\ny = 1\n"
    cases = []
    for pairs, flags in ((1000, ()), (1000, ("--json",)), (3000, ())):
        answer = "^^^big.py\n" + ambiguous * pairs + "^^^end\n"
        name = f"{pairs:,} ambiguous pairs{' --json' if flags else ''}"
        cases.append((name, 20_000, "repeating", answer, flags))
    unique = "".join(
        f"^^^search\nline {i * 7}\n^^^replace\nL {i}\n"
        for i in range(_pairs_up_to(cap, "^^^search\nline 100000\n^^^replace\nL 10000\n"))
    )
    cases.append((f"answer cap ({cap:,} B) of matching pairs", 100_000, "unique", f"^^^big.py\n{unique}^^^end\n", ()))
    missing = "^^^search\nnot in the file\n^^^replace\nz\n"
    answer = "^^^big.py\n" + missing * _pairs_up_to(cap, missing) + "^^^end\n"
    cases.append((f"answer cap ({cap:,} B) of failing pairs", 100_000, "unique", answer, ("--json",)))
    # The second audit's: a file of 1,000 lines of 10 KB (before: 39 s for 125 KB of toggling pairs,
    # 29 s for 2,000 one-pair blocks, 65 s for 2,000 whole-file blocks of `# ...`).
    toggle = "^^^search\na\n^^^replace\nb\n^^^search\nb\n^^^replace\na\n"
    cases.append(
        (
            f"answer cap ({cap:,} B) of toggling pairs",
            1_001,
            "long",
            f"^^^big.py\n{toggle * _pairs_up_to(cap, toggle)}^^^end\n",
            (),
        )
    )
    block = "^^^big.py\n^^^search\nzz\n^^^replace\ny\n^^^end\n"
    cases.append((f"answer cap ({cap:,} B) of one-pair blocks", 1_001, "long", block * _pairs_up_to(cap, block), ()))
    elided = "^^^big.py\n# ...\n^^^end\n"
    cases.append((f"answer cap ({cap:,} B) of `# ...` blocks", 1_001, "long", elided * _pairs_up_to(cap, elided), ()))
    # The third audit's: a 642-byte answer against a 500,000-line file (28 s and 1 GB an attempt, 74 s
    # and 4.4 GB with --json), and 450 paths 2,041 folders deep (90 s and 2 GB to refuse).
    everywhere = "^^^big.py\n^^^search\nx = 1\n^^^replace\ny = 2\n^^^end\n"
    first_line_everywhere = "^^^big.py\n^^^search\nx = 1\nx = 1\nx = 2\n^^^replace\ny = 2\n^^^end\n"
    for flags in ((), ("--json",)):
        suffix = " --json" if flags else ""
        cases.append((f"a line at every place of {BIG:,} lines{suffix}", BIG, "same", everywhere, flags))
        cases.append(
            (f"a failing search whose first line is everywhere{suffix}", BIG, "same", first_line_everywhere, flags)
        )
    deep = "".join(f"^^^d{n % 10}/{'a/' * 2040}f.txt\nx\n^^^end\n" for n in range(450))
    cases.append((DEEP, 1, "unique", deep, ()))
    return cases


def _file(kind: str, lines: int) -> str:
    if kind == "repeating":
        return "".join(f"x = {i % 10}\n" for i in range(lines))
    if kind == "long":
        return ("x" * 10_000 + "\n") * (lines - 1) + "a\n"
    if kind == "same":
        return "x = 1\n" * lines
    return "".join(f"line {i}\n" for i in range(lines))


def smallest() -> list[Row]:
    """One answer, refused with a report as every one must be (about 0.2 s, where the others take 0.5
    to 2 s), then the sparse rollup's row."""
    return run(0, only=DEEP)


def run(repeat: int, only: str | None = None) -> list[Row]:
    """The rows of every answer (or of the one named `only`), then the sparse rollup's."""
    cases = [case for case in _cases() if only is None or case[0] == only]
    require(bool(cases), f"no hostile answer is named {only!r}")
    rows = []
    for name, lines, kind, answer, flags in cases:
        with tempfile.TemporaryDirectory(prefix="bench-hostile-") as tmp:
            root = Path(tmp) / "repo"
            root.mkdir()
            (root / ".gitignore").write_text("/agent-config\n")
            (root / "big.py").write_text(_file(kind, lines))
            commit_fixture(root, "base")
            env = bench_env()
            path = Path(tmp) / "answer.txt"
            path.write_text(answer)
            argv = [str(BIN / "code-commit"), "apply", "--check", *flags, str(path)]
            commands = {"ours": Command(argv, root, expect=EXIT.REFUSED)}
            if BEFORE:
                commands["before"] = Command([BEFORE, *argv[1:]], root, expect=None)
            best = side_by_side(repeat, commands)
            report = output_of(argv, root, env)
            require(report.stdout.strip() != "", f"{name}: refused with no report: {report.stderr[-2000:]}")
            note = f"report {len(report.stdout):,} chars"
            if BEFORE:
                earlier = subprocess.run([BEFORE, *argv[1:]], cwd=root, env=env, capture_output=True, text=True)
                note += f"; before: {best['before'].peak_rss / 2**20:.0f} MiB, report {len(earlier.stdout):,} chars"
        rows.append(_row(f"hostile answer: {name}", f"{len(answer):,} B, {lines:,} lines", best, note))
    rows.append(_sparse_rollup(repeat))
    return rows


def _row(name: str, size: str, best: dict[str, Measure], note: str) -> Row:
    seconds = best["ours"].seconds
    met = seconds < TARGET_SECONDS
    before = best["before"].seconds if "before" in best else None
    target = f"< {TARGET_SECONDS:g} s: {'met' if met else 'MISSED'}"
    return Row(name, size, seconds, before, best["ours"].peak_rss, note=note, target=target)


def _sparse_rollup(repeat: int) -> Row:
    """A run's setup with a sparse 4 GiB codeRollup.txt: it was read whole (12.6 GB of memory) before
    the run said the prompt was too long; now its size refuses it before a byte is read. No "before"
    is measured: it would take the machine's memory."""
    with tempfile.TemporaryDirectory(prefix="bench-hostile-") as tmp:
        root = Path(tmp) / "repo"
        (root / "agent-config").mkdir(parents=True)
        (root / ".gitignore").write_text("/agent-config\n")
        (root / "build.sh").write_text("#!/bin/sh\nexit 0\n")
        (root / "build.sh").chmod(0o755)
        (root / "agent-config" / "query.txt").write_text("Fix it.\n")
        with open(root / "agent-config" / "codeRollup.txt", "wb") as fh:
            fh.truncate(4 << 30)
        env = bench_env(ANTHROPIC_API_KEY="sk-ant-bench-0123456789", ANTHROPIC_BASE_URL="http://127.0.0.1:9")
        commit_fixture(root, "base")
        argv = [str(BIN / "code-commit"), "--dry-run", "--timeout", "60"]

        def by_its_size() -> None:
            said = output_of(argv, root, env).stderr
            refused = "codeRollup.txt" in said and "GiB" in said
            require(refused, f"the setup did not refuse the rollup by its size: {said}")

        command = Command(argv, root, env=env, expect=EXIT.SETUP, check=by_its_size)
        best = side_by_side(repeat, {"ours": command})
    return _row("setup: a sparse 4 GiB codeRollup.txt", "4 GiB (sparse)", best, "exit 2, refused by its size")
