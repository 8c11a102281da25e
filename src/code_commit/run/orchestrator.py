"""The one sequence of every command that changes the tree or builds it: the checks before anything
is written (secrets, git's index, the sandbox), the session (lock, run folder, recovery, the time
limit), then the steps the command takes in it (an answer's shielded apply, its refusal, a build),
and the record written on every ending.

A run (run/loop.py), `code-commit apply` (cli/apply.py) and `code-commit check` (cli/check.py:
build.sh run exactly as a run runs it, with no model and no key) are its users. A build the
sandbox or the setup kept from running ends each of them the same way (BuildBlocked, exit 11).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from code_commit import stops
from code_commit.answer.plan import AnswerRefused, Plan, Problem
from code_commit.apply.aside import held_aside
from code_commit.apply.transaction import apply_plan
from code_commit.builds.changes import CREATED, DELETED, MAX_FILES, Before, BuildWatch, Change
from code_commit.builds.gate import checked_build, output_text, own_change
from code_commit.builds.ran_tests import RunnerCount, runner_counts
from code_commit.builds.runner import BuildResult
from code_commit.config.paths import CONFIG_DIR
from code_commit.config.redaction import Redactor
from code_commit.config.secrets import collect_secrets
from code_commit.config.settings import Settings
from code_commit.console.output import Console
from code_commit.console.plural import count
from code_commit.errors import BuildBlocked, BuildChangedTests, InternalError, NeedsHuman
from code_commit.events.kinds import BuildStart, Observer, ignore
from code_commit.events.kinds import NeedsHuman as HandedBack
from code_commit.files.owner_only import make_private_dirs
from code_commit.git.layout import TreeListing
from code_commit.git.stash import GitFailed
from code_commit.guard.policy import check_git_index
from code_commit.logs.run_folder import (
    BASELINE_BUILD,
    BUILD_LOG,
    HELD_JOURNAL,
    JOURNAL,
    NEW_TESTS_BUILD_LOG,
    REFUSED,
    SUMMARY_FILE,
)
from code_commit.logs.run_log import RunLog, internal_error
from code_commit.run import emitted
from code_commit.run.baseline import Baseline, load, save, taken_now, tree_state
from code_commit.run.record import RunRecord, SavedWork, TestsChange
from code_commit.run.session import Session, session
from code_commit.run.signals import TimeLimit
from code_commit.run.user_work import UserWork
from code_commit.sandbox.bubblewrap import Sandbox, choose
from code_commit.testguard.counts import CountCheck, describe, judge
from code_commit.testguard.files import TestPaths
from code_commit.testguard.rule import Judged, TestChange, Touched, judge_answer, judge_build
from code_commit.testguard.runners import is_whole_runner_file

_TESTS_CHANGED = "tests_changed"  # the kind of problem of an answer refused for changing the tests
# Files the sandbox binds read-only under protect, at most: bwrap's mounts took 0.13 s for 100 and 0.8 s
# for 300 on a loaded 2-core machine (their cost grows with their number).
_MAX_READ_ONLY_TESTS = 128
_SHOWN_CHANGES = 10  # changes to the tests named on the console at most (run.log and the record have all)
_NO_CHANGES = Judged(())


def _tests_refusal(change: TestChange) -> str:
    """Why an answer that changes the tests is refused: for the model (fix the code, or hand the task
    back) and for the user (the setting that lets such a change through)."""
    return (
        f'{change}: the existing tests and the test runners\' configuration are read-only (tests = "protect"), '
        "so the whole answer was refused. Fix the code, not the tests; new test files are welcome. If the task "
        "cannot be done without this change, answer with a ^^^needs-human block that says why. (A user whose "
        'query asks for changed tests runs with --tests report, or tests = "report".)'
    )


@dataclass
class Orchestrator:
    """One command's way through the sequence, and what its steps share."""

    root: Path
    settings: Settings
    console: Console
    record: RunRecord
    limit: TimeLimit  # computed once, when the command started its watch
    redact: Redactor = field(default_factory=Redactor)
    sandbox: Sandbox | None = None  # what builds run under; None: this command builds nothing
    watch: BuildWatch | None = None  # the files git shows, whose changes by each build are reported
    reverts: bool = False  # the command puts back what its builds changed if it ends without a pass
    observe: Observer = ignore  # --events: what happens, as it happens (events/)
    warned: set[str] = field(default_factory=set)  # notes and warnings already shown, once a command
    started: float = field(default_factory=time.monotonic)
    _log: RunLog | None = None
    _test_paths: TestPaths | None = None  # made once a command, when an answer is first judged
    new_tests: set[str] = field(default_factory=set)  # test files the command's answers added: judged apart
    _existing_tests: tuple[str, ...] | None = None  # the test and runner files there before the first build
    _last_changes: list[Change] = field(default_factory=list)  # what the last build changed
    baseline: Baseline | None = None  # the runners' counts before any answer (tests = protect, report)
    baseline_changed: set[str] = field(default_factory=set)  # files git shows the baseline build changed
    _work: UserWork | None = None  # the user's uncommitted work, saved before the command writes over it
    _repository: bool = True  # the project is in a git repository (prepare says)

    @property
    def log(self) -> RunLog:
        """The run folder's log: only inside the session."""
        assert self._log is not None, "no run folder outside the session"
        return self._log

    def prepare(self, *, censored: Sequence[str] = (), builds: bool) -> TreeListing | None:
        """The checks before the session: every secret known (`censored`: the credentials', the others
        collected here), and censored from here on; git's index
        readable (the guard fails closed without it), and, when the command builds, the sandbox probed:
        `require` without a working one is a setup error here, before anything is written. Returns
        what git's index says and the files it shows, listed once (None outside a repository)."""
        secrets = collect_secrets(self.root, redact_env=self.settings.redact_env, urls=[self.settings.base_url])
        self.redact = self.console.redact = secrets.redactor(*censored)
        git = check_git_index(self.root)
        self._repository = git is not None
        if builds:
            self.sandbox = choose(self.settings.sandbox, root=self.root)
            self.record.sandbox = self.sandbox.describe()
            self.watch = BuildWatch(self.root)
        return git

    @contextlib.contextmanager
    def session(
        self,
        *,
        live: bool = False,
        begin: Callable[[RunLog], None] | None = None,
        finish: Callable[[RunLog], None] | None = None,
    ) -> Iterator[RunLog]:
        """The command's session (run/session.py). `begin(log)` adds the command's first log lines;
        `finish(log)` its own last steps, each of which may fail without stopping the record's
        being written. What ended the command, or the first step of its ending that failed, is
        raised once the record is written."""

        def started(log: RunLog) -> None:
            self._log = log
            self._work = UserWork(
                self.root, f"code-commit {log.folder.name}", self._repository, lambda: own_change(self.root, log.folder)
            )
            self.record.log_dir = log.folder
            self.observe(emitted.run_start(self.record, self.root, self.settings, self.limit.seconds, log.folder))
            self.console.info(f"run log: {log.folder.relative_to(self.root)}")
            if begin is not None:
                begin(log)
            if self.sandbox is not None:
                log.event(f"sandbox: builds run under {self.sandbox.describe()}")
                if self.sandbox.problem is not None:  # auto without a working sandbox: once, with the fix
                    self.console.warn(f"builds run without a sandbox, with your full rights: {self.sandbox.problem}")
            note = self.limit.note()
            if note is not None:
                log.event(note)
                self.console.info(note)

        def ended(ending: Session) -> None:
            self.record.error = ending.error
            self.record.duration_s = self.elapsed()
            if finish is not None:
                self.survive(lambda: finish(ending.log))
            if self.record.error is not None:
                self.survive(lambda: ending.log.event(f"{self.record.command} ended: {self.record.error}"))
            handed_back = self.record.error
            if isinstance(handed_back, NeedsHuman):
                self.survive(lambda: self.observe(HandedBack(handed_back.reason)))
            self.survive(lambda: ending.log.write_file(SUMMARY_FILE, self.record.to_json()))

        make_private_dirs(self.root / CONFIG_DIR)
        with session(
            self.root, self.settings, self.console, self.redact, self.limit, begin=started, end=ended, live=live
        ) as current:
            yield current.log
        if self.record.error is not None:  # a step of the ending failed (the record could not be written)
            raise self.record.error

    def apply(self, plan: Plan, call: int) -> None:
        """All of `plan` or none of it (AnswerRefused: it failed and everything was put back), under
        a shield: a stop that comes meanwhile waits until the apply is complete or rolled back."""
        with stops.shielded():
            self._save_work(plan, call)
            apply_plan(self.root, plan, self.log.path(call, JOURNAL))
            self.work.wrote(plan)
        self.observe(emitted.answer_applied(call, plan))
        done = ", ".join(f"{'deleted' if c.content is None else 'wrote'} {c.path}" for c in plan.changes)
        self.event(call, f"applied {done or 'nothing (every file already had that content)'}")
        for path in plan.missing_deletes:  # a delete of a file that never existed removed nothing
            self.event(call, f"delete of {path} skipped: the file does not exist")

    @property
    def work(self) -> UserWork:
        """The user's uncommitted work: only inside the session."""
        assert self._work is not None, "no writes outside the session"
        return self._work

    def _save_work(self, plan: Plan, call: int) -> None:
        """The user's uncommitted work, into git's stash before `plan` writes over any of it: where, and
        how to get it back, on the console, in run.log and in the record."""
        try:
            saved = self.work.before_write(plan, call)
        except GitFailed as exc:
            raise InternalError(
                f"your uncommitted changes could not be saved in git's stash before the answer was written "
                f"({exc}), so nothing was written: commit or stash them yourself, then run again"
            ) from exc
        if saved is None:
            return
        files = ", ".join(saved.files[:5]) + (f" and {len(saved.files) - 5} more" if len(saved.files) > 5 else "")
        note = (
            f"your uncommitted changes to {count(len(saved.files), 'file')} ({files}) are saved in git's stash as "
            f"{saved.commit[:12]} ({saved.message!r} in `git stash list`): {saved.restore}"
        )
        self.record.saved_work.append(SavedWork(saved.commit, saved.message, list(saved.files), saved.restore))
        self.event(call, f"saved: {note}")
        self.console.info(note)

    def warn_whole_over_dirty(self, plan: Plan, call: int) -> None:
        """Before an answer is reviewed or applied: the files it rewrites whole over uncommitted changes."""
        if self._work is None:
            return
        paths = self.work.whole_over_dirty(plan)
        if paths:
            self.note_once(
                f"call {call}: the answer rewrites {count(len(paths), 'file')} whole that "
                f"{'has' if len(paths) == 1 else 'have'} uncommitted changes of yours: {', '.join(paths)}. "
                "It was written against the rollup, not against your edits, which it may undo; they are saved "
                "in git's stash before it is written (see `git stash list`)"
            )

    def refuse(self, refusal: AnswerRefused, call: int) -> None:
        """The refusal's every reason in NN-refused.txt (a prompt or the console gets them capped)."""
        self.log.write(call, REFUSED, "".join(f"- {reason}\n" for reason in refusal.reasons))
        self.observe(emitted.answer_refused(call, refusal))

    def build(self, call: int) -> BuildResult:
        """build.sh, sandboxed and fingerprinted (builds/gate.py), its output in NN-build.txt; the
        record keeps it as the last build. What it changed in the files git shows is never silent:
        on the console, in run.log and in the record's `build_changed`, however the build ended.
        What it did to the tests is judged (the tests setting): under protect, a build that changed
        them raises BuildChangedTests, whatever its verdict: its code is the model's, so no pass, and
        nothing more goes to the model. Under protect the answers' new test files are held aside
        while it runs (apply/aside.py), and the existing tests and the runners' files are bound
        read-only. Raises BuildBlocked when the sandbox or the setup kept it from running
        (builds/diagnosis/): no answer can help either."""
        held = sorted(self.new_tests) if self.settings.tests == "protect" else []
        if not held:
            return self._build(call, BUILD_LOG)
        self.event(call, f"held aside while the build runs (new test files, judged apart): {', '.join(held)}")
        with held_aside(self.root, self.log.path(call, HELD_JOURNAL), held) as aside:
            try:
                return self._build(call, BUILD_LOG)
            finally:
                for conflict in aside.conflicts:
                    self.console.warn(f"a new test file could not be put back after the build: {conflict}")

    def build_new_tests(self, call: int) -> None:
        """After a pass judged without the answers' new test files: the build again with them, for
        the record (`new_tests_pass`). It cannot change the verdict, nor may it change what the
        verdict was given for: a build that changes a file git shows then, but the new tests and the
        test data they create (a snapshot), is no pass (BuildChangedTests)."""
        self.console.step(f"running build.sh again with the new test files ({', '.join(sorted(self.new_tests))})")
        result = self._build(call, NEW_TESTS_BUILD_LOG, judged=False)
        created_tests = [c.path for c in self._last_changes if c.kind == CREATED]
        tests = (
            {path for path, test in self.test_paths.check(created_tests).items() if test} if created_tests else set()
        )
        moved = [str(c) for c in self._last_changes if c.path not in self.new_tests and c.path not in tests]
        self.record.new_tests_pass = result.passed
        self.event(call, f"the new test files {'pass' if result.passed else 'fail'}: {result.describe()}")
        if result.passed:
            self.console.info(f"the new test files pass too ({result.describe()})")
        else:
            self.console.warn(f"the new test files fail ({result.describe()}): see {result.log_path}")
        if moved:
            raise BuildChangedTests(
                [f"{path}: changed by the build with the new test files, after the pass was judged" for path in moved],
                reverted=self.reverts,
            )

    def take_baseline(self) -> None:
        """Before the first answer, under protect and report: the runners' counts of this tree's own
        build (run/baseline.py), from the store, or from a build now, call 0 (which ends the command,
        as any build does, if the sandbox or the setup keeps it from running: before any paid call)."""
        if self.settings.tests == "free":
            return
        state = tree_state(self.root, self.settings)
        stored = load(self.root, state) if state is not None else None
        if stored is not None:
            self.baseline = stored
            note = f"the baseline, from {stored.by} (the same tree's build): {describe(stored.counts)}"
        else:
            self.console.step("running build.sh first: the test runners' counts before any answer (the baseline)")
            result = self._build(BASELINE_BUILD, BUILD_LOG, judged=False)
            self.baseline_changed = {change.path for change in self._last_changes}
            self.remember_baseline(state, result)
            counts = describe(self.baseline_counts or ())
            note = f"the baseline (this tree's own build, exit code {result.exit_code}): {counts}"
        self.event(BASELINE_BUILD, note)
        self.console.info(note)

    @property
    def baseline_counts(self) -> tuple[RunnerCount, ...] | None:
        return None if self.baseline is None else self.baseline.counts

    def remember_baseline(self, state: str | None, result: BuildResult) -> None:
        """`result`, a build of a tree no answer touched (its digest `state`), as the baseline: kept
        for this command, and stored for later ones of the same tree."""
        counts = runner_counts(output_text(result))
        self.baseline = taken_now(
            state or "", counts, -1 if result.exit_code is None else result.exit_code, self.log.folder.name
        )
        if state is not None:
            with own_change(self.root, self.log.folder):  # agent-config/ is watched between builds
                save(self.root, self.baseline)

    def judge_counts(self, result: BuildResult, call: int) -> CountCheck:
        """A build that exited 0, judged by the runners' own counts against the baseline
        (testguard/counts.py): into the record and run.log. Under protect a check that fails is no
        pass; under report it is named, and the pass stands."""
        passed = self.baseline is not None and self.baseline.exit_code == 0
        check = judge(self.baseline_counts, runner_counts(output_text(result)), passed)
        self.record.test_counts = check
        self.event(call, f"the runners' counts: {check.line()}: {'a pass' if check.passed else check.reason}")
        if not check.passed and self.settings.tests == "report":
            self.console.warn(f"the test runners' counts fall short (tests = report lets it pass): {check.reason}")
        return check

    def _build(self, call: int, log_name: str, *, judged: bool = True) -> BuildResult:
        assert self.sandbox is not None and self.watch is not None, "prepare(builds=True) chooses the sandbox"
        if judged:
            self.console.step("running build.sh")
        log = self.log
        build = "verdict" if judged else "new_tests" if log_name == NEW_TESTS_BUILD_LOG else "baseline"
        self.observe(BuildStart(call, build, self.sandbox.kind))
        try:
            result = checked_build(
                self.root,
                log.folder,
                log.path(call, log_name),
                log.redact,
                self.settings,
                self.sandbox,
                on_output=self.console.build_output,
                on_note=lambda note: self.warn_once(note, note),
                watch=self.watch,
                read_only=self._read_only_tests,
            )
        except BaseException:
            # What the build did is recorded however it ended, but the ending itself (a tampered
            # gate, a stop) is what the command reports: a failure to judge or report never hides it.
            with contextlib.suppress(Exception):
                self._tests_by_build(call, self.watch)
            with contextlib.suppress(Exception):
                self._report_changes(call, self.watch)
            raise
        if judged:
            self.record.last_build = result
        self._last_changes = list(self.watch.last)
        changed = self._tests_by_build(call, self.watch)
        self._report_changes(call, self.watch)
        self.event(call, result.describe())
        if self.observe is not ignore:  # the runners' counts are read for the stream only
            self.observe(emitted.build_end(call, build, result, runner_counts(output_text(result))))
        if changed and self.settings.tests == "protect":
            raise BuildChangedTests([str(change) for change in changed], reverted=self.reverts)
        if result.diagnosis is not None:
            self.record.diagnosis = result.diagnosis
            self.observe(emitted.diagnosis(call, result.diagnosis))
            self.event(call, f"kept from running: {result.diagnosis.line()}")
            self.event(call, f"read from this line of its output: {result.diagnosis.evidence}")
            raise BuildBlocked(result.diagnosis)
        return result

    def _read_only_tests(self, shown: list[str] | None) -> list[str]:
        """Under protect: the runners' whole files and the test files there before the command's first
        build (not what builds made since), among those git shows, for the sandbox to bind
        read-only, the runners' first. A shared file (package.json, which `npm install x` rewrites)
        is judged after the build instead. At most MAX_READ_ONLY_TESTS: each bind is a mount, and
        their cost grows with their number; the rest are checked after the build."""
        if self.settings.tests != "protect" or not shown:
            return []
        if self._existing_tests is None:
            try:
                verdicts = self.test_paths.check(shown)
            except OSError:  # git cannot say: the check after the build judges every file as a test
                verdicts = {}
            runners = [path for path in shown if is_whole_runner_file(path)]
            tests = [path for path in shown if verdicts.get(path) is not None]
            self._existing_tests = tuple(dict.fromkeys([*runners, *tests]))
        present = set(shown)
        chosen = [path for path in self._existing_tests if path in present and path not in self.new_tests]
        if len(chosen) > _MAX_READ_ONLY_TESTS:
            self.note_once(
                f"the sandbox binds {_MAX_READ_ONLY_TESTS} of the {len(chosen):,} test and runner files read-only "
                "(each is a mount); what a build does to the others is seen after it"
            )
        return chosen[:_MAX_READ_ONLY_TESTS]

    def _report_changes(self, call: int, watch: BuildWatch) -> None:
        self.record.build_changed = [str(change) for change in watch.net()]
        if watch.truncated:
            self.warn_once(
                "the build's changes are looked for in the first files git lists only: there are more",
                f"only the first {MAX_FILES:,} files git shows are watched for changes a build makes",
            )
        if watch.last:
            changed = ", ".join(str(change) for change in watch.last)
            self.event(call, f"the build changed files git shows, beyond the answer: {changed}")
            self.console.warn(
                f"the build changed {count(len(watch.last), 'file')} git shows, beyond the answer: "
                + _by_folder(watch.last)
            )
            watch.last = []

    def _tests_by_build(self, call: int, watch: BuildWatch) -> list[TestChange]:
        """What the last build did to the tests, under the `tests` setting (free: nothing is read):
        into the record and run.log, and under report on the console; the changes."""
        mode = self.settings.tests
        if mode == "free" or not watch.last:
            return []
        touched = [
            Touched(
                c.path,
                c.kind != CREATED,
                c.kind != DELETED,
                c.before.size if c.before else 0,
                _reader(self.root, c.before),
            )
            for c in watch.last
        ]
        now = {change.path for change in watch.last if change.kind == CREATED}
        made = {c.path for c in watch.net() if c.kind == CREATED} - now  # by the command's earlier builds
        judged = judge_build(self.root, touched, self.new_tests | made, self.test_paths)
        self._unanswered(judged.unanswered, "a build")
        if judged.unread:
            self.note_once(
                f"{count(judged.unread, 'file')} the build changed that can hold tests could not be read to say "
                "whether it changed them (past the read budget, or what they held was not kept)"
            )
        changes = list(judged.changes)
        allowed = mode == "report"
        self._record_tests(changes, call, "build", allowed=allowed)
        for change in changes:
            self.event(call, f"the build changed the tests{' (tests = report)' if allowed else ''}: {change}")
        if changes and allowed:
            self.console.warn(f"the build changed the tests; tests = report lets it through:{_listing(changes)}")
        return changes

    @property
    def test_paths(self) -> TestPaths:
        """Which files are tests: made once a command, when a change is first judged."""
        if self._test_paths is None:
            self._test_paths = TestPaths(self.settings.test_patterns, self.settings.test_patterns_mode)
        return self._test_paths

    def judge_tests(self, plan: Plan, call: int, created: Collection[str] = (), *, shown: bool = True) -> Judged:
        """What applying `plan` would do to the tests, under the `tests` setting. protect: an answer
        that changes an existing test or a runner's configuration is refused (AnswerRefused, one
        problem per change, each in the record); report: the changes, named on the console (`shown`),
        for `tests_let_through` once applied; free: nothing is read. `created`: the files this
        command's answers created (a test among them is the model's own, to change as it likes)."""
        if self.settings.tests == "free" or not plan.changes:
            return _NO_CHANGES
        proposed = {c.path: c.content for c in plan.changes}
        judged = judge_answer(self.root, proposed, {*created, *self.new_tests}, self.test_paths)
        self._unanswered(judged.unanswered, "an answer")
        if not judged.changes:
            return judged
        if self.settings.tests == "protect":
            self._record_tests(judged.changes, call, "answer", allowed=False)
            if self._log is not None:
                self.event(call, f"refused: it changes the tests ({count(len(judged.changes), 'change')})")
            raise AnswerRefused([Problem(_TESTS_CHANGED, _tests_refusal(c), c.path) for c in judged.changes])
        if shown:
            self.console.warn(
                f"the answer changes the tests; tests = report lets it through:{_listing(judged.changes)}"
            )
        return judged

    def _unanswered(self, why: str | None, who: str) -> None:
        if why is not None:
            self.note_once(
                f"git could not say which files are tests ({why}): every file {who} changes is judged as a test"
            )

    def tests_let_through(self, judged: Judged, plan: Plan, call: int) -> None:
        """An applied (or, checking only, acceptable) answer: its changes to the tests, which `tests =
        report` lets through, into the record and run.log; the new test files it added, kept apart."""
        self._record_tests(judged.changes, call, "answer", allowed=True)
        if self._log is not None:
            for change in judged.changes:
                self.event(call, f"changes the tests (tests = report): {change}")
        self.new_tests.update(judged.new_tests)
        self.new_tests.difference_update(c.path for c in plan.changes if c.content is None)
        self.record.new_tests = sorted(self.new_tests)
        if judged.new_tests and self._log is not None:
            self.event(call, f"new test files, judged apart from the pass: {', '.join(judged.new_tests)}")

    def _record_tests(self, changes: Sequence[TestChange], call: int, by: str, *, allowed: bool) -> None:
        self.record.tests_changed += [TestsChange(c.path, c.kind, c.what, by, call, allowed) for c in changes]

    def note_once(self, note: str) -> None:
        """A warning once a command, in run.log too once there is one."""
        self.warn_once(f"warning: {note}", note)

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def event(self, call: int, message: str) -> None:
        """A line of run.log about one answer: `call 2: ...` in a run, `apply: ...` for a saved answer."""
        self.log.event(f"{'apply' if self.record.command == 'apply' else f'call {call}'}: {message}")

    def warn_once(self, event: str, note: str) -> None:
        """`note` on the console and `event` in run.log (once there is one), once a command however
        often it comes."""
        if note not in self.warned:
            self.warned.add(note)
            if self._log is not None:
                self._log.event(event)
            self.console.warn(note)

    def survive(self, step: Callable[[], object]) -> None:
        """A step of the ending, which must not stop the steps after it: an unexpected exception becomes
        the command's error if it has none yet (the first error is the one that explains it)."""
        try:
            step()
        except Exception as exc:
            if self.record.error is None:
                self.record.error = internal_error(exc, self.log.folder, self.log.redact)
            else:  # the first error's traceback stays; this one is only noted, if the disk lets us
                with contextlib.suppress(Exception):
                    self.log.event(f"while ending: {type(exc).__name__}: {exc}")


