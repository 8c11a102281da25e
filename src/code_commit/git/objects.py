"""The ids git gives content: which hash the repository uses, and a blob's id in it."""

from __future__ import annotations

import contextlib
import hashlib
import re
from pathlib import Path

from code_commit.git.layout import find_git_layout


def object_format(root: Path) -> str:
    """The hash of the repository around `root`: "sha256" if it says so, else git's default "sha1"."""
    layout = find_git_layout(root)
    if layout.common_dir is None:
        return "sha1"
    with contextlib.suppress(OSError, UnicodeDecodeError):
        config = (layout.common_dir / "config").read_text(encoding="utf-8")
        if re.search(r"^\s*objectformat\s*=\s*sha256\s*$", config, re.IGNORECASE | re.MULTILINE):
            return "sha256"
    return "sha1"


def blob_id(content: bytes, fmt: str = "sha1") -> str:
    """The id git gives `content` as a blob (`git hash-object`)."""
    digest = hashlib.new("sha256" if fmt == "sha256" else "sha1")
    digest.update(b"blob %d\0" % len(content))
    digest.update(content)
    return digest.hexdigest()
