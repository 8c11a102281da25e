"""Files held aside while a build runs, and put back after it, through the apply's journal.

The model's new test files are kept, but the pass is judged without them (testguard): a new test
module could patch the code under test when the runner imports it. So they are taken out of the
tree for the judged build and put back after it. The taking out is an apply that deletes them and
is never committed: its journal (a hard link to each file, the manifest naming them) stays pending
while the build runs, and `undo` puts them back after it. If code-commit dies in between, the next
command's recovery (`journal.recover`) finds the pending journal and puts them back then: nothing is
lost. A file the build put at a held path is left as the build left it, and the held file stays in
the journal, named in `_Aside.conflicts`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from code_commit.answer.plan import Change
from code_commit.apply.journal import Journal, close, undo
from code_commit.files.confined import Tree


@dataclass
class _Aside:
    paths: tuple[str, ...]
    conflicts: list[str] = field(default_factory=list)  # held files the build's own took the place of


@contextlib.contextmanager
def held_aside(root: Path, journal: Path, paths: Sequence[str]) -> Iterator[_Aside]:
    """`paths` (regular files of the project) out of the tree inside the block, back after it."""
    aside = _Aside(tuple(paths))
    with Tree(root) as tree:
        record = Journal.begin(tree, journal, [Change(path, None) for path in paths])
        try:
            for path in paths:
                tree.unlink(path)
            tree.sync()
            yield aside
        finally:
            result = undo(tree, journal, record.manifest)
            close(journal, result)
            aside.conflicts = result.conflicts
