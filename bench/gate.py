"""The build gate's own cost: what a build costs beyond build.sh itself, on a large repository.

Around every build the gate fingerprints what the run's integrity rests on (the tamper check) and
lists the files git shows with their stamps (the build watch), before and after. Both ask git:
the index, the refs, the files git shows, the ignore files. On a repository of 20,000 tracked
files in 400 folders, each with a .gitignore, and a build.sh that does nothing:
ours: `checked_build` with the watch, as a run calls it (sandbox off: bwrap's start is not the
gate's); reference: `run_build` alone, the same build without the gate, in the same interpreter.
Target: the gate adds at most 0.5 s a build at this size.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from .checks import require, require_tracked
from .harness import Command, Row, commit_fixture, side_by_side

FILES = 20_000
FOLDERS = 400
TARGET = 0.5  # seconds the gate may add to one build of this repository

SETUP = """
import sys
from pathlib import Path
from code_commit.builds.changes import BuildWatch
from code_commit.builds.gate import checked_build
from code_commit.builds.runner import run_build
from code_commit.sandbox.bubblewrap import NONE, Sandbox
from code_commit.config.redaction import Redactor
from code_commit.config.settings import Settings
root = Path(sys.argv[1])
run_folder = root / "agent-config" / "logs" / "bench"
run_folder.mkdir(parents=True, exist_ok=True)
"""
GATED = (
    SETUP
    + """
watch = BuildWatch(root)
result = checked_build(
    root, run_folder, run_folder / "build.txt", Redactor(), Settings(), Sandbox("off", NONE), watch=watch
)
(run_folder / "gated.txt").write_text(f"{result.exit_code} {len(watch.shown)}")
"""
)
BARE = (
    SETUP
    + """
run_build(root, run_folder / "build.txt", Redactor(), 600)
"""
)


def make_repository(root: Path, files: int = FILES, folders: int = FOLDERS) -> None:
    (root / ".gitignore").write_text("/agent-config\n")
    for n in range(files):
        folder = root / "src" / f"pkg{n % folders}"
        if n < folders:
            folder.mkdir(parents=True)
            (folder / ".gitignore").write_text("*.o\n")
        (folder / f"module{n}.py").write_text(f"VALUE = {n}\n")
    (root / "build.sh").write_text("#!/bin/sh\ntrue\n")
    (root / "build.sh").chmod(0o755)
    commit_fixture(root)


def smallest() -> list[Row]:
    return run(0, files=100)


def _watched(root: Path, files: int) -> None:
    """The gated build ran build.sh (exit 0) and its watch saw every tracked file."""
    facts = (root / "agent-config" / "logs" / "bench" / "gated.txt").read_text().split()
    require(facts[0] == "0", f"the gated build.sh did not pass (exit {facts[0]}) in {root}")
    require(int(facts[1]) >= files, f"the build watch saw {facts[1]} files of the {files} tracked in {root}")


def run(repeat: int, files: int = FILES) -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="bench-gate-") as tmp:
        root = Path(tmp)
        make_repository(root, files)
        require_tracked(root, files)
        commands = {
            "ours": Command([sys.executable, "-c", GATED, str(root)], root, check=lambda: _watched(root, files)),
            "reference": Command([sys.executable, "-c", BARE, str(root)], root),
        }
        best = side_by_side(repeat, commands)
    added = best["ours"].seconds - best["reference"].seconds
    return [
        Row.compared(
            f"build gate: tamper check and watch around one build, {files:,} files",
            f"{files:,} files",
            best,
            note=f"+{added * 1000:.0f} ms over the bare build",
            target=f"<= +{TARGET:g} s: {'met' if added <= TARGET else 'MISSED'}",
        )
    ]
