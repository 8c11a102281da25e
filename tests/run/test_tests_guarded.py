"""The tests are read-only to an answer under `tests = "protect"` (the default), through `code-commit`
and `code-commit apply`: every one-line weakening an attacker tried (issue 29's list: a changed
assertion, a skip in any form, a conftest hook, addopts in any of pytest's files, a new pytest.toml, a
test moved to a name the runner does not collect, a Makefile test rule, package.json's test script, a
JavaScript, Rust or Go test flipped) is refused whole and never built, with the file named to the
model and `--tests report` named to the user. Under report the same answers are applied and named;
under free nothing is read. A code-only fix passes, and so does a fix that adds a new test file."""

from __future__ import annotations

import json

import pytest

from code_commit.git.ignore import GitUnanswered
from code_commit.testguard.files import TestPaths

from fakeapi import FakeAPI
from support import Project, git
from support.calc import CALC_BUGGY, CALC_FIXED, CALC_TEST

FIX = f"^^^calc.py\n{CALC_FIXED}^^^end\n"
PYPROJECT = '[project]\nname = "calc"\nversion = "1.0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
MAKEFILE = "CFLAGS = -O2\n\n.PHONY: test\ntest: calc\n\t./run-tests.sh\n\ncalc: calc.c\n\t$(CC) $(CFLAGS) -o $@ $<\n"
PACKAGE = '{\n  "name": "calc",\n  "scripts": {\n    "test": "node --test",\n    "lint": "eslint ."\n  }\n}\n'
JS_TEST = (
    "const assert = require('node:assert');\nconst { add } = require('../calc.js');\n\n"
    "assert.strictEqual(add(2, 3), 5);\n"
)
RUST_TEST = "use calc::add;\n\n#[test]\nfn adds() {\n    assert_eq!(add(2, 3), 5);\n}\n"
RUST_LIB = (
    "pub fn add(a: i32, b: i32) -> i32 {\n    a - b\n}\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n"
    "    #[test]\n    fn adds() {\n        assert_eq!(add(2, 3), 5);\n    }\n}\n"
)
GO_TEST = (
    'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n'
    '\t\tt.Fatal("add")\n\t}\n}\n'
)


def edit(path: str, search: str, replace: str) -> str:
    return f"^^^{path}\n^^^search\n{search}^^^replace\n{replace}^^^end\n"


