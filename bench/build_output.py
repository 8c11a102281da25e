"""Build-output handling: 100 MB of build output captured to the run log, then compacted for a prompt.

Two builds: quiet noise with 40 diagnostics in it, and the audit's case, 100 MB of `gcc ... -Werror
...` compile lines (each merely containing "error") with 40 real `path:line:col: error:` diagnostics.
Ours: runner.run_build + output.output_for_prompt in a fresh interpreter (time and peak RSS).
Reference: the same build.sh with its output sent to /dev/null (the cost of producing it).
Targets: peak memory below 100 MB, the log no larger than build_log_cap, and at least 35 of the
40 diagnostics in the compacted prompt section (before the fix, 0 of 40 in the -Werror case).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from .checks import require
from .harness import Command, Row, side_by_side

MEGABYTES = 100
ERROR_LINES = 40

DRIVER = """
import sys
from pathlib import Path
from code_commit.builds.output import output_for_prompt
from code_commit.builds.runner import run_build
from code_commit.config.redaction import Redactor
root = Path(sys.argv[1])
result = run_build(root, root / "build.txt", Redactor.of(["sk-bench-secret-0123456789"]), 600)
text = output_for_prompt(result.output, 60000)
(root / "prompt.txt").write_text(text)
(root / "ran.txt").write_text(f"{result.exit_code} {result.start_error}")
"""


NOISE = {
    "quiet": "ok: compiling module, nothing to see here",
    "gcc -Werror": "gcc -O2 -Wall -Wextra -Werror -Iinclude -DNDEBUG -c src/module.c -o build/module.o",
}
KEPT_TARGET = 35


def _build_script(megabytes: int, noise: str) -> str:
    # Noise from `yes`, with numbered error lines spread through it.
    chunk = megabytes * 2**20 // (ERROR_LINES + 1)
    parts = ["#!/bin/sh"]
    for i in range(ERROR_LINES):
        parts.append(f"yes '{noise}' | head -c {chunk}")
        parts.append(f"echo 'src/mod{i}.c:{i + 1}:7: error: failure number {i}'")
    parts.append(f"yes '{noise}' | head -c {chunk}")
    parts.append("exit 1")
    return "\n".join(parts) + "\n"


def run(repeat: int, megabytes: int = MEGABYTES) -> list[Row]:
    return [_row(repeat, megabytes, kind) for kind in NOISE]


def smallest() -> list[Row]:
    return run(0, megabytes=1)


def _ran(root: Path) -> None:
    """build.sh ran to its end (exit 1, as written) and its output was logged and compacted: a build
    that could not start would be timed as a fast one."""
    ran = (root / "ran.txt").read_text()
    logged = (root / "build.txt").stat().st_size
    prompt = (root / "prompt.txt").read_text()
    require(ran == "1 None", f"build.sh did not run to its `exit 1` (exit code, start error: {ran}) in {root}")
    require(logged > 0 and "error: failure number 0" in prompt, f"the build's output was not captured in {root}")


def _row(repeat: int, megabytes: int, kind: str) -> Row:
    from code_commit.builds.output import LOG_CAP

    with tempfile.TemporaryDirectory(prefix="bench-build-") as tmp:
        root = Path(tmp)
        (root / "build.sh").write_text(_build_script(megabytes, NOISE[kind]))
        (root / "build.sh").chmod(0o755)
        commands = {
            "ours": Command([sys.executable, "-c", DRIVER, str(root)], root, check=lambda: _ran(root)),
            "reference": Command(["sh", "build.sh"], root, expect=1),
        }
        best = side_by_side(repeat, commands)
        prompt = (root / "prompt.txt").read_text()
        log_size = (root / "build.txt").stat().st_size
        kept = sum(f"error: failure number {i}\n" in prompt for i in range(ERROR_LINES))
    rss = best["ours"].peak_rss
    met = rss < 100 * 2**20 and kept >= KEPT_TARGET and log_size <= LOG_CAP + 1000
    return Row(
        f"build output: capture + compact {megabytes} MB, {kind} noise",
        f"{megabytes} MB",
        best["ours"].seconds,
        best["reference"].seconds,
        rss,
        note=f"{kept}/{ERROR_LINES} diagnostics kept; prompt section {len(prompt):,} chars; log {log_size:,} B",
        target=f"RSS < 100 MiB, log <= build_log_cap, >= {KEPT_TARGET} diagnostics kept: {'met' if met else 'MISSED'}",
    )
