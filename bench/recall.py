"""Fix-file recall: does the model get to see the file it must fix? The offline stand-in for the repair
rate, which cannot be measured without a model.

On real projects vendored in tests/fixtures/ (tomli and cachetools: pytest; jsmn: make and cc; semver:
cargo, offline), make one-line bugs (mutants: an operator or a constant flipped, with a fixed seed) in
their source files, keep the ones their own tests catch, and for each ask, at the default
`rollup_budget` and at a small one:

- rollup: is the mutated file whole in `code-commit rollup`'s output, with agent-config/query.txt
  naming the symptom as a user would (the first failing line of the build, pasted);
- repair: is it in the first repair prompt, whole (in the codebase, or in a section of its own), after
  a real run of `code-commit` whose model (the loopback fake in tests/fakeapi.py) answers the first
  prompt with prose, so the build runs, fails, and the repair prompt is built from its output.

Every command is run as a user runs it, through `PYTHON -m code_commit`, so the same benchmark measures
any version of code-commit: `--python` names another installation's interpreter (the figures before a
change come from a worktree of the code before it).

    .venv/bin/python -m bench.recall [--python PATH] [--mutants N] [--small TOKENS] [--only NAME,...]
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .checks import require
from .harness import REPO, Row, bench_env, commit_fixture

FIXTURES = REPO / "tests" / "fixtures"
DEFAULT_BUDGET = 100_000  # rollup_budget's default
SMALL_BUDGET = 5_000
MUTANTS = 10  # killed mutants per project, at most
SEED = 20261125
BUILD_TIMEOUT = 600


@dataclass(frozen=True)
class Project:
    name: str
    sources: str  # the files mutated: a regex over their paths
    build: str  # build.sh's command, as `code-commit init` would guess it
    ignore: tuple[str, ...] = ()  # .gitignore lines of the project's own


PROJECTS = (
    Project("tomli", r"^src/tomli/.*\.py$", "PYTHONPATH=src python3 -m pytest -q -p no:cacheprovider"),
    Project("cachetools", r"^src/cachetools/.*\.py$", "PYTHONPATH=src python3 -m pytest -q -p no:cacheprovider"),
    Project("jsmn", r"^jsmn\.h$", "make test"),
    Project("semver", r"^src/(?!serde).*\.rs$", "cargo test --offline", ignore=("/target",)),
)

# One-line bugs: (pattern, replacement), each applied once on a line that is not a comment.
MUTATIONS = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r" \+ ", " - "),
        (r" - ", " + "),
        (r" < ", " <= "),
        (r" > ", " >= "),
        (r" <= ", " < "),
        (r" >= ", " > "),
        (r" == ", " != "),
        (r" != ", " == "),
        (r"\btrue\b", "false"),
        (r"\bTrue\b", "False"),
        (r"\bfalse\b", "true"),
        (r"\bFalse\b", "True"),
        (r" && ", " || "),
        (r" \|\| ", " && "),
        (r" and ", " or "),
        (r" or ", " and "),
        (r"\b1\b", "2"),
        (r"\b0\b", "1"),
    )
)
_COMMENT = re.compile(r"^\s*(?:#|//|/\*|\*|\"\"\"|''')")
# What a user would paste, best first: a test runner's failure line, a panic, an assertion, an error.
_SYMPTOMS = tuple(
    re.compile(pattern)
    for pattern in (r"^(?:FAILED|FAIL)\b", r"FAILED|FAIL\b", r"panicked at|assertion", r"Error|error|failed")
)
_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


@dataclass
class Tally:
    killed: int = 0
    survived: int = 0
    whole: dict[int, int] = field(default_factory=dict)  # budget -> mutants whose file is whole in the rollup
    repair: dict[int, int] = field(default_factory=dict)  # budget -> ... in the first repair prompt
    context_bytes: dict[int, int] = field(default_factory=dict)  # budget -> bytes of the FILE CONTEXT sections

    def add(self, other: Tally) -> None:
        self.killed += other.killed
        self.survived += other.survived
        for mine, theirs in (
            (self.whole, other.whole),
            (self.repair, other.repair),
            (self.context_bytes, other.context_bytes),
        ):
            for budget, n in theirs.items():
                mine[budget] = mine.get(budget, 0) + n


def mutate(text: str, rng: random.Random) -> tuple[str, int] | None:
    """`text` with one line mutated, and that line's number; None when nothing can be mutated."""
    lines = text.split("\n")
    spots = [
        (number, pattern, replacement)
        for number, line in enumerate(lines)
        if not _COMMENT.match(line)
        for pattern, replacement in MUTATIONS
        if pattern.search(line)
    ]
    if not spots:
        return None
    number, pattern, replacement = rng.choice(spots)
    lines[number] = pattern.sub(replacement, lines[number], count=1)
    return "\n".join(lines), number + 1


