"""The README and docs/: short, linked, their commands the ones that work, and nothing in them
pointing outside the repository (the GitHub Action's workflows are checked in tests/action)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "SECURITY.md", ROOT / "CONTRIBUTING.md", *sorted((ROOT / "docs").glob("*.md"))]
README = (ROOT / "README.md").read_text()


def prose(text: str) -> str:
    """The text outside fenced code blocks."""
    return "".join(re.split(r"^```.*?^```", text, flags=re.MULTILINE | re.DOTALL))


def fenced(text: str, after: str, language: str) -> str:
    """The first fenced block in `language` after the line `after`."""
    rest = text.split(f"\n{after}\n", 1)[1]
    return rest.split(f"```{language}\n", 1)[1].split("\n```", 1)[0] + "\n"


def anchors(page: Path) -> set[str]:
    """The fragment GitHub gives each heading of `page`: lower case, punctuation dropped, spaces as '-'."""
    found = set()
    for heading in re.findall(r"^#+ (.+)$", prose(page.read_text()), flags=re.MULTILINE):
        found.add(re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-"))
    return found


def test_the_readme_is_short_and_links_every_docs_page() -> None:
    assert len(README.splitlines()) <= 150
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"](docs/{page.name}" in README, page.name


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page: Path) -> None:
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", prose(page.read_text())):
        if re.match(r"[a-z]+:", target):
            continue  # a URL: not this test's business (no network in tests)
        path, _, fragment = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        inside = linked.is_file() and ROOT in linked.parents
        if not inside or (fragment and linked.suffix == ".md" and fragment not in anchors(linked)):
            broken.append(target)
    assert broken == []


INTERNAL = [r"\.\./shared", r"\bseeds\b", r"\bseed 0\d\d", r"\bspec 0\d\d", r"\bissue \d", r"\.\./\.\./"]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_names_an_internal_document_or_a_file_outside_the_repository(page: Path) -> None:
    text = page.read_text()
    for pattern in INTERNAL:
        assert not re.search(pattern, text, flags=re.IGNORECASE), pattern


def test_no_code_comment_or_prompt_names_an_internal_document() -> None:
    """The code's own texts (docstrings, comments, messages) and the prompts are read as docs too. (A
    `../../` there is a test's path traversal, not a link.)"""
    files = [
        *ROOT.glob("src/**/*.py"),
        *ROOT.glob("bench/*.py"),
        *ROOT.glob("tests/*.py"),
        *ROOT.glob("system_prompts/*"),
    ]
    found = [
        f"{path.relative_to(ROOT)}: {pattern}"
        for path in files
        if path.name != "test_docs.py"
        for pattern in INTERNAL[:-1]
        if re.search(pattern, path.read_text(), flags=re.IGNORECASE)
    ]
    assert len(files) > 100
    assert found == []


def test_the_readme_s_test_command_and_the_contributing_guide_s_are_what_ci_runs() -> None:
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    assert fenced(README, "## Run the tests", "sh").strip() in ci
    assert fenced((ROOT / "CONTRIBUTING.md").read_text(), "## Setup", "sh").strip() in ci


def test_the_readme_s_install_command_puts_code_commit_on_the_path_before_the_demo() -> None:
    """The install runs `code-commit` by name, so the venv it installs into must be activated first."""
    steps = [step.strip() for step in fenced(README, "## Install and run the demo", "sh").strip().split("&&")]
    assert steps[0] == "python3 -m venv .venv"
    assert steps.index(". .venv/bin/activate") < steps.index("pip install .") < steps.index("code-commit demo")
