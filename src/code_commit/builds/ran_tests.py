"""How many tests a build's output says ran, from the summaries of the common test runners: so that
init and `code-commit check` can say whether build.sh really runs tests (cJSON's `make test` runs a
demo program, not its unit tests), not only whether it passed.

Pure: the output in, the count and the runner's name out (None: no runner's summary seen).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_CHARS = 1 << 20  # of the output's end looked at: summaries come last


@dataclass(frozen=True)
class RanTests:
    count: int
    runner: str
    unit: str = "test"  # what was counted: tests, or Go's packages

    def describe(self) -> str:
        return f"{self.count} {self.unit}{'' if self.count == 1 else 's'} ({self.runner})"


# (runner, pattern, how to count: "last" match's group, or "sum" of every match's group 1)
_SUMMARIES: tuple[tuple[str, re.Pattern[str], str], ...] = (
    ("pytest", re.compile(r"^=*\s*((?:\d+ [a-z]+(?: [a-z]+)?, )*\d+ [a-z]+(?: [a-z]+)?) in [\d.]+s\b", re.M), "pytest"),
    ("unittest", re.compile(r"^Ran (\d+) tests? in [\d.]+s$", re.MULTILINE), "last"),
    ("cargo test", re.compile(r"^test result: \w+\. (\d+) passed; (\d+) failed", re.MULTILINE), "cargo"),
    ("ctest", re.compile(r"tests passed, \d+ tests? failed out of (\d+)$", re.MULTILINE), "last"),
    ("node:test", re.compile(r"^(?:# |ℹ )tests (\d+)$", re.MULTILINE), "sum"),
    ("jest", re.compile(r"^Tests:\s+.*?(\d+) total$", re.MULTILINE), "last"),
    ("vitest", re.compile(r"^\s+Tests\s+.*\((\d+)\)$", re.MULTILINE), "last"),
    (
        "Maven",
        re.compile(r"^\[\w+\] Tests run: (\d+), Failures: \d+, Errors: \d+, Skipped: \d+$", re.MULTILINE),
        "last",
    ),
    ("PASSED: N", re.compile(r"^PASSED: (\d+)\nFAILED: (\d+)$", re.MULTILINE), "cargo"),
)
_PYTEST_COUNT = re.compile(r"(\d+) ([a-z]+)")
_RAN = frozenset({"passed", "failed", "xfailed", "xpassed"})
_GO_OK = re.compile(r"^(?:ok|FAIL)\s+\S+\s+(?:[\d.]+s|\(cached\))", re.MULTILINE)


def ran_tests(output: str) -> RanTests | None:
    """The tests the output's summaries count; several runners (a Maven and a node build) add up."""
    text = output[-MAX_CHARS:]
    found: list[RanTests] = []
    for runner, pattern, how in _SUMMARIES:
        matches = list(pattern.finditer(text))
        if not matches:
            continue
        if how == "pytest":  # "1 failed, 2 passed, 1 skipped": the ones that ran
            count = sum(int(n) for m in matches for n, kind in _PYTEST_COUNT.findall(m.group(1)) if kind in _RAN)
        elif how == "cargo":
            count = sum(int(m.group(1)) + int(m.group(2)) for m in matches)
        elif how == "sum":
            count = sum(int(m.group(1)) for m in matches)
        else:
            count = int(matches[-1].group(1))
        found.append(RanTests(count, "make test" if runner == "PASSED: N" else runner))
    if not found:
        packages = len(_GO_OK.findall(text))
        return RanTests(packages, "go test", "package") if packages else None
    return RanTests(sum(item.count for item in found), ", ".join(item.runner for item in found))
