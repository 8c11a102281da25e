"""SECURITY.md names the test behind each guarantee: every test it names must exist."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_test_named_in_security_md_exists() -> None:
    named: set[tuple[str, str]] = set()
    for line in (ROOT / "SECURITY.md").read_text().splitlines():
        current = None
        for match in re.finditer(r"`(test_\w+\.py)?::(test_\w+)`", line):
            current = match.group(1) or current  # "`::test_x`" continues the file named before it
            assert current, f"no file for {match.group(2)} in: {line}"
            named.add((current, match.group(2)))
    assert len(named) > 30
    missing = [f"{f}::{t}" for f, t in sorted(named) if f"def {t}(" not in (ROOT / "tests" / f).read_text()]
    assert missing == []
