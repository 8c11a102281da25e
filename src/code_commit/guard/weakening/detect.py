"""Whether a change weakens the tests: one file (`file_weakenings`) or a whole change set, an
answer or what a build changed (`weakenings`), where a test moved to another file is no loss.

Pure: bytes in, findings out. Which paths are tests is `paths.TestPaths`' answer (it asks git),
passed in as `Change.test_file`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from code_commit.guard.weakening.brace import brace_facts
from code_commit.guard.weakening.compare import Candidates, Judged, judge
from code_commit.guard.weakening.facts import FileFacts
from code_commit.guard.weakening.findings import Finding, What
from code_commit.guard.weakening.languages import BY_SUFFIX, suffix
from code_commit.guard.weakening.paths import holds_tests
from code_commit.guard.weakening.python import python_facts
from code_commit.guard.weakening.runners import config_findings

# Bytes of a test file read as code at most (before and after each). A larger one is not parsed:
# any change to it is reported as unchecked, so size cannot buy a way past the check.
MAX_READ = 8 * 2**20
DOC_SUFFIXES = frozenset({".md", ".markdown", ".rst", ".adoc"})
# What a new file can do to tests elsewhere: a hook (conftest.py), a collection filter, a focus marker.
_REACHING = frozenset({What.HOOK, What.NARROWED, What.FOCUSED})


@dataclass(frozen=True)
class Change:
    path: str
    before: bytes | None  # None: the file is new
    after: bytes | None  # None: the file is deleted
    test_file: bool = True  # the path is a test file by its name (TestPaths), not by what it holds


def file_weakenings(path: str, before: bytes | None, after: bytes | None, test_file: bool = True) -> list[Finding]:
    """What changing one file from `before` to `after` did to the tests."""
    return _judge_file(Change(path, before, after, test_file)).judged.findings


def weakenings(changes: Iterable[Change]) -> list[Finding]:
    """What a set of changes did to the tests, a test moved from one file of the set to another
    (same body, or same name keeping its checks) not counting as removed."""
    results = [_judge_file(change) for change in changes]
    families = {r.family for r in results}
    pools = {
        family: Candidates(u for r in results if r.family == family for u in r.judged.added) for family in families
    }
    where = {id(unit): r.change.path for r in results for unit in r.judged.added}
    created = {r.change.after for r in results if r.change.before is None and r.change.after is not None}
    findings: list[Finding] = []
    for result in results:
        judged = result.judged
        path = result.change.path
        found_elsewhere = set()
        for unit in judged.removed:
            other = pools[result.family].take(unit, by_name=True)
            if other is not None:  # moved: judged as the same test where it is now
                found_elsewhere.add(unit.name)
                now = FileFacts(tests={unit.name: other})
                findings += judge(where[id(other)], FileFacts(tests={unit.name: unit}), now).findings
        kept = [
            f
            for f in judged.findings
            if not (f.what is What.REMOVED and f.where in found_elsewhere and f.path == path and not f.detail)
        ]
        if result.deleted:
            all_moved = bool(judged.removed) and len(found_elsewhere) == len(judged.removed)
            renamed = not judged.removed and result.change.before in created
            if all_moved or renamed:
                kept = [f for f in kept if f.what is not What.DELETED]
        findings += kept
    return findings


@dataclass
class _Result:
    change: Change
    judged: Judged = field(default_factory=Judged)
    family: str = ""  # the language: tests move between files of one language
    deleted: bool = False


def _judge_file(change: Change) -> _Result:
    path, before, after = change.path, change.before, change.after
    result = _Result(change)
    configured = config_findings(path, before, after)
    if configured is not None:
        result.judged.findings += configured
    language = language_of(path)
    tests_inside = change.test_file or holds_tests(path, before or after)
    if not tests_inside or (after is None and before is None):
        return result
    if before is None:  # a new file weakens no test of its own, but may reach the others
        if language is not None and after is not None and len(after) <= MAX_READ:
            new = judge(path, FileFacts(), _facts(path, after))
            result.judged.findings += [f for f in new.findings if f.what in _REACHING]
            result.judged.added = new.added  # tests moved here from a file deleted or changed in the same set
            result.family = language
        return result
    if after is None:
        result.deleted = True
        result.judged.findings.append(Finding(path, What.DELETED, "", ""))
        if language and len(before) <= MAX_READ:
            facts = _facts(path, before)
            result.family = language
            result.judged.removed = list(facts.tests.values())
        return result
    if before == after:
        return result
    if language is None:
        if configured is None and suffix(path) not in DOC_SUFFIXES:
            result.judged.findings.append(Finding(path, What.DATA_CHANGED, "", ""))
        return result
    if len(before) > MAX_READ or len(after) > MAX_READ:
        detail = f"over {MAX_READ // 2**20} MiB: any change to it counts"
        result.judged.findings.append(Finding(path, What.UNCHECKED, "", detail))
        return result
    judged = judge(path, _facts(path, before), _facts(path, after))
    judged.findings = result.judged.findings + judged.findings
    result.judged = judged
    result.family = language
    return result


def language_of(path: str) -> str | None:
    """The language whose reader judges `path`'s tests (python, javascript, ...); None: none."""
    ending = suffix(path)
    if ending == ".py":
        return "python"
    rules = BY_SUFFIX.get(ending)
    if rules is None:
        return None
    return "javascript" if rules.name in ("JavaScript", "TypeScript") else rules.name


def _facts(path: str, content: bytes) -> FileFacts:
    ending = suffix(path)
    if ending == ".py":
        return python_facts(content)
    return brace_facts(content.decode("utf-8", "replace"), BY_SUFFIX[ending])
