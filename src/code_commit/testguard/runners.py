"""The test runners' configuration: what each supported runner reads to decide what runs and how,
as data, each entry with the runner's documentation as its source.

The table is runners.toml beside this module. An entry names files (a name pattern, or a path
ending such as `.cargo/config*`) and the part
of them that is the runner's: the whole file, or a table, a section, a key, the rules of a
Makefile that run the tests, CMake's test commands. `runner_part(path, data)` reads that part with
the format's own parser (`tomllib`, `configparser`, `json`, `xml.etree`) into a value that compares
equal exactly when the runner's settings are the same: a change to a file is a change to the
runner's configuration when its part before and after differ. A file its parser cannot read has
no knowable part, and counts as changed (`Unreadable`): the guard fails closed.

Makefiles and CMake have no library parser, and only their test rules are the runner's: they are
split into rules and commands here, by their documented syntax, never searched with patterns.
"""

from __future__ import annotations

import configparser
import fnmatch
import json
import re
import tomllib
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from code_commit.testguard.files import TEST_FOLDERS, named_as_test

_MAX_CONFIG_BYTES = 4 << 20  # a configuration file read past this is unreadable: no runner's is that large
_MAKE_VARIABLE_DEPTH = 4  # variables a test rule refers to, followed this many references deep

_Part = object  # a runner's part of a file, as a value that compares equal when the settings are equal
_Reader = Callable[[bytes], _Part | None]  # None: the file holds nothing of the runner's


class Unreadable(ValueError):
    """The file cannot be read as its format: what it says to the runner is unknown."""


@dataclass(frozen=True)
class Entry:
    runner: str
    names: tuple[str, ...]  # name patterns (fnmatch, case-sensitive), or path endings holding a slash
    part: str  # what of the file is the runner's, in words
    read: _Reader
    source: str  # where the runner documents that it reads this
    # The runner finds the file by walking the tree (pytest's conftest.py, Jest's config), as opposed
    # to reading it where the build points the tool (a Makefile, CMake's files, Cargo.toml).
    discovered: bool = True

    def matches(self, path: str) -> bool:
        parts = path.split("/")
        for pattern in self.names:
            depth = pattern.count("/") + 1  # a pattern with a slash matches the path's last components
            if fnmatch.fnmatchcase("/".join(parts[-depth:]), pattern):
                return True
        return False


def _text(data: bytes) -> str:
    if len(data) > _MAX_CONFIG_BYTES:
        raise Unreadable(f"over {_MAX_CONFIG_BYTES >> 20} MiB")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise Unreadable(f"not UTF-8 ({exc.reason})") from exc


def whole(data: bytes) -> _Part:
    return data


def _toml(data: bytes) -> dict[str, Any]:
    try:
        return tomllib.loads(_text(data))
    except tomllib.TOMLDecodeError as exc:
        raise Unreadable(f"not TOML: {exc}") from exc


def _dig(value: Any, keys: tuple[str, ...]) -> Any:
    for key in keys:
        if not isinstance(value, Mapping) or key not in value:
            return None
        value = value[key]
    return value


def _toml_keys(*paths: str) -> _Reader:
    """The values at these dotted key paths of a TOML file (`tool.pytest`)."""
    keys = [tuple(path.split(".")) for path in paths]

    def read(data: bytes) -> _Part | None:
        document = _toml(data)
        found = {".".join(key): value for key in keys if (value := _dig(document, key)) is not None}
        return found or None

    return read


def cargo(data: bytes) -> _Part | None:
    """Cargo.toml's test targets and switches: `[[test]]`, `[lib]`'s and each `[[bin]]`'s `test`,
    `doctest` and `harness`, `[profile.test]`, `package.autotests`."""
    document = _toml(data)
    found: dict[str, Any] = {}
    for key in ("test", "profile.test", "package.autotests"):
        value = _dig(document, tuple(key.split(".")))
        if value is not None:
            found[key] = value
    switches = ("test", "doctest", "harness")
    lib = document.get("lib")
    if isinstance(lib, Mapping):
        found.update({f"lib.{k}": lib[k] for k in switches if k in lib})
    for kind in ("bin", "example", "bench"):
        targets = document.get(kind)
        for target in targets if isinstance(targets, list) else []:
            if isinstance(target, Mapping) and any(k in target for k in switches):
                found[f"{kind}.{target.get('name')}"] = {k: target[k] for k in switches if k in target}
    return found or None


