"""What a build's test runners say they ran, from each runner's own summary at the end of its run:
per runner, how many tests passed, failed and were skipped (`runner_counts`), and the total that
init and `code-commit check` show (`ran_tests`: did build.sh run tests at all? cJSON's `make test`
runs a demo program, not its unit tests).

Read: pytest, unittest, cargo test (libtest), ctest, node:test (TAP and spec reporters), Jest,
Vitest, Maven (Surefire's and Failsafe's `Results:` line), Go (`go test`, `-v` and `-json`: one
count a package), mocha, AVA, uvu, Jasmine, PHPUnit, `dotnet test` (VSTest's console logger, its
current and its two older forms), and a `PASSED: N` / `FAILED: N` pair (`make test`). Each form is
the runner's exact text; tests/builds/runner_summaries/ holds real outputs of each, and where each
came from.

How it reads, and why:
- Only the last MAX_CHARS of the output (summaries come last), a line at a time, after the
  terminal's escapes are taken out (FORCE_COLOR, --color). A line longer than MAX_LINE is no
  summary and is skipped unread: no regular expression ever sees more than MAX_LINE characters,
  none nests an unbounded repetition in another, and one match a line (_GATE) tells whether it can
  be any summary's: the work is linear in the output.
- A summary may span lines (unittest's `Ran 3 tests` then `FAILED (failures=1)`, mocha's
  `passing`, `pending`, `failing`): the lines of one runner's summary that follow each other (blank
  lines between them allowed) are read together; a line of the same kind again starts the next one.
- Every summary counts, and a runner's summaries add up: cargo prints one per test binary, Maven one
  per module, go one per package, and a build may run pytest twice.
- `failed` is every failure the runner reports: errors too (pytest's `error`, unittest's errors,
  Maven's), and at least one per suite or file that failed without a failing test (Jest's, Vitest's,
  a test file that does not load), a cancelled node:test, AVA's uncaught exceptions, an aborted
  VSTest run. `skipped` is what neither passed nor failed: skipped, todo, pending, xfailed, known
  failures, incomplete, and tests deselected or filtered out.

The build's output is the model's to write: its code can print a summary line of its own, and this
module cannot tell one from the runner's and does not try. What it guarantees is that a printed
line can never lower a real failure: the same runner's summaries are summed, never the last one
taken, so a forged `0 failed` line adds nothing and a real `1 failed` line still counts; and a
summary whose lines a printed line split or took the place of (a `0 failing` just before mocha's
own) counts no test passed and everything it does not show passed as failed. A judge that
requires `failed == 0` for every runner therefore cannot be passed by adding lines. Added lines
can raise `passed`; and code that fakes its own results is beyond what any reading of output sees.

Pure: the output in, the counts out.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

MAX_CHARS = 1 << 20  # of the output's end looked at: summaries come last
MAX_LINE = 1000  # characters: a longer line is no summary (dotnet's, with a long path, is ~300)

_PYTEST = "pytest"
_UNITTEST = "unittest"
CARGO = "cargo test"
_CTEST = "ctest"
_NODE_TEST = "node:test"
_JEST = "jest"
_VITEST = "vitest"
_MAVEN = "Maven"
_GO = "go test"
_MAKE = "make test"
_MOCHA = "mocha"
_AVA = "ava"
_UVU = "uvu"
_JASMINE = "jasmine"
_PHPUNIT = "phpunit"
_DOTNET = "dotnet test"


@dataclass(frozen=True)
class RunnerCount:
    """One runner's summaries in a build's output, added up."""

    runner: str
    passed: int
    failed: int  # failures and errors
    skipped: int = 0  # neither passed nor failed: skipped, todo, pending, xfailed, deselected
    unit: str = "test"  # what was counted: tests, or Go's packages
    summaries: int = 1  # how many of the runner's summaries were added up (a printed one is one more)

    @property
    def ran(self) -> int:
        return self.passed + self.failed


@dataclass(frozen=True)
class RanTests:
    count: int
    runner: str
    unit: str = "test"  # what was counted: tests, or Go's packages

    def describe(self) -> str:
        return f"{self.count} {self.unit}{'' if self.count == 1 else 's'} ({self.runner})"


# A summary's lines give fields: passed, failed, skipped, total, and broken (a suite or file that failed,
# Jest's and Vitest's). A group named `field_note` adds to `field` (Maven's failures and errors).
Fields = dict[str, int]
Counts = tuple[int, int, int]  # passed, failed, skipped
Read = Callable[[re.Match[str]], Fields | None]


def _groups(match: re.Match[str]) -> Fields:
    """The pattern's named groups that matched, as numbers, added into their fields."""
    fields: Fields = {}
    for name, value in match.groupdict().items():
        if value is not None:
            field = name.split("_")[0]
            fields[field] = fields.get(field, 0) + int(value)
    return fields


