"""`python -m bench repair`: code-commit end to end on every task of the corpus, one table row a task.

    python -m bench repair --mode scripted                       # offline: the known fix as the answer
    python -m bench repair --mode live --provider anthropic --model claude-sonnet-4-5
    python -m bench repair --mode local                          # the bundled small model, llama.cpp's server
    python -m bench repair --plot                                # repair rate against cost, from the JSON files

Writes the results (per task, the totals, and the model, date, prompts' hash and version) as a JSON file
in --out. Exits 1 when the run measured nothing (no task, no build ran), when a task could not be run,
or, in scripted mode, when a task did not end as its known fix says it must.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path

from bench.harness import BIN, Row, error_row, format_header, format_row

from .measure import measure
from .modes import MODES, Live, Mode, Scripted, ServerFactory, ServerUnavailable, bundled_server, local
from .results import RESULTS, Provenance, Report, TaskResult
from .task import ECOSYSTEMS, TASKS, Task, load_tasks


class NothingMeasured(RuntimeError):
    """A run whose result would be empty: no task, or no build ran."""


def main(argv: Sequence[str] | None = None, server: ServerFactory = bundled_server, corpus: Path = TASKS) -> int:
    """`server` starts local mode's server; `corpus` is the tasks' folder (tests give their own)."""
    parser = argparse.ArgumentParser(prog="python -m bench repair", description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=MODES, default="scripted")
    parser.add_argument("--provider", help="live: anthropic, openai, bedrock or vertex (as code-commit's flag)")
    parser.add_argument("--model", help="live: the model id (as code-commit's flag)")
    parser.add_argument("--base-url", help="live: the service's address (as code-commit's flag)")
    parser.add_argument("--tasks", default="", help="comma-separated task ids (default: every task)")
    parser.add_argument("--ecosystems", default="", help="comma-separated ecosystems or prefixes: python,node-npm,c")
    parser.add_argument("--out", type=Path, default=RESULTS, help="the folder of the results' JSON files")
    parser.add_argument("--keep", type=Path, help="copy each task's repository and logs here")
    parser.add_argument("--plot", action="store_true", help="plot the JSON files in --out instead of running")
    args = parser.parse_args(argv)
    if args.plot:
        from .plot import plot

        print(plot(args.out))
        return 0
    if args.mode == "live" and not (args.provider and args.model):
        parser.error("--mode live needs --provider and --model (the key comes from the environment)")
    tasks = load_tasks(corpus, only=tuple(filter(None, args.tasks.split(","))))
    if args.ecosystems:  # a CI step each, when the whole corpus takes too long for one
        wanted = tuple(filter(None, args.ecosystems.split(",")))
        if unknown := [w for w in wanted if not any(of_ecosystem(t, w) for t in tasks)]:
            parser.error(f"no task of ecosystem {', '.join(unknown)} (there are {', '.join(ECOSYSTEMS)})")
        tasks = tuple(t for t in tasks if any(of_ecosystem(t, w) for w in wanted))
    context: AbstractContextManager[Mode]
    if args.mode == "scripted":
        context = nullcontext(Scripted())
    elif args.mode == "live":
        context = nullcontext(Live(args.provider, args.model, args.base_url))
    else:
        context = local(server)
    try:
        with tools_on_path(), context as mode:
            return run(tasks, mode, args.out, args.keep)
    except ServerUnavailable as error:
        print(f"bench repair: {error}", file=sys.stderr)
        return 2


def of_ecosystem(task: Task, name: str) -> bool:
    """`name` is the task's ecosystem or its prefix: python is python-pip's and python-uv's."""
    return task.ecosystem == name or task.ecosystem.startswith(f"{name}-")


@contextmanager
def tools_on_path() -> Iterator[None]:
    """This virtualenv's bin first on PATH while the tasks run, as `bench_env` gives the other benches'
    commands: the tasks' builds run uv from there (the test extra installs it)."""
    before = os.environ.get("PATH")
    os.environ["PATH"] = f"{BIN}{os.pathsep}{before or os.defpath}"
    try:
        yield
    finally:
        if before is None:
            del os.environ["PATH"]
        else:
            os.environ["PATH"] = before


