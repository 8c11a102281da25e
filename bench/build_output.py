"""Build-output handling: a 100 MB build log captured to the run log, then compacted for a prompt.

Ours: build.run_build + build.output_for_prompt in a fresh interpreter (time and peak RSS).
Reference: the same build.sh with its output sent to /dev/null (the cost of producing it).
Targets: peak memory below 100 MB, and every error line kept in the compacted prompt section.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from .harness import Command, Row, side_by_side

MEGABYTES = 100
ERROR_LINES = 40

DRIVER = """
import sys
from pathlib import Path
from code_commit.build import output_for_prompt, run_build
from code_commit.logs import Redactor
root = Path(sys.argv[1])
result = run_build(root, root / "build.txt", Redactor.of(["sk-bench-secret-0123456789"]), 600)
text = output_for_prompt(result, 60000)
(root / "prompt.txt").write_text(text)
"""


def _build_script(megabytes: int) -> str:
    # Noise from `yes`, with numbered error lines spread through it.
    chunk = megabytes * 2**20 // (ERROR_LINES + 1)
    parts = ["#!/bin/sh"]
    for i in range(ERROR_LINES):
        parts.append(f"yes 'ok: compiling module, nothing to see here' | head -c {chunk}")
        parts.append(f"echo 'src/mod{i}.c:{i + 1}: error: failure number {i}'")
    parts.append(f"yes 'ok: linking' | head -c {chunk}")
    parts.append("exit 1")
    return "\n".join(parts) + "\n"


def run(repeat: int, megabytes: int = MEGABYTES) -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="bench-build-") as tmp:
        root = Path(tmp)
        (root / "build.sh").write_text(_build_script(megabytes))
        (root / "build.sh").chmod(0o755)
        commands = {
            "ours": Command([sys.executable, "-c", DRIVER, str(root)], root),
            "reference": Command(["sh", "build.sh"], root, expect=1),
        }
        best = side_by_side(repeat, commands)
        prompt = (root / "prompt.txt").read_text()
        kept = sum(f"error: failure number {i}\n" in prompt for i in range(ERROR_LINES))
    rss = best["ours"].peak_rss
    met = rss < 100 * 2**20 and kept == ERROR_LINES
    return [
        Row(
            f"build output: capture + compact {megabytes} MB",
            f"{megabytes} MB",
            best["ours"].seconds,
            best["reference"].seconds,
            rss,
            note=f"{kept}/{ERROR_LINES} error lines kept; prompt section {len(prompt):,} chars",
            target=f"RSS < 100 MiB and all errors kept: {'met' if met else 'MISSED'}",
        )
    ]
