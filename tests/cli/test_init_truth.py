"""`code-commit init` tells the truth: the build.sh it writes does what its comments and the console
say, on real projects with their real toolchains, in the real sandbox.

- The folders build.sh creates are ignored (cJSON's CMake build/, when the project does not ignore
  it already), so the checks after a build do not read CMake's generated files as changed tests.
- A locked install (`npm ci`) only where the lock file is; without one, the install that works, and
  why it needs the network.
- A compiled extension is rebuilt before the tests (markupsafe's C speedups), offline: a C-level bug
  fails the build and its fix passes it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import venv
from pathlib import Path
from typing import Any

import pytest

from code_commit.exits import EXIT

from npm_registry import NpmRegistry
from support import git
from support.sandbox import require_bwrap
from venv_copies import install_copies

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
REQUIRED = bool(os.environ.get("CI") or os.environ.get("REQUIRE_SANDBOX_TESTS"))
require_bwrap()


def needs(tool: str) -> None:
    if shutil.which(tool) is None:
        message = f"{tool} is not installed: .ci/run installs it"
        pytest.fail(message, pytrace=False) if REQUIRED else pytest.skip(message)


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The project folder, current; builds run in bubblewrap or not at all."""
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    monkeypatch.setenv("CODE_COMMIT_SANDBOX", "require")
    return project


def commit(root: Path) -> None:
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "the project")


def body(root: Path) -> list[str]:
    """build.sh's commands: its lines after `cd`, without comments."""
    text = (root / "build.sh").read_text().split('cd "$(dirname "$0")"\n', 1)[1]
    return [line for line in text.splitlines() if line and not line.startswith("#")]


def comments(root: Path) -> str:
    """build.sh's comments as one line of text (textwrap folded them)."""
    lines = (root / "build.sh").read_text().splitlines()
    return " ".join(line.lstrip("# ") for line in lines if line.startswith("#"))


def ran_count(output: str) -> int:
    """How many tests init's check said the build ran (it passed)."""
    said = re.search(r"check: build passes \(build.sh exited with code 0 after [\d.]+ s\): it ran (\d+) ", output)
    assert said is not None, output
    return int(said.group(1))


def check(cli: Any) -> dict[str, Any]:
    result = cli("check", "--json")
    record: dict[str, Any] = json.loads(result.stdout)
    assert result.exit_code == record["exit_code"], result.output
    return record


# The build folders build.sh creates


def test_cmake_s_build_folder_is_ignored_when_git_does_not_and_init_says_so(root: Path, cli) -> None:
    """Before: cJSON without build/ in its .gitignore. init's check passed, and every check after it
    read CMake's generated build/**/compiler_depend.ts as changed TypeScript tests: exit 12."""
    needs("cmake")
    shutil.copytree(FIXTURES / "cjson", root, dirs_exist_ok=True)
    theirs = (root / ".gitignore").read_text().replace("build/\n", "")
    (root / ".gitignore").write_text(theirs)
    commit(root)

    result = cli("init")

    assert result.exit_code == EXIT.OK, result.output
    assert (root / ".gitignore").read_text() == theirs + "/agent-config\n/build/\n", "appended; theirs untouched"
    assert "added    /build/ to .gitignore: build.sh creates that folder and git did not ignore it" in result.output
    assert ran_count(result.output) == 5
    assert "git add -- .gitignore build.sh codeRollup.sh && git commit" in result.output
    assert "add to .gitignore the build's outputs" not in result.output, "nothing left to ignore by hand"
    again = check(cli)
    assert again["exit_code"] == EXIT.OK and again["tests_changed"] == [], "CMake's files are no tests"


def test_a_line_for_the_build_folder_alone_names_gitignore_to_commit(root: Path, cli) -> None:
    (root / "CMakeLists.txt").write_text("project(p C)\nenable_testing()\n")
    (root / ".gitignore").write_text("/agent-config\n")
    commit(root)

    result = cli("init", "--no-check")

    assert (root / ".gitignore").read_text() == "/agent-config\n/build/\n"
    assert "added    /agent-config" not in result.output and "added    /build/ to .gitignore" in result.output
    assert "git add -- .gitignore build.sh codeRollup.sh && git commit" in result.output


def test_a_build_folder_where_git_tracks_files_gets_no_line(root: Path, cli) -> None:
    """The project's own build/ (its scripts): ignoring it would hide every new file there."""
    (root / "CMakeLists.txt").write_text("project(p C)\nenable_testing()\n")
    (root / "build" / "tools").mkdir(parents=True)
    (root / "build" / "tools" / "release.sh").write_text("#!/bin/sh\n")
    commit(root)

    result = cli("init", "--no-check")

    assert (root / ".gitignore").read_text() == "/agent-config\n" and "/build/" not in result.output


def test_a_build_folder_git_already_ignores_gets_no_line(root: Path, cli) -> None:
    """cJSON as it is: its .gitignore has `build/`; a line the user wrote in .git/info/exclude counts too."""
    shutil.copytree(FIXTURES / "cjson", root, dirs_exist_ok=True)
    theirs = (root / ".gitignore").read_text()
    commit(root)

    result = cli("init", "--no-check")

    assert result.exit_code == EXIT.OK, result.output
    assert (root / ".gitignore").read_text() == theirs + "/agent-config\n"
    assert "/build/ to .gitignore" not in result.output

    for name in ("build.sh", ".gitignore"):
        (root / name).unlink()
    (root / ".git" / "info" / "exclude").write_text("/build\n")
    result = cli("init", "--no-check")
    assert (root / ".gitignore").read_text() == "/agent-config\n", "git's own answer, not a look at .gitignore"


