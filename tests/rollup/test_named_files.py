"""The files a build's output names: real outputs of about 20 tools, and the bounds an attacker's output meets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from code_commit.rollup.imports import Project
from code_commit.rollup.named_files import MAX_HITS, MAX_LINE, MAX_LINES, named_files

OUTPUTS = Path(__file__).parent / "build_outputs"
EXPECTED = json.loads((OUTPUTS / "expected.json").read_text())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_file_a_real_output_names_is_found_and_nothing_else(name: str) -> None:
    case = EXPECTED[name]
    text = (OUTPUTS / name).read_text(encoding="utf-8", errors="replace")
    found = [hit.path for hit in named_files(text, (case["root"],), Project(frozenset(case["tracked"])))]
    assert sorted(found) == sorted(case["expected"])
    assert len(found) == len(set(found))


def test_the_order_is_the_order_of_first_mention_and_each_path_comes_once() -> None:
    output = "tests/test_a.py:3: in test\nsrc/a.py:9: AssertionError\nFAILED tests/test_a.py::test - x\n"
    hits = named_files(output, ("/p",), Project(frozenset({"src/a.py", "tests/test_a.py"})))
    assert [(h.path, h.line) for h in hits] == [("tests/test_a.py", 3), ("src/a.py", 9)]


def test_only_tracked_files_inside_the_project_count() -> None:
    output = (
        '  File "/p/src/a.py", line 1\n'
        '  File "/usr/lib/python3.11/json/__init__.py", line 2\n'
        '  File "/p/../etc/passwd.py", line 3\n'
        "/p/build/gen.c:4:1: error\n"
        "../outside.c:5: error\n"
        "file:///p/web/x%20y.mjs:2:14\n"
    )
    tracked = Project(frozenset({"src/a.py", "web/x y.mjs", "etc/passwd.py"}))
    assert [h.path for h in named_files(output, ("/p",), tracked)] == ["src/a.py", "web/x y.mjs"]


def test_a_bare_file_name_counts_only_when_one_tracked_file_ends_so() -> None:
    project = Project(frozenset({"pkg/calc.go", "cmd/main.go", "other/main.go"}))
    hits = named_files("    calc_test.go:7: x\n    calc.go:8: y\n    main.go:3: z\n", ("/p",), project)
    assert [h.path for h in hits] == ["pkg/calc.go"]


def test_a_hostile_output_costs_work_bounded_by_its_size() -> None:
    """Each line is cut at MAX_LINE characters, the scan stops after MAX_LINES lines and MAX_HITS mentions:
    a mention past any of those bounds is not seen, whatever the output holds."""
    project = Project(frozenset({"src/a.py"}))
    assert named_files("x" * MAX_LINE + " src/a.py:1: e\n", ("/p",), project) == []
    assert named_files("\n" * MAX_LINES + "src/a.py:1: e\n", ("/p",), project) == []
    many = "".join(f"f{i}.py:1: e\n" for i in range(MAX_HITS)) + "src/a.py:1: e\n"
    assert named_files(many, ("/p",), project) == []
    assert [h.path for h in named_files(many[-2000:], ("/p",), project)] == ["src/a.py"]
