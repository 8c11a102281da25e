"""The answer formats, one entry each: its name (--format's value and the record's), its parser, what
an answer of it is made of, and how `--format auto` recognises it. Adding a format is one entry here
plus its parser's module."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from code_commit.answer.applydir import looks_like_json, parse_applydir
from code_commit.answer.caret_blocks import Edit, parse_answer

Censor = Callable[[str], str]


@dataclass(frozen=True)
class _AnswerFormat:
    name: str
    parse: Callable[[str, Censor | None], list[Edit]]  # the text, and what censors a reason it quotes
    parts: str  # what its edits are, for "the answer has no ..."
    recognises: Callable[[str], bool]  # auto: is the text in this format? One format says so of any text


def _applydir(text: str, censor: Censor | None) -> list[Edit]:
    return parse_applydir(text)


TABLE = (
    _AnswerFormat("caret", parse_answer, "^^^ blocks", lambda text: not looks_like_json(text)),  # the model's own
    _AnswerFormat("json", _applydir, "entries", looks_like_json),
)
FORMATS = {entry.name: entry for entry in TABLE}
AUTO = "auto"  # --format's default: the format the text is in


def recognised(text: str) -> _AnswerFormat:
    """The format an answer is in, as `--format auto` decides it."""
    return next(entry for entry in TABLE if entry.recognises(text))