# Node: npm ci only with a lock file


def node_project(root: Path) -> None:
    shutil.copytree(FIXTURES / "own" / "node-duration", root, dirs_exist_ok=True)  # depends on ms, no lock


def test_without_a_lock_file_init_writes_npm_install_says_it_needs_the_network_and_it_works_with_it(
    root: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before: `npm ci`, which fails at once without package-lock.json ("can only install with an
    existing package-lock.json"), undiagnosed, and three repairs were asked for."""
    needs("npm")
    node_project(root)
    commit(root)
    with NpmRegistry([FIXTURES / "packages" / "ms-2.1.3.tgz"]) as registry:
        monkeypatch.setenv("npm_config_registry", registry.url)
        for name, value in (("update_notifier", "false"), ("audit", "false"), ("fund", "false")):
            monkeypatch.setenv(f"npm_config_{name}", value)

        result = cli("init")

        assert result.exit_code == EXIT.OK, result.output
        assert body(root) == ["[ -e node_modules ] || npm install", "npm test"]
        said = "there is no lock file (package-lock.json or npm-shrinkwrap.json), so the first build runs `npm install`"
        assert said in result.output and said in comments(root)
        assert "sandbox_network = true in agent-config/config.toml gives it" in result.output
        assert "check: build fails" in result.output and registry.requests == [], "no network in the sandbox"
        assert "build.sh fails now, and no repair could make it pass: its `npm install` needs the network" in (
            result.output
        )
        assert "a run will repair it" not in result.output

        # What it says to set works: the install reaches the registry (here on loopback) and the tests run.
        (root / "agent-config" / "config.toml").write_text("sandbox_network = true\n")
        record = check(cli)
        assert record["exit_code"] == EXIT.OK and record["ran_tests"]["count"] == 1, record
        assert ("GET", "/ms/-/ms-2.1.3.tgz") in registry.requests

    # Once the lock file is there, init writes the locked install.
    shutil.rmtree(root / "node_modules")
    (root / "build.sh").unlink()
    assert cli("init", "--no-check").exit_code == EXIT.OK
    assert body(root) == ["[ -e node_modules ] || npm ci", "npm test"]


# A compiled extension: markupsafe's C speedups


def markupsafe(root: Path) -> None:
    """markupsafe with a virtualenv as its developer has one: pytest, and setuptools, which builds it."""
    shutil.copytree(FIXTURES / "markupsafe", root, dirs_exist_ok=True)
    venv.EnvBuilder(with_pip=False, symlinks=True).create(root / ".venv")
    install_copies(root / ".venv", "pytest", "setuptools")
    commit(root)


SPEEDUPS = Path("src/markupsafe/_speedups.c")
QUOTE_CODE = "*outp++ = '4'; \\"  # the 4 of &#34;, the escape of '"', in the C escape


def test_a_c_extension_is_rebuilt_before_the_tests_offline_so_a_c_bug_fails_and_its_fix_passes(root: Path, cli) -> None:
    """Before: the build ran pytest alone. The tests loaded the extension built before, so a C fix was
    judged by the old code (three times), and a fresh clone ran the pure-Python fallback only."""
    needs("cc")
    markupsafe(root)

    result = cli("init")

    assert result.exit_code == EXIT.OK, result.output
    assert body(root) == [
        "rm -f src/markupsafe/_speedups.*.so src/markupsafe/_speedups.so",
        ".venv/bin/python setup.py -q build_ext --inplace --force",
        "PYTHONPATH=src .venv/bin/python -m pytest -q -p no:cacheprovider",
    ]
    assert "setup.py's compiled extension (rebuilt in place" in result.output
    assert ran_count(result.output) == 78, "each test ran twice: the pure-Python escape and the C one, built"

    source = root / SPEEDUPS
    good = source.read_text()
    assert good.count(QUOTE_CODE) == 1
    source.write_text(good.replace(QUOTE_CODE, QUOTE_CODE.replace("4", "5")))  # '"' escapes to &#35;
    broken = check(cli)
    assert broken["exit_code"] == EXIT.BUILD_FAILS, broken
    output = Path(broken["last_build"]["log"]).read_text()
    failed = [line for line in output.splitlines() if line.startswith("FAILED ")]
    assert len(failed) == 10 and all(re.search(r"\[markupsafe\._speedups[]-]", line) for line in failed), output

    source.write_text(good)
    fixed = check(cli)
    assert fixed["exit_code"] == EXIT.OK and fixed["ran_tests"]["count"] == 78, fixed

    # markupsafe's setup.py falls back to pure Python when the C does not compile: the module built
    # before is gone first, so no test loads it; the C tests skip, as markupsafe's own rules say.
    source.write_text(good.replace("#include <Python.h>", "#include <Python.h>\nnot C;", 1))
    fallback = check(cli)
    assert fallback["exit_code"] == EXIT.OK and fallback["ran_tests"]["count"] == 39, fallback
    assert not list((root / "src" / "markupsafe").glob("_speedups*.so"))