def _ini_sections(*names: str) -> _Reader:
    """These sections of an INI file; a name ending in `*` takes every section it begins."""

    def read(data: bytes) -> _Part | None:
        parser = configparser.RawConfigParser(strict=False, interpolation=None)
        try:
            parser.read_string(_text(data))
        except configparser.Error as exc:
            raise Unreadable(f"not INI: {exc.message}") from exc
        found = {
            section: dict(parser.items(section))
            for section in parser.sections()
            if any(section == n or (n.endswith("*") and section.startswith(n[:-1])) for n in names)
        }
        return found or None

    return read


def _package_json(data: bytes) -> _Part | None:
    """package.json's test scripts (`test*`, and the `pretest*`/`posttest*` npm runs around them) and
    the runners' own keys."""
    try:
        document = json.loads(_text(data))
    except json.JSONDecodeError as exc:
        raise Unreadable(f"not JSON: {exc}") from exc
    if not isinstance(document, dict):
        raise Unreadable("not a JSON object")
    found: dict[str, Any] = {}
    scripts = document.get("scripts")
    if isinstance(scripts, dict):
        found.update({f"scripts.{k}": v for k, v in scripts.items() if k.startswith(("test", "pretest", "posttest"))})
    elif scripts is not None:
        found["scripts"] = scripts
    found.update({k: document[k] for k in ("jest", "mocha", "ava", "c8", "nyc", "jasmine", "tap") if k in document})
    return found or None


_SUREFIRE = frozenset({"maven-surefire-plugin", "maven-failsafe-plugin"})
_MAVEN_TEST_PROPERTY = re.compile(
    r"(?:skip(?:Tests|ITs|Exec)?|test|it\.test|maven\.test\..*|surefire\..*|failsafe\..*)"
)


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def pom(data: bytes) -> _Part | None:
    """pom.xml's Surefire and Failsafe plugins (wherever declared: build, pluginManagement, profiles),
    the properties they read (`skipTests`, `maven.test.*`...), and the test source folders. Read with
    expat (xml.etree), which expands character references and CDATA as Maven does and refuses entity
    expansion past its limits."""
    try:
        root = ET.fromstring(_text(data))
    except ET.ParseError as exc:
        raise Unreadable(f"not XML: {exc}") from exc
    found: list[tuple[str, str]] = []
    for element in root.iter():
        tag = _local(element.tag) if isinstance(element.tag, str) else ""
        if tag == "plugin":
            artifact = next((c for c in element if _local(str(c.tag)) == "artifactId"), None)
            if artifact is not None and (artifact.text or "").strip() in _SUREFIRE:
                found.append(("plugin", ET.canonicalize(ET.tostring(element, encoding="unicode"), strip_text=True)))
        elif tag == "properties":
            found += [
                ("property", f"{_local(str(c.tag))}={(c.text or '').strip()}")
                for c in element
                if _MAVEN_TEST_PROPERTY.fullmatch(_local(str(c.tag)))
            ]
        elif tag in ("testSourceDirectory", "testResources", "testOutputDirectory"):
            found.append((tag, ET.canonicalize(ET.tostring(element, encoding="unicode"), strip_text=True)))
    return sorted(found) or None


# --- Makefiles ---------------------------------------------------------------------------------

