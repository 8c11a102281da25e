"""kill -9 during an apply of a large answer, at every kind of step, then recovery: nothing is ever half applied.

Each kill forks a real process (tests/kill_child.py) that applies a 200-file answer and SIGKILLs
it: exactly at the first step of each phase of the apply (the process waits there), and
unsynchronised from the middle of each long stretch of steps (it runs on until the signal lands,
mid-syscall included). The phases come from the calls an unkilled apply makes, so a new kind of
step in the apply is killed at too. Then the tree is checked, recovered with `code-commit
recover`'s function, and checked again. A recovery is killed too, the same way, until every kind
of its steps has been. The points are fixed, so CI runs the same cases each time; set
KILL_TEST_REPETITIONS (and KILL_TEST_SEED) to add that many kills at random steps.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from kill_child import CALLS

from code_commit.apply.journal import MANIFEST, recover
from code_commit.files import confined as tree_module

EXTRA_REPETITIONS = int(os.environ.get("KILL_TEST_REPETITIONS", "0"))
SEED = int(os.environ.get("KILL_TEST_SEED", "20261122"))
CHILD = Path(__file__).resolve().parents[1] / "kill_child.py"


@dataclass(frozen=True)
class Answer:
    """A large answer: files replaced (some executable, some large), created in new folders, deleted."""

    old: dict[str, tuple[bytes, int]]  # the tree before: path -> (bytes, mode)
    new: dict[str, bytes | None]  # what the answer sets each path to (None: deleted)

    @classmethod
    def generate(cls, rng: random.Random) -> Answer:
        old: dict[str, tuple[bytes, int]] = {}
        new: dict[str, bytes | None] = {}
        for n in range(80):
            path = f"src/pkg{n % 7}/module{n}.py"
            body = f"# module {n}\n".encode() * rng.choice([1, 10, 500, 3000])
            old[path] = (body, 0o755 if n % 5 == 0 else 0o644)
            new[path] = body.replace(b"module", b"MODULE") + b"# changed\n"
        for n in range(80):
            new[f"generated/d{n % 3}/sub{n % 2}/file{n}.txt"] = f"new file {n}\n".encode() * rng.choice([1, 50])
        for n in range(40):
            path = f"old/stale{n}.txt"
            old[path] = (f"stale {n}\n".encode(), 0o644)
            new[path] = None
        return cls(old, new)

    def changes(self) -> list[dict]:
        return [{"path": p, "content": None if c is None else c.decode()} for p, c in self.new.items()]

    def write_tree(self, root: Path) -> None:
        (root / ".gitignore").write_text("/agent-config\n")
        for path, (data, mode) in self.old.items():
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            target.chmod(mode)


def files(root: Path, folder: str = "") -> dict[str, tuple[bytes, int] | str]:
    """Every file's bytes and mode, and every folder, outside agent-config/ (os.scandir: a case reads
    the whole tree twice, and pathlib's rglob costs five times as much)."""
    found: dict[str, tuple[bytes, int] | str] = {}
    with os.scandir(os.path.join(root, folder)) as entries:
        for entry in entries:
            rel = folder + entry.name
            if rel.startswith("agent-config") or rel == ".gitignore":
                continue
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISDIR(info.st_mode):
                found[rel] = "dir"
                found |= files(root, rel + "/")
            else:
                found[rel] = (Path(entry.path).read_bytes(), stat.S_IMODE(info.st_mode))
    return found


class Child:
    """The fork server: one command per repetition."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(CHILD)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )

    def run(self, command: dict, kill: bool) -> list[str]:
        """Start the command; SIGKILL it as soon as it says "stop" if `kill`; its lines until reaped."""
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(json.dumps(command) + "\n")
        self.process.stdin.flush()
        lines: list[str] = []
        pid = None
        while True:
            line = self.process.stdout.readline().strip()
            assert line, "the fork server died"
            lines.append(line)
            if line.startswith("pid "):
                pid = int(line.split()[1])
            elif (line.startswith("stop") and kill) or line.startswith(("finished", "error")):
                assert pid is not None
                if line.startswith("stop"):
                    os.kill(pid, signal.SIGKILL)  # not reaped yet: this pid is still our process
                self.process.stdin.write("reap\n")
                self.process.stdin.flush()
                break
        while not line.startswith("reaped "):
            line = self.process.stdout.readline().strip()
            assert line, "the fork server died"
            lines.append(line)
        return lines

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


@pytest.fixture(scope="module")
def child() -> Iterator[Child]:
    server = Child()
    yield server
    server.close()


@pytest.fixture(scope="module")
def answer() -> Answer:
    return Answer.generate(random.Random(7))


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory, answer: Answer) -> Path:
    root = tmp_path_factory.mktemp("template")
    answer.write_tree(root)
    return root


def case_root(factory: pytest.TempPathFactory, template: Path) -> Path:
    root = factory.mktemp("kill")
    # Hard links: the apply only ever renames over or unlinks tree files, never writes into one.
    shutil.copytree(template, root, copy_function=os.link, dirs_exist_ok=True)
    (root / "agent-config" / "logs" / "run").mkdir(parents=True)
    return root


@pytest.fixture(scope="module")
def changes_file(tmp_path_factory: pytest.TempPathFactory, answer: Answer) -> Path:
    """The answer's changes as the fork server reads them: once, not in each of 30 commands."""
    path = tmp_path_factory.mktemp("answer") / "changes.json"
    path.write_text(json.dumps(answer.changes()), encoding="utf-8")
    return path


