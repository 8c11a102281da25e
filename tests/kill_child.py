"""The processes tests/apply/test_kill.py kills: each applies a plan, or recovers, and can stop at any step.

Started once per test module, this script imports the apply path (never the model SDK), then
reads one JSON command per line on stdin and forks a fresh process for each, so every
repetition is a real process killed by a real SIGKILL without paying for interpreter start-up.

A command: {"mode": "apply" | "recover", "root": ..., "changes_file": ..., "journal": ...,
"stop_at": n, "pause": bool, "stop_at_any": [[kind before, kind, n, pause], ...]}. The changes
(a JSON list of {"path", "content"}) are read from their file once, by this process, before it
forks: the answer is 0.9 MB of JSON, which every command would otherwise carry. The forked
process counts the disk-changing calls (`tree.SYSCALLS`) and says "stop <kind before> <kind> <n>"
before call number `stop_at`, or before the first call of `stop_at_any` it reaches: the n-th call
of `kind` that follows one of `kind before` ("-" for none: the first call). With `pause` it then
blocks, so the kill lands exactly there, and without it runs on, so the kill lands wherever it has
got to. Lines on stdout: "pid <pid>", then "stop ..." and/or "finished <number of calls> <their
names, comma-separated>" from the forked process; after the parent sends "reap", "reaped <status>".

fsync is skipped: a killed process loses nothing the kernel already has (only a power loss
would), and this is about process death, not about the disk.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections import Counter
from pathlib import Path

from code_commit.answer.plan import Change, Plan
from code_commit.apply.journal import recover
from code_commit.apply.transaction import apply_plan
from code_commit.files import confined as tree

CALLS = ("mkdir", "open", "write", "fsync", "fchmod", "rename", "link", "unlink", "rmdir", "syncfs")


def say(line: str) -> None:
    os.write(1, (line + "\n").encode())  # unbuffered: nothing is duplicated by fork


def instrument(command: dict, pause_fd: int) -> list[str]:
    """The names of the disk-changing calls made from now on, in order; "stop" said where `command` asks."""
    calls: list[str] = []
    seen: Counter[tuple[str, str]] = Counter()
    aimed = {(before, name, n): pause for before, name, n, pause in command.get("stop_at_any", [])}
    stopped = [False]
    for name in CALLS:
        real = getattr(tree.Syscalls, name)

        def call(*args, _real=real, _name=name, **kwargs):
            pair = (calls[-1] if calls else "", _name)
            seen[pair] += 1
            if not stopped[0]:
                at_step = len(calls) == command.get("stop_at", -1)
                pause = command["pause"] if at_step else aimed.get((*pair, seen[pair]))
                if pause is not None:
                    stopped[0] = True
                    say(f"stop {pair[0] or '-'} {_name} {seen[pair]}")
                    if pause:
                        os.read(pause_fd, 1)  # nothing is ever written: blocks until the SIGKILL
            calls.append(_name)
            return None if _name in ("fsync", "syncfs") else _real(*args, **kwargs)

        setattr(tree.SYSCALLS, name, call)
    return calls


_PLANS: dict[str, Plan] = {}  # changes file -> its plan


def plan_of(command: dict) -> Plan:
    path = command["changes_file"]
    if path not in _PLANS:
        changes = json.loads(Path(path).read_text(encoding="utf-8"))
        _PLANS[path] = Plan(
            {}, tuple(Change(c["path"], None if c["content"] is None else c["content"].encode()) for c in changes)
        )
    return _PLANS[path]


def run(command: dict, pause_fd: int) -> None:
    plan = plan_of(command) if command["mode"] == "apply" else None  # before any call is counted
    calls = instrument(command, pause_fd)
    root = Path(command["root"])
    if plan is not None:
        apply_plan(root, plan, Path(command["journal"]))
    else:
        recover(root)
    say(f"finished {len(calls)} {','.join(calls)}")


def main() -> None:
    for line in sys.stdin:
        command = json.loads(line)
        if command["mode"] == "apply":
            with contextlib.suppress(Exception):  # a failure is the forked process's to report
                plan_of(command)  # read here, once: every forked process inherits it
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
