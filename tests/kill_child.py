"""The processes tests/test_kill.py kills: each applies a plan, or recovers, and can stop at any step.

Started once per test module, this script imports the apply path (never the model SDK), then
reads one JSON command per line on stdin and forks a fresh process for each, so every
repetition is a real process killed by a real SIGKILL without paying for interpreter start-up.

A command: {"mode": "apply" | "recover", "root": ..., "changes": [...], "journal": ...,
"stop_at": n, "pause": bool}. The forked process counts the disk-changing calls (`tree.SYSCALLS`)
and before call number `stop_at` writes "stop"; with `pause` it then blocks, so the kill lands
exactly there, and without it runs on, so the kill lands wherever it has got to. Lines on stdout:
"pid <pid>", then "stop" and/or "finished <calls>" from the forked process; after the parent
sends "reap", "reaped <status>".

fsync is skipped: a killed process loses nothing the kernel already has (only a power loss
would), and this is about process death, not about the disk.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from code_commit.answer.plan import Change, Plan
from code_commit.apply.journal import recover
from code_commit.apply.transaction import apply_plan
from code_commit.files import confined as tree

CALLS = ("mkdir", "open", "write", "fsync", "fchmod", "rename", "link", "unlink", "rmdir", "syncfs")


def say(line: str) -> None:
    os.write(1, (line + "\n").encode())  # unbuffered: nothing is duplicated by fork


def instrument(stop_at: int, pause_fd: int | None) -> list[int]:
    count = [0]
    for name in CALLS:
        real = getattr(tree.Syscalls, name)

        def call(*args, _real=real, _name=name, **kwargs):
            if count[0] == stop_at:
                say("stop")
                if pause_fd is not None:
                    os.read(pause_fd, 1)  # nothing is ever written: blocks until the SIGKILL
            count[0] += 1
            return None if _name in ("fsync", "syncfs") else _real(*args, **kwargs)

        setattr(tree.SYSCALLS, name, call)
    return count


def run(command: dict, pause_fd: int) -> None:
    count = instrument(command["stop_at"], pause_fd if command["pause"] else None)
    root = Path(command["root"])
    if command["mode"] == "apply":
        changes = tuple(
            Change(c["path"], None if c["content"] is None else c["content"].encode()) for c in command["changes"]
        )
        apply_plan(root, Plan({}, changes), Path(command["journal"]))
    else:
        recover(root)
    say(f"finished {count[0]}")


def main() -> None:
    for line in sys.stdin:
        command = json.loads(line)
        pause_read, pause_write = os.pipe()
        start_read, start_write = os.pipe()
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                os.read(start_read, 1)  # not before "pid" is out: the parent needs it first
                run(command, pause_read)
            except BaseException as exc:  # reported, never silent: the parent fails the test
                say(f"error {type(exc).__name__}: {exc}")
                code = 1
            os._exit(code)
        os.close(pause_read)
        os.close(start_read)
        say(f"pid {pid}")
        os.write(start_write, b"x")
        os.close(start_write)
        # Reap only when the parent says so: until then the pid stays ours (a finished child is a
        # zombie), so the parent's SIGKILL can never reach another process.
        sys.stdin.readline()
        _, status = os.waitpid(pid, 0)
        os.close(pause_write)
        say(f"reaped {status}")


if __name__ == "__main__":
    main()