def apply_command(root: Path, changes_file: Path, stop_at: int, pause: bool) -> dict:
    journal = root / "agent-config" / "logs" / "run" / "01-journal"
    return {
        "mode": "apply",
        "root": str(root),
        "changes_file": str(changes_file),
        "journal": str(journal),
        "stop_at": stop_at,
        "pause": pause,
    }


def check_each_file_whole(root: Path, answer: Answer) -> None:
    """Right after the kill: every file is entirely old or entirely new, never a mix or a fragment."""
    for path, content in answer.new.items():
        try:
            now: bytes | None = Path(root, path).read_bytes()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            now = None
        old = answer.old[path][0] if path in answer.old else None
        assert now in (old, content), f"{path} is neither old nor new"


def expected_after(answer: Answer) -> dict[str, tuple[bytes, int] | str]:
    result: dict[str, tuple[bytes, int] | str] = {}
    for path, content in answer.new.items():
        if content is not None:
            mode = answer.old[path][1] if path in answer.old else 0o666 & ~current_umask()
            result[path] = (content, mode)
    for path in result.copy():
        parts = path.split("/")
        for n in range(1, len(parts)):
            result["/".join(parts[:n])] = "dir"
    return result


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def pending(root: Path) -> list[Path]:
    return list((root / "agent-config" / "logs").glob(f"*/*-journal/{MANIFEST}"))


def pairs(calls: Sequence[str]) -> list[tuple[str, str]]:
    """Each call with the kind of the call before it ("" for the first)."""
    return [(calls[step - 1] if step else "", call) for step, call in enumerate(calls)]


def phase_starts(calls: Sequence[str]) -> list[int]:
    """The steps where one kind of disk call follows another, each pair of kinds once: the first step
    of every phase (for the apply: the journal's folder and originals, the manifest, the new folders,
    the staged files, the barrier, the renames, the deletes, the sync, the commit, what follows it)."""
    seen: set[tuple[str, str]] = set()
    starts: list[int] = []
    for step, pair in enumerate(pairs(calls)):
        if pair[0] != pair[1] and pair not in seen:
            seen.add(pair)
            starts.append(step)
    return starts


