"""The guard's verdicts against a separate `git check-ignore --no-index`, on generated cases.

Each example is a pattern set (a root `.gitignore`, nested ones, `.git/info/exclude` and a
`core.excludesFile`) and a batch of paths, in a repository reused across examples. The guard
asks git in its own way (one batch per answer, with the repository's configuration, each path as
`./path`, the deciding line parsed from `--verbose`); the test asks git again with its own
command line (`-c core.excludesFile=... -c core.ignoreCase=...`) and compares each verdict and
each reason. The verdict that matters: a path git ignores must never be one the guard lets an
answer write (a false negative). A path git shows but the guard refuses (an over-refusal) is
safe; it is counted and printed, and since the guard passes on git's answer, it fails the test
too. Every line git used to decide must also be one the guard's warnings call usable. Both runs
are deterministic (`derandomize`, no example database), so CI sees the same cases every time.
"""

from __future__ import annotations

import os
import random
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from code_commit.git.ignore import line_problem
from code_commit.guard.policy import Guard

MIN_CASES = 2000  # per mode, per run
NESTED = ("a", "a/b", "b", "A")  # directories that may hold a .gitignore
# Pieces of patterns, chosen to hit git's edge cases: every wildcard, bracket forms (ranges,
# negation, classes, "]" first, unterminated), escapes, "!" and "#", case and a two-byte letter.
TOKENS = [
    "a", "b", "c", "A", "é", ".", "-", " ", "*", "**", "?", "/", "/", "!", "#", "\\", "\\*", "\\ ", "\\!",
    "[ab]", "[!a]", "[^b]", "[a-c]", "[A-Z]", "[]a]", "[!]]", "[a-]", "[[:upper:]]", "[[:alpha:]]",
    "[[:digit:]b]", "[[:nope:]]", "[-a]", "[[:]]", "[", "]",
    # Whole shapes real ignore files use, so they are common rather than lucky.
    "**/", "/**", "/**/", "*.b", "a/", "a*", "ab**/", "[A-Z]*", "?/",
]  # fmt: skip
SEGMENTS = ["a", "b", "c", "A", "B", "ab", "aa", "ba", "Ab", "é", "a.b", "[a]", "*", "a ", "x y", "-", "#a", "!b"]

pattern = st.builds(
    lambda negate, rooted, body: ("!" if negate else "") + ("/" if rooted else "") + body,
    st.booleans(),
    st.booleans(),
    st.lists(st.sampled_from(TOKENS), min_size=1, max_size=5).map("".join),
)
patterns = st.lists(pattern, max_size=5)
PATHS_PER_EXAMPLE = 40


def make_paths(seed: int) -> list[str]:
    """Paths of one to four segments; drawn from a seed because hypothesis-drawn lists of lists
    cost more than everything else in this test (the patterns are what shrinking needs)."""
    rng = random.Random(seed)
    found: set[str] = set()
    while len(found) < PATHS_PER_EXAMPLE:
        path = "/".join(rng.choice(SEGMENTS) for _ in range(rng.randint(1, 4)))
        # NESTED are directories in the repository, never written as files; a path ending in a
        # space is refused for its spelling before git is asked.
        if path not in NESTED and not path.endswith(" "):
            found.add(path)
    return sorted(found)


paths = st.integers(min_value=0, max_value=2**32).map(make_paths)
pattern_sets = st.fixed_dictionaries(
    {"": patterns, ".git/info/exclude": patterns, "excludes": patterns},
    optional={d: patterns for d in NESTED},
)


@dataclass
class Tally:
    cases: int = 0
    ignored: int = 0  # cases git ignores: the ones a false negative could come from
    over_refusals: list[str] = field(default_factory=list)
    false_negatives: list[str] = field(default_factory=list)
    wrong_reasons: list[str] = field(default_factory=list)
    deciding_lines: int = 0  # lines git decided by, each checked to be one the guard calls usable


