"""Planning (verification before any write) and the all-or-nothing, crash-safe apply.

The apply's every disk-changing call goes through `tree.SYSCALLS`; `Faults` wraps them to fail
one step, or to freeze the disk from one step on (what kill -9 does), at every step in turn.
tests/test_kill.py does the same with a real process and a real SIGKILL.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from code_commit.answer.caret_blocks import DeleteFile, EditFile, Replacement, WriteFile
from code_commit.answer.match.finding import Lines
from code_commit.answer.match.mismatch import EXPLAINED_FAILURES
from code_commit.answer.plan import AnswerRefused, ApplyFailed, Change, Plan, Problem
from code_commit.answer.planning import MatchLimits, MatchWork, plan_changes
from code_commit.apply.journal import CONFLICTS, MANIFEST, recover
from code_commit.apply.transaction import apply_plan
from code_commit.errors import RestoreFailed
from code_commit.files import confined as tree_module
from code_commit.git.layout import GitSetup
from code_commit.guard.policy import Guard

CALLS = ("mkdir", "open", "write", "fsync", "fchmod", "rename", "link", "unlink", "rmdir", "syncfs")


class Killed(BaseException):
    """The process is gone: nothing after this step reaches the disk."""


class Faults:
    """Counts the disk-changing calls; fails call number `fail_at` (and `fail_again_at`), or from
    call `freeze_at` on raises Killed. fsync and syncfs are counted but do nothing unless `real_fsync`."""

    def __init__(
        self,
        fail_at: int | None = None,
        error: int = errno.ENOSPC,
        fail_again_at: int | None = None,
        freeze_at: int | None = None,
        real_fsync: bool = False,
    ) -> None:
        self.fail_at, self.error, self.fail_again_at = fail_at, error, fail_again_at
        self.freeze_at, self.real_fsync = freeze_at, real_fsync
        self.steps: list[tuple[str, tuple]] = []

    def install(self, monkeypatch: pytest.MonkeyPatch) -> Faults:
        for name in CALLS:
            monkeypatch.setattr(tree_module.SYSCALLS, name, self._wrap(name, getattr(tree_module.Syscalls, name)))
        return self

    def _wrap(self, name: str, real: Callable) -> Callable:
        def call(*args, **kwargs):
            step = len(self.steps)
            self.steps.append((name, args))
            if self.freeze_at is not None and step >= self.freeze_at:
                raise Killed(step)
            if step in (self.fail_at, self.fail_again_at):
                raise OSError(self.error, f"{os.strerror(self.error)} (injected at step {step}, {name})")
            if name in ("fsync", "syncfs") and not self.real_fsync:
                return None
            return real(*args, **kwargs)

        return call


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / ".gitignore").write_text("/agent-config\n")
    (tmp_path / "keep.txt").write_text("same\n")
    (tmp_path / "run.sh").write_text("#!/bin/sh\necho old\n")
    (tmp_path / "run.sh").chmod(0o755)
    (tmp_path / "old.txt").write_text("old\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "guide.md").write_text("guide\n" * 1000)
    (tmp_path / "docs" / "private.txt").write_text("secret\n")
    (tmp_path / "docs" / "private.txt").chmod(0o600)
    (tmp_path / "agent-config" / "logs" / "run").mkdir(parents=True)
    return tmp_path


def journal_of(root: Path, call: int = 1) -> Path:
    return root / "agent-config" / "logs" / "run" / f"{call:02d}-journal"


def snapshot(root: Path) -> dict[str, tuple[bytes, int] | str]:
    """Every file's bytes and mode, and every directory, outside agent-config/."""
    result: dict[str, tuple[bytes, int] | str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.startswith("agent-config"):
            continue
        info = path.lstat()
        result[rel] = "dir" if stat.S_ISDIR(info.st_mode) else (path.read_bytes(), stat.S_IMODE(info.st_mode))
    return result


def pending_journals(root: Path) -> list[Path]:
    return sorted((root / "agent-config" / "logs").glob(f"*/*-journal/{MANIFEST}"))


MULTI_FILE = [
    WriteFile("run.sh", "#!/bin/sh\necho new\n"),
    WriteFile("new/dir/file.txt", "new\n"),
    DeleteFile("old.txt"),
    WriteFile("keep.txt", "changed too\n"),
    WriteFile("docs/guide.md", "rewritten\n" * 2000),
    WriteFile("new/other.txt", "other\n"),
    DeleteFile("docs/private.txt"),
    WriteFile("docs/deeper/notes.md", "notes\n"),
]


def multi_file_plan(root: Path) -> Plan:
    return plan_changes(root, MULTI_FILE, Guard(root, git=GitSetup()))  # no `git config` per case


def test_plan_is_the_net_effect_in_answer_order(root: Path) -> None:
    edits = [
        WriteFile("new.txt", "1\n"),
        WriteFile("new.txt", "2\n"),
        WriteFile("keep.txt", "same\n"),
        WriteFile("gone.txt", "x\n"),
        DeleteFile("gone.txt"),
        DeleteFile("never-existed.txt"),
        DeleteFile("old.txt"),
    ]
    plan = plan_changes(root, edits, Guard(root))
    assert plan.changes == (Change("new.txt", b"2\n"), Change("old.txt", None))
    assert plan.final == {
        "new.txt": b"2\n",
        "keep.txt": b"same\n",
        "gone.txt": None,
        "never-existed.txt": None,
        "old.txt": None,
    }
    assert plan.missing_deletes == ("gone.txt", "never-existed.txt")


def test_refusal_lists_every_refused_path_and_writes_nothing(root: Path) -> None:
    before = snapshot(root)
    edits = [
        WriteFile("fine.txt", "ok\n"),
        WriteFile("build.sh", "x\n"),
        DeleteFile(".gitignore"),
        WriteFile("../x", ""),
    ]
    with pytest.raises(AnswerRefused) as caught:
        plan_changes(root, edits, Guard(root))
    assert len(caught.value.reasons) == 3
    assert all(any(p in r for r in caught.value.reasons) for p in ("'build.sh'", "'.gitignore'", "'../x'"))
    assert snapshot(root) == before


def test_a_path_written_as_a_file_and_used_as_a_folder_is_refused(root: Path) -> None:
    with pytest.raises(AnswerRefused, match="'a/b': written as a file, but 'a/b/c' needs it to be a folder"):
        plan_changes(root, [WriteFile("a/b", "x\n"), WriteFile("a/b/c", "y\n")], Guard(root))
    # Deleting it again in the same answer is fine: the folder wins.
    plan_changes(root, [WriteFile("a/b", "x\n"), DeleteFile("a/b"), WriteFile("a/b/c", "y\n")], Guard(root))


@pytest.mark.parametrize(
    "edit",
    [
        WriteFile("docs/private.txt", "new\n"),
        EditFile("docs/private.txt", (Replacement("secret\n", "public\n"),)),
        DeleteFile("docs/private.txt"),
    ],
)
def test_a_file_that_cannot_be_read_is_refused_by_name(root: Path, monkeypatch: pytest.MonkeyPatch, edit) -> None:
    # The tests run as root, who reads anything: fail the read as it fails for another user.
    real = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self.name == "private.txt":
            raise PermissionError(errno.EACCES, "Permission denied", str(self))
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    with pytest.raises(AnswerRefused) as caught:
        plan_changes(root, [WriteFile("fine.txt", "ok\n"), edit], Guard(root, git=GitSetup()))
    (problem,) = caught.value.problems
    assert problem.kind == "unreadable" and problem.path == "docs/private.txt"
    assert problem.message.startswith("'docs/private.txt': the file cannot be read (Permission denied)")


def test_apply_writes_creates_parents_keeps_modes_and_deletes(root: Path) -> None:
    apply_plan(root, multi_file_plan(root), journal_of(root))
    assert (root / "run.sh").read_text() == "#!/bin/sh\necho new\n"
    assert stat.S_IMODE((root / "run.sh").stat().st_mode) == 0o755, "the exec bit is kept"
    assert (root / "new/dir/file.txt").read_text() == "new\n"
    assert (root / "docs/deeper/notes.md").read_text() == "notes\n"
    assert not (root / "old.txt").exists() and not (root / "docs/private.txt").exists()
    assert not [p for p in root.rglob("*.tmp")], "no temp file is left behind"
    assert not journal_of(root).exists(), "a committed journal is removed"


def test_new_files_get_the_usual_mode(root: Path) -> None:
    old = os.umask(0o027)
    try:
        apply_plan(root, plan_changes(root, [WriteFile("fresh.txt", "x\n")], Guard(root)), journal_of(root))
    finally:
        os.umask(old)
    assert stat.S_IMODE((root / "fresh.txt").stat().st_mode) == 0o640


def test_an_empty_plan_writes_no_journal(root: Path) -> None:
    apply_plan(root, plan_changes(root, [WriteFile("keep.txt", "same\n")], Guard(root)), journal_of(root))
    assert not journal_of(root).exists()


def count_steps(root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> int:
    """How many disk-changing calls the multi-file apply makes, measured on a copy."""
    return len(record_steps(root, monkeypatch, tmp_path_factory))


def record_steps(root: Path, monkeypatch: pytest.MonkeyPatch, factory: pytest.TempPathFactory) -> list[tuple]:
    copy = fresh_root(factory, root)
    with monkeypatch.context() as patch:
        faults = Faults().install(patch)
        apply_plan(copy, multi_file_plan(copy), journal_of(copy))
    return faults.steps


def step_of(steps: list[tuple], call: str, first_arg: str) -> int:
    """The number of the first `call` step whose first argument is `first_arg`."""
    return next(i for i, (name, args) in enumerate(steps) if name == call and args and str(args[0]) == first_arg)


def after_run_sh(root: Path, monkeypatch: pytest.MonkeyPatch, factory: pytest.TempPathFactory) -> int:
    """A step at which run.sh has been replaced and nothing else in the tree has: deleting old.txt."""
    return step_of(record_steps(root, monkeypatch, factory), "unlink", "old.txt")


def commit_step(steps: list[tuple]) -> int:
    """The step that deletes the manifest: the apply stands once it succeeds."""
    return next(i for i, (name, args) in enumerate(steps) if name == "unlink" and str(args[0]).endswith(MANIFEST))


def fresh_root(factory: pytest.TempPathFactory, template: Path, *, linked: bool = False) -> Path:
    """A copy of `template`, modes and hard links' contents included. `linked`: its folders made
    again, its files hard links to the template's, for a case whose apply, as every apply, only
    renames over, links or unlinks a tree file, never writes into one or changes its mode (the case
    checks that the template is unchanged after it): a third of the cost of a copy."""
    target = factory.mktemp("case")
    copy = os.link if linked else shutil.copy2
    shutil.copytree(template, target, symlinks=True, dirs_exist_ok=True, copy_function=copy)
    return target


ERRORS = [errno.ENOSPC, errno.EACCES, errno.EIO, errno.EISDIR, errno.EROFS]


def test_a_failure_at_every_step_restores_everything(
    root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    total = count_steps(root, monkeypatch, tmp_path_factory)
    assert total > 40, "the multi-file apply makes many steps; each one is a case"
    before = snapshot(root)
    plan = multi_file_plan(root)  # every case is a copy of root, so this is each case's plan
    after = None
    outcomes = {"refused": 0, "applied": 0}
    for step in range(total + 1):
        case = fresh_root(tmp_path_factory, root)
        with monkeypatch.context() as patch:
            Faults(fail_at=step, error=ERRORS[step % len(ERRORS)]).install(patch)
            try:
                apply_plan(case, plan, journal_of(case))
            except ApplyFailed as failed:
                assert "nothing was changed" in str(failed) and "injected" in str(failed)
                assert snapshot(case) == before, f"step {step}: every file restored, every new folder removed"
                outcomes["refused"] += 1
            else:
                after = after or snapshot(case)
                assert snapshot(case) == after, f"step {step}: a failure after the commit leaves the apply whole"
                outcomes["applied"] += 1
        assert not list(case.rglob("*.tmp")), f"step {step}: no temp file is left"
        assert pending_journals(case) == [], f"step {step}: the journal is closed either way"
    assert outcomes["refused"] >= total - 5 and outcomes["applied"] >= 1


def test_a_second_failure_while_undoing_is_finished_by_recover(
    root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    commit = commit_step(record_steps(root, monkeypatch, tmp_path_factory))
    before = snapshot(root)
    plan = multi_file_plan(root)  # every case is a copy of root, so this is each case's plan
    cases = 0
    for first in range(0, commit + 1, 3):
        for gap in (1, 2, 4, 8, 16):
            case = fresh_root(tmp_path_factory, root)
            with monkeypatch.context() as patch:
                Faults(fail_at=first, fail_again_at=first + gap).install(patch)
                try:
                    apply_plan(case, plan, journal_of(case))
                except RestoreFailed as failed:
                    assert "code-commit recover" in str(failed)
                    assert pending_journals(case) == [journal_of(case) / MANIFEST]
                    cases += 1
                except ApplyFailed:
                    pass  # the second failure hit a step the undo did not need
            recover(case)
            assert snapshot(case) == before, f"first failure at {first}, second {gap} later"
            assert pending_journals(case) == []
    assert cases > 0  # fewer than before: a temp file that could not be removed is tried again


def test_an_undo_that_fails_leaves_no_temp_file_in_the_tree(
    root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """A folder made read-only while an apply fails (EACCES): the undo stopped at the first temp file
    it could not remove and left the others, `.code-commit-*.tmp` files git status shows, until a
    `recover`. Each one is removed whatever another does, and a failed removal is tried again."""
    commit = commit_step(record_steps(root, monkeypatch, tmp_path_factory))
    plan = multi_file_plan(root)  # every case is a copy of root, so this is each case's plan
    before = snapshot(root)
    stray: list[str] = []
    undos_that_failed = 0
    for first in range(commit + 1):
        for gap in (1, 2, 3, 4, 8, 16):
            case = fresh_root(tmp_path_factory, root, linked=True)
            with monkeypatch.context() as patch:
                Faults(fail_at=first, error=errno.EACCES, fail_again_at=first + gap).install(patch)
                try:
                    apply_plan(case, plan, journal_of(case))
                except RestoreFailed:
                    undos_that_failed += 1
                except ApplyFailed:
                    pass
            stray += [
                f"{first}+{gap}: {p.relative_to(case)}" for p in case.rglob("*.tmp") if "agent-config" not in p.parts
            ]
    assert stray == []
    assert undos_that_failed > 0, "some second failures still stop the undo: recover finishes those"
    assert snapshot(root) == before, "no case wrote through a link into the template"


def test_a_kill_at_every_step_is_undone_by_recover(
    root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    steps = record_steps(root, monkeypatch, tmp_path_factory)
    commit = commit_step(steps)
    opened = next(i for i, (name, args) in enumerate(steps) if name == "rename" and str(args[1]).endswith(MANIFEST))
    before = snapshot(root)
    plan = multi_file_plan(root)
    new = {c.path: c.content for c in plan.changes}
    after = None
    for step in range(len(steps) + 1):
        case = fresh_root(tmp_path_factory, root)
        with monkeypatch.context() as patch:
            Faults(freeze_at=step).install(patch)
            with contextlib.suppress(Killed):
                apply_plan(case, plan, journal_of(case))
        # Killed mid-apply: each file is entirely old or entirely new, never partial.
        for rel, content in new.items():
            path = case / rel
            current = path.read_bytes() if path.is_file() else None
            original = before.get(rel)
            assert current in (content, original[0] if isinstance(original, tuple) else None), (step, rel)
        # Until the commit, the tree never differs from its original without a journal to undo it.
        if step <= opened or step > commit:
            assert pending_journals(case) == [], f"step {step}"
        elif snapshot(case) != before:
            assert pending_journals(case) != [], f"step {step}: a changed tree always has its journal"
        recover(case)
        if step <= commit:
            assert snapshot(case) == before, f"killed at step {step}: undone"
        else:
            after = after or snapshot(case)
            assert snapshot(case) == after and (case / "run.sh").read_text().endswith("new\n"), f"step {step}"
        assert not list(case.rglob("*.tmp")) and pending_journals(case) == []
        assert not journal_of(case).exists(), f"step {step}: recovery leaves no journal folder"


def test_recovery_killed_at_every_step_can_run_again(
    root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    total = count_steps(root, monkeypatch, tmp_path_factory)
    before = snapshot(root)
    killed_at = total * 2 // 3  # most files already replaced
    template = fresh_root(tmp_path_factory, root)
    with monkeypatch.context() as patch:
        Faults(freeze_at=killed_at).install(patch)
        with pytest.raises(Killed):
            apply_plan(template, multi_file_plan(template), journal_of(template))
    with monkeypatch.context() as patch:
        counter = Faults().install(patch)
        recover(fresh_root(tmp_path_factory, template))
    assert len(counter.steps) > 10
    for step in range(len(counter.steps) + 1):
        case = fresh_root(tmp_path_factory, template)
        with monkeypatch.context() as patch:
            Faults(freeze_at=step).install(patch)
            with contextlib.suppress(Killed):
                recover(case)
        recover(case)
        assert snapshot(case) == before, f"recovery killed at step {step}"
        assert pending_journals(case) == [] and not list(case.rglob("*.tmp"))


def test_an_interrupt_during_the_apply_undoes_it(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = snapshot(root)
    real_rename = tree_module.Syscalls.rename
    calls = []

    def rename(*args, **kwargs):
        calls.append(args)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real_rename(*args, **kwargs)

    monkeypatch.setattr(tree_module.SYSCALLS, "rename", rename)
    with pytest.raises(KeyboardInterrupt):
        apply_plan(root, multi_file_plan(root), journal_of(root))
    assert snapshot(root) == before and pending_journals(root) == []


def test_a_target_that_became_a_directory_fails_cleanly(root: Path) -> None:
    plan = multi_file_plan(root)
    (root / "new" / "other.txt").mkdir(parents=True)  # appears between the plan and the apply
    before = snapshot(root)
    with pytest.raises(ApplyFailed, match="nothing was changed"):
        apply_plan(root, plan, journal_of(root))
    assert snapshot(root) == before


@pytest.mark.parametrize(
    ("call", "fails", "path"),
    [
        ("open", lambda args: str(args[0]).startswith(".code-commit-") and "guide" not in str(args[0]), None),
        ("rename", lambda args: str(args[1]) == "notes.md", "docs/deeper/notes.md"),
        ("unlink", lambda args: str(args[0]) == "private.txt", "docs/private.txt"),
        ("mkdir", lambda args: str(args[0]) == "deeper", "docs/deeper"),
        ("fsync", lambda args: ".code-commit-" in os.readlink(f"/proc/self/fd/{args[0]}"), None),  # names no file
    ],
)
def test_a_failed_write_names_the_project_path(
    root: Path, monkeypatch: pytest.MonkeyPatch, call: str, fails: Callable, path: str | None
) -> None:
    """Not the temp file ('.code-commit-4dbb3981-1.tmp: Permission denied'), not a bare last component."""
    real = getattr(tree_module.Syscalls, call)
    failed: list[tuple] = []

    def failing(*args, **kwargs):
        if not failed and fails(args):
            failed.append(args)
            raise PermissionError(errno.EACCES, "Permission denied", *([] if call == "fsync" else args[:1]))
        return real(*args, **kwargs)

    monkeypatch.setattr(tree_module.SYSCALLS, call, failing)
    monkeypatch.setattr(tree_module, "syncfs_available", lambda: False)  # an fsync per file
    plan = multi_file_plan(root)
    before = snapshot(root)
    with pytest.raises(ApplyFailed) as caught:
        apply_plan(root, plan, journal_of(root))
    (message,) = caught.value.reasons
    assert failed and ".code-commit-" not in message
    named = message.removeprefix("applying the answer failed (").split(": Permission denied)")[0]
    assert named in [c.path for c in plan.changes] + ["new", "new/dir", "docs/deeper"], message
    if path is not None:
        assert named == path
    assert snapshot(root) == before


def test_a_folder_swapped_for_a_symlink_is_never_written_through(
    root: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    edits = [WriteFile("run.sh", "changed\n"), WriteFile("docs/guide.md", "x\n"), WriteFile("docs/new.md", "y\n")]
    plan = plan_changes(root, edits, Guard(root, git=GitSetup()))
    (root / "docs").rename(root / "docs-moved")
    os.symlink(outside, root / "docs")  # after the guard looked: a build can do this
    with pytest.raises(ApplyFailed, match=r"Too many levels of symbolic links|Not a directory"):
        apply_plan(root, plan, journal_of(root))
    assert list(outside.iterdir()) == [], "nothing was written outside the root"
    assert (root / "run.sh").read_text() == "#!/bin/sh\necho old\n"


def test_restored_files_are_the_original_files(
    root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    inode = (root / "run.sh").stat().st_ino
    at = after_run_sh(root, monkeypatch, tmp_path_factory)
    with monkeypatch.context() as patch:
        Faults(fail_at=at).install(patch)
        with pytest.raises(ApplyFailed):
            apply_plan(root, multi_file_plan(root), journal_of(root))
    assert (root / "run.sh").stat().st_ino == inode, "put back by rename: same file, metadata and links"


def test_without_hard_links_the_originals_are_copied(
    root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """agent-config/ on another file system: link() and rename() across it fail with EXDEV."""
    before = snapshot(root)
    real_rename = tree_module.Syscalls.rename
    copies: list[str] = []

    def link(*args, **kwargs):
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    def rename(source, *args, **kwargs):
        if "journal" in str(source) and "manifest" not in str(source):
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        return real_rename(source, *args, **kwargs)

    def opening(real: Callable) -> Callable:
        def call(path, *args, **kwargs):
            if "orig-" in str(path):
                copies.append(str(path))
            return real(path, *args, **kwargs)

        return call

    monkeypatch.setattr(tree_module.SYSCALLS, "link", link)
    monkeypatch.setattr(tree_module.SYSCALLS, "rename", rename)
    monkeypatch.setattr(tree_module.SYSCALLS, "open", opening(tree_module.Syscalls.open))
    applied = fresh_root(tmp_path_factory, root)
    apply_plan(applied, multi_file_plan(applied), journal_of(applied))
    assert (applied / "keep.txt").read_text() == "changed too\n" and len(copies) == 5
    wrapped = ("write", "fsync", "unlink", "mkdir", "rmdir", "fchmod")
    counting = Faults()
    for name in wrapped:
        monkeypatch.setattr(tree_module.SYSCALLS, name, counting._wrap(name, getattr(tree_module.Syscalls, name)))
    dry = fresh_root(tmp_path_factory, root)
    apply_plan(dry, multi_file_plan(dry), journal_of(dry))
    faults = Faults(fail_at=step_of(counting.steps, "unlink", "old.txt"))  # run.sh replaced by then
    for name in wrapped:
        monkeypatch.setattr(tree_module.SYSCALLS, name, faults._wrap(name, getattr(tree_module.Syscalls, name)))
    with pytest.raises(ApplyFailed, match="injected"):
        apply_plan(root, multi_file_plan(root), journal_of(root))
    assert snapshot(root) == before, "restored from the copies"


def test_every_changed_folder_is_fsynced_before_the_commit(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    events: list[tuple[str, str]] = []  # (call, the directory it changed or synced)

    def recording(name: str, real: Callable) -> Callable:
        def call(*args, **kwargs):
            if name == "syncfs":  # the root's whole filesystem: every directory and file on it
                events.append(("syncfs", ""))
            if name == "fsync":
                target = os.readlink(f"/proc/self/fd/{args[0]}")
                if os.path.isdir(target):
                    events.append(("fsync", target))
            elif name in ("rename", "unlink", "mkdir", "rmdir") and ("dir_fd" in kwargs or "dst_dir_fd" in kwargs):
                fd = kwargs.get("dst_dir_fd", kwargs.get("dir_fd"))
                events.append((name, os.readlink(f"/proc/self/fd/{fd}")))
            elif name == "unlink" and str(args[0]).endswith(MANIFEST):
                events.append(("commit", ""))
            elif name == "link":
                events.append(("link", str(Path(args[1]).parent)))
            elif name == "rename" and str(args[1]).endswith(MANIFEST):
                events.append(("manifest", str(Path(args[1]).parent)))
            if name == "fsync" and not os.path.isdir(os.readlink(f"/proc/self/fd/{args[0]}")):
                events.append(("fsync-file", os.path.basename(os.readlink(f"/proc/self/fd/{args[0]}"))))
            if name == "rename" and "src_dir_fd" in kwargs:
                events.append(("rename-temp", str(args[0])))
            if name == "open" and ".code-commit-" in str(args[0]):
                events.append(("stage", str(args[0])))
            return real(*args, **kwargs)

        return call

    if not os.path.exists("/proc/self/fd"):
        pytest.skip("needs /proc to name descriptors")
    for name in CALLS:
        monkeypatch.setattr(tree_module.SYSCALLS, name, recording(name, getattr(tree_module.Syscalls, name)))
    apply_plan(root, multi_file_plan(root), journal_of(root))
    commit = events.index(("commit", ""))
    changed = {d for call, d in events[:commit] if call in ("rename", "unlink", "mkdir", "rmdir")}
    assert {str(root), str(root / "docs"), str(root / "new"), str(root / "new/dir")} <= changed
    for directory in changed:
        last_change = max(i for i, (call, d) in enumerate(events[:commit]) if d == directory and call != "fsync")
        synced = {("fsync", directory), ("syncfs", "")}
        assert synced & set(events[last_change:commit]), f"{directory} is fsynced before the commit"
    journal = str(journal_of(root))
    last_link = max(i for i, event in enumerate(events) if event == ("link", journal))
    manifest = events.index(("manifest", journal))
    assert ("fsync", journal) in events[last_link:manifest], "the originals are durable before the manifest names them"
    assert ("fsync", journal) in events[manifest:commit], "and so is the manifest, before the tree is touched"
    first_tree_change = min(
        i
        for i, (call, d) in enumerate(events)
        if d.startswith(str(root)) and d != journal and not d.startswith(str(root / "agent-config")) and call != "fsync"
    )
    assert manifest < first_tree_change
    run_folder = str(journal_of(root).parent)
    assert ("fsync", run_folder) in events[manifest:first_tree_change], "the journal folder itself is findable"
    temps = [(i, name) for i, (call, name) in enumerate(events) if call == "rename-temp"]
    assert len(temps) == 6
    first_write = min(i for i, (call, _) in enumerate(events) if call == "stage")
    for i, temp in temps:
        synced = {("fsync-file", temp), ("syncfs", "")}
        assert synced & set(events[first_write:i]), f"{temp}'s content is on disk before its rename"


def test_recover_leaves_files_changed_since_and_keeps_their_originals(
    root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    at = after_run_sh(root, monkeypatch, tmp_path_factory)
    with monkeypatch.context() as patch:
        Faults(freeze_at=at).install(patch)
        with pytest.raises(Killed):
            apply_plan(root, multi_file_plan(root), journal_of(root))
    assert (root / "run.sh").read_text() == "#!/bin/sh\necho new\n", "the kill came after run.sh was replaced"
    (root / "run.sh").write_text("#!/bin/sh\necho edited by hand\n")  # the supervisor fixed it meanwhile
    report = recover(root)
    assert (root / "run.sh").read_text() == "#!/bin/sh\necho edited by hand\n", "a human's edit is never lost"
    (conflict,) = report.conflicts
    assert conflict.startswith("run.sh was changed after the interrupted apply: left as it is")
    saved = Path(conflict.split("kept in ")[1])
    assert saved.read_text() == "#!/bin/sh\necho old\n"
    assert (root / "keep.txt").read_text() == "same\n" and (root / "old.txt").read_text() == "old\n"
    assert (journal_of(root) / CONFLICTS).is_file() and pending_journals(root) == []
    assert recover(root).lines() == [], "done once: a second recovery has nothing to do"


def test_recover_removes_leftover_journal_folders(root: Path) -> None:
    leftover = journal_of(root, 3)
    leftover.mkdir()
    (leftover / "orig-0").write_text("x")
    report = recover(root)
    assert report.cleaned == [leftover] and not leftover.exists()
    assert report.lines() == []


def interrupted(root: Path, monkeypatch: pytest.MonkeyPatch, factory: pytest.TempPathFactory) -> None:
    """Kill the multi-file apply once run.sh has been replaced."""
    at = after_run_sh(root, monkeypatch, factory)
    with monkeypatch.context() as patch:
        Faults(freeze_at=at).install(patch)
        with pytest.raises(Killed):
            apply_plan(root, multi_file_plan(root), journal_of(root))


def test_recover_refuses_a_damaged_journal_and_keeps_it(
    root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    interrupted(root, monkeypatch, tmp_path_factory)
    manifest = json.loads((journal_of(root) / MANIFEST).read_text())
    (journal_of(root) / manifest["entries"][0]["saved"]).write_text("not what was there\n")
    with pytest.raises(RestoreFailed, match="damaged"):
        recover(root)
    assert pending_journals(root) == [journal_of(root) / MANIFEST]


@pytest.mark.parametrize(
    ("field", "bad"),
    [
        ("path", "../outside.txt"),
        ("path", "/etc/passwd"),
        ("path", "a//b"),
        ("saved", ".."),
        ("saved", "../../x"),
        ("temp", ".."),
        ("before", "../x"),
        ("mode", "0755"),
    ],
)
def test_recover_never_follows_a_manifest_outside_the_root(
    root: Path, monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory, field: str, bad: str
) -> None:
    interrupted(root, monkeypatch, tmp_path_factory)
    before = snapshot(root)
    manifest = json.loads((journal_of(root) / MANIFEST).read_text())
    manifest["entries"][0][field] = bad
    (journal_of(root) / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(RestoreFailed, match=r"unsafe path|unexpected file|malformed"):
        recover(root)
    assert snapshot(root) == before, "a suspicious journal is refused before anything is touched"


# --- edit blocks in the plan ---

BIG = "".join(f"line {n}\n" for n in range(1, 601))


def edit(path: str, *pairs: tuple[str, str], line: int | None = None) -> EditFile:
    return EditFile(path, tuple(Replacement(s, r, line) for s, r in pairs))


def test_an_edit_block_resolves_into_the_whole_resulting_file(root: Path) -> None:
    (root / "big.txt").write_text(BIG)
    plan = plan_changes(root, [edit("big.txt", ("line 300\nline 301\n", "line 300\nchanged\n"))], Guard(root))
    expected = BIG.replace("line 301\n", "changed\n").encode()
    assert plan.final == {"big.txt": expected}
    assert plan.changes == (Change("big.txt", expected),)


def test_edits_match_the_file_as_earlier_blocks_and_pairs_of_the_answer_left_it(root: Path) -> None:
    edits = [
        WriteFile("new.txt", "alpha\nbeta\n"),
        edit("new.txt", ("beta\n", "gamma\n"), ("gamma\n", "gamma\ndelta\n")),
        edit("keep.txt", ("same\n", "edited\n")),
        edit("keep.txt", ("edited\n", "edited twice\n")),
    ]
    plan = plan_changes(root, edits, Guard(root))
    assert plan.final == {"new.txt": b"alpha\ngamma\ndelta\n", "keep.txt": b"edited twice\n"}


def test_a_later_whole_file_block_replaces_an_edit(root: Path) -> None:
    plan = plan_changes(root, [edit("keep.txt", ("same\n", "x\n")), WriteFile("keep.txt", "whole\n")], Guard(root))
    assert plan.final == {"keep.txt": b"whole\n"}


def test_an_edit_of_the_first_line_of_a_file_with_a_utf8_bom_keeps_the_bom(root: Path) -> None:
    (root / "bom.py").write_bytes(b"\xef\xbb\xbfimport os\nx = 1\n")
    plan = plan_changes(root, [edit("bom.py", ("import os\n", "import sys\n"))], Guard(root))
    assert plan.final == {"bom.py": b"\xef\xbb\xbfimport sys\nx = 1\n"}


def test_an_edit_that_changes_nothing_is_no_change(root: Path) -> None:
    plan = plan_changes(root, [edit("keep.txt", ("same\n", "same\n"))], Guard(root))
    assert plan.changes == ()


@pytest.mark.parametrize(
    ("edits", "kind", "fragment"),
    [
        ([edit("nope.txt", ("a\n", "b\n"))], "missing_file", "does not exist; create a new file with a whole-file"),
        ([DeleteFile("old.txt"), edit("old.txt", ("old\n", "b\n"))], "missing_file", "an earlier block of this"),
        ([edit("old.txt", ("", "b\n"))], "blank_search", "anchors nothing"),
        ([edit("old.txt", ("new\n", "b\n"))], "no_match", "matches nowhere"),
        ([edit("build.sh", ("x\n", "y\n"))], "guard", "build.sh is a protected file"),
    ],
)
def test_edit_block_refusals(root: Path, edits: list, kind: str, fragment: str) -> None:
    before = snapshot(root)
    with pytest.raises(AnswerRefused) as caught:
        plan_changes(root, edits, Guard(root))
    (problem,) = caught.value.problems
    assert problem.kind == kind
    assert fragment in problem.message
    assert caught.value.reasons == [problem.message]
    assert snapshot(root) == before


def test_an_edit_block_on_a_binary_file_is_refused(root: Path) -> None:
    (root / "blob.bin").write_bytes(b"\xff\xfe\x00data\n")
    with pytest.raises(AnswerRefused) as caught:
        plan_changes(root, [edit("blob.bin", ("data\n", "x\n"))], Guard(root))
    assert caught.value.problems[0].kind == "not_text"


def test_every_failing_pair_is_reported_with_its_block_search_and_answer_line(root: Path) -> None:
    (root / "dup.txt").write_text("x\ny\nx\n")
    edits = [
        WriteFile("fine.txt", "ok\n"),
        edit("dup.txt", ("x\n", "z\n"), ("y\n", "Y\n"), ("Y!\n", "w\n"), line=7),
        DeleteFile("build.sh"),
    ]
    with pytest.raises(AnswerRefused) as caught:
        plan_changes(root, edits, Guard(root))
    ambiguous, missing, guarded = caught.value.problems
    assert (ambiguous.kind, ambiguous.block, ambiguous.search, ambiguous.answer_line) == ("ambiguous", 2, 1, 7)
    assert ambiguous.locations == (Lines(1, 1), Lines(3, 3)) and ambiguous.min_context == 2
    assert ambiguous.message.startswith("'dup.txt': block 2 (an edit block), search 1 of 3 (answer line 7): ")
    assert (missing.kind, missing.search) == ("no_match", 3)
    assert "as the earlier edits of this answer left it" in missing.message
    assert [line.number for line in missing.closest] == [2], "the file with pair 2 applied"
    assert (guarded.kind, guarded.block) == ("guard", 3)


def test_only_the_first_failures_of_an_answer_get_the_costly_parts_of_their_report(root: Path) -> None:
    """The closest lines and the unique windows each cost passes over the file: an answer of a
    thousand failing pairs a few bytes each must not pay them a thousand times. Counted, not timed:
    the matcher's work for these parts is what its first EXPLAINED_FAILURES failures alone cost."""
    (root / "dup.txt").write_text("".join(f"x\ny{i}\n" for i in range(50)))
    pairs = [("x\n", "z\n"), ("y7 changed\n", "w\n")] * 10

    def refused(edits: list[EditFile]) -> tuple[list[Problem], MatchWork]:
        work = MatchWork()
        with pytest.raises(AnswerRefused) as caught:
            plan_changes(root, edits, Guard(root), limits=MatchLimits(20, 10**7), work=work)
        return list(caught.value.problems), work

    problems, work = refused([edit("dup.txt", *pairs[:7]), edit("dup.txt", *pairs[7:])])
    assert [p.kind for p in problems] == ["ambiguous", "no_match"] * 10
    explained, rest = problems[:EXPLAINED_FAILURES], problems[EXPLAINED_FAILURES:]
    assert all(p.min_context == 2 and p.unique_around for p in explained if p.kind == "ambiguous")
    assert all(p.closest for p in explained if p.kind == "no_match")
    assert all(not p.closest and not p.unique_around and p.min_context is None for p in rest)
    assert all(len(p.locations) == 50 for p in rest if p.kind == "ambiguous"), "every place is still named"
    assert all("of an answer only" in p.message for p in rest)
    _, first = refused([edit("dup.txt", *pairs[:EXPLAINED_FAILURES])])
    costly = ("scored", "scored_chars", "hashed", "min_context")
    assert all(getattr(first.matching, name) > 0 for name in costly)
    assert [getattr(work.matching, name) for name in costly] == [getattr(first.matching, name) for name in costly]


def test_allow_delete_false_refuses_every_delete(root: Path) -> None:
    with pytest.raises(AnswerRefused) as caught:
        plan_changes(root, [DeleteFile("old.txt"), DeleteFile("ghost.txt")], Guard(root), allow_delete=False)
    assert [p.kind for p in caught.value.problems] == ["delete_disabled", "delete_disabled"]
    assert "allow_delete = false" in caught.value.reasons[0]
    assert (root / "old.txt").exists()
    # Whole-file and edit blocks are still fine.
    plan = plan_changes(root, [edit("old.txt", ("old\n", "new\n"))], Guard(root), allow_delete=False)
    assert plan.changes == (Change("old.txt", b"new\n"),)


def test_a_same_size_fix_written_within_the_second_of_its_bytecode_runs_the_new_code(tmp_path: Path) -> None:
    """Python trusts `__pycache__/calc.*.pyc` while calc.py keeps the size and whole second it recorded:
    `a - b` to `a + b` written within that second would run the old code. The apply removes the
    cache of each file it writes; a cache folder that is a symlink (a build's) is never followed."""
    import py_compile
    import subprocess
    import sys

    from code_commit.answer.plan import Change, Plan
    from code_commit.apply.transaction import apply_plan

    root = tmp_path / "project"
    (root / "pkg").mkdir(parents=True)
    source = root / "calc.py"
    source.write_text("def add(a, b):\n    return a - b\n")
    os.utime(source, (1_000_000_000, 1_000_000_000))
    py_compile.compile(str(source), cfile=str(root / "__pycache__" / f"calc.{sys.implementation.cache_tag}.pyc"))
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "mod.x.pyc").write_bytes(b"not the project's")
    (root / "pkg" / "__pycache__").symlink_to(outside)
    fixed = b"def add(a, b):\n    return a + b\n"
    apply_plan(root, Plan({}, (Change("calc.py", fixed), Change("pkg/mod.py", b"x = 1\n"))), tmp_path / "01-journal")
    os.utime(source, (1_000_000_000, 1_000_000_000))  # the same second the cache recorded
    ran = subprocess.run(
        [sys.executable, "-c", "import calc; print(calc.add(2, 3))"], cwd=root, capture_output=True, text=True
    )
    assert ran.stdout.strip() == "5", ran.stderr
    assert (outside / "mod.x.pyc").exists()
