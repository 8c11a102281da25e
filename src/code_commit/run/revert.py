"""What the run found on disk before it first touched each file, so `--revert-on-failure` can
put the tree back exactly, and save the run's final proposal as a patch first.

The files the run's answers wrote or deleted are recorded here, and restored; so are the files git
shows that a build changed (`build_originals`, from `builds.changes.BuildWatch`: a formatter's edit,
a test the model's code rewrote), each as it was before the run's first build changed it. What
build.sh writes where git does not look (ignored build outputs, caches) is left as it is, and so is
a supervisor's own uncommitted work that no build touched.

The build runs model-written code between the apply and the revert, and it can replace a folder
with a symlink to anywhere. So every read and write here goes through `tree.Tree`, which walks
each path from the root without following a symlink: a path that now goes through a symlink, or
ends in one, is reported and left alone, and its content never reaches the patch.
"""

from __future__ import annotations

import contextlib
import secrets
import stat
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from code_commit.answer.plan import ApplyFailed, Plan
from code_commit.apply.journal import describe_error
from code_commit.builds.changes import Before
from code_commit.files.confined import Tree
from code_commit.git.objects import object_format
from code_commit.review.diffs import Redact, change_patch
from code_commit.review.hunks import file_change


@dataclass(frozen=True)
class Original:
    path: str
    content: bytes | None  # None: the file did not exist
    mode: int
    created_dirs: tuple[str, ...] = ()  # parent directories that did not exist either, outermost first


@dataclass
class Originals:
    files: dict[str, Original] = field(default_factory=dict)

    def remember(self, root: Path, plan: Plan) -> list[str]:
        """Record the pre-run state of every file `plan` is about to change (first sight only), all
        or none; return the paths recorded now (`forget` them if the apply then fails).

        Raises ApplyFailed (the answer is refused, nothing written) if an original cannot be read:
        a change that could not be reverted is not made."""
        new = [change.path for change in plan.changes if change.path not in self.files]
        recorded: dict[str, Original] = {}
        with Tree(root) as tree:
            for path in new:
                try:
                    recorded[path] = _original(tree, path)
                except OSError as exc:
                    raise ApplyFailed(
                        f"applying the answer failed ({describe_error(exc)}): its original could not be "
                        "recorded (to revert the change if need be); nothing was changed"
                    ) from exc
        self.files.update(recorded)
        return new

    def forget(self, paths: list[str]) -> None:
        """Drop records of files an apply did not change after all (it failed and rolled back): the
        run never touched them, so they are no files it created, and no revert may touch them."""
        for path in paths:
            del self.files[path]

    def created(self) -> frozenset[str]:
        """The files the run created (they did not exist when it first touched them)."""
        return frozenset(path for path, original in self.files.items() if original.content is None)

    def patch(self, root: Path, redact: Redact) -> bytes:
        """The run's net change to the tree, as a git-style patch (`git apply` replays it), byte for
        byte (`diffs.change_patch`; `redact` censors secrets in binary files). A file that now lies
        through or at a symlink is left out (a note at the top says so): never read through."""
        notes: list[bytes] = []
        parts: list[bytes] = []
        fmt = object_format(root)
        with Tree(root) as tree:
            for path, original in sorted(self.files.items()):
                obstacle = _obstacle(tree, path)
                if obstacle is not None:
                    notes.append(f"# code-commit: {path} is left out of this patch: {obstacle}\n".encode())
                    continue
                try:
                    info = tree.lstat(path)
                    now = tree.read(path) if info is not None else None
                except OSError as exc:
                    notes.append(f"# code-commit: {path} is left out of this patch: {describe_error(exc)}\n".encode())
                    continue
                mode = original.mode if original.content is not None else (info.st_mode if info else 0o644)
                change = file_change(path, original.content, now, 0o755 if mode & stat.S_IXUSR else 0o644)
                parts.append(change_patch(change, redact, fmt))
        return b"".join(notes + parts)

    def restore(self, root: Path) -> list[str]:
        """Put every recorded file back and remove the directories the run created (deepest first,
        only if empty); return the problems met (the rest is still restored)."""
        problems = []
        token = secrets.token_hex(4)
        with Tree(root) as tree:
            for n, (path, original) in enumerate(self.files.items()):
                temp = f".code-commit-{token}-{n}.tmp"
                obstacle = _obstacle(tree, path)
                if obstacle is not None:
                    problems.append(f"{path}: {obstacle}; left as it is (a revert never follows a symlink)")
                    continue
                try:
                    _put_back(tree, path, original, temp)
                except OSError as exc:
                    with contextlib.suppress(OSError):  # the problem below is what matters
                        tree.remove_temp(path, temp)
                    problems.append(describe_error(exc))
            created = {d for original in self.files.values() for d in original.created_dirs}
            for directory in sorted(created, key=lambda d: (-d.count("/"), d)):
                with contextlib.suppress(OSError):  # not empty (something else lives there now), gone, not a folder
                    tree.rmdir(directory)
            tree.sync()
        return problems


