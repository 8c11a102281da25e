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

# ruff: noqa: SIM905 - word lists read best as words

from __future__ import annotations

import bisect
import configparser
import json
import re
import shlex
import tomllib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from code_commit.guard.weakening.chains import arguments, form
from code_commit.guard.weakening.findings import Finding, What
from code_commit.guard.weakening.lexer import ID, PUNCT, STR, Lexis, Token, brackets, code, lex

_JS_CONFIG = Lexis(js=True, dollar_ids=True)
_HASH = Lexis(quote_strings=True, hash_comments=True, slash_comments=False)
_GRADLE = Lexis(quote_strings=True, text_blocks=True)

# -- pytest ----------------------------------------------------------------------------------------------

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


def _split_command(text: str) -> list[str]:
    try:
        return shlex.split(text, comments=True)
    except ValueError:
        return text.split()


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
    return _split_command(str(value)) if value else []


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


def _pytest_ini(path: str, before: bytes | None, after: bytes | None, section: str) -> list[Finding]:
    old, new = _ini(before), _ini(after)
    if new is None:
        return []  # pytest cannot read it either, and stops with an error
    return _pytest_settings_findings(path, f"[{section}]", _ini_section(old, section), _ini_section(new, section))


def _tox(path: str, before: bytes | None, after: bytes | None) -> list[Finding]:
    found = _pytest_ini(path, before, after, "pytest")
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
        words = _split_command(line.lstrip("-"))
        for k, word in enumerate(words):
            if word in ("pytest", "py.test") or word.endswith("/pytest"):
                args += words[k + 1 :]
                break
    return args


def _pyproject(path: str, before: bytes | None, after: bytes | None) -> list[Finding]:
    old, new = _toml(before), _toml(after)
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


def _toml(data: bytes | None) -> dict[str, Any] | None:
    if data is None:
        return {}
    try:
        return tomllib.loads(data.decode("utf-8", "replace"))
    except tomllib.TOMLDecodeError:
        return None


# -- JavaScript runners -----------------------------------------------------------------------------------

_JS_INCLUDES = frozenset("testMatch roots projects include spec files extension specPattern testDir dir".split())
_JS_EXCLUDES = frozenset(
    "testPathIgnorePatterns modulePathIgnorePatterns exclude ignore testIgnore excludeSpecPattern".split()
)
_JS_FILTERS = frozenset("testNamePattern testRegex grep fgrep invert grepInvert testPathPattern".split())
_JS_TRUE_WEAKENS = frozenset("passWithNoTests allowOnly dryRun dry-run passOnFailingTest pass-on-failing-test".split())
_JS_FALSE_WEAKENS = frozenset("forbidOnly forbid-only forbidPending forbid-pending recursive".split())
_JS_HOOKS = frozenset(
    """setupFiles setupFilesAfterEnv globalSetup globalTeardown testRunner runner testResultsProcessor
    testSequencer require file""".split()
)
_JS_THRESHOLDS = frozenset({"coverageThreshold", "thresholds"})
_JS_KEYS = _JS_INCLUDES | _JS_EXCLUDES | _JS_FILTERS | _JS_TRUE_WEAKENS | _JS_FALSE_WEAKENS | _JS_HOOKS | _JS_THRESHOLDS


def _js_settings(text: str | None, scope: str | None) -> dict[str, list[str]] | None:
    """Each runner setting's value as a list of entry forms (an array's elements, or the one value),
    read from a JavaScript, TypeScript or JSON file: anywhere in it, or only inside the objects
    under the key `scope` (`test: {...}` in a Vite configuration)."""
    if text is None:
        return {}
    tokens = code(lex(text, _JS_CONFIG))
    partner = brackets(tokens)
    ranges = [(0, len(tokens))] if scope is None else _scopes(tokens, partner, scope)
    found: dict[str, list[str]] = {}
    for start, end in ranges:
        j = start
        while j < end - 2:
            token = tokens[j]
            key = token.text.strip("'\"") if token.kind in (ID, STR) else None
            if key in _JS_KEYS and tokens[j + 1].text == ":" and not (j and tokens[j - 1].text == "."):
                value_end = _value_end(tokens, partner, j + 2, end)
                found.setdefault(key, []).extend(_entries(tokens, partner, j + 2, value_end))
                if key not in _JS_THRESHOLDS:
                    j = value_end
                    continue
            j += 1
    return found