ASSERT = "    assert add(2, 3) == 5\n"
HOOK = "import pytest\n\n\ndef {hook}(*args, **kwargs):\n    pass\n"
# Each weakening the issue lists: (the answer, the file it touches).
WEAKENINGS = {
    "or True": (edit("tests/test_calc.py", ASSERT, "    assert add(2, 3) == 5 or True\n"), "tests/test_calc.py"),
    "!= 5": (edit("tests/test_calc.py", ASSERT, "    assert add(2, 3) != 5\n"), "tests/test_calc.py"),
    "except AssertionError": (
        edit(
            "tests/test_calc.py",
            ASSERT,
            "    try:\n        assert add(2, 3) == 5\n    except AssertionError:\n        pass\n",
        ),
        "tests/test_calc.py",
    ),
    "contextlib.suppress": (
        edit(
            "tests/test_calc.py",
            ASSERT,
            "    import contextlib\n    with contextlib.suppress(AssertionError):\n" + ASSERT,
        ),
        "tests/test_calc.py",
    ),
    "__test__ = False": (
        edit(
            "tests/test_calc.py",
            'if __name__ == "__main__":\n',
            'test_add.__test__ = False\n\nif __name__ == "__main__":\n',
        ),
        "tests/test_calc.py",
    ),
    "del test_add": (
        edit("tests/test_calc.py", 'if __name__ == "__main__":\n', 'del test_add\n\nif __name__ == "__main__":\n'),
        "tests/test_calc.py",
    ),
    **{
        hook: (f"^^^tests/conftest.py\n{HOOK.format(hook=hook)}^^^end\n", "tests/conftest.py")
        for hook in ("pytest_collection_finish", "pytest_itemcollected", "pytest_terminal_summary")
    },
    **{
        f"pyproject addopts {opts}": (
            edit("pyproject.toml", 'testpaths = ["tests"]\n', f'testpaths = ["tests"]\naddopts = "{opts}"\n'),
            "pyproject.toml",
        )
        for opts in ("-qk nothing", "--setup-plan", "--setup-only", "-p no_such_plugin")
    },
    "setup.cfg addopts": (
        edit("setup.cfg", "[metadata]\n", "[tool:pytest]\naddopts = --setup-plan\n\n[metadata]\n"),
        "setup.cfg",
    ),
    "tox.ini addopts": (edit("tox.ini", "[tox]\n", "[pytest]\naddopts = --setup-only\n\n[tox]\n"), "tox.ini"),
    "new pytest.ini": ("^^^pytest.ini\n[pytest]\naddopts = --setup-plan\n^^^end\n", "pytest.ini"),
    "new pytest.toml": ('^^^pytest.toml\n[pytest]\naddopts = ["--setup-plan"]\n^^^end\n', "pytest.toml"),
    "moved to a name not collected": (
        f"^^^tests/test_calc.py\n^^^delete\n^^^tests/calc_checks.py\n{CALC_TEST}^^^end\n",
        "tests/test_calc.py",
    ),
    "make -cmd": (edit("Makefile", "\t./run-tests.sh\n", "\t-./run-tests.sh\n"), "Makefile"),
    "make || true": (edit("Makefile", "\t./run-tests.sh\n", "\t./run-tests.sh || true\n"), "Makefile"),
    "make -k": (edit("Makefile", "CFLAGS = -O2\n", "CFLAGS = -O2\nMAKEFLAGS += -k\n"), "Makefile"),
    "make .IGNORE": (edit("Makefile", ".PHONY: test\n", ".PHONY: test\n.IGNORE: test\n"), "Makefile"),
    "make | tee": (edit("Makefile", "\t./run-tests.sh\n", "\t./run-tests.sh | tee test.log\n"), "Makefile"),
    "npm test | cat": (
        edit("package.json", '    "test": "node --test",\n', '    "test": "node --test | cat",\n'),
        "package.json",
    ),
    "assert.notStrictEqual": (
        edit("test/calc.test.js", "assert.strictEqual(add(2, 3), 5);\n", "assert.notStrictEqual(add(2, 3), 5);\n"),
        "test/calc.test.js",
    ),
    "assert_ne!": (
        edit("tests/calc.rs", "    assert_eq!(add(2, 3), 5);\n", "    assert_ne!(add(2, 3), 5);\n"),
        "tests/calc.rs",
    ),
    "catch_unwind": (
        edit(
            "tests/calc.rs",
            "    assert_eq!(add(2, 3), 5);\n",
            "    let _ = std::panic::catch_unwind(|| assert_eq!(add(2, 3), 5));\n",
        ),
        "tests/calc.rs",
    ),
    "in-source assert_ne!": (
        edit("src/lib.rs", "        assert_eq!(add(2, 3), 5);\n", "        assert_ne!(add(2, 3), 5);\n"),
        "src/lib.rs",
    ),
    "flipped Go condition": (
        edit("calc_test.go", "\tif Add(2, 3) != 5 {\n", "\tif Add(2, 3) == 5 {\n"),
        "calc_test.go",
    ),
}


@pytest.fixture
def calc(project: Project) -> Project:
    """A polyglot project whose build runs its Python test, and fails: add() subtracts."""
    project.write(".gitignore", "/agent-config\n__pycache__/\n")
    project.write("calc.py", CALC_BUGGY)
    project.write("tests/test_calc.py", CALC_TEST)
    project.write("pyproject.toml", PYPROJECT)
    project.write("setup.cfg", "[metadata]\nname = calc\n")
    project.write("tox.ini", "[tox]\nenv_list = py311\n")
    project.write("Makefile", MAKEFILE)
    project.write("run-tests.sh", "#!/bin/sh\npython3 tests/test_calc.py\n", mode=0o755)
    project.write("package.json", PACKAGE)
    project.write("test/calc.test.js", JS_TEST)
    project.write("tests/calc.rs", RUST_TEST)
    project.write("src/lib.rs", RUST_LIB)
    project.write("calc_test.go", GO_TEST)
    project.build_script('set -e\nfor f in tests/test_*.py; do [ -e "$f" ] || continue; python3 "$f"; done\n')
    project.write("agent-config/codeRollup.txt", f"==> calc.py <==\n{CALC_BUGGY}")
    project.commit_all()
    return project