def _one(field: str) -> Read:
    """A line that counts one: go's package, ctest's skipped test."""
    return lambda match: {field: 1}


@dataclass(frozen=True)
class _Line:
    """One line of a runner's summary."""

    pattern: re.Pattern[str]  # of the whole line
    read: Read  # its fields; None: not this line after all (a word not known)
    needed: bool  # the summary does not count without it
    repeats: bool  # one line of a list (ctest's tests that did not run): each adds


def _line(pattern: str, read: Read = _groups, *, needed: bool = False, repeats: bool = False) -> _Line:
    return _Line(re.compile(pattern), read, needed, repeats)


@dataclass(frozen=True)
class _Summary:
    """A runner's summary: its lines, one kind each (a line of a kind already read starts the next)."""

    runner: str
    lines: tuple[_Line, ...]
    unit: str = "test"


def _counts(fields: Fields) -> Counts:
    """What a summary says, and what it leaves out taken from its total (Jest prints no `0 failed`,
    unittest no passed count); a suite or file that failed is a failure even with no failed test in it."""
    skipped, total, failed = fields.get("skipped", 0), fields.get("total", 0), fields.get("failed")
    passed = fields.get("passed", max(0, total - (failed or 0) - skipped))
    if failed is None:
        failed = max(0, total - passed - skipped)
    return passed, max(failed, fields.get("broken", 0)), skipped


def _tally(items: list[str], item: re.Pattern[str], words: Mapping[str, str]) -> Fields | None:
    """Items such as `2 passed` or `failures=1` added up into the fields their words name; None when one
    is not of that shape or its word is not known (an outcome not known is not read as no failure)."""
    fields: Fields = {}
    for text in items:
        match = item.fullmatch(text)
        if match is None or match["word"] not in words:
            return None
        field = words[match["word"]]
        fields[field] = fields.get(field, 0) + int(match["n"])
    return fields


_N_WORD = re.compile(r"(?P<n>\d+) (?P<word>[a-z][a-z ]*)")  # "2 passed", "1 expected fail"
_WORD_IS_N = re.compile(r"(?P<word>[a-z][a-z ]*)=(?P<n>\d+)")  # unittest's "expected failures=1"
_WORD_COLON_N = re.compile(r"(?P<word>[A-Za-z][A-Za-z ]*): (?P<n>\d+)")  # PHPUnit's "Skipped: 1"
_IGNORED = "ignored"  # a field no count reads (pytest's warnings, PHPUnit's risky tests)


def _words(separator: str, words: Mapping[str, str]) -> Read:
    """A line's `outcomes` group, items such as `2 passed` between separators, and its `total` group
    if the pattern has one."""

    def read(match: re.Match[str]) -> Fields | None:
        fields = _tally(match["outcomes"].split(separator), _N_WORD, words) if match["outcomes"] else {}
        if fields is not None and "total" in match.groupdict():
            fields["total"] = int(match["total"] or 0)
        return fields

    return read


# pytest: "===== 1 failed, 2 passed, 1 skipped, 1 xfailed, 1 error in 0.12s =====" (`-q`: no "="), "in
# 75.20s (0:01:15)" past a minute; the words are _pytest/terminal.py's KNOWN_TYPES; plugins add theirs
_PYTEST_WORDS = {
    "passed": "passed",
    "xpassed": "passed",
    "failed": "failed",
    "error": "failed",
    "errors": "failed",
    "subtests failed": "failed",
    "skipped": "skipped",
    "xfailed": "skipped",
    "deselected": "skipped",
    "subtests passed": _IGNORED,  # their test is counted, passed or failed
    "subtests skipped": _IGNORED,
    "warning": _IGNORED,
    "warnings": _IGNORED,
    "rerun": _IGNORED,  # pytest-rerunfailures: the last run's outcome is the one counted
}
_PYTEST_READ = _words(", ", _PYTEST_WORDS)


def _pytest(match: re.Match[str]) -> Fields | None:
    return {"passed": 0} if match["outcomes"] == "no tests ran" else _PYTEST_READ(match)