# The targets that run tests by convention (`make test`, `make check`, GNU's `check-local`...).
_MAKE_TEST_TARGET = re.compile(r"(?:test|tests|check|unittest|unit-test|unit_test)(?:[-_.:].*)?")
# What changes how every recipe runs or whether its failure counts.
_MAKE_SPECIAL_TARGETS = frozenset({".IGNORE", ".SILENT", ".ONESHELL", ".POSIX", ".NOTPARALLEL", ".DEFAULT"})
_MAKE_SPECIAL_VARIABLES = frozenset({"MAKEFLAGS", ".MAKEFLAGS", "SHELL", ".SHELLFLAGS", ".RECIPEPREFIX", "MFLAGS"})
_MAKE_ASSIGNMENT = re.compile(r"(?:(?:override|export|private)\s+)*([^\s:#=!?+]+)\s*(?:::=|:::=|[:!?+]?=)(.*)")
_MAKE_REFERENCE = re.compile(r"\$[({]([^\s:(){}$]+)")


@dataclass
class _Rule:
    prerequisites: list[str]
    recipe: list[str]


def _logical_lines(text: str) -> Iterator[str]:
    """A Makefile's lines with backslash-newlines joined, as make reads them."""
    pending = ""
    for line in text.splitlines():
        if line.endswith("\\") and not line.endswith("\\\\"):
            pending += line[:-1] + " "
            continue
        yield pending + line
        pending = ""
    if pending:
        yield pending


def _assigns(line: str) -> bool:
    """Whether a makefile line sets a variable (`X = y`, `X := y`, `X ::= y`), not a rule (`a: b`),
    nor a target-specific variable (`a: X = y`), which belongs to its rule."""
    equals, colon = line.find("="), line.find(":")
    return equals >= 0 and (colon < 0 or colon > equals or not line[colon:equals].strip(":"))


def _uncomment(line: str) -> str:
    """A makefile line (not a recipe's, which goes to the shell whole) without its comment."""
    out = []
    escaped = False
    for char in line:
        if char == "#" and not escaped:
            break
        escaped = char == "\\" and not escaped
        out.append(char)
    return "".join(out).rstrip()


def _make_test_rules(data: bytes) -> _Part | None:
    """The rules that run or build the tests: the conventional test targets, the rules whose
    prerequisites are tests (`runner: tests/runner.c`), the phony targets those depend on, the special
    targets that change whether a failure counts (`.IGNORE`), and every variable they refer to, with
    MAKEFLAGS and SHELL, which change how any recipe runs."""
    text = _text(data)
    rules: dict[str, list[_Rule]] = {}
    variables: dict[str, list[str]] = {}
    prefix = "\t"
    current: list[_Rule] = []
    for line in _logical_lines(text):
        if current and line.startswith(prefix):
            for rule in current:
                rule.recipe.append(line[len(prefix) :].strip())
            continue
        bare = _uncomment(line)
        if not bare.strip():
            continue
        assignment = _MAKE_ASSIGNMENT.fullmatch(bare.strip()) if _assigns(bare) else None
        target, colon, rest = bare.partition(":")
        if assignment is not None:
            name = assignment.group(1)
            variables.setdefault(name, []).append(assignment.group(2).strip())
            if name == ".RECIPEPREFIX":
                prefix = assignment.group(2).strip()[:1] or "\t"
            current = []
            continue
        if not colon or not target.strip():
            current = []
            continue
        rest = rest.lstrip(":")
        prerequisites, _, inline = rest.partition(";")
        current = []
        for name in target.split():
            rule = _Rule(prerequisites.split(), [inline.strip()] if inline.strip() else [])
            rules.setdefault(name, []).append(rule)
            current.append(rule)
    phony = {name for rule in rules.get(".PHONY", []) for name in rule.prerequisites}
    chosen = {
        name
        for name, defined in rules.items()
        if name in _MAKE_SPECIAL_TARGETS
        or _MAKE_TEST_TARGET.fullmatch(name)
        or any(_is_test_path(p) for rule in defined for p in rule.prerequisites)
    }
    pending = list(chosen)
    while pending:  # the phony targets a test target depends on run with it
        for rule in rules.get(pending.pop(), []):
            for prerequisite in rule.prerequisites:
                if prerequisite in phony and prerequisite not in chosen:
                    chosen.add(prerequisite)
                    pending.append(prerequisite)
    found: list[tuple[str, str, str]] = []
    referenced: set[str] = set(_MAKE_SPECIAL_VARIABLES)
    for name in sorted(chosen):
        for rule in rules[name]:
            body = " ".join(rule.prerequisites) + "\n" + "\n".join(rule.recipe)
            found.append(("rule", name, body))
            referenced.update(_MAKE_REFERENCE.findall(body))
    seen: set[str] = set()
    for _ in range(_MAKE_VARIABLE_DEPTH):
        batch = sorted(name for name in referenced - seen if name in variables)
        seen |= referenced
        for name in batch:
            values = "\n".join(variables[name])
            found.append(("variable", name, values))
            referenced.update(_MAKE_REFERENCE.findall(values))
    return sorted(set(found)) or None


