"""kill -9 during an apply of a large answer, at many points, then recovery: nothing is ever half applied.

Each repetition forks a real process (tests/kill_child.py) that applies a 200-file answer and
SIGKILLs it: at an exact disk-changing call chosen at random (the process waits there), or
unsynchronised (it runs on until the signal lands, mid-syscall included). Then the tree is
checked, recovered with `code-commit recover`'s function, and checked again. Some repetitions kill
the recovery itself too. The points come from a fixed seed, so CI runs the same cases each time;
set KILL_TEST_REPETITIONS (and KILL_TEST_SEED) to run more.
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
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from code_commit.apply.journal import MANIFEST, recover

REPETITIONS = int(os.environ.get("KILL_TEST_REPETITIONS", "60"))
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
            new[f"generated/d{n % 9}/sub{n % 4}/file{n}.txt"] = f"new file {n}\n".encode() * rng.choice([1, 50])
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


def files(root: Path) -> dict[str, tuple[bytes, int] | str]:
    found: dict[str, tuple[bytes, int] | str] = {}
    for path in root.rglob("*"):
        rel = path.relative_to(root).as_posix()
        if rel.startswith("agent-config") or rel == ".gitignore":
            continue
        info = path.lstat()
        found[rel] = "dir" if stat.S_ISDIR(info.st_mode) else (path.read_bytes(), stat.S_IMODE(info.st_mode))
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
            elif (line == "stop" and kill) or line.startswith(("finished", "error")):
                assert pid is not None
                if line == "stop":
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


def apply_command(root: Path, answer: Answer, stop_at: int, pause: bool) -> dict:
    journal = root / "agent-config" / "logs" / "run" / "01-journal"
    return {
        "mode": "apply",
        "root": str(root),
        "changes": answer.changes(),
        "journal": str(journal),
        "stop_at": stop_at,
        "pause": pause,
    }


def check_each_file_whole(root: Path, answer: Answer) -> None:
    """Right after the kill: every file is entirely old or entirely new, never a mix or a fragment."""
    for path, content in answer.new.items():
        target = root / path
        now = target.read_bytes() if target.is_file() else None
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


def test_kill_at_random_points_then_recover(
    child: Child, answer: Answer, template: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    before = files(template)
    after = (
        expected_after(answer)
        | {p: "dir" for p in ("src", "old")}
        | {p: v for p, v in before.items() if v == "dir" and p.startswith("src/")}
    )
    probe = case_root(tmp_path_factory, template)
    lines = child.run(apply_command(probe, answer, stop_at=-1, pause=False), kill=False)
    total = int(next(line for line in lines if line.startswith("finished")).split()[1])
    assert files(probe) == after, "the answer applies whole when nobody kills it"
    assert total > 500, "a large answer: many points to be killed at"

    rng = random.Random(SEED)
    outcomes = {"undone": 0, "committed": 0, "recovery killed": 0}
    for repetition in range(REPETITIONS):
        root = case_root(tmp_path_factory, template)
        exact = repetition % 3 != 2  # two in three wait at their exact step; the rest run on until killed
        stop_at = rng.randrange(total)
        lines = child.run(apply_command(root, answer, stop_at, pause=exact), kill=True)
        assert not any(line.startswith("error") for line in lines), lines
        check_each_file_whole(root, answer)
        was_pending = bool(pending(root))
        if repetition % 4 == 3 and was_pending:  # kill the recovery too, then recover again
            recovery_stop = rng.randrange(3 * len(answer.new))
            lines = child.run(
                {"mode": "recover", "root": str(root), "stop_at": recovery_stop, "pause": exact}, kill=True
            )
            assert not any(line.startswith("error") for line in lines), lines
            check_each_file_whole(root, answer)
            outcomes["recovery killed"] += 1
        recover(root)
        now = files(root)
        if was_pending:
            assert now == before, f"repetition {repetition}: killed at step {stop_at}, recovered to the old tree"
            outcomes["undone"] += 1
        else:
            assert now in (before, after), f"repetition {repetition}: killed at {stop_at}: all old or all new"
            outcomes["committed" if now == after else "undone"] += 1
        assert pending(root) == [] and not list(root.rglob("*.code-commit-*.tmp")), f"repetition {repetition}"
    print(f"\n[kill -9] {REPETITIONS} repetitions over {total} steps: {outcomes}")
    assert outcomes["undone"] > REPETITIONS // 2 and outcomes["recovery killed"] >= REPETITIONS // 8
    assert files(template) == before, "the hard-linked template was never written into"