# unittest: "Ran 7 tests in 0.001s", a blank line, then "OK", "OK (skipped=1)", "NO TESTS RAN" (3.12) or
# "FAILED (failures=1, errors=1, skipped=1, expected failures=1, unexpected successes=1)"
_UNITTEST_WORDS = {
    "failures": "failed",
    "errors": "failed",
    "unexpected successes": "failed",
    "skipped": "skipped",
    "expected failures": "skipped",
}


def _unittest_verdict(match: re.Match[str]) -> Fields | None:
    return _tally(match["details"].split(", "), _WORD_IS_N, _UNITTEST_WORDS) if match["details"] else {}


# node:test's reporters: "# tests 6" (TAP, the default when not a terminal) or "ℹ tests 6" (spec), then
# suites, pass, fail, cancelled, skipped, todo, duration_ms, a line each; tape's TAP aligns "# pass  6"
_NODE_WORDS = {
    "tests": "total",
    "suites": _IGNORED,
    "pass": "passed",
    "fail": "failed",
    "cancelled": "failed",
    "skipped": "skipped",
    "todo": "skipped",
}


def _node(match: re.Match[str]) -> Fields:
    return {_NODE_WORDS[match["word"]]: int(match["n"])}


# Jest (@jest/reporters, getSummary): "Test Suites: 1 failed, 1 skipped, 2 passed, 3 of 4 total", then
# "Tests:       1 failed, 1 skipped, 1 todo, 2 passed, 5 total"
_JEST_WORDS = {"passed": "passed", "failed": "failed", "skipped": "skipped", "todo": "skipped"}
# Vitest (reporters' getStateString): " Test Files  1 failed | 1 passed (2)", "      Tests  1 failed |
# 2 passed | 1 expected fail | 1 skipped | 1 todo (5)" or "Tests  no tests", "Type Errors  1 failed",
# "     Errors  2 errors" (errors outside tests)
_VITEST_WORDS = _JEST_WORDS | {"expected fail": "skipped"}
_SUITES = {"failed": "broken", "passed": _IGNORED, "skipped": _IGNORED, "todo": _IGNORED}  # files, suites


def _go_json(match: re.Match[str]) -> Fields | None:
    """`go test -json`'s event for a whole package (no "Test"): it passed or failed."""
    try:
        event = json.loads(match[0])
    except ValueError:
        return None
    if not isinstance(event, dict) or "Test" in event or not isinstance(event.get("Package"), str):
        return None
    field = {"pass": "passed", "fail": "failed"}.get(str(event.get("Action")))
    return None if field is None else {field: 1}


# AVA's default reporter (lib/reporters/default.js, endRun) prints "N tests passed" only when no test
# or hook failed: a failing run's passed count is 0 here (and the run fails either way). Words in the
# singular: AVA's plur() adds the s
_AVA_WORDS = {
    "test passed": "passed",
    "test failed": "failed",
    "hook failed": "failed",
    "unhandled rejection": "failed",
    "uncaught exception": "failed",
    "test remained pending after a timeout": "failed",
    "known failure": "skipped",
    "test skipped": "skipped",
    "test todo": "skipped",
}
_PLURAL = re.compile(r"s\b")


def _ava(match: re.Match[str]) -> Fields | None:
    field = _AVA_WORDS.get(_PLURAL.sub("", match["words"]))
    return None if field is None else {field: int(match["n"])}


def _uvu_skipped(match: re.Match[str]) -> Fields:
    # uvu's Total counts the tests that ran (dist/index.mjs, exec): the skipped ones are outside it
    return {"skipped": int(match["n"]), "total": int(match["n"])}


def _jasmine_excluded(match: re.Match[str]) -> Fields:
    # "Ran 2 of 5 specs" (fit, fdescribe, a filter) then "2 specs, ...": the other 3 were skipped
    excluded = max(0, int(match["all"]) - int(match["ran"]))
    return {"skipped": excluded, "total": excluded}


# PHPUnit (src/TextUI/Output/SummaryPrinter.php): "OK (3 tests, 5 assertions)", or a verdict line
# then "Tests: 7, Assertions: 9, Errors: 1, Failures: 1, Skipped: 1, Incomplete: 1, Risky: 1."
_PHPUNIT_WORDS = {
    "Errors": "failed",
    "Failures": "failed",
    "Skipped": "skipped",
    "Incomplete": "skipped",
    "Warnings": _IGNORED,  # issues of tests that passed
    "PHPUnit Warnings": _IGNORED,
    "Deprecations": _IGNORED,
    "PHPUnit Deprecations": _IGNORED,
    "Notices": _IGNORED,
    "PHPUnit Notices": _IGNORED,
    "Risky": _IGNORED,
}