def kill_points(calls: Sequence[str]) -> list[tuple[int, bool]]:
    """(step, exact): every phase killed exactly at its start, and every stretch of ten or more steps
    between two starts killed in its middle both ways: exactly, and unsynchronised, where the signal
    lands mid-phase."""
    starts = phase_starts(calls)
    if not starts:
        return []
    middles = [(a + b) // 2 for a, b in zip(starts, [*starts[1:], len(calls)], strict=True) if b - a >= 10]
    return sorted([(step, True) for step in starts + middles] + [(step, False) for step in middles])


def counted_recover(root: Path) -> list[str]:
    """Recover `root` with `code-commit recover`'s function; the disk-changing calls it made, in order."""
    calls: list[str] = []
    with pytest.MonkeyPatch.context() as patch:
        for name in CALLS:
            real = getattr(tree_module.Syscalls, name)

            def call(*args, _real=real, _name=name, **kwargs):
                calls.append(_name)
                return None if _name in ("fsync", "syncfs") else _real(*args, **kwargs)  # as in tests/kill_child.py

            patch.setattr(tree_module.SYSCALLS, name, call)
        recover(root)
    return calls


def finished_calls(lines: list[str]) -> list[str]:
    """The calls a forked process made, from its "finished" line."""
    words = next(line for line in lines if line.startswith("finished")).split()
    return words[2].split(",") if len(words) > 2 else []


Aim = tuple[str, str, bool]  # (kind of the call before, kind of call, exact): a kind of point to kill at


def aims(calls: Sequence[str]) -> dict[Aim, int]:
    """The kill points of a process that made `calls`, each as the kinds of call around it and which
    time that pair comes: how the fork server finds the same point in another such process."""
    found: dict[Aim, int] = {}
    before = pairs(calls)
    for step, exact in kill_points(calls):
        found.setdefault((*before[step], exact), before[: step + 1].count(before[step]))
    return found


def test_kill_at_every_kind_of_step_then_recover(
    child: Child, answer: Answer, changes_file: Path, template: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    before = files(template)
    after = (
        expected_after(answer)
        | {p: "dir" for p in ("src", "old")}
        | {p: v for p, v in before.items() if v == "dir" and p.startswith("src/")}
    )
    probe = case_root(tmp_path_factory, template)
    calls = finished_calls(child.run(apply_command(probe, changes_file, stop_at=-1, pause=False), kill=False))
    assert files(probe) == after, "the answer applies whole when nobody kills it"
    assert len(calls) > 500, "a large answer: many points to be killed at"
    assert set(calls) == set(CALLS) - {"rmdir"}, "every kind of disk call but rmdir (only an undo removes a folder)"

    rng = random.Random(SEED)
    points = kill_points(calls) + [(rng.randrange(len(calls)), n % 3 != 2) for n in range(EXTRA_REPETITIONS)]
    # The recoveries' kill points, learnt from the recoveries run so far; each is aimed at in the
    # recoveries that follow until one reaches it.
    recovery_aims: dict[Aim, int] = {}
    recoveries_killed: set[Aim] = set()
    outcomes = {"undone": 0, "committed": 0, "recovery killed": 0}
    for stop_at, exact in points:
        case = f"killed at step {stop_at} ({calls[stop_at]}, {'exact' if exact else 'unsynchronised'})"
        root = case_root(tmp_path_factory, template)
        lines = child.run(apply_command(root, changes_file, stop_at, pause=exact), kill=True)
        assert any(line.startswith("stop") for line in lines), (case, lines)
        assert not any(line.startswith("error") for line in lines), (case, lines)
        check_each_file_whole(root, answer)
        was_pending = bool(pending(root))
        open_aims: dict[tuple[str, str, int], bool] = {}  # one aim a point: exactly first, then unsynchronised
        for (b, k, e), n in sorted(recovery_aims.items(), key=lambda item: not item[0][2]):
            if (b, k, e) not in recoveries_killed:
                open_aims.setdefault((b, k, n), e)
        recovery: list[str] | None = None  # the calls of this case's recovery, when it ran whole
        if was_pending and open_aims:  # kill the recovery too, at the first open aim it reaches
            aimed = [[b, k, n, e] for (b, k, n), e in open_aims.items()]
            lines = child.run({"mode": "recover", "root": str(root), "stop_at_any": aimed}, kill=True)
            assert not any(line.startswith("error") for line in lines), (case, lines)
            stop = next((line.split() for line in lines if line.startswith("stop")), None)
            if stop is None:
                recovery = finished_calls(lines)
            else:
                b, k, n = stop[1].replace("-", ""), stop[2], int(stop[3])
                recoveries_killed.add((b, k, open_aims[b, k, n]))
                check_each_file_whole(root, answer)
                outcomes["recovery killed"] += 1
            recover(root)
        else:
            recovery = counted_recover(root)
        for aim, n in aims(recovery or []).items():
            recovery_aims.setdefault(aim, n)
        now = files(root)
        if was_pending:
            assert now == before, f"{case}: recovered to the old tree"
            outcomes["undone"] += 1
        else:
            assert now in (before, after), f"{case}: all old or all new"
            outcomes["committed" if now == after else "undone"] += 1
        assert pending(root) == [] and not list(root.rglob("*.code-commit-*.tmp")), case
    print(f"\n[kill -9] {len(points)} kills over {len(calls)} steps: {outcomes}")
    kinds_killed = {kind for _, kind, _ in recoveries_killed}
    assert kinds_killed == {kind for _, kind, _ in recovery_aims}, "every kind of call a recovery makes"
    assert {"unlink", "rename", "rmdir", "syncfs"} <= kinds_killed
    assert {exact for *_, exact in recoveries_killed} == {True, False}, "exactly and unsynchronised"
    assert outcomes["committed"] >= 1 and outcomes["undone"] > len(points) // 2
    assert files(template) == before, "the hard-linked template was never written into"
