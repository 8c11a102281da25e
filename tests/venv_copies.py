"""A project's virtualenv with packages copied from this test run's environment, as a `pip install`
would leave them (no network); copied, not linked: this environment may be under /tmp, which
sandboxed builds cannot see."""

from __future__ import annotations

import shutil
from pathlib import Path

from wheelhouse import closure


def install_copies(venv_dir: Path, *names: str) -> None:
    """The distributions and what they require (their markers evaluated here), copied into the
    virtualenv's site-packages."""
    site = next(venv_dir.glob("lib/python3*/site-packages"))
    for dist in closure(names):
        for file in dist.files or ():
            if not str(file).startswith(".."):
                target = site / file
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(dist.locate_file(file), target)
