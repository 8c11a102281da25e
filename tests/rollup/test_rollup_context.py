"""What the rollup shows of what does not fit (outlines), and what it gives room first (the query's files)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import Result

from code_commit.config.settings import Settings
from code_commit.rollup import outline as outline_module
from code_commit.rollup import relevance, selection
from code_commit.rollup.framing import outlined_paths, shown_paths
from code_commit.rollup.outline import Outline
from code_commit.rollup.rules import Kind, kind_of
from code_commit.rollup.writing import write_rollup

from support import TEST_KEY, git
from support import write_file as write

OUTPUT = "agent-config/codeRollup.txt"
Cli = Callable[..., Result]


def text(root: Path) -> str:
    return (root / OUTPUT).read_text()


def module(name: str, functions: int, body: int = 6) -> str:
    """A Python module of `functions` functions, each `body` lines long."""
    lines = "".join(f"    total = total + {j}\n" for j in range(body))
    return "".join(
        f"def {name}_{i}(value, *, scale=1):\n    total = value\n{lines}    return total\n\n" for i in range(functions)
    )


def test_no_source_or_test_file_is_only_a_name(repo: Path) -> None:
    """A file over the size cap and files past the budget are shown by their outlines, within the budget."""
    write(repo, "src/pkg/huge.py", "class Huge:\n    def method(self):\n        pass\n" + module("huge", 300, body=40))
    for i in range(8):
        write(repo, f"src/pkg/mod{i:02d}.py", module(f"m{i}", 30))
        write(repo, f"tests/test_mod{i:02d}.py", module(f"test_m{i}", 10))
    write(repo, "README.md", "# pkg\n" + "words " * 300 + "\n")

    result = write_rollup(repo, settings=Settings(rollup_budget=20_000))

    rollup = text(repo)
    whole, outlined = set(shown_paths(rollup)), set(outlined_paths(rollup))
    code = {p for p in git(repo, "ls-files").split() if kind_of(p) in (Kind.SOURCE, Kind.TEST)}
    assert code <= whole | outlined, "every source and test file is whole or outlined"
    assert not whole & outlined
    assert "src/pkg/huge.py" in outlined and len(outlined) > 5
    huge = rollup[rollup.index("::: src/pkg/huge.py (outline: ") :]
    assert huge.startswith("::: src/pkg/huge.py (outline: the first ")
    assert (
        "top-level definitions of 13,203 lines; 287 KiB, over the 256 KiB cap) :::\n1: class Huge\n4: def huge_0("
        in huge
    )
    assert "src/pkg/huge.py" not in "".join(line for line in rollup.split("--- LEFT OUT ---\n")[-1].splitlines())
    assert rollup.index("==> ") < rollup.index("--- OUTLINES ---\n") < rollup.index("--- LEFT OUT ---\n")
    assert len(rollup.split("--- LEFT OUT ---\n")[0]) <= 20_000 * 3
    assert f"{len(outlined)} outlined" in result.summary()


def test_an_outline_is_never_made_of_a_file_that_holds_a_secret(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", TEST_KEY)
    write(repo, "src/keys.py", f"def key(token='{TEST_KEY}'):\n    pass\n" + module("k", 3000))
    write_rollup(repo)
    rollup = text(repo)
    assert TEST_KEY not in rollup and outlined_paths(rollup) == []
    assert "src/keys.py (" in rollup.split("--- LEFT OUT ---\n")[1]


def plant(root: Path) -> None:
    """A target among sixty modules of the same shape and size, and their tests."""
    for i in range(60):
        write(root, f"src/app/part{i:02d}.py", module(f"step{i}", 8))
        write(root, f"tests/test_part{i:02d}.py", module(f"test_step{i}", 4))
    write(
        root,
        "src/app/part37.py",
        module("step37", 8) + "def parse_config(text):\n    return dict(line.split('=') for line in text)\n",
    )


@pytest.mark.parametrize("budget", [1500, 3000, 6000])
def test_the_query_s_target_is_whole_at_small_budgets(repo: Path, cli: Cli, budget: int) -> None:
    plant(repo)
    git(repo, "add", "-A")
    write(repo, "agent-config/query.txt", "parse_config crashes on a line without '=': make it skip such lines.\n")

    result = cli("rollup", "--budget", str(budget))

    assert result.exit_code == 0, result.output
    assert "the files agent-config/query.txt names come first: src/app/part37.py (defines parse_config" in result.output
    whole = shown_paths(text(repo))
    assert "src/app/part37.py" in whole, "it defines the identifier the query names"
    assert "tests/test_part37.py" in whole or budget < 3000, "its test goes with it when there is room"
    (repo / "agent-config/query.txt").unlink()
    cli("rollup", "--budget", str(budget))
    assert "src/app/part37.py" not in shown_paths(text(repo)), "without the query it is one file among many"


def test_a_test_the_query_names_brings_its_subject(repo: Path) -> None:
    plant(repo)
    git(repo, "add", "-A")
    query = "tests/test_part12.py fails since yesterday\n"
    write_rollup(repo, settings=Settings(rollup_budget=1500), query=query)
    whole = shown_paths(text(repo))
    assert whole[:2] == ["src/app/part12.py", "tests/test_part12.py"] or set(whole) >= {
        "src/app/part12.py",
        "tests/test_part12.py",
    }


def test_a_query_that_names_nothing_in_the_project_changes_nothing(repo: Path) -> None:
    plant(repo)
    git(repo, "add", "-A")
    write_rollup(repo, settings=Settings(rollup_budget=3000))
    before = text(repo)
    write_rollup(repo, settings=Settings(rollup_budget=3000), query="Please be quick and careful.\n")
    assert text(repo) == before


def test_a_file_ranked_by_its_definitions_and_outlined_is_parsed_once(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for i in range(6):
        write(repo, f"src/pkg/mod{i}.py", module(f"m{i}", 30))
    git(repo, "add", "-A")
    parsed: list[str] = []
    real = outline_module.outline

    def counted(path: str, data: bytes) -> Outline:
        parsed.append(path)
        return real(path, data)

    monkeypatch.setattr(relevance, "outline", counted)
    monkeypatch.setattr(selection, "outline", counted)
    write_rollup(repo, settings=Settings(rollup_budget=3000), query="m1_3 and m4_7 return the wrong total\n")
    outlined = outlined_paths(text(repo))
    assert shown_paths(text(repo)) == [".gitignore", "src/pkg/mod1.py"], "the first the query names, whole"
    assert "src/pkg/mod4.py" in outlined, "the second, ranked by its definitions, outlined"
    assert sorted(parsed) == sorted(set(parsed)), "each file outlined once, for its rank and its outline"
