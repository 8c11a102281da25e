"""Build tools' test settings: Maven Surefire, Gradle, Cargo, CMake/CTest, PHPUnit, RSpec, nextest."""

# ruff: noqa: SIM905 - word lists read best as words
from __future__ import annotations

import bisect
import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from code_commit.guard.weakening.chains import form
from code_commit.guard.weakening.findings import Finding, What
from code_commit.guard.weakening.lexer import ID, Lexis, Token, brackets, code, lex
from code_commit.guard.weakening.runners.parsing import read_toml, split_command, text_of

_HASH = Lexis(quote_strings=True, hash_comments=True, slash_comments=False)
_GRADLE = Lexis(quote_strings=True, text_blocks=True)


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


def pom(path: str, before: bytes | None, after: bytes | None) -> list[Finding]:
    def settings(data: bytes | None) -> Counter[tuple[str, str]]:
        text = _XML_COMMENT.sub("", text_of(data) or "")
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


def phpunit(path: str, before: bytes | None, after: bytes | None) -> list[Finding]:
    def settings(data: bytes | None) -> tuple[Counter[tuple[str, str]], dict[str, str]]:
        text = _XML_COMMENT.sub("", text_of(data) or "")
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


def rspec(path: str, before: bytes | None, after: bytes | None) -> list[Finding]:
    old, new = split_command(text_of(before) or ""), split_command(text_of(after) or "")
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


def nextest(path: str, before: bytes | None, after: bytes | None) -> list[Finding]:
    old, new = read_toml(before), read_toml(after)
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


def cargo(path: str, before: bytes | None, after: bytes | None) -> list[Finding]:
    old, new = read_toml(before), read_toml(after)
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


def cmake(path: str, before: bytes | None, after: bytes | None) -> list[Finding]:
    def commands(data: bytes | None) -> Counter[str]:
        tokens = code(lex(text_of(data) or "", _HASH))
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


def gradle(path: str, before: bytes | None, after: bytes | None) -> list[Finding]:
    def statements(data: bytes | None) -> Counter[str]:
        text = text_of(data) or ""
        starts = [m.end() for m in re.finditer("\n", text)]
        lines: dict[int, list[Token]] = {}
        for token in code(lex(text, _GRADLE)):
            lines.setdefault(bisect.bisect_right(starts, token.pos), []).append(token)
        return Counter(
            " ".join(t.text for t in line) for line in lines.values() if any(t.text in _GRADLE_WORDS for t in line)
        )

    old, new = statements(before), statements(after)
    return [Finding(path, What.NARROWED, "test", f"added {entry}") for entry in sorted((new - old).elements())]