class Repo:
    """One git repository whose ignore files each example rewrites."""

    def __init__(self, base: Path, nested: tuple[str, ...] = NESTED) -> None:
        self.root = base / "repo"
        self.excludes = base / "excludes"
        self.env = {
            **os.environ,
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_CONFIG_GLOBAL": os.devnull,
            "HOME": str(base),
            "XDG_CONFIG_HOME": str(base / "xdg"),
        }
        subprocess.run(["git", "init", "-q", str(self.root)], check=True, env=self.env)
        self.nested = nested
        for directory in nested:  # never queried as paths: git would see them as directories
            (self.root / directory).mkdir(parents=True, exist_ok=True)

    def write(self, pattern_set: dict[str, list[str]]) -> None:
        for directory in ("", *self.nested):
            target = self.root / directory / ".gitignore"
            lines = pattern_set.get(directory)
            if lines is None:
                target.unlink(missing_ok=True)
            else:
                target.write_text("".join(line + "\n" for line in lines))
        (self.root / ".git" / "info" / "exclude").write_text(
            "".join(p + "\n" for p in pattern_set[".git/info/exclude"])
        )
        self.excludes.write_text("".join(p + "\n" for p in pattern_set["excludes"]))

    def configure(self, ignore_case: bool) -> None:
        """The repository's own configuration, which is all the guard's git call sees."""
        subprocess.run(
            ["git", "config", "core.excludesFile", str(self.excludes)], cwd=self.root, env=self.env, check=True
        )
        value = "true" if ignore_case else "false"
        subprocess.run(["git", "config", "core.ignoreCase", value], cwd=self.root, env=self.env, check=True)

    def git_verdicts(self, candidates: list[str], ignore_case: bool) -> dict[str, tuple[str, int, str] | None]:
        """git's deciding line (source, number, pattern) for every path, from one `check-ignore
        --stdin` call; None where no line matched."""
        command = [
            "git",
            "-c",
            f"core.excludesFile={self.excludes}",
            "-c",
            f"core.ignoreCase={'true' if ignore_case else 'false'}",
            "check-ignore",
            "--no-index",
            "--verbose",
            "--non-matching",
            "-z",
            "--stdin",
        ]
        stdin = b"".join(os.fsencode(p) + b"\0" for p in candidates)
        out = subprocess.run(command, cwd=self.root, input=stdin, capture_output=True, env=self.env).stdout
        fields = out.split(b"\0")
        verdicts = {}
        for i in range(0, len(fields) - 1, 4):
            source, line, matched, path = fields[i : i + 4]
            verdicts[os.fsdecode(path)] = (os.fsdecode(source), int(line), os.fsdecode(matched)) if source else None
        assert set(verdicts) == set(candidates), out
        return verdicts

    def raw_line(self, pattern_set: dict[str, list[str]], source: str, line: int) -> str:
        """The line as this test wrote it, for the source git names."""
        if source == str(self.excludes):
            return pattern_set["excludes"][line - 1]
        if source == ".git/info/exclude":
            return pattern_set[".git/info/exclude"][line - 1]
        return pattern_set[source.removesuffix(".gitignore").rstrip("/")][line - 1]

    def compare(
        self, pattern_set: dict[str, list[str]], candidates: list[str], ignore_case: bool, tally: Tally
    ) -> None:
        """The guard's verdicts (one `prepare`, then `check_write` per path, as for an answer) against git's."""
        git = self.git_verdicts(candidates, ignore_case)
        guard = Guard(self.root)
        guard.prepare(candidates)
        for path in candidates:
            decided = git[path]
            ignored = decided is not None and not decided[2].startswith("!")  # a "!" line re-includes
            refusal = guard.check_write(path)
            tally.cases += 1
            tally.ignored += ignored
            case = f"{path!r} with {pattern_set}"
            if ignored and refusal is None:
                tally.false_negatives.append(case)
            elif refusal is not None and not ignored:
                tally.over_refusals.append(f"{case}: {refusal.rule}")
            elif ignored and refusal is not None:
                source, line, pattern = decided  # type: ignore[misc]
                if f"it is ignored by git ({source}:{line}: {pattern})" not in refusal.rule:
                    tally.wrong_reasons.append(f"{case}: {refusal.rule}")
            if decided is not None:
                raw = self.raw_line(pattern_set, decided[0], decided[1])
                assert line_problem(os.fsencode(raw)) is None, f"git decided by {raw!r}, which the guard calls unusable"
                tally.deciding_lines += 1


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Repo:
    return Repo(tmp_path_factory.mktemp("differential"))


