"""The JavaScript runners' configuration (Jest, Vitest, Mocha, Karma, Playwright, Cypress) and package.json."""

# ruff: noqa: SIM905 - word lists read best as words
from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from code_commit.guard.weakening.chains import arguments, form
from code_commit.guard.weakening.findings import Finding, What
from code_commit.guard.weakening.lexer import ID, PUNCT, STR, Lexis, Token, brackets, code, lex
from code_commit.guard.weakening.runners.parsing import split_command, text_of

_JS_CONFIG = Lexis(js=True, dollar_ids=True)


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


def js_findings(
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


def js_config(path: str, before: bytes | None, after: bytes | None, scope: str | None = None) -> list[Finding]:
    old = _js_settings(text_of(before), scope)
    new = _js_settings(text_of(after), scope)
    return js_findings(path, old or {}, new or {})


def yaml_settings(data: bytes | None) -> dict[str, list[str]]:
    """A flat YAML mapping (.mocharc.yml): `key: value` and `key:` followed by `- item` lines."""
    found: dict[str, list[str]] = {}
    key = None
    for raw in (text_of(data) or "").splitlines():
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


def package_json(path: str, before: bytes | None, after: bytes | None) -> list[Finding]:
    old, new = _json(before), _json(after)
    if new is None:
        return []
    old = old or {}
    found = []
    for key in ("jest", "mocha"):
        found += js_findings(
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
    old, new = split_command(before), split_command(after)
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


def _json(data: bytes | None) -> dict[str, Any] | None:
    if data is None:
        return {}
    try:
        value = json.loads(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None