def _reader(root: Path, before: Before | None) -> Callable[[], bytes | None]:
    """What a file held before the build, read when asked (from git, for a clean tracked file)."""
    return lambda: before.read(root) if before is not None else None


def _by_folder(changes: Sequence[Change]) -> str:
    """Changes for the console: each named, up to _SHOWN_CHANGES; past that, the rest by top folder
    (a build tree git does not ignore holds hundreds), with a hint that run.log has them all."""
    shown = ", ".join(str(change) for change in changes[:_SHOWN_CHANGES])
    rest = changes[_SHOWN_CHANGES:]
    if not rest:
        return shown
    folders: dict[str, int] = {}
    for change in rest:
        top = change.path.split("/", 1)[0] + ("/" if "/" in change.path else "")
        folders[top] = folders.get(top, 0) + 1
    grouped = ", ".join(f"{folder} ({count(n, 'more file')})" for folder, n in sorted(folders.items()))
    hint = "; if one is a build folder, add it to .gitignore" if any(f.endswith("/") for f in folders) else ""
    return f"{shown}, and {grouped} (run.log lists them all{hint})"


def _listing(changes: Sequence[TestChange]) -> str:
    """Changes to the tests for the console, one a line, up to _SHOWN_CHANGES of them."""
    shown = "".join(f"\n- {change}" for change in changes[:_SHOWN_CHANGES])
    more = len(changes) - _SHOWN_CHANGES
    return shown + (f"\n- and {more} more (run.log and the record list them all)" if more > 0 else "")
