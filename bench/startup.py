"""Start-up: `code-commit --help` and a run that stops at a setup error, against bare `python3 -c pass`.

Target: at most 0.15 s above bare Python; the SDK is imported only when a call is about to be made.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from .harness import BIN, Command, Row, side_by_side

TARGET = 0.15


def run(repeat: int) -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        empty = Path(tmp)
        commands = {
            "python": Command([sys.executable, "-c", "pass"], empty),
            "help": Command([str(BIN / "code-commit"), "--help"], empty),
            "setup error": Command([str(BIN / "code-commit")], empty, expect=2),
        }
        best = side_by_side(repeat, commands)
    bare = best["python"].seconds
    rows = []
    for name in ("help", "setup error"):
        extra = best[name].seconds - bare
        rows.append(
            Row(
                f"start-up: code-commit {'--help' if name == 'help' else '(setup error)'}",
                "-",
                best[name].seconds,
                bare,
                best[name].peak_rss,
                note=f"{extra * 1000:+.0f} ms over bare python",
                target=f"<= +{TARGET * 1000:.0f} ms: {'met' if extra <= TARGET else 'MISSED'}",
            )
        )
    return rows