def _scopes(tokens: list[Token], partner: list[int], scope: str) -> list[tuple[int, int]]:
    return [
        (j + 3, partner[j + 2])
        for j in range(len(tokens) - 2)
        if tokens[j].text.strip("'\"") == scope
        and tokens[j].kind in (ID, STR)
        and tokens[j + 1].text == ":"
        and tokens[j + 2].text == "{"
        and partner[j + 2] > j
    ]


def _value_end(tokens: list[Token], partner: list[int], j: int, end: int) -> int:
    while j < end and tokens[j].text not in (",", "}"):
        j = partner[j] + 1 if tokens[j].kind == PUNCT and tokens[j].text in "([{" and partner[j] > j else j + 1
    return j


def _entries(tokens: list[Token], partner: list[int], start: int, end: int) -> list[str]:
    if start < end and tokens[start].text == "[" and partner[start] == end - 1:
        return [form(tokens, a, b, {}) for a, b in arguments(tokens, partner, start, end - 1)]
    return [form(tokens, start, end, {})]


def _js_findings(
    path: str, old: Mapping[str, list[str]], new: Mapping[str, list[str]], where: str = ""
) -> list[Finding]:
    found = []

    def flag(what: str, hook: bool = False) -> None:
        found.append(Finding(path, What.HOOK if hook else What.NARROWED, where, what))

    for key in sorted(_JS_KEYS):
        before, after = old.get(key, []), new.get(key, [])
        if key in _JS_INCLUDES:
            if after:
                for entry in sorted(set(before) - set(after)):
                    flag(f"{key} no longer has {entry}")
        elif key in _JS_EXCLUDES:
            for entry in sorted(set(after) - set(before)):
                flag(f"{key} now has {entry}")
        elif key in _JS_FILTERS:
            if after and after != before:
                flag(f"{key} set to {' '.join(after)}")
        elif key in _JS_TRUE_WEAKENS:
            if "true" in after and "true" not in before:
                flag(f"{key} turned on")
        elif key in _JS_FALSE_WEAKENS:
            if "true" in before and "true" not in after:
                flag(f"{key} turned off")
        elif key in _JS_HOOKS:
            for entry in sorted(set(after) - set(before)):
                flag(f"{key} now has {entry}", hook=True)
        elif key in _JS_THRESHOLDS and before and before != after:
            flag(f"{key} changed or removed (a coverage threshold the run must meet)")
    return found


def _js_config(path: str, before: bytes | None, after: bytes | None, scope: str | None = None) -> list[Finding]:
    old = _js_settings(_text(before), scope)
    new = _js_settings(_text(after), scope)
    return _js_findings(path, old or {}, new or {})


def _yaml_settings(data: bytes | None) -> dict[str, list[str]]:
    """A flat YAML mapping (.mocharc.yml): `key: value` and `key:` followed by `- item` lines."""
    found: dict[str, list[str]] = {}
    key = None
    for raw in (_text(data) or "").splitlines():
        line = raw.split(" #", 1)[0].rstrip()
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        if not raw.startswith((" ", "\t", "-")) and ":" in line:
            key, _, value = line.partition(":")
            key = key.strip().strip("'\"")
            found[key] = [_yaml_scalar(v) for v in _yaml_list(value.strip())] if value.strip() else []
        elif key is not None and line.lstrip().startswith("- "):
            found[key].append(_yaml_scalar(line.lstrip()[2:]))
    return found


def _yaml_list(value: str) -> list[str]:
    if value.startswith("[") and value.endswith("]"):
        return [v for v in value[1:-1].split(",") if v.strip()]
    return [value]


def _yaml_scalar(value: str) -> str:
    value = value.strip()
    return "'" + value.strip("'\"") + "'" if value[:1] in "'\"" else value


def _package_json(path: str, before: bytes | None, after: bytes | None) -> list[Finding]:
    old, new = _json(before), _json(after)
    if new is None:
        return []
    old = old or {}
    found = []
    for key in ("jest", "mocha"):
        found += _js_findings(
            path,
            _js_settings(json.dumps(old.get(key, {})), None) or {},
            _js_settings(json.dumps(new.get(key, {})), None) or {},
            key,
        )
    old_script = _script(old)
    new_script = _script(new)
    if old_script is not None:
        if new_script is None:
            found.append(Finding(path, What.NARROWED, "scripts.test", "the test script was removed"))
        else:
            found += [
                Finding(path, What.NARROWED, "scripts.test", what)
                for what in _command_narrowing(old_script, new_script)
            ]
    return found


def _script(data: Mapping[str, Any]) -> str | None:
    scripts = data.get("scripts")
    value = scripts.get("test") if isinstance(scripts, dict) else None
    return value if isinstance(value, str) else None