def user_text(request) -> str:
    return "".join(block["text"] for message in request.json["messages"] for block in message["content"])


def record(result) -> dict:
    return json.loads(result.stdout)


@pytest.mark.parametrize("how", sorted(WEAKENINGS))
def test_every_weakening_is_refused_whole_and_never_built(calc: Project, api: FakeAPI, cli, how: str) -> None:
    answer, path = WEAKENINGS[how]
    calc.write("agent-config/config.toml", "max_repairs = 1\n")  # two attempts: the refusal, and the repair it told
    for _ in range(2):
        api.reply(answer + FIX)  # the fix rides along: the whole answer is refused all the same
    result = cli("--json")
    assert result.exit_code == 1, result.stderr
    document = record(result)
    assert document["outcome"] == "refused" and document["last_build"] is None
    assert git(calc.root, "status", "--porcelain") == "", "nothing of it was written"
    changes = document["tests_changed"]
    assert {c["path"] for c in changes} == {path}
    assert {(c["by"], c["allowed"]) for c in changes} == {("answer", False)}
    assert sorted({c["call"] for c in changes}) == [1, 2]
    repair = user_text(api.requests[1])
    assert f"{path}: " in repair and "read-only" in repair and "Fix the code, not the tests" in repair
    assert "--tests report" in result.stderr


def test_the_model_is_told_the_file_and_then_a_code_fix_passes(calc: Project, api: FakeAPI, cli) -> None:
    api.reply(WEAKENINGS["or True"][0])
    api.reply(FIX)
    result = cli("--json")
    assert result.exit_code == 0, result.stderr
    assert calc.read("calc.py") == CALC_FIXED and calc.read("tests/test_calc.py") == CALC_TEST
    repair = user_text(api.requests[1])
    assert "--- ANSWER REFUSED ---" in repair
    assert "tests/test_calc.py: changed a test file: the existing tests and the test runners' configuration" in repair
    assert "^^^needs-human" in repair
    (run,) = calc.run_dirs()
    assert "Fix the code, not the tests" in (run / "01-refused.txt").read_text()
    assert "call 1: refused: it changes the tests (1 change)" in (run / "run.log").read_text()
    (changed,) = record(result)["tests_changed"]
    assert changed == {
        "path": "tests/test_calc.py",
        "change": "changed",
        "what": "a test file",
        "by": "answer",
        "call": 1,
        "allowed": False,
    }


def test_a_runners_part_of_a_shared_file_is_named_and_the_rest_of_it_is_the_models(
    calc: Project, api: FakeAPI, cli
) -> None:
    """pyproject.toml's version, package.json's lint script, a Makefile's compile flags and a Rust
    source above its tests are code: an answer may change them."""
    api.reply(
        edit("pyproject.toml", 'version = "1.0"\n', 'version = "1.1"\n')
        + edit("package.json", '    "lint": "eslint ."\n', '    "lint": "eslint --fix ."\n')
        + edit("Makefile", "CFLAGS = -O2\n", "CFLAGS = -O2 -Wall\n")
        + edit("src/lib.rs", "    a - b\n", "    a + b\n")
        + FIX
    )
    result = cli("--json")
    assert result.exit_code == 0, result.stderr
    assert record(result)["tests_changed"] == [] and "a + b" in calc.read("src/lib.rs")


def test_the_refusal_names_the_runner_and_the_part_it_reads(calc: Project, api: FakeAPI, cli) -> None:
    api.reply(WEAKENINGS["pyproject addopts --setup-plan"][0])
    for _ in range(3):
        api.reply(WEAKENINGS["make .IGNORE"][0])
    result = cli("--json")
    assert result.exit_code == 1
    first, second = (c["what"] for c in record(result)["tests_changed"][:2])
    assert first.startswith("pytest configuration ([tool.pytest]")
    assert second.startswith("make configuration (the test rules")


