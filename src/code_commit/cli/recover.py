"""`code-commit recover`: an apply a killed run left half done, undone from its journal, under the
project's lock. Imported only when it is the command (cli/app.py's COMMANDS)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from code_commit.apply import journal
from code_commit.config.paths import CONFIG_DIR
from code_commit.config.settings import Flags, load_settings
from code_commit.exits import EXIT
from code_commit.run.lock import ProjectLock


def command(console: Any, root: Path, flags: Flags) -> int:
    settings = load_settings(root, flags=flags).settings
    with ProjectLock.take(root / CONFIG_DIR, settings.wait_lock, console.info):
        lines = journal.recover(root, settings.protected_patterns).lines()
    for line in lines:
        console.info(line)
    if not lines:
        console.info("nothing to recover: no apply was interrupted")
    return EXIT.OK