def _json(data: bytes | None) -> dict[str, Any] | None:
    if data is None:
        return {}
    try:
        value = json.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


_RUNNERS = frozenset(
    "jest vitest mocha ava tap tape karma playwright cypress jasmine pytest cargo go mvn gradle phpunit pest rspec "
    "ctest make npm pnpm yarn bun node deno".split()
)
_CLI_NARROWING = (
    "-t",
    "--testNamePattern",
    "--testPathIgnorePatterns",
    "--testPathPattern",
    "--testMatch",
    "--testRegex",
    "--roots",
    "--passWithNoTests",
    "--grep",
    "-g",
    "--fgrep",
    "--invert",
    "--exclude",
    "--ignore",
    "--onlyChanged",
    "-o",
    "--changedSince",
    "--lastCommit",
    "--findRelatedTests",
    "--listTests",
    "--dry-run",
    "--skip",
    "--project",
    "--allowOnly",
    "--no-forbid-only",
)
_FORCED_PASS = re.compile(r"\|\|\s*(true|:|exit\s+0)\b|;\s*(true|exit\s+0)\s*$|\bexit\s+0\b")


def _command_narrowing(before: str, after: str) -> list[str]:
    """What a changed test command no longer runs or no longer fails on."""
    found = []
    if len(_FORCED_PASS.findall(after)) > len(_FORCED_PASS.findall(before)):
        found.append("its failure is now ignored (|| true, exit 0)")
    old, new = _split_command(before), _split_command(after)
    gone = sorted({w for w in old if w in _RUNNERS} - set(new))
    if gone:
        found.append(f"it no longer runs {', '.join(gone)}")
    for word in sorted(set(new) - set(old)):
        flag = word.split("=", 1)[0]
        if flag in _CLI_NARROWING:
            found.append(f"added {word}")
        elif not word.startswith("-") and ("/" in word or re.search(r"\.(test|spec)\.|_test\.|test_", word)):
            found.append(f"it now names {word}, running only that")
    return found


# -- JVM, PHP, Ruby, Rust, C and C++ ---------------------------------------------------------------------

_XML_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_XML_ELEMENT = re.compile(r"<([A-Za-z][\w.:-]*)(?:\s[^<>]*)?>([^<]*)</\1\s*>")
_SUREFIRE_FLAGS = frozenset(
    "skipTests skip maven.test.skip testFailureIgnore maven.test.failure.ignore skipITs skipExec".split()
)


def _blocks(text: str, tag: str) -> list[str]:
    """The text of each outermost `<tag ...>...</tag>` block, opens and closes paired in one pass."""
    marks = sorted(
        [(m.start(), 1) for m in re.finditer(rf"<{re.escape(tag)}(?=[\s>/])", text)]
        + [(m.end(), -1) for m in re.finditer(rf"</{re.escape(tag)}\s*>", text)]
    )
    blocks = []
    stack: list[int] = []
    for position, kind in marks:
        if kind == 1:
            stack.append(position)
        elif stack:
            start = stack.pop()
            if not stack:
                blocks.append(text[start:position])
    return blocks


def _elements(text: str) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2).strip()) for m in _XML_ELEMENT.finditer(text)]


def _pom(path: str, before: bytes | None, after: bytes | None) -> list[Finding]:
    def settings(data: bytes | None) -> Counter[tuple[str, str]]:
        text = _XML_COMMENT.sub("", _text(data) or "")
        found: Counter[tuple[str, str]] = Counter()
        for block in _blocks(text, "plugin"):
            if "surefire" in block or "failsafe" in block:
                found.update(_elements(block))
        for block in _blocks(text, "properties"):
            found.update((k, v) for k, v in _elements(block) if k.startswith(("maven.", "skip", "test")))
        found.update((k, v) for k, v in _elements(text) if k == "testSourceDirectory")
        return found

    old, new = settings(before), settings(after)
    found = []
    for tag, value in sorted((new - old).elements()):
        switched_on = tag in _SUREFIRE_FLAGS and value.lower() == "true"
        if switched_on or tag in ("exclude", "excludedGroups", "test", "groups"):
            found.append(Finding(path, What.NARROWED, tag, f"<{tag}>{value}</{tag}>"))
        elif tag == "testSourceDirectory":
            found.append(Finding(path, What.NARROWED, tag, f"now {value}"))
    for tag, value in sorted((old - new).elements()):
        if tag in ("include", "testSourceDirectory"):
            found.append(Finding(path, What.NARROWED, tag, f"removed <{tag}>{value}</{tag}>"))
    return found


