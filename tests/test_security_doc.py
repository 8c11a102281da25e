"""SECURITY.md names the test behind each guarantee: every test it names must exist, and so must every
test file and test the other pages name."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "SECURITY.md", ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
# A reference in backticks: `test_x.py`, `test_x.py::test_y`, `::test_y` (the file named before it on the
# line), or the same with `tests/` in front.
REFERENCE = re.compile(r"`(?:tests/)?(test_\w+\.py)?(?:::(test_\w+))?`")


def references(line: str) -> list[tuple[str, str | None]]:
    """(file, test or None) for each test reference in `line`; a `::test` with no file before it fails."""
    found = []
    current = None
    for match in REFERENCE.finditer(line):
        if not match.group(1) and not match.group(2):
            continue  # an empty pair of backticks
        current = match.group(1) or current  # "`::test_x`" continues the file named before it
        assert current, f"no file for ::{match.group(2)} in: {line}"
        found.append((current, match.group(2)))
    return found


def test_a_shorthand_reference_takes_the_file_named_before_it_on_its_line() -> None:
    line = "| x | `test_a.py::test_one`, `::test_two`, `tests/test_b.py`, `::test_three` |"
    assert references(line) == [
        ("test_a.py", "test_one"),
        ("test_a.py", "test_two"),
        ("test_b.py", None),
        ("test_b.py", "test_three"),
    ]


def test_every_backticked_test_reference_has_a_form_the_check_reads() -> None:
    """A reference the pattern does not read (a typo, a `[param]`) would go unchecked: there is none."""
    for page in PAGES:
        for span in re.findall(r"`([^`\n]*)`", page.read_text()):
            if re.search(r"::test|test_\w+\.py", span):
                assert REFERENCE.fullmatch(f"`{span}`"), f"{page.name}: `{span}`"


def test_every_test_named_in_the_docs_exists() -> None:
    named: set[tuple[str, str | None]] = set()
    for page in PAGES:
        for line in page.read_text().splitlines():
            named.update(references(line))
    assert len({name for name in named if name[1]}) > 100  # SECURITY.md alone names well over a hundred
    missing = []
    for file, test in sorted(named, key=str):
        path = ROOT / "tests" / file
        if not path.is_file() or (test and not re.search(rf"^def {test}\(", path.read_text(), re.MULTILINE)):
            missing.append(f"{file}::{test}" if test else file)
    assert missing == []
