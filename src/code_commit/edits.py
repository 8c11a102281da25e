"""Answer text -> edit objects. Pure: no file system, no guard.

The format, as the code-modification system prompt teaches it:

    ^^^path/to/file
    the whole new content, line by line
    ^^^end

    ^^^path/to/old_file
    ^^^delete

Any line beginning with ``^^^`` is a marker, so a content line can never begin with ``^^^``.
Prose outside blocks is ignored. Anything malformed refuses the whole answer: an unterminated
block, a marker where none belongs, ``^^^end`` or ``^^^delete`` outside a block.

Blocks take effect in order: a later block for the same path sees the result of the earlier
ones, so writing then deleting a file deletes it, and the last whole-file block wins.

A block's content is every line between its header and ``^^^end``, each with its newline, so
a written file ends with a newline unless it is empty. Line endings inside content (``\\r\\n``)
are kept byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import AnswerRefused

MARK = "^^^"
END = MARK + "end"
DELETE = MARK + "delete"


@dataclass(frozen=True)
class WriteFile:
    path: str
    content: str


@dataclass(frozen=True)
class DeleteFile:
    path: str


Edit = WriteFile | DeleteFile


def _marker(line: str) -> str | None:
    """The marker on a line, if it is one; a trailing CR (CRLF answers) is not part of it."""
    if not line.startswith(MARK):
        return None
    return line[:-1] if line.endswith("\r") else line


def parse_answer(text: str) -> list[Edit]:
    """Parse a model answer into edits, in answer order; raise AnswerRefused if malformed."""
    edits: list[Edit] = []
    path: str | None = None
    header_line = 0
    body: list[str] = []
    for number, line in enumerate(text.split("\n"), start=1):
        marker = _marker(line)
        if path is None:
            if marker is None:
                continue
            if marker in (END, DELETE):
                raise AnswerRefused(f"line {number}: {marker} outside a block; a block starts with ^^^<path>")
            path, header_line, body = marker[len(MARK) :], number, []
            continue
        if marker is None:
            body.append(line + "\n")
        elif marker == END:
            edits.append(WriteFile(path, "".join(body)))
            path = None
        elif marker == DELETE and not body:
            edits.append(DeleteFile(path))
            path = None
        else:
            what = "^^^delete after content" if marker == DELETE else repr(marker)
            raise AnswerRefused(
                f"line {number}: {what} inside the block for {path!r} opened on line {header_line}; "
                "a block ends with ^^^end, and a content line cannot begin with ^^^"
            )
    if path is not None:
        raise AnswerRefused(
            f"the block for {path!r} opened on line {header_line} has no ^^^end (the answer may be cut off)"
        )
    return edits


def render_answer(edits: list[Edit]) -> str:
    """The answer text for `edits`; `parse_answer(render_answer(e)) == e` for every valid edit list."""
    parts: list[str] = []
    for edit in edits:
        _check_expressible_path(edit.path)
        if isinstance(edit, DeleteFile):
            parts.append(f"{MARK}{edit.path}\n{DELETE}\n")
        else:
            if edit.content and not edit.content.endswith("\n"):
                raise ValueError(f"{edit.path}: whole-file content must end with a newline")
            if any(line.startswith(MARK) for line in edit.content.split("\n")):
                raise ValueError(f"{edit.path}: a content line cannot begin with {MARK}")
            parts.append(f"{MARK}{edit.path}\n{edit.content}{END}\n")
    return "".join(parts)


def _check_expressible_path(path: str) -> None:
    """Raise ValueError for a path no block header can carry."""
    if "\n" in path:
        raise ValueError(f"{path!r}: a path cannot contain a newline")
    if path.endswith("\r"):
        raise ValueError(f"{path!r}: a path cannot end with a carriage return (it reads as part of the line break)")
    if MARK + path in (END, DELETE):
        raise ValueError(f"{path!r}: {MARK}{path} is a marker, not a block header")