def _phpunit(match: re.Match[str]) -> Fields | None:
    first, *counts = match["rest"].split(", ")  # ", Errors: 1, Skipped: 2": nothing before the first
    fields = None if first else _tally(counts, _WORD_COLON_N, _PHPUNIT_WORDS)
    return None if fields is None else fields | {"total": int(match["total"])}


_SECONDS = r"\d+(?:\.\d+)?"
_DOTNET_TOTAL = r"Total tests: (?:(?P<total>\d+)|Unknown)"


def _dotnet_total(match: re.Match[str]) -> Fields:
    fields = _groups(match)
    if match["total"] is None:  # "Unknown": the run was aborted or cancelled
        fields["failed"] = fields.get("failed", 0) + 1
    return fields


_SUMMARIES: tuple[_Summary, ...] = (
    _Summary(
        _PYTEST,
        (
            _line(
                rf"=* ?(?P<outcomes>no tests ran|\d[a-z0-9 ,]*?) in {_SECONDS}s(?: \(\d+:\d\d:\d\d\))?(?: =*)?",
                _pytest,
            ),
        ),
    ),
    _Summary(
        _UNITTEST,
        (
            _line(rf"Ran (?P<total>\d+) tests? in {_SECONDS}s", needed=True),
            _line(r"(?:OK|NO TESTS RAN|FAILED)(?: \((?P<details>[a-z =,0-9]+)\))?", _unittest_verdict, needed=True),
        ),
    ),
    _Summary(
        CARGO,  # libtest, once a test binary (doc tests too); ignored and filtered out did not run
        (
            _line(
                r"test result: (?:ok|FAILED)\. (?P<passed>\d+) passed; (?P<failed>\d+) failed; (?P<skipped>\d+) "
                rf"ignored; \d+ measured; (?P<skipped_filtered>\d+) filtered out(?:; finished in {_SECONDS}s)?"
            ),
        ),
    ),
    _Summary(
        _CTEST,  # "out of N" counts the skipped tests as passed (75% passed: 3 of 4, one skipped)
        (
            _line(r"\d+% tests passed, (?P<failed>\d+) tests? failed out of (?P<total>\d+)", needed=True),
            _line(rf"Total Test time \(real\) = +{_SECONDS} sec"),
            _line(r"The following tests did not run:"),
            _line(r"\d+ - .+ \(Skipped\)", _one("skipped"), repeats=True),
            _line(r"\d+ - .+ \(Disabled\)", repeats=True),  # not in "out of N"
        ),
    ),
    _Summary(
        _NODE_TEST,
        (
            *(_line(rf"(?:#|ℹ) (?P<word>{word}) +(?P<n>\d+)", _node, needed=word == "pass") for word in _NODE_WORDS),
            _line(rf"(?:#|ℹ) duration_ms {_SECONDS}"),
        ),
    ),
    _Summary(
        _JEST,
        (
            _line(r"Test Suites: (?P<outcomes>[a-z0-9 ,]*?)(?:, )?\d+(?: of \d+)? total", _words(", ", _SUITES)),
            _line(
                r"Tests: +(?P<outcomes>[a-z0-9 ,]*?)(?:, )?(?P<total>\d+) total", _words(", ", _JEST_WORDS), needed=True
            ),
        ),
    ),
    _Summary(
        _VITEST,
        (
            _line(r"Test Files +(?P<outcomes>[a-z0-9 |]+) \(\d+\)", _words(" | ", _SUITES)),
            _line(
                r"Tests +(?:(?P<outcomes>[a-z0-9 |]+) \((?P<total>\d+)\)|no tests)",
                _words(" | ", _VITEST_WORDS),
                needed=True,
            ),
            _line(r"Type Errors +(?:(?P<failed>\d+) failed|no errors)"),
            _line(r"Errors +(?P<failed>\d+) errors?"),
        ),
    ),
    _Summary(
        _MAVEN,  # Surefire's and Failsafe's line after "Results:", once a module; each class's goes on
        # ", Time elapsed: 0.07 s -- in c.CalcTest"; 2.x prints it without the level
        (
            _line(
                r"(?:\[(?:INFO|WARNING|ERROR)\] )?Tests run: (?P<total>\d+), Failures: (?P<failed>\d+), "
                r"Errors: (?P<failed_errors>\d+), Skipped: (?P<skipped>\d+)(?:, Flakes: \d+)?"
            ),
        ),
    ),
    # go: a line a package, each a summary of its own whatever its verdict (-v prints the same); `-run`
    # that matches no test: "[no tests to run]"; a package with no test files counts none
    *(
        _Summary(_GO, (line,), unit="package")
        for line in (
            _line(rf"ok  \t\S+\t(?:{_SECONDS}s|\(cached\))(?:\t.*)?", _one("passed")),
            _line(rf"ok  \t\S+\t(?:{_SECONDS}s|\(cached\)) \[no tests to run\](?:\t.*)?", _one("skipped")),
            _line(rf"FAIL\t\S+(?:\t{_SECONDS}s|\t\(cached\)| \[build failed\]| \[setup failed\])", _one("failed")),
            _line(r"\?   \t\S+\t\[no test files\]", _one(_IGNORED)),
            _line(r'\{"Time":.*\}', _go_json),
        )
    ),
    _Summary(_MAKE, (_line(r"PASSED: (?P<passed>\d+)", needed=True), _line(r"FAILED: (?P<failed>\d+)", needed=True))),
    _Summary(
        _MOCHA,  # lib/reporters/base.js, epilogue: "passing" always, "pending" and "failing" when not 0
        (
            _line(r"(?P<passed>\d+) passing \(\d+(?:ms|s|m|h|d)\)", needed=True),
            _line(r"(?P<skipped>\d+) pending"),
            _line(r"(?P<failed>\d+) failing"),
        ),
    ),
    _Summary(_AVA, (_line(r"(?P<n>\d+) (?P<words>[a-z][a-z ]*)", _ava),)),
    _Summary(
        _UVU,
        (
            # its own alignment (dist/index.mjs, exec): a "Total: 42" of another tool is not uvu's
            _line(r"Total: {5}(?P<total>\d+)", needed=True),
            _line(r"Passed: {4}(?P<passed>\d+)", needed=True),
            _line(r"Skipped: {3}(?P<n>\d+)", _uvu_skipped),
            _line(rf"Duration: {{2}}{_SECONDS}(?:ms|s|m)"),
        ),
    ),
    _Summary(
        _JASMINE,  # @jasminejs/reporters' console_reporter.js: "5 specs, 1 failure, 2 pending specs"
        (
            _line(r"Ran (?P<ran>\d+) of (?P<all>\d+) specs?", _jasmine_excluded),
            _line(
                r"(?P<total>\d+) specs?, (?P<failed>\d+) failures?(?:, (?P<skipped>\d+) pending specs?)?", needed=True
            ),
        ),
    ),
    _Summary(
        _PHPUNIT,
        (
            _line(r"OK \((?P<total>\d+) tests?, \d+ assertions?\)"),
            _line(r"No tests executed!", lambda m: {"total": 0}),
            _line(r"Tests: (?P<total>\d+), Assertions: \d+(?P<rest>[A-Za-z0-9 :,]*)\.?", _phpunit),
        ),
    ),
    # VSTest's console logger (src/vstest.console/Internal/ConsoleLogger.cs): at minimal verbosity,
    # `dotnet test`'s, a line a test assembly; at normal verbosity "Total tests: N" and a line for each
    # outcome not 0; before 2017 (vstest 15.5) all on one line
    _Summary(
        _DOTNET,
        (
            _line(
                r"(?:Passed!|Failed!|Skipped!|None) +- Failed: +(?P<failed>\d+), Passed: +(?P<passed>\d+), "
                r"Skipped: +(?P<skipped>\d+), Total: +\d+, Duration: .*"
            ),
        ),
    ),
    _Summary(
        _DOTNET,
        (
            _line(_DOTNET_TOTAL, _dotnet_total, needed=True),
            _line(r"Passed: (?P<passed>\d+)"),
            _line(r"Failed: (?P<failed>\d+)"),
            _line(r"Skipped: (?P<skipped>\d+)"),
            _line(rf"Total time: {_SECONDS} \w+"),
        ),
    ),
    _Summary(
        _DOTNET,
        (
            _line(
                rf"{_DOTNET_TOTAL}\. Passed: (?P<passed>\d+)\. Failed: (?P<failed>\d+)\. Skipped: (?P<skipped>\d+)\.",
                _dotnet_total,
            ),
        ),
    ),
)