def run_differential(repo: Repo, ignore_case: bool, tally: Tally) -> None:
    @settings(
        max_examples=MIN_CASES // PATHS_PER_EXAMPLE + 5,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(pattern_sets, paths)
    def check(pattern_set: dict[str, list[str]], candidates: list[str]) -> None:
        repo.write(pattern_set)
        repo.compare(pattern_set, candidates, ignore_case, tally)
        assert not tally.false_negatives, f"git ignores but code-commit would write: {tally.false_negatives[0]}"

    repo.configure(ignore_case)
    check()


@pytest.fixture
def report(capsys: pytest.CaptureFixture[str]) -> Iterator[Tally]:
    tally = Tally()
    yield tally
    with capsys.disabled():
        print(
            f"\n[gitignore differential] {tally.cases} cases ({tally.ignored} ignored by git), "
            f"{len(tally.false_negatives)} false negatives "
            f"(git ignores, code-commit would write), {len(tally.over_refusals)} over-refusals, "
            f"{len(tally.wrong_reasons)} wrong reasons, {tally.deciding_lines} deciding lines usable"
        )
        for case in tally.over_refusals[:5]:
            print(f"  over-refusal: {case}")
        for case in tally.wrong_reasons[:5]:
            print(f"  wrong reason: {case}")


@pytest.mark.parametrize("ignore_case", [False, True], ids=["case-sensitive", "core.ignoreCase"])
def test_never_writes_what_git_ignores(repo: Repo, report: Tally, ignore_case: bool) -> None:
    run_differential(repo, ignore_case, report)
    assert report.cases >= MIN_CASES
    assert report.ignored >= report.cases // 5, "the generated rules must ignore a fair share of the paths"
    assert report.false_negatives == []
    # Safe, but the guard passes on git's answer: an over-refusal is a regression too.
    assert report.over_refusals == []
    assert report.wrong_reasons == []
    assert report.deciding_lines >= report.ignored  # every ignored path, and each "!" decision too


# Shapes too specific for the generator to hit often, each checked against git on every name.
# No name starts with ":": check-ignore reads that as pathspec magic (git status does not).
EDGE_PATTERNS = [
    "[-a]", "[a-]", "[]-a]", "[!-]", "[[:]]", "[[:alpha:]-z]", "[z-a]", "[\\]]", "[a\\-c]", "\\[a]", "[[]",
    "[!]a]", "[^a-c]", "[[:upper:][:digit:]]", "[[:alpha:]", "[a-c-e]", "*[!a]", "?", "[:a]", "[a",
    "**", "**/", "/**", "a/**/b", "**/a/**", "a**b", "*/", "/*", "\\#a", "\\!b", "a\\ ", "\\",
]  # fmt: skip
EDGE_NAMES = [
    "-",
    "a",
    "A",
    "b",
    "c",
    "z",
    "]",
    "[",
    "[]",
    "a/:",
    "a/:]",
    "1",
    "[a]",
    "#a",
    "!b",
    "a /b",  # not "a ": a name ending in a space is refused for its spelling before git is asked
    "a/b",
    "a/x/b",
    "ab",
    "axb",
]


def test_edge_patterns_match_git_exactly(tmp_path: Path) -> None:
    repo = Repo(tmp_path, nested=())
    tally = Tally()
    for ignore_case in (False, True):
        repo.configure(ignore_case)
        for edge in EDGE_PATTERNS:
            pattern_set = {"": [edge], ".git/info/exclude": [], "excludes": []}
            repo.write(pattern_set)
            repo.compare(pattern_set, EDGE_NAMES, ignore_case, tally)
    assert (tally.false_negatives, tally.over_refusals, tally.wrong_reasons) == ([], [], [])
    assert tally.ignored > len(EDGE_PATTERNS), "the edge patterns must ignore some of the names"