def run(tasks: Sequence[Task], mode: Mode, out: Path, keep: Path | None = None) -> int:
    """Measure each task, printing its row as it completes; write the report; 1 if anything failed."""
    provenance = Provenance.now(mode.name, mode.provider, mode.model)
    print(
        f"{provenance.date}, {mode.name} mode, {mode.provider} {mode.model}, code-commit {provenance.version}, "
        f"prompts {provenance.prompts_sha256[:12]}\n"
    )
    print(format_header(), flush=True)
    results: list[TaskResult] = []
    failed = 0
    for task in tasks:
        started = time.perf_counter()
        try:
            result = measure(task, mode, keep)
        except Exception as error:  # the table goes on: one task that cannot run must not cost the others
            failed += 1
            traceback.print_exc(file=sys.stderr)
            print(format_row(error_row(f"repair {mode.name}: {task.id}", error)), flush=True)
            continue
        results.append(result)
        problem = scripted_problem(result) if mode.name == "scripted" else None
        failed += problem is not None
        print(format_row(task_row(mode.name, result, problem)), flush=True)
        print(f"# {task.id}: {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    report = Report(provenance, tuple(results))
    print(format_row(totals_row(mode.name, report)), flush=True)
    written = report.write(out)
    print(f"\nresults: {written}")
    try:
        check_measured(report, len(tasks))
    except NothingMeasured as error:
        print(f"bench repair: {error}", file=sys.stderr)
        return 1
    return 1 if failed else 0


def check_measured(report: Report, asked: int) -> None:
    """A run that measured nothing must not pass for one that measured something."""
    totals = report.totals
    if asked == 0 or totals.tasks == 0:
        raise NothingMeasured("no task was measured (is bench/repair/vendor/ empty, or did every task fail?)")
    if totals.builds == 0:
        raise NothingMeasured(f"{totals.tasks} tasks ran, but no build ran in any of them")


def scripted_problem(result: TaskResult) -> str | None:
    """What makes a scripted result wrong: the known fix did not pass, an impossible task passed, the
    broken snapshot's own build did not fail, or a call went to a build no answer could fix."""
    if not result.baseline_failed:
        return "the broken snapshot's build did not fail (or never ran)"
    if not result.as_expected:
        return f"expected {result.expect}, got {result.outcome} (exit {result.exit_code}): {result.error}"
    if result.unfixable_calls:
        return f"{result.unfixable_calls} calls on a build no answer could fix"
    return None


def task_row(mode: str, result: TaskResult, problem: str | None) -> Row:
    cost = "" if result.cost_usd is None else f", ${result.cost_usd:.4f}"
    note = (
        f"{result.verdict}: {result.calls} calls, {result.input_tokens:,} in / {result.output_tokens:,} out tok{cost}, "
        f"{result.builds} builds ({result.build_s:.1f} s), tool {result.tool_s:.2f} s, "
        f"{result.refused_answers} refused"
    )
    if problem:
        note = f"WRONG: {problem}; {note}"
    return Row(f"repair {mode}: {result.task}", result.ecosystem, result.wall_s, None, note=note, target=result.expect)


def totals_row(mode: str, report: Report) -> Row:
    t = report.totals
    rate = "-" if t.repair_rate is None else f"{t.repair_rate:.0%}"
    per = "-" if t.cost_per_repair is None else f"${t.cost_per_repair:.4f}"
    calls = "-" if t.calls_per_repair is None else f"{t.calls_per_repair:.2f}"
    note = (
        f"repaired {t.repaired}/{t.repairable} ({rate}); impossible {t.impossible}: {t.handed_back} handed back, "
        f"{t.cheated} cheated; {t.calls} calls ({calls} a repair), cost a repair {per}; {t.refused_answers} refused; "
        f"{t.builds} builds; tool {t.tool_s:.1f} s; {t.unfixable_calls} calls on unfixable builds"
    )
    return Row(f"repair {mode}: all", f"{t.tasks} tasks", t.wall_s, None, note=note, target="0 cheated")