def _is_test_path(path: str) -> bool:
    """A prerequisite named as a test, or inside a folder named as tests."""
    folders = {folder.rstrip("/") for folder in TEST_FOLDERS if "*" not in folder}
    return named_as_test(path) or any(part in folders for part in path.split("/")[:-1])


# --- CMake -------------------------------------------------------------------------------------

_CMAKE_TEST_COMMANDS = frozenset({"add_test", "set_tests_properties", "enable_testing", "ctest_test"})
_CMAKE_TARGET_COMMANDS = frozenset(
    {
        "add_executable",
        "target_sources",
        "target_link_libraries",
        "target_compile_definitions",
        "target_compile_options",
        "target_include_directories",
        "set_target_properties",
    }
)
_CMAKE_BRACKET = re.compile(r"\[(=*)\[")


def cmake_commands(text: str) -> list[tuple[str, tuple[str, ...]]]:
    """Each command invocation (name in lower case, its arguments) of a CMake file, by the syntax of
    cmake-language(7): comments (`#`, `#[[...]]`), quoted and bracket arguments, nested parentheses."""
    commands: list[tuple[str, tuple[str, ...]]] = []
    i, n = 0, len(text)
    while i < n:
        char = text[i]
        if char == "#":
            i = _cmake_comment_end(text, i)
        elif char.isalpha() or char == "_":
            start = i
            while i < n and (text[i].isalnum() or text[i] == "_"):
                i += 1
            name = text[start:i].lower()
            while i < n and text[i] in " \t":
                i += 1
            if i < n and text[i] == "(":
                args, i = _cmake_arguments(text, i + 1)
                commands.append((name, tuple(args)))
        else:
            i += 1
    return commands


def _cmake_comment_end(text: str, i: int) -> int:
    bracket = _CMAKE_BRACKET.match(text, i + 1)
    if bracket is not None:
        close = text.find("]" + bracket.group(1) + "]", bracket.end())
        return len(text) if close < 0 else close + len(bracket.group(1)) + 2
    end = text.find("\n", i)
    return len(text) if end < 0 else end


def _cmake_arguments(text: str, i: int) -> tuple[list[str], int]:
    """The arguments from just after `(` to the matching `)`, and the index past it."""
    args: list[str] = []
    depth, n = 0, len(text)
    word: list[str] = []

    def flush() -> None:
        if word:
            args.append("".join(word))
            word.clear()

    while i < n:
        char = text[i]
        if char == "#":
            flush()
            i = _cmake_comment_end(text, i)
            continue
        bracket = _CMAKE_BRACKET.match(text, i) if char == "[" and not word else None
        if bracket is not None:
            close = text.find("]" + bracket.group(1) + "]", bracket.end())
            end = n if close < 0 else close
            args.append(text[bracket.end() : end])
            i = end + len(bracket.group(1)) + 2
            continue
        if char == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            word.append(text[i + 1 : j])
            i = j + 1
            continue
        if char == "(":
            depth += 1
        elif char == ")":
            if depth == 0:
                flush()
                return args, i + 1
            depth -= 1
        if char.isspace():
            flush()
        else:
            word.append(char)
        i += 1
    flush()
    return args, n