# every summary's lines in one pattern, a group a summary: one match tells whether a line can be a
# summary's at all, and the first summary that can read it (most lines are none: one call each)
_GATE = re.compile(
    "|".join(
        "(" + "|".join(re.sub(r"\(\?P<\w+>", "(?:", kind.pattern.pattern) for kind in summary.lines) + ")"
        for summary in _SUMMARIES
    )
)
# the terminal's escapes: CSI (colours, cursor), OSC (titles, links), two-byte ones (libtest's ESC ( B)
_ESCAPE = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[ -/]*[0-~])")


def summary_lines(output: str) -> Iterator[str]:
    """The lines of the output's end that may be a summary's, without escapes or spaces at either end,
    blank ones left out. A line longer than MAX_LINE is left out unread, and so is the first when the
    output was cut (its start is gone: `15 passed` would read as `5 passed`)."""
    lines = output[-MAX_CHARS:].splitlines()
    for line in lines[1:] if len(output) > MAX_CHARS else lines:
        if line and len(line) <= MAX_LINE and (text := _ESCAPE.sub("", line).strip()):
            yield text


def _match(summary: _Summary, line: str) -> tuple[int, Fields] | None:
    """Which of the summary's lines this is, and its fields."""
    for index, kind in enumerate(summary.lines):
        match = kind.pattern.fullmatch(line)
        fields = None if match is None else kind.read(match)
        if fields is not None:
            return index, fields
    return None