def _phpunit(path: str, before: bytes | None, after: bytes | None) -> list[Finding]:
    def settings(data: bytes | None) -> tuple[Counter[tuple[str, str]], dict[str, str]]:
        text = _XML_COMMENT.sub("", _text(data) or "")
        entries: Counter[tuple[str, str]] = Counter()
        for block in _blocks(text, "testsuite"):
            entries.update(_elements(block))
        for block in _blocks(text, "groups"):
            for part in _blocks(block, "exclude"):
                entries.update(("exclude-group", v) for k, v in _elements(part) if k == "group")
        flags = dict(re.findall(r"\b((?:failOn|beStrictAbout)\w*)\s*=\s*\"(true|false)\"", text))
        return entries, flags

    (old, old_flags), (new, new_flags) = settings(before), settings(after)
    found = []
    for tag, value in sorted((old - new).elements()):
        if tag in ("directory", "file"):
            found.append(Finding(path, What.NARROWED, "testsuite", f"removed <{tag}>{value}</{tag}>"))
    for tag, value in sorted((new - old).elements()):
        if tag in ("exclude", "exclude-group"):
            found.append(Finding(path, What.NARROWED, "testsuite", f"now excludes {value}"))
    for name, value in sorted(old_flags.items()):
        if value == "true" and new_flags.get(name) != "true":
            found.append(Finding(path, What.NARROWED, name, "turned off"))
    return found


def _rspec(path: str, before: bytes | None, after: bytes | None) -> list[Finding]:
    old, new = _split_command(_text(before) or ""), _split_command(_text(after) or "")
    found = []
    pairs_old, pairs_new = Counter(_pairs(old)), Counter(_pairs(new))
    for entry in sorted((pairs_new - pairs_old).elements()):
        if entry.startswith(
            ("--tag", "-t", "--exclude-pattern", "--pattern", "--example", "-e", "--only-failures", "--next-failure")
        ):
            found.append(Finding(path, What.NARROWED, "", f"added {entry}"))
    return found


def _pairs(words: list[str]) -> list[str]:
    out = []
    for k, word in enumerate(words):
        if word.startswith("-") and k + 1 < len(words) and not words[k + 1].startswith("-"):
            out.append(f"{word} {words[k + 1]}")
        elif word.startswith("-"):
            out.append(word)
    return out


def _nextest(path: str, before: bytes | None, after: bytes | None) -> list[Finding]:
    old, new = _toml(before), _toml(after)
    if new is None:
        return []

    def filters(data: Mapping[str, Any] | None) -> dict[str, str]:
        profiles = (data or {}).get("profile") or {}
        return {
            name: str(profile.get("default-filter"))
            for name, profile in profiles.items()
            if isinstance(profile, dict) and "default-filter" in profile
        }

    before_filters = filters(old)
    return [
        Finding(path, What.NARROWED, f"[profile.{name}]", f"default-filter set to {value}")
        for name, value in sorted(filters(new).items())
        if before_filters.get(name) != value
    ]


def _cargo(path: str, before: bytes | None, after: bytes | None) -> list[Finding]:
    old, new = _toml(before), _toml(after)
    if new is None:
        return []

    def targets(data: Mapping[str, Any] | None) -> dict[str, dict[str, Any]]:
        data = data or {}
        found: dict[str, dict[str, Any]] = {}
        if isinstance(data.get("lib"), dict):
            found["lib"] = data["lib"]
        for kind in ("bin", "test", "bench", "example"):
            for target in data.get(kind) or []:
                if isinstance(target, dict):
                    found[f"{kind} {target.get('name', '?')}"] = target
        return found

    found = []
    old_targets, new_targets = targets(old), targets(new)
    for name, target in sorted(new_targets.items()):
        was = old_targets.get(name, {})
        if target.get("test") is False and was.get("test") is not False:
            found.append(Finding(path, What.NARROWED, f"[{name}]", "test = false: its tests no longer run"))
        if target.get("harness") is False and was.get("harness") is not False:
            found.append(Finding(path, What.HOOK, f"[{name}]", "harness = false: its own main decides the outcome"))
    for name in sorted(old_targets):
        if name.startswith("test ") and name not in new_targets:
            found.append(
                Finding(path, What.NARROWED, f"[[{name.split()[0]}]]", f"target {name.split(' ', 1)[1]} removed")
            )
    old_package, new_package = (old or {}).get("package") or {}, (new or {}).get("package") or {}
    was_off = isinstance(old_package, dict) and old_package.get("autotests") is False
    if isinstance(new_package, dict) and new_package.get("autotests") is False and not was_off:
        found.append(Finding(path, What.NARROWED, "[package]", "autotests = false: tests/ is no longer collected"))
    return found


