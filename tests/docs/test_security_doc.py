"""SECURITY.md names the test behind each guarantee: every test it names must exist, and so must every
test file and test the other pages name."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "SECURITY.md", ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
# A reference in backticks: `test_x.py`, `test_x.py::test_y`, `::test_y` (the file named before it on the
# line), or the same with its folder (`tests/run/`) in front, which must then be its folder.
REFERENCE = re.compile(r"`(tests/(?:\w+/)*)?(test_\w+\.py)?(?:::(test_\w+))?`")


def references(line: str) -> list[tuple[str, str | None]]:
    """(file, test or None) for each test reference in `line`; a `::test` with no file before it fails."""
    found = []
    current = None
    for match in REFERENCE.finditer(line):
        folder, file, test = match.groups()
        if not file and not test:
            continue  # an empty pair of backticks
        current = (folder or "") + file if file else current  # "`::test_x`" continues the file named before it
        assert current, f"no file for ::{test} in: {line}"
        found.append((current, test))
    return found


def test_a_shorthand_reference_takes_the_file_named_before_it_on_its_line() -> None:
    line = "| x | `test_a.py::test_one`, `::test_two`, `tests/run/test_b.py`, `::test_three` |"
    assert references(line) == [
        ("test_a.py", "test_one"),
        ("test_a.py", "test_two"),
        ("tests/run/test_b.py", None),
        ("tests/run/test_b.py", "test_three"),
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
    files = {path.name: path for path in (ROOT / "tests").rglob("test_*.py")}
    missing = []
    for file, test in sorted(named, key=str):
        path = ROOT / file if "/" in file else files.get(file)
        found = path is not None and path.is_file()
        if not found or (test and not re.search(rf"^def {test}\(", path.read_text(), re.MULTILINE)):
            missing.append(f"{file}::{test}" if test else file)
    assert missing == []
