"""The failure's files for a repair prompt: the project files a failing build names, and what they import,
that the model cannot already see whole.

A failing build usually names the test that caught the bug, not the file to fix: in a pilot on seven
real projects, the file to fix was among the files the failure named in 9 of 44 cases, and among them
or what they import in 38 of 44. So, in order: the files the build's output names (named_files.py), in
the order of their first mention; then what those import or include (imports.py), one hop; then one
more hop from those, and through a package's face (`__init__.py`, `index.js`, `lib.rs`, `mod.rs`, a
header) once more, since a test imports the package, whose face imports the module. At most
MAX_CANDIDATES files are looked at.

A file comes in whole, or not at all, and only if it is tracked by git, not under any agent-config/,
a regular file (no symlink is followed), UTF-8 text with no secret the run censors (the rollup's
check), not already whole in the rollup nor among the file replacements, and if it fits what is left
of `cap` characters.
"""

from __future__ import annotations

import functools
import os
import posixpath
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from pathlib import Path

from code_commit.files.confined import Tree
from code_commit.files.ends import read_ends
from code_commit.llm.catalog import CHARS_PER_TOKEN_HIGH_ESTIMATE, tokens_at_most
from code_commit.rollup.imports import MAX_IMPORT_BYTES, Project, imported, subject
from code_commit.rollup.listing import excluded_dir, list_files, tool_dirs
from code_commit.rollup.named_files import named_files
from code_commit.rollup.reading import holds_secret

_MAX_CANDIDATES = 48  # files read to follow their imports, or to be shown
_HOPS = 2
_LOG_END = 2**20  # bytes of the build log's head and of its tail searched for file names
# The section takes at most this share of the rest of the prompt, but at least CONTEXT_FLOOR characters
# (a hand-made rollup may be small, and the failure's files are what the repair needs), and never more
# than half of what the model's context has left.
CONTEXT_SHARE = 0.25
CONTEXT_FLOOR = 48 * 1024
_FACES = frozenset({"__init__.py", "lib.rs", "mod.rs", *(f"index{s}" for s in (".js", ".mjs", ".cjs", ".ts", ".tsx"))})
_HEADERS = (".h", ".hh", ".hpp", ".hxx")


@dataclass(frozen=True)
class _ContextFile:
    path: str
    text: str


def context_cap(rest: int, context_window: int | None) -> int:
    """The characters the section may take, in a prompt whose other sections take `rest`."""
    cap = max(CONTEXT_FLOOR, int(rest * CONTEXT_SHARE))
    if context_window is not None:  # at most 3 characters a token: the estimate that overstates the prompt
        left = context_window * CHARS_PER_TOKEN_HIGH_ESTIMATE - tokens_at_most(rest) * CHARS_PER_TOKEN_HIGH_ESTIMATE
        cap = min(cap, max(0, int(left // 2)))
    return cap


def failure_context(
    root: Path, output: str, shown: Collection[str], replaced: Collection[str], cap: int, secrets: Sequence[str]
) -> list[_ContextFile]:
    """The files to show after the file replacements, in order, their texts adding up to at most `cap`
    characters. `output`: the build's output; `shown`: the paths whole in the rollup; `replaced`: the
    paths among the file replacements."""
    listing = list_files(root)
    tools = tool_dirs(listing.tracked)
    project = Project(
        frozenset(path.decode("utf-8", "surrogateescape") for path in listing.tracked if not excluded_dir(path, tools))
    )
    roots = tuple(dict.fromkeys((str(root), os.path.realpath(root))))
    named = [hit.path for hit in named_files(output, roots, project)]
    skip = set(shown) | set(replaced)
    encoded = tuple(secret.encode() for secret in secrets if secret)
    chosen: list[_ContextFile] = []
    left = cap
    with Tree(root) as tree:
        read = _reader(tree, max(MAX_IMPORT_BYTES, cap + 1))
        for path in _candidates(named, project, read):
            if path in skip or left <= 0:
                continue
            data = _text(read(path), left, encoded)
            if data is not None:
                chosen.append(_ContextFile(path, data))
                left -= len(data)
    return chosen


def _reader(tree: Tree, limit: int) -> Callable[[str], bytes | None]:
    """Each file read once, up to `limit` bytes (enough to follow its imports and to show it whole), or
    None when it cannot be read: the candidates' imports and the texts shown share that one read."""
    return functools.cache(lambda path: _read(tree, path, limit))


def _read(tree: Tree, path: str, limit: int) -> bytes | None:
    try:
        return tree.read(path, limit)
    except OSError:
        return None


def _candidates(named: list[str], project: Project, read: Callable[[str], bytes | None]) -> list[str]:
    """The named files; then their imports hop by hop (a package's face not counted as a hop), those that
    share a named test's subject first (`tests/test_lru.py` names `src/pkg/_lru.py`)."""
    order = list(dict.fromkeys(named))[:_MAX_CANDIDATES]
    first = len(order)
    frontier = list(order)
    seen = set(order)
    for hop in range(_HOPS + 1):
        following = []
        for path in frontier:
            last_hop = hop == _HOPS
            if last_hop and not _is_face(path):
                continue
            data = read(path)
            if data is None:
                continue
            for found in imported(path, data[:MAX_IMPORT_BYTES], project):
                if found not in seen and len(order) < _MAX_CANDIDATES:
                    seen.add(found)
                    order.append(found)
                    following.append(found)
        frontier = following
    subjects = {subject(path) for path in named} - {""}
    return order[:first] + sorted(order[first:], key=lambda path: subject(path) not in subjects)


def _is_face(path: str) -> bool:
    return posixpath.basename(path) in _FACES or path.endswith(_HEADERS)


def _text(data: bytes | None, limit: int, secrets: tuple[bytes, ...]) -> str | None:
    if data is None or len(data) > limit or b"\0" in data or holds_secret(data, secrets):
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def read_build_log(path: Path) -> str:
    """The build log's first and last _LOG_END bytes (all of it when shorter): the capped build output of
    the prompt may have cut the traceback that names the file."""
    try:
        ends = read_ends(path, _LOG_END, _LOG_END)
    except OSError:
        return ""
    return (ends.head + (b"\n" if ends.left_out else b"") + ends.tail).decode("utf-8", "replace")
