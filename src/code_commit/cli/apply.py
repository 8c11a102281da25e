"""`code-commit apply FILE|-`: apply a saved answer with no model call.

The answer goes through the same parser, guard, matching and all-or-nothing apply as a
model's answer in a run, through the same orchestrator (run/orchestrator.py). It may be in the
^^^ format (a logged NN-response.txt, say) or in applydir's JSON (`applydir`). `--check`
validates only and writes nothing; `--build` runs build.sh after applying. The report goes to
stdout (text, or the JSON record with `--json`); progress goes to stderr. Everything else is
written under agent-config/logs/<run-id>/. Applying takes the project's lock, as a run does, and
honours --wait-lock, --timeout and --build-timeout.

The model SDK is never imported here.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from code_commit import stops
from code_commit.answer.formats import AUTO, recognised
from code_commit.answer.formats import FORMATS as ANSWER_FORMATS
from code_commit.answer.plan import AnswerRefused, Plan, Problem
from code_commit.answer.planning import checked_plan
from code_commit.config.settings import Flags, load_settings
from code_commit.console.output import Console, to_stdout
from code_commit.console.plural import count
from code_commit.console.printable import visible
from code_commit.errors import SetupError
from code_commit.events.kinds import Observer, ignore
from code_commit.guard.policy import Guard
from code_commit.llm.catalog import load_catalog, with_output_limit
from code_commit.logs.run_folder import ANSWER_FILE
from code_commit.logs.run_log import RunLog
from code_commit.run import signals
from code_commit.run.orchestrator import Orchestrator
from code_commit.run.record import DELETE, WRITE, FileChange, RunRecord
from code_commit.run.signals import TimeLimit
from code_commit.run.workspace import build_script_problems, config_dir_problems, gitignore_problems
from code_commit.testguard.rule import Judged

FORMATS = (AUTO, *ANSWER_FORMATS)


def new_record(source: str, answer_format: str, check: bool) -> RunRecord:
    """The record of an apply, before anything is known but what the command line said."""
    return RunRecord("apply", dry_run=check, source="standard input" if source == "-" else source, format=answer_format)


def command(
    console: Console,
    root: Path,
    source: str,
    record: RunRecord,
    *,
    flags: Flags | None = None,
    build: bool = False,
    as_json: bool = False,
    observe: Observer = ignore,
) -> int:
    """Check, or apply, the answer in `source` (a file, or - for standard input): the report printed,
    and its exit code. What ends it early is raised, `record` filled as far as it got, for
    `cli._guarded` to say (with --json, the record)."""
    check, answer_format = record.dry_run, record.format
    if check and build:
        raise SetupError("--check only validates the answer; it cannot be combined with --build")
    if answer_format not in FORMATS:
        raise SetupError(f"--format must be one of {', '.join(FORMATS)}, not {answer_format!r}")
    settings = load_settings(root, flags=flags).settings
    # The answer is read up to what a run would read for this model: its output limit sets the cap.
    settings = with_output_limit(settings, load_catalog(root).lookup(settings.model))
    if not check:
        problems = config_dir_problems(root) + gitignore_problems(root)
        if build:
            problems += build_script_problems(root, "--build runs ./build.sh; fix it or leave out --build")
        if problems:
            raise SetupError("\n".join(problems))
    limit = TimeLimit.of(settings)
    # The time limit covers reading the answer too: `agent | code-commit apply -` must not wait for
    # ever on an agent that never closes its output.
    with signals.watch(limit):
        _check_or_apply(Orchestrator(root, settings, console, record, limit, observe=observe), source, build)
    to_stdout(console.redact(record.to_json() if as_json else _as_text(record)))
    return record.exit_code


def _check_or_apply(orchestrator: Orchestrator, source: str, build: bool) -> None:
    settings, record = orchestrator.settings, orchestrator.record
    orchestrator.prepare(builds=build)
    text = _read_answer(source, settings.answer_byte_cap)
    given = record.format or AUTO
    fmt = record.format = given if given != AUTO else recognised(text).name
    if record.dry_run:  # --check: nothing is written, no lock is taken
        checked = _plan(orchestrator, text, fmt)
        if checked is not None:
            orchestrator.tests_let_through(checked.judged, checked.plan, 1)
        record.passed = checked is not None
        for warning in record.warnings:
            orchestrator.console.warn(warning)
    else:

        def begin(log: RunLog) -> None:
            log.write_file(ANSWER_FILE, text)
            log.event(f"apply: answer from {record.source} ({fmt} format), no model call")

        # Like a run: under the project's lock (the plan is made under it too, so no run changes the
        # files in between), with SIGINT, SIGTERM and the time limit ending it cleanly.
        with orchestrator.session(begin=begin):
            _apply(orchestrator, text, fmt, build)


def _apply(orchestrator: Orchestrator, text: str, fmt: str, build: bool) -> None:
    record = orchestrator.record
    plan = _plan(orchestrator, text, fmt)
    for warning in record.warnings:
        orchestrator.warn_once(f"apply: {warning}", warning)
    if plan is not None:
        orchestrator.warn_whole_over_dirty(plan.plan, 1)
        try:
            with stops.shielded():  # applied and recorded as applied: one step
                orchestrator.apply(plan.plan, 1)
                orchestrator.tests_let_through(plan.judged, plan.plan, 1)
        except AnswerRefused as failure:
            record.problems = list(failure.problems)
        else:
            record.applied = True
            record.files_changed = {c.path for c in record.changes if c.action == WRITE}
            record.files_deleted = {c.path for c in record.changes if c.action == DELETE}
    if record.problems:
        orchestrator.refuse(AnswerRefused(record.problems), 1)
        orchestrator.event(1, f"refused ({count(len(record.problems), 'problem')}); nothing was written")
    elif build:
        record.passed = orchestrator.build(1).passed
        if record.passed and orchestrator.new_tests and orchestrator.settings.tests == "protect":
            orchestrator.build_new_tests(1)
    else:
        record.passed = True


def _read_answer(source: str, cap: int) -> str:
    """The answer's text, read up to `cap` bytes and one more: a longer one comes back cut there (with
    any broken character replaced), for `_plan` to refuse by its size."""
    try:
        if source == "-":
            data = sys.stdin.buffer.read(cap + 1)
        else:
            with open(source, "rb") as fh:
                data = fh.read(cap + 1)
    except OSError as exc:
        raise SetupError(f"cannot read the answer {source}: {exc.strerror or exc}") from exc
    if len(data) > cap:
        return data.decode("utf-8", "replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SetupError(f"the answer {source} is not UTF-8 text ({exc.reason} at byte {exc.start})") from exc


@dataclass(frozen=True)
class Checked:
    plan: Plan
    judged: Judged  # what it does to the tests (which tests = report lets through), its new test files


def _plan(orchestrator: Orchestrator, text: str, fmt: str) -> Checked | None:
    """Parse and check the answer, its effect on the tests included; the plan, or None with
    `record.problems` saying why."""
    root, settings, record = orchestrator.root, orchestrator.settings, orchestrator.record
    cap = settings.answer_byte_cap
    if len(text.encode("utf-8", "surrogatepass")) > cap:
        why = f"the answer is over {cap:,} bytes (max_answer_bytes): nothing past that was read"
        record.problems = [Problem("too_large", why)]
        return None
    guard = Guard(root, settings.protected_patterns)
    try:
        plan = checked_plan(root, text, settings, fmt=fmt, guard=guard, need_edits=True, secrets=orchestrator.redact)
        judged = orchestrator.judge_tests(plan, 1)
    except AnswerRefused as refusal:
        record.problems = list(refusal.problems)
        return None
    finally:
        record.warnings = list(guard.warnings)  # invalid ignore lines, skipped as git skips them
    record.changes = [FileChange(c.path, DELETE if c.content is None else WRITE) for c in plan.changes]
    record.missing_deletes = list(plan.missing_deletes)
    return Checked(plan, judged)


def _as_text(record: RunRecord) -> str:
    """The report for a person. Every path and message in it may come from the answer: each is made
    `visible`, so an answer cannot drive the terminal the report is printed on."""
    out: list[str] = []
    source = visible(record.source or "")
    if record.problems:
        verdict = "would be refused" if record.dry_run else "was refused; nothing was written"
        out.append(f"refused: the answer from {source} {verdict} ({count(len(record.problems), 'problem')})\n")
        for number, problem in enumerate(record.problems, start=1):
            where = ", ".join(
                part
                for part in (
                    problem.path,
                    problem.block and f"block {problem.block}",
                    problem.search and f"search {problem.search}",
                    problem.answer_line and f"answer line {problem.answer_line}",
                )
                if part
            )
            out.append(f"problem {number} [{problem.kind}]{': ' + visible(where) if where else ''}\n")
            out.extend(f"  {visible(line)}\n" for line in problem.message.split("\n"))
        return "".join(out)
    written = sum(c.action == WRITE for c in record.changes)
    deleted = len(record.changes) - written
    if record.dry_run:
        out.append(
            f"ok: the answer from {source} applies cleanly: it writes {count(written, 'file')}, deletes {deleted}\n"
        )
    else:
        out.append(f"applied the answer from {source}: {count(written, 'file')} written, {deleted} deleted\n")
    out.extend(f"  {'would ' if record.dry_run else ''}{c.action} {visible(c.path)}\n" for c in record.changes)
    out.extend(f"  skipped delete of {visible(path)}: the file does not exist\n" for path in record.missing_deletes)
    if record.last_build is not None:
        out.append(f"build: {'passes' if record.last_build.passed else 'fails'} ({record.last_build.describe()})\n")
    return "".join(out)
