"""pytest's configuration (pytest.ini, .pytest.ini, tox.ini, setup.cfg, pyproject.toml) and tox's commands."""

# ruff: noqa: SIM905 - word lists read best as words
from __future__ import annotations

import configparser
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

from code_commit.guard.weakening.findings import Finding, What
from code_commit.guard.weakening.runners.parsing import read_toml, split_command

PYTEST_DEFAULTS = {
    "python_files": ["test_*.py", "*_test.py"],
    "python_classes": ["Test"],
    "python_functions": ["test"],
    "norecursedirs": "*.egg .* _darcs build CVS dist node_modules venv {arch}".split(),
}
# Options whose value is the next argument (or glued: -kexpr, --deselect=x).
_PYTEST_VALUED = frozenset(
    """-k -m --deselect --ignore --ignore-glob -p -W --pythonwarnings --cov-fail-under -o --override-ini -c
    --config-file --rootdir --confcutdir --doctest-glob --lfnf --last-failed-no-failures""".split()
)
_PYTEST_NARROWING = frozenset(
    """-k -m --deselect --ignore --ignore-glob --co --collect-only --continue-on-collection-errors --lf
    --last-failed --sw --stepwise --sw-skip --stepwise-skip -o --override-ini -c --config-file --rootdir
    --confcutdir --noconftest --suppress-no-test-exit-code --lfnf --last-failed-no-failures""".split()
)
_PYTEST_STRICT = frozenset(
    {"--runxfail", "--doctest-modules", "--doctest-glob", "--cov-fail-under", "--strict-markers"}
)


def _pytest_args(args: Iterable[str]) -> list[str]:
    """Options as `name value` entries, whichever way the value was attached."""
    out = []
    pending = None
    for arg in args:
        if pending is not None:
            out.append(f"{pending} {arg}")
            pending = None
            continue
        if arg in _PYTEST_VALUED:
            pending = arg
            continue
        name, eq, value = arg.partition("=")
        if eq and name in _PYTEST_VALUED:
            out.append(f"{name} {value}")
        elif len(arg) > 2 and arg[:2] in ("-k", "-m", "-p", "-W", "-o", "-c") and not arg.startswith("--"):
            out.append(f"{arg[:2]} {arg[2:]}")
        else:
            out.append(arg)
    if pending is not None:
        out.append(pending)
    return out


def _pytest_option_findings(path: str, where: str, before: list[str], after: list[str]) -> list[Finding]:
    found = []
    old, new = Counter(_pytest_args(before)), Counter(_pytest_args(after))
    for entry in (new - old).elements():
        flag, _, value = entry.partition(" ")
        narrowing = flag in _PYTEST_NARROWING or (flag == "-p" and value.startswith("no:"))
        warnings_off = flag in ("-W", "--pythonwarnings") and value.startswith("ignore") and _warns_as_errors(old)
        if narrowing or warnings_off:
            found.append(Finding(path, What.NARROWED, where, f"added {entry}"))
    for entry in (old - new).elements():
        flag, _, value = entry.partition(" ")
        if flag in _PYTEST_STRICT or (flag in ("-W", "--pythonwarnings") and value.startswith("error")):
            found.append(Finding(path, What.NARROWED, where, f"removed {entry}"))
    return found


def _warns_as_errors(entries: Counter[str]) -> bool:
    return any(e.split(" ", 1)[0] in ("-W", "--pythonwarnings") and " error" in e for e in entries)


def _listing(value: Any) -> list[str]:
    """An ini value (whitespace or line separated) or a TOML list, as its items."""
    if value is None:
        return []
    if isinstance(value, list):
        return [str(v) for v in value]
    return str(value).split()


