"""Hostile answers against `code-commit apply --check`: the audit's repros, and answers as large as
a run reads (`Settings.answer_byte_cap`) on a 100,000-line file.

Ours: `code-commit apply --check [--json]` in a fresh process (time and peak RSS); there is no
reference. Target: every answer decided in under 3 s, with a report that does not grow with the pairs.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from code_commit.config.settings import Settings

from .harness import BIN, Command, Row, bench_env, side_by_side

TARGET_SECONDS = 3.0


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
    return cases


def _file(kind: str, lines: int) -> str:
    if kind == "repeating":
        return "".join(f"x = {i % 10}\n" for i in range(lines))
    if kind == "long":
        return ("x" * 10_000 + "\n") * (lines - 1) + "a\n"
    return "".join(f"line {i}\n" for i in range(lines))


def run(repeat: int) -> list[Row]:
    rows = []
    for name, lines, kind, answer, flags in _cases():
        with tempfile.TemporaryDirectory(prefix="bench-hostile-") as tmp:
            root = Path(tmp) / "repo"
            root.mkdir()
            (root / ".gitignore").write_text("/agent-config\n")
            (root / "big.py").write_text(_file(kind, lines))
            env = bench_env()
            for argv in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "base"]):
                subprocess.run(argv, cwd=root, env=env, check=True)
            path = Path(tmp) / "answer.txt"
            path.write_text(answer)
            argv = [str(BIN / "code-commit"), "apply", "--check", *flags, str(path)]
            best = side_by_side(repeat, {"ours": Command(argv, root, expect=None)})
            report = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True)
        seconds = best["ours"].seconds
        met = seconds < TARGET_SECONDS
        rows.append(
            Row(
                f"hostile answer: {name}",
                f"{len(answer):,} B, {lines:,} lines",
                seconds,
                None,
                best["ours"].peak_rss,
                note=f"report {len(report.stdout):,} chars",
                target=f"< {TARGET_SECONDS:g} s: {'met' if met else 'MISSED'}",
            )
        )
    return rows