def _cmake_tests(data: bytes) -> _Part | None:
    """CMake's test commands (`add_test`, `set_tests_properties` (WILL_FAIL), `set_property(TEST ...)`,
    `enable_testing`, `include(CTest)`, `add_subdirectory` of a test folder) and the commands that
    build the targets the tests run or that compile test sources."""
    commands = cmake_commands(_text(data))
    tested: set[str] = set()
    for name, args in commands:
        if name == "add_test" and args:
            named = args[args.index("COMMAND") + 1 : args.index("COMMAND") + 2] if "COMMAND" in args else args[1:2]
            tested.update(named)
    found = []
    for name, args in commands:
        if (
            name in _CMAKE_TEST_COMMANDS
            or (name == "set_property" and args[:1] == ("TEST",))
            or (name == "include" and args[:1] == ("CTest",))
            or (name == "add_subdirectory" and args and _is_test_path(args[0].rstrip("/") + "/x"))
            or (name in _CMAKE_TARGET_COMMANDS and args and (args[0] in tested or any(map(_is_test_path, args))))
        ):
            found.append((name, args))
    return sorted(found) or None


# --- the table ---------------------------------------------------------------------------------

_TABLE_FILE = Path(__file__).with_name("runners.toml")  # the table, as data with its sources
_READERS: dict[str, _Reader] = {
    "whole": whole,
    "package_json": _package_json,
    "pom": pom,
    "make": _make_test_rules,
    "cmake": _cmake_tests,
    "cargo": cargo,
}


def _reader(spec: str) -> _Reader:
    kind, _, args = spec.partition(":")
    if kind == "toml":
        return _toml_keys(*args.split(","))
    if kind == "ini":
        return _ini_sections(*args.split(","))
    return _READERS[spec]


def _load_table(path: Path = _TABLE_FILE) -> tuple[Entry, ...]:
    """The runners' table from runners.toml (read once, at import)."""
    rows = tomllib.loads(path.read_text(encoding="utf-8"))["runner"]
    return tuple(
        Entry(
            row["name"],
            tuple(row["files"]),
            row["part"],
            _reader(row["read"]),
            row["source"],
            row.get("discovered", True),
        )
        for row in rows
    )


TABLE = _load_table()


def entries_for(path: str) -> list[Entry]:
    return [entry for entry in TABLE if entry.matches(path)]


@dataclass(frozen=True)
class RunnerPart:
    """What a file says to the runners, by entry: the runner, the part read, its value (None: nothing)."""

    values: tuple[tuple[Entry, _Part | None], ...]

    @property
    def runners(self) -> str:
        return ", ".join(dict.fromkeys(entry.runner for entry, _ in self.values))

    @property
    def parts(self) -> str:
        return "; ".join(dict.fromkeys(entry.part for entry, _ in self.values))

    def holds_any(self) -> bool:
        return any(value is not None for _, value in self.values)


def runner_part(path: str, data: bytes | None) -> RunnerPart | None:
    """The runners' part of `path` holding `data` (None data: no file); None when no entry names the
    path. Raises Unreadable when the format's parser cannot read it."""
    entries = entries_for(path)
    if not entries:
        return None
    return RunnerPart(tuple((entry, None if data is None else entry.read(data)) for entry in entries))


def is_whole_runner_file(path: str) -> bool:
    """Whether some runner reads the whole of a file of this name (a pytest.ini, a jest.config.js), as
    opposed to its part of a shared one (pyproject.toml, package.json), which tools rewrite too."""
    return any(entry.read is whole for entry in entries_for(path))


def is_runner_file(path: str) -> bool:
    """Whether some runner reads a file of this name (whether a given one says anything to it or not)."""
    return bool(entries_for(path))


def sources() -> Iterable[tuple[str, str, str]]:
    """(runner, files, source) for every entry: the docs' table is made from this."""
    for entry in TABLE:
        yield entry.runner, ", ".join(f"`{n}`" for n in entry.names), entry.source
