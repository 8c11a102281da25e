"""The outline of a source file: its top-level and class-level definitions, one `line: signature` each.

The rollup shows it for a source or test file it cannot include whole (over `rollup_max_file_size`, or
past the budget), so that no such file is only a name. Python, JavaScript, TypeScript, Java, C, C++,
Rust and Go go through their tree-sitter grammar (grammars.py); every other language, a file the
grammar cannot mostly parse, and a missing grammar, through the plain engine (plain_outline.py).
Pure: bytes in, entries out. Bounded by bytes and counts: the first MAX_OUTLINE_BYTES of a file, at
most MAX_ENTRIES entries MAX_DEPTH deep, each signature at most SIGNATURE_CAP characters.
"""

from __future__ import annotations

from dataclasses import dataclass

from code_commit.rollup.definitions import Entry
from code_commit.rollup.grammars import LANGUAGES, tree_sitter_outline
from code_commit.rollup.plain_outline import plain_outline

MAX_OUTLINE_BYTES = 2 * 2**20  # parsing is linear, about 10 ms per 100 KiB: a bigger file is outlined in part


@dataclass(frozen=True)
class Outline:
    entries: tuple[Entry, ...]
    engine: str  # "tree-sitter", "plain"

    def render(self, max_depth: int | None = None) -> str:
        """One line per entry, indented two spaces per level; `max_depth` keeps the shallower ones."""
        shown = [entry for entry in self.entries if max_depth is None or entry.depth <= max_depth]
        previous = None
        lines = []
        for entry in shown:
            line = entry.render()
            if line.partition(": ")[2] != previous:  # the same #define under five #ifs: once
                lines.append(line)
            previous = line.partition(": ")[2]
        return "".join(line + "\n" for line in lines)

    @property
    def names(self) -> frozenset[str]:
        return frozenset(entry.name for entry in self.entries if entry.name)


def _language_of(path: str) -> str | None:
    name = path.rsplit("/", 1)[-1].lower()
    return LANGUAGES.get("." + name.rsplit(".", 1)[-1]) if "." in name else None


def outline(path: str, data: bytes) -> Outline:
    """The outline of `data`, the content of the file at `path` (its extension picks the grammar)."""
    data = data[:MAX_OUTLINE_BYTES]
    language = _language_of(path)
    if language is not None:
        entries = tree_sitter_outline(language, data)
        if entries is not None:
            return Outline(tuple(entries), "tree-sitter")
    return Outline(tuple(plain_outline(data)), "plain")
