"""Judge a change to one test file from what the file declared before and after.

Weakening is what makes a failing test stop failing without the code under test changing: a test
gone (removed, or renamed so the runner skips it), a case of it gone, a marker that skips it or
focuses the run on another, a check gone, made unreachable, or replaced by one that cannot fail or
that expects another value, a hook that can change outcomes, a filter on what is collected. Adding
tests, cases and checks, and changing a test's body while its checks stay, is not weakening.

A test that disappears from one file may have moved: `Judged.removed` and `Judged.added` let the
caller match tests across the files of one change (see `detect.py`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from typing import TypeVar

from code_commit.guard.weakening.facts import FOCUS, Check, FileFacts, TestUnit
from code_commit.guard.weakening.findings import Finding, What

MAX_SHOWN = 120  # characters of a check or marker quoted in a finding
MAX_TRIED = 64  # new tests whose checks are compared with one removed test's, at most
T = TypeVar("T", bound=Hashable)


@dataclass
class Judged:
    findings: list[Finding] = field(default_factory=list)
    removed: list[TestUnit] = field(default_factory=list)  # gone from the file, each with a REMOVED finding
    added: list[TestUnit] = field(default_factory=list)  # new in the file, not a rename of a removed one


def judge(path: str, before: FileFacts, after: FileFacts) -> Judged:
    out = Judged()
    found = out.findings
    if after.unreadable and not before.unreadable and before.tests:
        found.append(Finding(path, What.UNREADABLE, "", after.unreadable))
        return out

    gone = [unit for name, unit in before.tests.items() if name not in after.tests]
    new = [unit for name, unit in after.tests.items() if name not in before.tests]
    pairs = [(unit, after.tests[name]) for name, unit in before.tests.items() if name in after.tests]
    renamed, gone, new = _renames(gone, new)
    pairs += renamed
    for old, now in pairs:
        found += _compare_test(path, old, now)
    for unit in gone:
        if unit.body and unit.body in after.others:
            where = after.others[unit.body]
            found.append(Finding(path, What.RENAMED_AWAY, unit.name, f"now {where}, which is not collected"))
        else:
            found.append(Finding(path, What.REMOVED, unit.name, ""))
            out.removed.append(unit)
    for unit in new:  # a new test is no weakening, unless it silences the others
        found += [
            Finding(path, What.FOCUSED, unit.name, _short(m.shown or m.key)) for m in unit.markers if m.kind == FOCUS
        ]
    out.added = new

    for marker in _more(before.markers, after.markers):
        what = What.FOCUSED if marker.kind == FOCUS else What.SKIPPED
        found.append(Finding(path, what, marker.where, _short(marker.shown or marker.key)))
    for name, body in after.hooks.items():
        if name not in before.hooks:
            found.append(Finding(path, What.HOOK, name, "added"))
        elif before.hooks[name] != body:
            found.append(Finding(path, What.HOOK, name, "changed"))
    if after.exits > before.exits:
        found.append(Finding(path, What.HOOK, "", "a call that ends the test process early was added"))
    for entry in _more(before.narrowing, after.narrowing):
        found.append(Finding(path, What.NARROWED, "", _short(entry)))
    for name in _more(after.registrations, before.registrations):
        found.append(Finding(path, What.REMOVED, name, "no longer registered with the test runner"))
    return out


def _renames(
    gone: list[TestUnit], new: list[TestUnit]
) -> tuple[list[tuple[TestUnit, TestUnit]], list[TestUnit], list[TestUnit]]:
    """Removed tests that reappear under another name in the same file: the same body, or every
    check of the old one in the new one. Returns the pairs and what is left of each side."""
    pairs = []
    candidates = Candidates(new)
    still_gone = []
    every_new_check = Counter(c.key for unit in new for c in unit.checks)
    for old in gone:
        match = candidates.take(old, by_name=False)
        if match is not None:
            pairs.append((old, match))
        elif not (old.checks and not Counter(c.key for c in old.checks) - every_new_check):
            still_gone.append(old)  # else split into new tests, or merged into one, its checks all kept
    return pairs, still_gone, candidates.left()


class Candidates:
    """New tests, indexed so that finding where a removed test went costs a lookup and at most
    MAX_TRIED comparisons of checks, however many tests a change holds."""

    def __init__(self, units: Iterable[TestUnit]) -> None:
        self._order = list(units)
        self._taken: set[int] = set()
        self._by_body: dict[str, list[int]] = {}
        self._by_check: dict[str, list[int]] = {}
        self._by_name: dict[str, list[int]] = {}
        for n, unit in reversed(list(enumerate(self._order))):  # each index list in reverse: see _first
            if unit.body:
                self._by_body.setdefault(unit.body, []).append(n)
            for key in {c.key for c in unit.checks}:
                self._by_check.setdefault(key, []).append(n)
            self._by_name.setdefault(unit.simple, []).append(n)

    def take(self, old: TestUnit, by_name: bool) -> TestUnit | None:
        """The first new test that is `old` under another name or place: the same body, or (with
        the same name, when `by_name`) every check of the old one kept. It is not offered again."""
        found = self._first(self._by_body.get(old.body, []) if old.body else [], lambda unit: True)
        if found is None and old.checks:
            pool = self._by_name.get(old.simple, []) if by_name else self._by_check.get(old.checks[0].key, [])
            found = self._first(pool, lambda unit: _keeps_checks(old, unit))
        if found is None:
            return None
        self._taken.add(found)
        return self._order[found]

    def _first(self, indexes: list[int], fits: Callable[[TestUnit], bool]) -> int | None:
        while indexes and indexes[-1] in self._taken:
            indexes.pop()  # taken ones leave the index, so no lookup walks past them again
        for tried, n in enumerate(reversed(indexes)):
            if tried >= MAX_TRIED:
                return None  # reported as removed: a false report, never a missed one
            if n not in self._taken and fits(self._order[n]):
                return n
        return None

    def left(self) -> list[TestUnit]:
        return [unit for n, unit in enumerate(self._order) if n not in self._taken]


def _keeps_checks(old: TestUnit, new: TestUnit) -> bool:
    return bool(old.checks) and not Counter(c.key for c in old.checks) - Counter(c.key for c in new.checks)


def _compare_test(path: str, old: TestUnit, now: TestUnit) -> list[Finding]:
    found = []
    name = now.name
    for marker in _more(old.markers, now.markers):
        what = What.FOCUSED if marker.kind == FOCUS else What.SKIPPED
        found.append(Finding(path, what, name, _short(marker.shown or marker.key)))
    if now.cases < old.cases:
        found.append(Finding(path, What.CASES_REMOVED, name, f"{old.cases} -> {now.cases} cases"))
    found += _compare_checks(path, name, old, now)
    return found


def _compare_checks(path: str, name: str, old: TestUnit, now: TestUnit) -> list[Finding]:
    found = []
    missing = list((Counter(c.key for c in old.checks) - Counter(c.key for c in now.checks)).elements())
    extra = list((Counter(c.key for c in now.checks) - Counter(c.key for c in old.checks)).elements())
    by_key = {c.key: c for c in (*old.checks, *now.checks)}
    by_shape: dict[str, list[str]] = {}
    vacuous = []
    for key in reversed(extra):
        if by_key[key].always_passes:
            vacuous.append(key)
        else:
            by_shape.setdefault(by_key[key].shape, []).append(key)
    for key in missing:  # each pairing is a dictionary lookup: linear in the number of checks
        twins = by_shape.get(by_key[key].shape)
        if twins:
            twin = twins.pop()
            what = "a case's values changed" if by_key[key].row else "expected value changed"
            detail = f"{what}: {_shown(by_key[key])} -> {_shown(by_key[twin])}"
            found.append(Finding(path, What.CHECK_WEAKENED, name, detail))
        elif vacuous and not by_key[key].row:
            detail = f"replaced by one that always passes: {_shown(by_key[key])} -> {_shown(by_key[vacuous.pop()])}"
            found.append(Finding(path, What.CHECK_WEAKENED, name, detail))
    before = sum(1 for c in old.checks if not c.row)
    after = sum(1 for c in now.checks if not c.row)
    if after < before:
        detail = f"{before} -> {after} assertions"
        if now.unreachable > old.unreachable:
            detail += f", {now.unreachable - old.unreachable} now unreachable after an early return"
        found.append(Finding(path, What.CHECKS_REMOVED, name, detail))
    elif now.empty and not old.empty:
        found.append(Finding(path, What.CHECKS_REMOVED, name, "its body was emptied"))
    return found


def _more(before: Iterable[T], after: Iterable[T]) -> list[T]:
    """What `after` holds more of than `before`, as a multiset."""
    return list((Counter(after) - Counter(before)).elements())


def _shown(check: Check) -> str:
    return _short(check.shown or check.key)


def _short(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."
