"""The baseline: the runners' counts of the project's own build before any answer, which a pass is
judged against (testguard/counts.py).

It is taken without doubling a run's time: `code-commit check` (init's last step) and every run
store the counts of the builds they make of a tree no answer touched, under a digest of that tree,
and a later run of the same tree takes them from there. Only a run that finds none builds first
(call 0), before its first model call: a build no answer can fix then ends the run before any
paid call too.

The digest covers what the build sees of the project: every file git shows, by its content (the
index's blob for a tracked file git sees unchanged, the file's own hash for the others), and the
settings that change how the build runs. Ignored files (node_modules, a virtualenv) are not in it:
a baseline is reused across a reinstall of the dependencies. The store lives in agent-config/,
which no answer may write and no build can see.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from code_commit.builds.changes import clean_blobs
from code_commit.builds.ran_tests import RunnerCount
from code_commit.config.paths import CONFIG_DIR
from code_commit.config.settings import Settings
from code_commit.files.confined import Tree
from code_commit.files.owner_only import replace_private
from code_commit.files.setup_files import read_regular
from code_commit.git.layout import find_git_layout, list_tree
from code_commit.git.objects import blob_id, object_format

STORE = "baselines.json"  # in agent-config/
_KEPT = 16  # baselines kept, the newest
_MAX_STORE_BYTES = 1 << 20
_MAX_HASHED_BYTES = 64 << 20  # of files git shows that differ from the index: past this, no digest
_FORMAT = 1
# The settings that change what build.sh sees or may do.
_BUILD_SETTINGS = ("sandbox", "sandbox_network", "sandbox_writable", "sandbox_readable", "build_env", "tests")


@dataclass(frozen=True)
class Baseline:
    state: str  # the tree's digest
    counts: tuple[RunnerCount, ...]  # () when its output had no runner's summary
    exit_code: int
    taken: float  # seconds since the epoch
    by: str  # the run folder of the build it came from


def tree_state(root: Path, settings: Settings) -> str | None:
    """The digest of what a build of the project sees now; None when git cannot list it, or the
    files that differ from the index are more than _MAX_HASHED_BYTES."""
    layout = find_git_layout(root)
    listing = list_tree(root, layout.top)
    if listing.shown is None:
        return None
    clean = clean_blobs(root, listing.index, layout.prefix)
    fmt = object_format(root)
    digest = hashlib.sha256()
    digest.update(json.dumps({name: getattr(settings, name) for name in _BUILD_SETTINGS}, sort_keys=True).encode())
    budget = _MAX_HASHED_BYTES
    with Tree(root) as tree:
        for path in sorted(p for p in listing.shown if not p.startswith(CONFIG_DIR + "/")):
            if path in clean:
                item = clean[path]
            else:
                try:
                    data = tree.read(path, budget + 1)
                except OSError:
                    data = b""  # a symlink, a folder, gone: its absence is the state
                budget -= len(data)
                if budget < 0:
                    return None
                item = blob_id(data, fmt)
            digest.update(os.fsencode(path) + b"\0" + item.encode() + b"\n")
    return digest.hexdigest()


def _store(root: Path) -> Path:
    return root / CONFIG_DIR / STORE


def load(root: Path, state: str) -> Baseline | None:
    """The newest baseline of `state`, if one was stored (a store that cannot be read is none)."""
    for baseline in _read(root):
        if baseline.state == state:
            return baseline
    return None


def save(root: Path, baseline: Baseline) -> None:
    """`baseline` first in the store, the older ones of other states after it, _KEPT in all."""
    kept = [baseline, *(b for b in _read(root) if b.state != baseline.state)][:_KEPT]
    document = {"format": _FORMAT, "baselines": [asdict(b) for b in kept]}
    replace_private(_store(root), json.dumps(document, indent=1).encode())


def _read(root: Path) -> list[Baseline]:
    try:
        document = json.loads(read_regular(_store(root), _MAX_STORE_BYTES, follow=False))
        if document.get("format") != _FORMAT:
            return []
        return [
            Baseline(
                str(item["state"]),
                tuple(RunnerCount(**count) for count in item["counts"]),
                int(item["exit_code"]),
                float(item["taken"]),
                str(item["by"]),
            )
            for item in document["baselines"]
        ]
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return []


def taken_now(state: str, counts: Sequence[RunnerCount], exit_code: int, by: str) -> Baseline:
    return Baseline(state, tuple(counts), exit_code, time.time(), by)


def forget(root: Path) -> None:
    with contextlib.suppress(OSError):
        _store(root).unlink()