def symptom(output: str) -> str:
    """What a user would paste into the query: the first line of the build's output that says what failed."""
    lines = [line.strip() for line in _ANSI.sub("", output).splitlines() if len(line.strip()) > 6]
    for pattern in _SYMPTOMS:
        for line in lines:
            if pattern.search(line):
                return line[:300]
    return output.strip().splitlines()[-1][:300] if output.strip() else "the build fails"


def prepare(project: Project, root: Path, python: str) -> dict[str, str]:
    shutil.copytree(FIXTURES / project.name, root)
    (root / "build.sh").write_text(f"#!/bin/sh\nset -e\n{project.build}\n")
    (root / "build.sh").chmod(0o755)
    (root / ".gitignore").write_text("".join(f"{line}\n" for line in ("/agent-config", *project.ignore)))
    commit_fixture(root)
    config = root / "agent-config"
    config.mkdir(mode=0o700)
    env = bench_env(ANTHROPIC_API_KEY="sk-ant-bench-0000000000", CI="1", NO_COLOR="1")
    env["PATH"] = f"{Path(python).parent}{os.pathsep}{env['PATH']}"
    return env


def run_build(root: Path, env: dict[str, str]) -> tuple[int, str]:
    proc = subprocess.run(
        ["sh", "build.sh"], cwd=root, env=env, capture_output=True, text=True, errors="replace", timeout=BUILD_TIMEOUT
    )
    return proc.returncode, proc.stdout + proc.stderr


def whole_in_rollup(root: Path, python: str, env: dict[str, str], budget: int, target: str) -> bool:
    subprocess.run(
        [python, "-m", "code_commit", "rollup", "--budget", str(budget)],
        cwd=root,
        env=env,
        check=True,
        capture_output=True,
    )
    rollup = (root / "agent-config" / "codeRollup.txt").read_text(encoding="utf-8")
    require(rollup.startswith("==> "), f"`code-commit rollup` included no file of {root}")
    return f"==> {target} <==" in rollup.splitlines()


def first_repair_prompt(root: Path, python: str, env: dict[str, str]) -> str:
    """The text of the first repair prompt of a real run whose model answers the first call with prose;
    EmptyMeasurement if the run never asked for a repair (it stopped at setup, or the build passed)."""
    sys.path.insert(0, str(REPO / "tests"))
    from fakeapi import FakeAPI

    with FakeAPI() as api:
        api.reply("I looked at the failure; no change from me yet.")
        api.status(400)  # the repair call is recorded, then the run ends (exit 3)
        (root / "agent-config" / "config.toml").write_text(
            f'base_url = "{api.url}"\nmax_repairs = 1\nretry_attempts = 1\n'
        )
        done = subprocess.run(
            [python, "-m", "code_commit"], cwd=root, env=env, capture_output=True, text=True, timeout=BUILD_TIMEOUT
        )
        requests = api.requests
    require(
        len(requests) > 1,
        f"the run in {root} sent {len(requests)} requests, no repair prompt "
        f"(exit {done.returncode}): {done.stderr[-2000:]}",
    )
    return requests[1].prompt_text


def in_prompt(prompt: str, target: str) -> bool:
    lines = prompt.splitlines()
    return f"==> {target} <==" in lines or f"--- FILE CONTEXT [{target}] ---" in lines


def context_size(prompt: str) -> int:
    start = prompt.find("\n--- FILE CONTEXT [", prompt.find("--- CODEBASE ---"))  # not the system prompt's mention
    return 0 if start < 0 else len(prompt) - start


