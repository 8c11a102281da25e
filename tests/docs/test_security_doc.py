"""docs/security-tests.md names the tests behind each rule of SECURITY.md: every rule has one, its sections
are SECURITY.md's, and every test it names exists, as must every test file and test the other pages name."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
POLICY = ROOT / "SECURITY.md"
MAP = ROOT / "docs" / "security-tests.md"
PAGES = [POLICY, ROOT / "README.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
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
    assert len({name for name in named if name[1]}) > 100  # docs/security-tests.md alone names well over a hundred
    files = {path.name: path for path in (ROOT / "tests").rglob("test_*.py")}
    missing = []
    for file, test in sorted(named, key=str):
        path = ROOT / file if "/" in file else files.get(file)
        found = path is not None and path.is_file()
        if path is None or not found or (test and not re.search(rf"^def {test}\(", path.read_text(), re.MULTILINE)):
            missing.append(f"{file}::{test}" if test else file)
    assert missing == []


def anchor(heading: str) -> str:
    """The fragment GitHub gives a heading (as tests/docs/test_docs.py reads them)."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def map_sections() -> dict[str, list[tuple[str, list[str]]]]:
    """Each `## ` section of the map: its rows, as (the rule, its test lines). A row is a `- ` item whose
    rule may go on over indented lines; its tests follow as `  - ` items. Paragraphs between rows are
    notes."""
    sections: dict[str, list[tuple[str, list[str]]]] = {}
    rows: list[tuple[str, list[str]]] | None = None
    for line in MAP.read_text().splitlines():
        if line.startswith("## "):
            rows = sections.setdefault(line[3:], [])
        elif rows is None or not line.strip():
            continue
        elif line.startswith("- "):
            rows.append((line[2:], []))
        elif line.startswith("  - "):
            assert rows, f"a test line before any rule: {line}"
            rows[-1][1].append(line[4:])
        elif line.startswith("  "):
            assert rows and not rows[-1][1], f"a rule's line after its tests: {line}"
            rows[-1] = (f"{rows[-1][0]} {line.strip()}", [])
    return sections


def policy_sections() -> dict[str, str]:
    """Each `### ` section under SECURITY.md's "What the rules guarantee": its text."""
    text = POLICY.read_text().split("\n## What the rules guarantee\n", 1)[1].split("\n## ", 1)[0]
    parts = re.split(r"^### (.+)$", text, flags=re.MULTILINE)[1:]
    return dict(zip(parts[::2], parts[1::2], strict=True))


def test_every_rule_in_the_map_is_one_sentence_with_a_test_named_in_full() -> None:
    rows = [row for section in map_sections().values() for row in section]
    assert len(rows) > 100
    for rule, tests in rows:
        prose = re.sub(r"`[^`]*`", "code", rule)
        assert prose.endswith(".") and not re.search(r"\. [A-Z]", prose), f"not one sentence: {rule}"
        assert tests, f"no test for: {rule}"
        for line in tests:
            assert line.startswith("`test_") and references(line), f"not a test named in full: {line}"


def test_the_policy_and_the_map_have_the_same_sections_each_linked_to_its_rows() -> None:
    policy, rules = policy_sections(), map_sections()
    assert list(policy) == list(rules)
    assert len(policy) >= 7
    assert "](docs/security-tests.md)" in POLICY.read_text()
    for heading, text in policy.items():
        assert rules[heading], f"no rule in the map under {heading}"
        assert f"](docs/security-tests.md#{anchor(heading)})" in text, f"{heading} does not link to its rows"
