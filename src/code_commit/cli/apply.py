"""`code-commit apply FILE|-`: apply a saved answer with no model call.

The answer goes through the same parser, guard, matching and all-or-nothing apply as a
model's answer in a run. It may be in the ^^^ format (a logged NN-response.txt, say) or in
applydir's JSON (`applydir`). `--check` validates only and writes nothing; `--build` runs
build.sh after applying. The report goes to stdout (text, or JSON with `--json`); progress
goes to stderr. Everything else is written under agent-config/logs/<run-id>/. Applying takes
the project's lock, as a run does, and honours --wait-lock, --timeout and --build-timeout.

The model SDK is never imported here.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path

from code_commit.answer.applydir import looks_like_json
from code_commit.answer.plan import Plan, Problem
from code_commit.apply.transaction import PlanRefused, apply_plan
from code_commit.builds.gate import checked_build
from code_commit.builds.runner import BuildResult
from code_commit.builds.sandbox import Sandbox, choose
from code_commit.config.secrets import collect_secrets
from code_commit.config.settings import CONFIG_DIR, Flags, Settings, answer_byte_cap, load_settings, run_time_limit
from code_commit.console.output import Console, to_stdout
from code_commit.console.plural import count
from code_commit.console.printable import visible
from code_commit.console.terminal import unattended
from code_commit.errors import AnswerRefused, CodeCommitError, SetupError, exit_code_for
from code_commit.exits import EXIT, outcome_name
from code_commit.files.private import make_private_dirs
from code_commit.guard.policy import Guard, check_git_index
from code_commit.llm.catalog import load_catalog, with_output_limit
from code_commit.llm.transport import MAX_CONTINUATIONS
from code_commit.logs.folder import SUMMARY_FILE
from code_commit.logs.run_log import Redactor, RunLog
from code_commit.run import stops
from code_commit.run.session import Session, checked_plan, session
from code_commit.run.summary import plain
from code_commit.run.workspace import build_script_problems, config_dir_problems, gitignore_problems

FORMATS = ("auto", "caret", "json")


@dataclass(frozen=True)
class FileChange:
    path: str
    action: str  # "write" or "delete"


@dataclass
class ApplyReport:
    """What `apply` did or would do; printed as text or JSON."""

    source: str
    format: str  # "caret" or "json" ("auto" if the answer was never read)
    checked_only: bool
    applied: bool = False
    changes: tuple[FileChange, ...] = ()
    missing_deletes: tuple[str, ...] = ()  # deletes of files that do not exist: no-ops
    problems: tuple[Problem, ...] = ()
    build: BuildResult | None = None
    log_dir: Path | None = None
    warnings: tuple[str, ...] = ()
    error: CodeCommitError | None = None  # what ended the apply early (a setup error, the lock, --timeout, ...)

    @classmethod
    def of(cls, source: str, answer_format: str, check: bool) -> ApplyReport:
        return cls(source="standard input" if source == "-" else source, format=answer_format, checked_only=check)

    @property
    def ok(self) -> bool:
        return not self.problems and self.error is None and (self.build is None or self.build.passed)

    @property
    def exit_code(self) -> int:
        if self.error is not None:
            return exit_code_for(self.error)
        if self.problems:
            return EXIT.REFUSED
        return EXIT.OK if self.ok else EXIT.BUILD_FAILS

    def for_error(self, error: CodeCommitError, duration: float) -> str:
        """The JSON report of an apply that `error` ended, with what it had done by then: a script
        reading the report gets one whatever ended the apply."""
        self.error = error
        return _as_json(self)


def command(
    console: Console,
    root: Path,
    source: str,
    report: ApplyReport,
    *,
    flags: Flags | None = None,
    build: bool = False,
    as_json: bool = False,
) -> int:
    """Check, or apply, the answer in `source` (a file, or - for standard input): the report printed,
    and its exit code. What ends it early is raised, `report` filled as far as it got, for
    `cli._guarded` to say (with --json, `report.for_error`)."""
    check, answer_format = report.checked_only, report.format
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
    # The time limit (--timeout; unattended_timeout without a terminal) covers reading the answer too:
    # `agent | code-commit apply -` must not wait for ever on an agent that never closes its output.
    with stops.watch(*run_time_limit(settings, unattended())):
        check_git_index(root)
        # Probed only when a build will run: `require` without a working sandbox is exit 2, before any write.
        sandbox = choose(settings.sandbox, root=root) if build else None
        text = _read_answer(source, answer_byte_cap(settings, MAX_CONTINUATIONS))
        console.redact = redact = collect_secrets(root, redact_env=settings.redact_env).redactor()

        fmt = report.format = (
            answer_format if answer_format != "auto" else ("json" if looks_like_json(text) else "caret")
        )
        if check:
            _plan(root, text, fmt, settings, report)
            for warning in report.warnings:
                console.warn(warning)
        else:
            config_dir = root / CONFIG_DIR
            make_private_dirs(config_dir)

            def begin(log: RunLog) -> None:
                report.log_dir = log.folder
                log.write_file("answer.txt", text)
                log.event(f"apply: answer from {report.source} ({fmt} format), no model call")

            def end(ending: Session) -> None:  # the record, on every ending, as a run's
                report.error = ending.error
                if ending.error is not None:
                    ending.log.event(f"apply: {ending.error}")
                ending.log.write_file(SUMMARY_FILE, _as_json(report))

            # Like a run: under the project's lock (the plan is made under it too, so no run changes the
            # files in between), with SIGINT, SIGTERM and the time limit ending it cleanly.
            limit = run_time_limit(settings, unattended())
            with session(root, config_dir, settings, console, redact, limit, begin=begin, end=end) as current:
                _apply(root, text, fmt, settings, sandbox, redact, console, report, current.log)

    to_stdout(redact(_as_json(report) if as_json else _as_text(report)))
    return report.exit_code


def _apply(
    root: Path,
    text: str,
    fmt: str,
    settings: Settings,
    sandbox: Sandbox | None,
    redact: Redactor,
    console: Console,
    report: ApplyReport,
    log: RunLog,
) -> None:
    """`sandbox`: what --build's build runs under; None without --build."""
    plan = _plan(root, text, fmt, settings, report)
    for warning in report.warnings:
        log.event(f"apply: {warning}")
        console.warn(warning)
    if plan is not None:
        try:
            with stops.shielded():  # a signal waits until the apply is complete (or rolled back)
                apply_plan(root, plan, log.path(1, "journal"))
        except AnswerRefused as failure:
            report.problems = tuple(Problem("apply_failed", reason) for reason in failure.reasons)
        else:
            report.applied = True
            _log_applied(log, plan)
    if report.problems:
        log.write_file("refused.txt", "".join(f"- {p.message}\n" for p in report.problems))
        log.event(f"apply: refused ({count(len(report.problems), 'problem')}); nothing was written")
    elif sandbox is not None:
        log.event(f"apply: the build runs under {sandbox.describe()}")
        if sandbox.problem is not None:
            console.warn(f"the build runs without a sandbox, with your full rights: {sandbox.problem}")
        console.info("running build.sh")
        build_log = log.folder / "build.txt"
        report.build = checked_build(
            root, log.folder, build_log, redact, settings, sandbox, console.build_output, console.warn
        )
        log.event(f"apply: {report.build.describe()}")
    console.info(f"logs: {log.folder.relative_to(root)}")


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