_CMAKE_TESTS = frozenset(
    "add_test gtest_discover_tests gtest_add_tests catch_discover_tests doctest_discover_tests enable_testing".split()
)
_CTEST_OFF = re.compile(r"\b(DISABLED|WILL_FAIL|SKIP_RETURN_CODE|SKIP_REGULAR_EXPRESSION)\b")


def _cmake(path: str, before: bytes | None, after: bytes | None) -> list[Finding]:
    def commands(data: bytes | None) -> Counter[str]:
        tokens = code(lex(_text(data) or "", _HASH))
        partner = brackets(tokens)
        found: Counter[str] = Counter()
        for j, token in enumerate(tokens[:-1]):
            if token.kind == ID and tokens[j + 1].text == "(" and partner[j + 1] > j:
                name = token.text.lower()
                inside = form(tokens, j + 2, partner[j + 1], {})
                test_folder = name == "add_subdirectory" and "test" in inside.lower()
                switched_off = name == "set_tests_properties" and _CTEST_OFF.search(inside)
                if name in _CMAKE_TESTS or test_folder or switched_off:
                    found[f"{name}({inside})"] += 1
        return found

    old, new = commands(before), commands(after)
    found = [
        Finding(path, What.NARROWED, "", f"removed {entry}")
        for entry in sorted((old - new).elements())
        if not entry.startswith("set_tests_properties")
    ]
    found += [
        Finding(path, What.SKIPPED, "", entry)
        for entry in sorted((new - old).elements())
        if entry.startswith("set_tests_properties")
    ]
    return found


_GRADLE_WORDS = frozenset(
    """ignoreFailures excludeTestsMatching includeTestsMatching excludeTags includeTags excludeCategories
    includeCategories excludeEngines includeEngines failOnNoMatchingTests setFailOnNoMatchingTests""".split()
)


def _gradle(path: str, before: bytes | None, after: bytes | None) -> list[Finding]:
    def statements(data: bytes | None) -> Counter[str]:
        text = _text(data) or ""
        starts = [m.end() for m in re.finditer("\n", text)]
        lines: dict[int, list[Token]] = {}
        for token in code(lex(text, _GRADLE)):
            lines.setdefault(bisect.bisect_right(starts, token.pos), []).append(token)
        return Counter(
            " ".join(t.text for t in line) for line in lines.values() if any(t.text in _GRADLE_WORDS for t in line)
        )

    old, new = statements(before), statements(after)
    return [Finding(path, What.NARROWED, "test", f"added {entry}") for entry in sorted((new - old).elements())]


# -- dispatch ------------------------------------------------------------------------------------------


def _text(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", "replace")


def _by_name(path: str) -> Callable[[str, bytes | None, bytes | None], list[Finding]] | None:
    name = path.rsplit("/", 1)[-1]
    stem, _, suffix = name.partition(".")
    if name in ("pytest.ini", ".pytest.ini"):
        return lambda p, b, a: _pytest_ini(p, b, a, "pytest")
    if name == "tox.ini":
        return _tox
    if name == "setup.cfg":
        return lambda p, b, a: _pytest_ini(p, b, a, "tool:pytest")
    if name == "pyproject.toml":
        return _pyproject
    if name == "package.json":
        return _package_json
    if stem in ("jest", "karma", "playwright", "cypress", "ava") and suffix.startswith(("config.", "conf.")):
        return _js_config
    if stem in ("vitest", "vite") and suffix.startswith(("config.", "workspace.")):
        return lambda p, b, a: _js_config(p, b, a, None if stem == "vitest" else "test")
    if name.startswith(".mocharc"):
        if name.endswith((".yml", ".yaml")):
            return lambda p, b, a: _js_findings(p, _yaml_settings(b), _yaml_settings(a))
        return _js_config
    if name in ("phpunit.xml", "phpunit.xml.dist"):
        return _phpunit
    if name == ".rspec":
        return _rspec
    if path.endswith(".config/nextest.toml"):
        return _nextest
    if name == "pom.xml":
        return _pom
    if name in ("build.gradle", "build.gradle.kts"):
        return _gradle
    if name == "Cargo.toml":
        return _cargo
    if name == "CMakeLists.txt" or name.endswith(".cmake"):
        return _cmake
    return None


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
