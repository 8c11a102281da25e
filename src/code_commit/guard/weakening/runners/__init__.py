"""Whether a change to a test runner's configuration narrows what it collects or fails on.

Narrowing: a test path, file pattern or included entry removed; an ignore, exclude or deselect
entry added; a name or marker filter set (`-k`, `-m`, `testNamePattern`, `grep`); collection
that stops failing (`--continue-on-collection-errors`, `passWithNoTests`, a plugin disabled with
`-p no:`); a strictness setting turned off (`xfail_strict`, `-W error`, `forbidOnly`,
`testFailureIgnore`); tests skipped by the build (`skipTests`, `test = false`, `harness = false`,
`DISABLED` in CTest); a coverage threshold lowered; a setup file or custom runner added (which
can change any outcome). Adding test paths, patterns and checks is not narrowing.

The formats read: pytest's (pytest.ini, .pytest.ini, tox.ini, setup.cfg, pyproject.toml) and tox's
own commands; Jest, Vitest, Mocha, Karma, Playwright and Cypress configuration files, and
package.json's `jest` and `mocha` keys and `test` script; phpunit.xml; .rspec; nextest.toml;
pom.xml's Surefire and Failsafe settings; build.gradle's test filters; Cargo.toml's targets;
CMakeLists.txt's tests. `config_findings` returns None for any other file.
"""

from __future__ import annotations

from collections.abc import Callable

from code_commit.guard.weakening.findings import Finding
from code_commit.guard.weakening.runners.build_tools import cargo, cmake, gradle, nextest, phpunit, pom, rspec
from code_commit.guard.weakening.runners.js_runners import js_config, js_findings, package_json, yaml_settings
from code_commit.guard.weakening.runners.python_runners import pyproject, pytest_ini, tox_ini


def _by_name(path: str) -> Callable[[str, bytes | None, bytes | None], list[Finding]] | None:
    name = path.rsplit("/", 1)[-1]
    stem, _, suffix = name.partition(".")
    if name in ("pytest.ini", ".pytest.ini"):
        return lambda p, b, a: pytest_ini(p, b, a, "pytest")
    if name == "tox.ini":
        return tox_ini
    if name == "setup.cfg":
        return lambda p, b, a: pytest_ini(p, b, a, "tool:pytest")
    if name == "pyproject.toml":
        return pyproject
    if name == "package.json":
        return package_json
    if stem in ("jest", "karma", "playwright", "cypress", "ava") and suffix.startswith(("config.", "conf.")):
        return js_config
    if stem in ("vitest", "vite") and suffix.startswith(("config.", "workspace.")):
        return lambda p, b, a: js_config(p, b, a, None if stem == "vitest" else "test")
    if name.startswith(".mocharc"):
        if name.endswith((".yml", ".yaml")):
            return lambda p, b, a: js_findings(p, yaml_settings(b), yaml_settings(a))
        return js_config
    if name in ("phpunit.xml", "phpunit.xml.dist"):
        return phpunit
    if name == ".rspec":
        return rspec
    if path.endswith(".config/nextest.toml"):
        return nextest
    if name == "pom.xml":
        return pom
    if name in ("build.gradle", "build.gradle.kts"):
        return gradle
    if name == "Cargo.toml":
        return cargo
    if name == "CMakeLists.txt" or name.endswith(".cmake"):
        return cmake
    return None


# Build tools' readers: their files are written by their tools (and code generators) too, so their
# test settings count when read, not their mere presence.
_BUILD_TOOL_READERS = (pom, gradle, cargo, cmake)


def is_runner_config(path: str) -> bool:
    """Whether `path` names a file whose test settings `config_findings` reads."""
    return _by_name(path) is not None


def is_found_by_runner(path: str) -> bool:
    """Whether a test runner takes up a file of this name wherever it appears, in place of settings
    elsewhere (a pytest.ini or a tox.ini in the folder pytest starts from, a jest.config.js)."""
    reader = _by_name(path)
    return reader is not None and reader not in _BUILD_TOOL_READERS


def config_findings(path: str, before: bytes | None, after: bytes | None) -> list[Finding] | None:
    """How a change to a test runner's configuration file narrows the tests; None if `path` is not
    one the readers know. A file the runner could not read after the change is no narrowing (the
    runner stops with an error); a deleted one is read as empty."""
    reader = _by_name(path)
    if reader is None:
        return None
    if before == after:
        return []
    return reader(path, before, after)
