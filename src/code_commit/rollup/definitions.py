"""A definition as an outline shows it: its line, its depth, its signature on one line, its name."""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_ENTRIES = 5000  # definitions listed at most for one file
MAX_DEPTH = 4  # namespace > class > nested class > method
SIGNATURE_CAP = 200  # characters: a long constant's value or a huge parameter list is cut

_SPACES = re.compile(r"\s+")
_TIGHT = re.compile(r"(?<=[(\[]) | (?=[)\],])")


@dataclass(frozen=True)
class Entry:
    line: int  # 1-based, where the definition starts (its decorators, annotations, `export`, `template`)
    depth: int  # 0: top level; 1: a class's member; ...
    signature: str
    name: str = ""  # the defined name, where the engine knows it

    def render(self) -> str:
        return f"{'  ' * self.depth}{self.line}: {self.signature}"


def one_line(text: str) -> str:
    """A signature on one line: whitespace collapsed, the body's opening `{`, `:` or ` =` and a trailing
    `;` dropped, capped at SIGNATURE_CAP characters."""
    line = _TIGHT.sub("", _SPACES.sub(" ", text).strip()).replace(",)", ")")
    line = line.rstrip("{").rstrip().removesuffix(";").rstrip()
    if line.endswith(":") and not line.endswith("::"):
        line = line[:-1].rstrip()  # Python's `def f():`
    line = line.removesuffix(" =")
    return line if len(line) <= SIGNATURE_CAP else line[: SIGNATURE_CAP - 1] + "…"