def build_originals(
    root: Path, befores: Mapping[str, Before], skip: Collection[str] = ()
) -> tuple[Originals, list[str]]:
    """The state before the run's builds of each file they changed (but those in `skip`: the run's
    answers', whose originals are older), for a revert to restore; and, for each that cannot be put
    back (no copy kept within the budget, a symlink), the problem to report."""
    originals = Originals()
    problems = []
    for path, before in sorted(befores.items()):
        if path in skip:
            continue
        content = before.read(root) if before.known else None
        if before.symlink:
            problems.append(f"{path}: the build changed it, and it was a symlink: left as it is")
        elif not before.known or (before.blob is not None and content is None):
            problems.append(
                f"{path}: the build changed it, and no copy of it was kept (over the budget): left as it is"
            )
        else:
            originals.files[path] = Original(path, content, before.mode)
    return originals, problems


def _original(tree: Tree, path: str) -> Original:
    info = tree.lstat(path)
    if info is not None:
        return Original(path, tree.read(path), stat.S_IMODE(info.st_mode))
    created = []
    parts = path.split("/")[:-1]
    for n in range(len(parts), 0, -1):
        parent = "/".join(parts[:n])
        if tree.lstat(parent) is not None:
            break
        created.append(parent)
    return Original(path, None, 0, tuple(reversed(created)))


def _obstacle(tree: Tree, path: str) -> str | None:
    """Why `path` may not be touched now: a folder on the way, or the path itself, is a symlink or
    something else than expected. None when the way is clear (missing folders are fine)."""
    parts = path.split("/")
    for n in range(1, len(parts) + 1):
        here = "/".join(parts[:n])
        try:
            info = tree.lstat(here)
        except OSError as exc:
            return f"{here} cannot be inspected ({describe_error(exc)})"
        if info is None:
            return None  # missing from here down
        if stat.S_ISLNK(info.st_mode):
            return f"{here} is a symlink now"
        if n < len(parts) and not stat.S_ISDIR(info.st_mode):
            return f"{here} is not a folder now"
        if n == len(parts) and not stat.S_ISREG(info.st_mode):
            return f"{here} is not a regular file now"
    return None


def _put_back(tree: Tree, path: str, original: Original, temp: str) -> None:
    info = tree.lstat(path)
    if original.content is None:
        if info is not None:
            tree.unlink(path)
        return
    if info is not None and stat.S_IMODE(info.st_mode) == original.mode and tree.read(path) == original.content:
        return  # as it was: nothing to write
    parts = path.split("/")[:-1]
    for n in range(1, len(parts) + 1):  # the build may have removed a folder
        if tree.lstat("/".join(parts[:n])) is None:
            tree.mkdir("/".join(parts[:n]))
    tree.write_atomic(path, original.content, original.mode, temp)  # temp file, fsync, rename; no symlink followed