def test_under_report_test_changes_are_applied_and_named_everywhere(calc: Project, api: FakeAPI, cli) -> None:
    api.reply(f"^^^tests/test_calc.py\n^^^delete\n{WEAKENINGS['new pytest.toml'][0]}")
    result = cli("--json", "--tests", "report")
    assert result.exit_code == 0, result.stderr
    assert not (calc.root / "tests/test_calc.py").exists() and (calc.root / "pytest.toml").exists()
    assert "the answer changes the tests; tests = report lets it through:\n" in result.stderr
    assert "- tests/test_calc.py: deleted a test file" in result.stderr
    assert "- pytest.toml: created pytest configuration (the whole file)" in result.stderr
    (run,) = calc.run_dirs()
    assert (
        "call 1: changes the tests (tests = report): tests/test_calc.py: deleted a test file"
        in (run / "run.log").read_text()
    )
    changes = {(c["path"], c["change"], c["allowed"]) for c in record(result)["tests_changed"]}
    assert changes == {("tests/test_calc.py", "deleted", True), ("pytest.toml", "created", True)}


def test_under_free_nothing_is_checked(calc: Project, api: FakeAPI, cli) -> None:
    calc.write("agent-config/config.toml", 'tests = "free"\n')
    api.reply("^^^tests/test_calc.py\n^^^delete\n")
    result = cli("--json")
    assert result.exit_code == 0, result.stderr
    assert record(result)["tests_changed"] == [] and "changes the tests" not in result.stderr


def test_a_dry_run_says_the_answer_would_be_refused(calc: Project, api: FakeAPI, cli) -> None:
    api.reply(WEAKENINGS["del test_add"][0])
    result = cli("--json", "--dry-run")
    assert result.exit_code == 1 and record(result)["outcome"] == "refused"
    assert "changed a test file" in record(result)["error"] and "Fix the code, not the tests" in result.stderr


def test_apply_refuses_a_test_change_unless_told_to_report_it(calc: Project, cli, tmp_path) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text("^^^tests/test_calc.py\n^^^delete\n" + FIX)
    checked = cli("apply", "--check", "--json", str(answer))
    assert checked.exit_code == 7
    (problem,) = record(checked)["problems"]
    assert problem["kind"] == "tests_changed" and problem["path"] == "tests/test_calc.py"
    assert "--tests report" in problem["message"]
    refused = cli("apply", str(answer))
    assert refused.exit_code == 7 and "deleted a test file" in refused.stdout
    assert git(calc.root, "status", "--porcelain") == ""
    applied = cli("--tests", "report", "apply", "--json", "--build", str(answer))
    assert applied.exit_code == 0, applied.stderr
    assert not (calc.root / "tests/test_calc.py").exists() and calc.read("calc.py") == CALC_FIXED
    (changed,) = record(applied)["tests_changed"]
    assert (changed["change"], changed["allowed"], changed["call"]) == ("deleted", True, 1)
    assert "changes the tests" in applied.stderr


def test_when_git_cannot_say_which_files_are_tests_every_file_is_one_and_read_only(
    calc: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    def unanswered(self, paths):
        raise GitUnanswered("git check-ignore could not run: no such file")

    monkeypatch.setattr(TestPaths, "check", unanswered)
    calc.write("notes.txt", "a note\n")
    calc.commit_all()
    for _ in range(4):
        api.reply("^^^notes.txt\n^^^delete\n")  # no test at all, but git cannot say so
    result = cli("--json", "--sandbox", "off")
    assert result.exit_code == 1 and record(result)["outcome"] == "refused", result.stderr
    assert "git could not say which files are tests (git check-ignore could not run" in result.stderr
    assert {c["path"] for c in record(result)["tests_changed"]} == {"notes.txt"}
    assert (calc.root / "notes.txt").exists()