def _plan(root: Path, text: str, fmt: str, settings: Settings, report: ApplyReport) -> Plan | None:
    """Parse and check the answer; the plan, or None with `report.problems` saying why."""
    cap = answer_byte_cap(settings, MAX_CONTINUATIONS)
    if len(text.encode("utf-8", "surrogatepass")) > cap:
        report.problems = (
            Problem("too_large", f"the answer is over {cap:,} bytes (max_answer_bytes): nothing past that was read"),
        )
        return None
    guard = Guard(root, settings.protected_patterns)
    try:
        plan = checked_plan(root, text, settings, fmt=fmt, guard=guard, need_edits=True)
    except PlanRefused as refusal:
        report.problems = refusal.problems
        return None
    finally:
        report.warnings = tuple(guard.warnings)  # invalid ignore lines, skipped as git skips them
    report.changes = tuple(FileChange(c.path, "delete" if c.content is None else "write") for c in plan.changes)
    report.missing_deletes = plan.missing_deletes
    return plan


def _log_applied(log: RunLog, plan: Plan) -> None:
    done = ", ".join(f"{'deleted' if c.content is None else 'wrote'} {c.path}" for c in plan.changes)
    log.event(f"apply: applied {done or 'nothing (every file already had that content)'}")
    for path in plan.missing_deletes:
        log.event(f"apply: delete of {path} skipped: the file does not exist")


def _as_text(report: ApplyReport) -> str:
    """The report for a person. Every path and message in it may come from the answer: each is made
    `visible`, so an answer cannot drive the terminal the report is printed on."""
    out: list[str] = []
    source = visible(report.source)
    if report.problems:
        verdict = "would be refused" if report.checked_only else "was refused; nothing was written"
        out.append(f"refused: the answer from {source} {verdict} ({count(len(report.problems), 'problem')})\n")
        for number, problem in enumerate(report.problems, start=1):
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
    written = sum(c.action == "write" for c in report.changes)
    deleted = len(report.changes) - written
    if report.checked_only:
        out.append(
            f"ok: the answer from {source} applies cleanly: it writes {count(written, 'file')}, deletes {deleted}\n"
        )
    else:
        out.append(f"applied the answer from {source}: {count(written, 'file')} written, {deleted} deleted\n")
    out.extend(f"  {'would ' if report.checked_only else ''}{c.action} {visible(c.path)}\n" for c in report.changes)
    out.extend(f"  skipped delete of {visible(path)}: the file does not exist\n" for path in report.missing_deletes)
    if report.build is not None:
        out.append(f"build: {'passes' if report.build.passed else 'fails'} ({report.build.describe()})\n")
    return "".join(out)


def _as_json(report: ApplyReport) -> str:
    document = {
        "outcome": outcome_name(report.exit_code),
        "exit_code": report.exit_code,
        "ok": report.ok,
        "checked_only": report.checked_only,
        "applied": report.applied,
        "source": report.source,
        "format": report.format,
        "changes": plain(report.changes),
        "missing_deletes": list(report.missing_deletes),
        "warnings": list(report.warnings),
        "problems": plain(report.problems),
        "build": None
        if report.build is None
        else {
            "passed": report.build.passed,
            "exit_code": report.build.exit_code,
            "timed_out": report.build.timed_out,
            "log": str(report.build.log_path),
            "sandbox": report.build.sandbox,
        },
        "log_dir": None if report.log_dir is None else str(report.log_dir),
        "error": None if report.error is None else str(report.error),
    }
    return json.dumps(document, indent=2) + "\n"