@dataclass
class _Reading:
    """A summary being read: the lines of it seen so far, and their fields added up."""

    summary: _Summary
    seen: set[int]
    fields: Fields

    def take(self, found: tuple[int, Fields] | None) -> bool:
        """Add the line if it is one more of this summary's; False: this summary has ended."""
        if found is None or (found[0] in self.seen and not self.summary.lines[found[0]].repeats):
            return False
        self.seen.add(found[0])
        for field, n in found[1].items():
            self.fields[field] = self.fields.get(field, 0) + n
        return True

    def counts(self) -> Counts | None:
        """Its counts. Without a line it needs (a line the build printed came between its lines, or
        took one's place), no test passed: the failures its lines report, and all its total that is
        not known to have passed or been skipped (uvu says its failures only as Total minus Passed)."""
        if all(index in self.seen for index, kind in enumerate(self.summary.lines) if kind.needed):
            return _counts(self.fields)
        fields = self.fields
        unknown = fields.get("total", 0) - fields.get("passed", 0) - fields.get("skipped", 0)
        failed = max(fields.get("failed", 0), fields.get("broken", 0), unknown)
        return (0, failed, 0) if failed > 0 else None


def _readings(output: str) -> Iterator[tuple[_Summary, Counts]]:
    """Each summary in the output, in order, with its counts."""
    reading: _Reading | None = None
    for line in summary_lines(output):  # a blank line does not end a summary: unittest's has one
        gate = _GATE.fullmatch(line)
        if reading is not None:
            if gate is not None and reading.take(_match(reading.summary, line)):
                continue
            if (counts := reading.counts()) is not None:
                yield reading.summary, counts
            reading = None
        for summary in _SUMMARIES[gate.lastindex - 1 :] if gate is not None and gate.lastindex else ():
            if (found := _match(summary, line)) is not None:
                reading = _Reading(summary, {found[0]}, dict(found[1]))
                break
    if reading is not None and (counts := reading.counts()) is not None:
        yield reading.summary, counts


def runner_counts(output: str) -> tuple[RunnerCount, ...]:
    """Each runner's summaries added up, in the order the runners first appear; () when none is read."""
    totals: dict[str, RunnerCount] = {}
    for summary, (passed, failed, skipped) in _readings(output):
        before = totals.get(summary.runner, RunnerCount(summary.runner, 0, 0, 0, summary.unit, 0))
        totals[summary.runner] = RunnerCount(
            summary.runner,
            before.passed + passed,
            before.failed + failed,
            before.skipped + skipped,
            summary.unit,
            before.summaries + 1,
        )
    return tuple(totals.values())


def ran_tests(output: str) -> RanTests | None:
    """The tests the output's summaries say ran (passed or failed), all runners together (a Maven and a
    node build add up); Go's packages only when no runner counts tests."""
    counts = runner_counts(output)
    tests = [count for count in counts if count.unit == "test"] or list(counts)
    if not tests:
        return None
    return RanTests(sum(count.ran for count in tests), ", ".join(count.runner for count in tests), tests[0].unit)
