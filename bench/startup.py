"""Start-up: `code-commit --help` and a run that stops at a setup error, against bare `python3 -c pass`.

Target: at most 0.15 s above bare Python; the SDK is imported only when a call is about to be made.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from .checks import output_of, require
from .harness import BIN, Command, Row, side_by_side

TARGET = 0.15


# What each command must print, to be the start-up it claims: the help, and the setup checks' verdict.
PRINTS = {"help": ("stdout", "Usage: code-commit"), "setup error": ("stderr", "agent-config/query.txt is missing")}


def run(repeat: int) -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        empty = Path(tmp)

        def printed(name: str, argv: list[str]) -> None:
            stream, text = PRINTS[name]
            done = output_of(argv, empty)
            require(text in getattr(done, stream), f"`{' '.join(argv)}` did not print {text!r} on {stream}: {done}")

        help_argv, setup_argv = [str(BIN / "code-commit"), "--help"], [str(BIN / "code-commit")]
        commands = {
            "python": Command([sys.executable, "-c", "pass"], empty),
            "help": Command(help_argv, empty, check=lambda: printed("help", help_argv)),
            "setup error": Command(setup_argv, empty, expect=2, check=lambda: printed("setup error", setup_argv)),
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