def _pytest_settings_findings(path: str, where: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> list[Finding]:
    found = []

    def flag(what: str) -> None:
        found.append(Finding(path, What.NARROWED, where, what))

    old_paths, new_paths = set(_listing(old.get("testpaths"))), set(_listing(new.get("testpaths")))
    if new_paths:
        for entry in sorted(old_paths - new_paths):
            flag(f"testpaths no longer has {entry}")
    for key in ("python_files", "python_classes", "python_functions"):
        before = set(_listing(old.get(key, PYTEST_DEFAULTS[key])))
        after = set(_listing(new.get(key, PYTEST_DEFAULTS[key])))
        for entry in sorted(before - after):
            flag(f"{key} no longer has {entry}")
    old_skip = set(_listing(old.get("norecursedirs", PYTEST_DEFAULTS["norecursedirs"])))
    for entry in sorted(set(_listing(new.get("norecursedirs", PYTEST_DEFAULTS["norecursedirs"]))) - old_skip):
        flag(f"norecursedirs now has {entry}")
    if _truthy(old.get("xfail_strict")) and not _truthy(new.get("xfail_strict")):
        flag("xfail_strict turned off")
    if _truthy(old.get("collect_imported_tests", True)) and not _truthy(new.get("collect_imported_tests", True)):
        flag("collect_imported_tests turned off")
    old_warnings, new_warnings = _lines(old.get("filterwarnings")), _lines(new.get("filterwarnings"))
    if any(w.startswith("error") for w in old_warnings):
        for entry in sorted(set(old_warnings) - set(new_warnings)):
            if entry.startswith("error"):
                flag(f"filterwarnings no longer has {entry}")
        for entry in sorted(set(new_warnings) - set(old_warnings)):
            if entry.startswith("ignore"):
                flag(f"filterwarnings now has {entry}")
    old_fixtures = set(_listing(old.get("usefixtures")))
    for entry in sorted(set(_listing(new.get("usefixtures"))) - old_fixtures):
        found.append(Finding(path, What.HOOK, where, f"usefixtures now has {entry}"))
    found += _pytest_option_findings(path, where, _addopts(old.get("addopts")), _addopts(new.get("addopts")))
    return found


def _addopts(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value]
    return split_command(str(value)) if value else []


def _lines(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v).strip() for v in value]
    return [line.strip() for line in str(value or "").splitlines() if line.strip()]


def _truthy(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("true", "1", "yes", "on")


def _ini(data: bytes | None) -> configparser.ConfigParser | None:
    parser = configparser.ConfigParser(interpolation=None, strict=False, comment_prefixes=("#", ";"))
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    if data is None:
        return parser
    try:
        parser.read_string(data.decode("utf-8", "replace"))
    except configparser.Error:
        return None
    return parser


def _ini_section(parser: configparser.ConfigParser | None, section: str) -> dict[str, str]:
    if parser is None or not parser.has_section(section):
        return {}
    return dict(parser.items(section))


def pytest_ini(path: str, before: bytes | None, after: bytes | None, section: str) -> list[Finding]:
    old, new = _ini(before), _ini(after)
    if new is None:
        return []  # pytest cannot read it either, and stops with an error
    return _pytest_settings_findings(path, f"[{section}]", _ini_section(old, section), _ini_section(new, section))


def tox_ini(path: str, before: bytes | None, after: bytes | None) -> list[Finding]:
    found = pytest_ini(path, before, after, "pytest")
    old, new = _ini(before), _ini(after)
    if new is None:
        return found
    sections = [s for s in (new.sections() if new else []) if s == "testenv" or s.startswith("testenv:")]
    for section in sections:
        old_env, new_env = _ini_section(old, section), _ini_section(new, section)
        for key in ("ignore_outcome", "ignore_errors"):
            if _truthy(new_env.get(key)) and not _truthy(old_env.get(key)):
                found.append(Finding(path, What.NARROWED, f"[{section}]", f"{key} turned on"))
        old_lines, new_lines = _lines(old_env.get("commands")), _lines(new_env.get("commands"))
        ignored_before = sum(1 for line in old_lines if line.startswith("-"))
        if sum(1 for line in new_lines if line.startswith("-")) > ignored_before:
            found.append(
                Finding(path, What.NARROWED, f"[{section}]", "a command whose failure tox ignores (-) was added")
            )
        found += _pytest_option_findings(
            path, f"[{section}] commands", _pytest_invocations(old_lines), _pytest_invocations(new_lines)
        )
    return found


def _pytest_invocations(lines: Iterable[str]) -> list[str]:
    args: list[str] = []
    for line in lines:
        words = split_command(line.lstrip("-"))
        for k, word in enumerate(words):
            if word in ("pytest", "py.test") or word.endswith("/pytest"):
                args += words[k + 1 :]
                break
    return args


def pyproject(path: str, before: bytes | None, after: bytes | None) -> list[Finding]:
    old, new = read_toml(before), read_toml(after)
    if new is None:
        return []
    found = []
    for table in ("ini_options", None):
        where = "[tool.pytest.ini_options]" if table else "[tool.pytest]"
        found += _pytest_settings_findings(path, where, _pytest_table(old, table), _pytest_table(new, table))
    return found


def _pytest_table(data: Mapping[str, Any] | None, table: str | None) -> dict[str, Any]:
    pytest = ((data or {}).get("tool") or {}).get("pytest") or {}
    if not isinstance(pytest, dict):
        return {}
    if table:
        inner = pytest.get(table)
        return inner if isinstance(inner, dict) else {}
    return {k: v for k, v in pytest.items() if k != "ini_options"}