def measure(
    project: Project, python: str, mutants: int, budgets: Sequence[int], verbose: bool, rollup_only: bool = False
) -> Tally:
    tally = Tally()
    rng = random.Random(f"{SEED}-{project.name}")
    with tempfile.TemporaryDirectory(prefix=f"bench-recall-{project.name}-") as tmp:
        root = Path(tmp) / project.name
        env = prepare(project, root, python)
        files = subprocess.run(["git", "ls-files"], cwd=root, env=env, capture_output=True, text=True, check=True)
        sources = sorted(path for path in files.stdout.splitlines() if re.search(project.sources, path))
        code, output = run_build(root, env)
        if code != 0:
            raise RuntimeError(f"{project.name}: the unmutated build fails:\n{output[-2000:]}")
        tries = 0
        while tally.killed < mutants and tries < mutants * 10:
            tries += 1
            target = rng.choice(sources)
            original = (root / target).read_text(encoding="utf-8")
            mutant = mutate(original, rng)
            if mutant is None:
                continue
            (root / target).write_text(mutant[0], encoding="utf-8")
            try:
                code, output = run_build(root, env)
                if code == 0:
                    tally.survived += 1
                    continue
                tally.killed += 1
                query = f"The build fails: {symptom(output)}\nFind the bug and fix it; the tests are right.\n"
                (root / "agent-config" / "query.txt").write_text(query, encoding="utf-8")
                found = []
                for budget in budgets:
                    whole = whole_in_rollup(root, python, env, budget, target)
                    prompt = None if rollup_only else first_repair_prompt(root, python, env)
                    repaired = prompt is not None and in_prompt(prompt, target)
                    tally.whole[budget] = tally.whole.get(budget, 0) + whole
                    tally.repair[budget] = tally.repair.get(budget, 0) + repaired
                    extra = context_size(prompt or "")
                    tally.context_bytes[budget] = tally.context_bytes.get(budget, 0) + extra
                    found.append(f"{budget}: rollup {'Y' if whole else '-'} repair {'Y' if repaired else '-'}")
                if verbose:
                    print(f"  {project.name} {target}:{mutant[1]} | {'; '.join(found)} | {query.splitlines()[0][:100]}")
            finally:
                (root / target).write_text(original, encoding="utf-8")
                subprocess.run(["git", "clean", "-fdq", "-e", "/agent-config"], cwd=root, env=env, check=True)
    require(tally.killed > 0, f"{project.name}: none of {tries} mutants failed the build: nothing was measured")
    return tally


def rows(tallies: dict[str, Tally], budgets: Sequence[int], label: str) -> list[Row]:
    out = []
    for name, tally in tallies.items():
        k = max(1, tally.killed)
        for budget in budgets:
            context = tally.context_bytes.get(budget, 0) / k
            out.append(
                Row(
                    f"recall ({label}): {name}, budget {budget:,}",
                    f"{tally.killed} mutants",
                    100 * tally.whole.get(budget, 0) / k,
                    100 * tally.repair.get(budget, 0) / k,
                    unit="%",
                    note=f"ours = whole in the rollup, reference = in the first repair prompt; "
                    f"{context:,.0f} bytes of file context a prompt",
                )
            )
    return out


def smallest() -> list[Row]:
    """One killed mutant of jsmn (its build is one C file), at the default budget."""
    return run(0, mutants=1, budgets=(DEFAULT_BUDGET,), projects=("jsmn",))


def run(
    repeat: int,
    python: str = sys.executable,
    mutants: int = MUTANTS,
    budgets: tuple[int, ...] = (DEFAULT_BUDGET, SMALL_BUDGET),
    projects: tuple[str, ...] = tuple(p.name for p in PROJECTS),
) -> list[Row]:
    del repeat  # counts, not timings
    tallies: dict[str, Tally] = {}
    total = Tally()
    for project in (p for p in PROJECTS if p.name in projects):
        tallies[project.name] = measure(project, python, mutants, budgets, verbose=False)
        total.add(tallies[project.name])
    tallies["all"] = total
    return rows(tallies, budgets, "this code")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", default=sys.executable, help="the interpreter code-commit is installed in")
    parser.add_argument("--mutants", type=int, default=MUTANTS, help="killed mutants per project")
    parser.add_argument("--small", type=int, default=SMALL_BUDGET, help="the small rollup_budget, in tokens")
    parser.add_argument("--only", default="", help="comma-separated project names")
    parser.add_argument("--label", default="this code", help="what the figures are of, in the table")
    parser.add_argument("--rollup-only", action="store_true", help="measure the rollup only, not the repair prompt")
    args = parser.parse_args(argv)
    budgets = (DEFAULT_BUDGET, args.small)
    chosen = [p for p in PROJECTS if not args.only or p.name in args.only.split(",")]
    tallies: dict[str, Tally] = {}
    total = Tally()
    started = time.perf_counter()
    for project in chosen:
        tallies[project.name] = measure(project, args.python, args.mutants, budgets, True, args.rollup_only)
        total.add(tallies[project.name])
        print(f"# {project.name}: {tallies[project.name]}", file=sys.stderr, flush=True)
    tallies["all"] = total
    from .harness import format_header, format_row

    print(format_header())
    for row in rows(tallies, budgets, args.label):
        print(format_row(row))
    print(f"# done in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
