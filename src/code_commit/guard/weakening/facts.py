"""What a test file declares, as each language's reader sees it: the common shape that
`compare.py` judges a change by, whatever the language."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

SKIP, FOCUS = "skip", "focus"  # a marker that stops a test, or one that stops all the others
MAX_NAME = 300  # characters of a test's qualified name kept: a deeper or longer one ends in a digest


def bounded(name: str) -> str:
    """A name of at most about MAX_NAME characters, still telling names apart: nesting thousands of
    suites or classes deep must not make every name in the file as long as the file."""
    if len(name) <= MAX_NAME:
        return name
    return f"{name[: MAX_NAME - 20]}...{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"


@dataclass(frozen=True)
class Check:
    """One assertion. `key`: its form with the test's own local names renamed in order of first
    binding and layout ignored, so renaming a variable or reformatting changes nothing; `shape`: the
    same with every literal blanked, so two checks that differ only in an expected value share it."""

    key: str
    shape: str
    shown: str = field(default="", compare=False)  # as written, for messages
    always_passes: bool = field(default=False, compare=False)  # compares constants, or a thing with itself
    row: bool = field(default=False, compare=False)  # a case of a table (its values), not an assertion


@dataclass(frozen=True)
class Marker:
    kind: str  # SKIP or FOCUS
    key: str  # its form, layout ignored: markers are compared by it
    where: str = ""  # for a file-level marker: the suite or class it stands on, if any
    shown: str = field(default="", compare=False)  # as written, for messages


@dataclass(frozen=True)
class TestUnit:
    name: str  # qualified as its runner names it: "TestX::test_y", "suite > case", "tests::adds"
    simple: str  # the last part of the name, to recognise a test moved to another file
    checks: tuple[Check, ...]  # the reachable ones
    unreachable: int = 0  # checks after an early return
    markers: tuple[Marker, ...] = ()
    cases: int = 1  # parametrized cases, when they can be counted
    body: str = ""  # the body normalised: equal bodies are the same test under another name
    empty: bool = False  # the body does nothing at all


@dataclass
class FileFacts:
    tests: dict[str, TestUnit] = field(default_factory=dict)
    # Functions the runner does not collect, by normalised body: where a removed test went if it
    # was renamed away (test_x -> _test_x, TestX -> X, @Test or #[test] dropped).
    others: dict[str, str] = field(default_factory=dict)
    markers: list[Marker] = field(default_factory=list)  # not on any one test: module, suite, file
    hooks: dict[str, str] = field(default_factory=dict)  # hooks that can change outcomes: name -> body
    exits: int = 0  # calls that end the test process (os._exit, process.exit, os.Exit)
    narrowing: list[str] = field(default_factory=list)  # in-file collection filters (collect_ignore, //go:build)
    registrations: list[str] = field(default_factory=list)  # tests listed for a runner by name (RUN_TEST)
    unreadable: str | None = None  # why the file cannot be read as its language, if it cannot
