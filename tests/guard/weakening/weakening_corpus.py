"""The corpus of test edits: weakening ones and legitimate ones, read from corpus/*.txt.

A corpus file is a series of cases:

    ### a skip marker added
    path: tests/test_calc.py
    expect: SKIPPED@test_add; CHECKS_REMOVED
    --- before
    <the file before>
    --- after
    <the file after>

`expect` lists the kinds of finding (`findings.What` names) separated by `;`, each optionally with
the test it must name after `@`; `nothing` marks a legitimate edit. `before: <case name>` takes an earlier case's
"before" text instead of a `--- before` section; no "before" at all is a new file, and
`--- after (deleted)` a deleted one. Lines before the first `###` are comments (licences of the
snippets, where they come from).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

CORPUS = Path(__file__).parent / "corpus"


@dataclass(frozen=True)
class Case:
    file: str
    name: str
    path: str
    expect: tuple[tuple[str, str], ...]  # (kind, test or "")
    before: bytes | None
    after: bytes | None

    @property
    def weakening(self) -> bool:
        return bool(self.expect)

    def __str__(self) -> str:
        return f"{self.file}: {self.name}"


def read_corpus(file: Path) -> list[Case]:
    cases: list[Case] = []
    befores: dict[str, bytes | None] = {}
    chunks = file.read_text(encoding="utf-8").split("\n### ")[1:]
    for chunk in chunks:
        title, _, rest = chunk.partition("\n")
        fields: dict[str, str] = {}
        sections: dict[str, str] = {}
        current = None
        lines: list[str] = []
        for line in rest.split("\n"):
            if line.startswith("--- "):
                if current is not None:
                    sections[current] = "\n".join(lines)
                current, lines = line[4:].strip(), []
            elif current is None and ": " in line:
                key, _, value = line.partition(": ")
                fields[key.strip()] = value.strip()
            elif current is not None:
                lines.append(line)
        if current is not None:
            sections[current] = "\n".join(lines)
        name = title.strip()
        assert name not in befores, f"{file.name}: case {name!r} twice"
        if "before" in sections:
            before: bytes | None = _body(sections["before"])
        elif "before" in fields:
            before = befores[fields["before"]]
        else:
            before = None
        after = None if "after (deleted)" in sections else _body(sections["after"])
        befores[name] = before
        expect = () if fields["expect"] == "nothing" else tuple(_expected(word) for word in fields["expect"].split(";"))
        cases.append(Case(file.name, name, fields["path"], expect, before, after))
    return cases


def _body(text: str) -> bytes:
    return (text.rstrip("\n") + "\n").encode("utf-8")


def _expected(word: str) -> tuple[str, str]:
    kind, _, where = word.strip().partition("@")
    return kind, where


def every_case() -> list[Case]:
    return [case for file in sorted(CORPUS.glob("*.txt")) for case in read_corpus(file)]
