"""Answer text -> edit objects. Pure: no file system, no guard.

The format, as the code-modification system prompt teaches it:

    ^^^path/to/file
    the whole new content, line by line
    ^^^end

    ^^^path/to/old_file
    ^^^delete

An edit block changes part of an existing file. Its first body line is ``^^^search``; it holds
one or more search/replace pairs and ends with ``^^^end``:

    ^^^path/to/big_file
    ^^^search
    lines copied from the file
    ^^^replace
    the lines to put in their place
    ^^^end

The parser only splits the pairs; `matching` finds each search text in the file.

An answer may instead hand the task back to a person (the system prompt offers it unless
``tests = "free"``): the tests contradict the query, or the failure lies outside the code.

    ^^^needs-human
    why a person must decide
    ^^^end

Such an answer is an ending, not a plan: `parse_answer` reads the whole answer (anything malformed
still refuses it) and then raises `NeedsHuman` with the reason, censored and capped at REASON_CAP
characters; its file blocks are never applied, whatever the `tests` setting (a person must look
first). A block with no ``^^^end``, an empty reason, a marker inside it or a second such block is
malformed. ``needs-human`` is a marker, never a path: a file of that name at the root cannot be named.

Any line beginning with ``^^^`` is a marker, so a content line can never begin with ``^^^``.
Prose outside blocks is ignored. Anything malformed refuses the whole answer: an unterminated
block, a marker where none belongs, ``^^^end``, ``^^^delete``, ``^^^search`` or ``^^^replace``
outside a block.

Blocks take effect in order: a later block for the same path sees the result of the earlier
ones, so writing then deleting a file deletes it, an edit block edits what the earlier blocks
wrote, and the last whole-file block wins.

A block's content is every line between its header and ``^^^end``, each with its newline, so
a written file ends with a newline unless it is empty. Line endings inside content (``\\r\\n``)
are kept byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from code_commit.answer.plan import AnswerRefused
from code_commit.errors import NeedsHuman

MARK = "^^^"
END = MARK + "end"
_DELETE = MARK + "delete"
_SEARCH = MARK + "search"
_REPLACE = MARK + "replace"
NEEDS_HUMAN = MARK + "needs-human"
REASON_CAP = 2_000  # characters of a needs-human reason kept: the console, run.log and the record show it


@dataclass(frozen=True)
class WriteFile:
    path: str
    content: str
    # The answer says the file is new (applydir's create_file): refused if it exists. The plan checks
    # that only once the guard has accepted the path, so that no answer learns what exists outside it.
    new_file: bool = False


@dataclass(frozen=True)
class DeleteFile:
    path: str


@dataclass(frozen=True)
class Replacement:
    """One search/replace pair: whole lines, each ending with a newline (as in a whole-file block)."""

    search: str
    replace: str
    line: int | None = field(default=None, compare=False)  # answer line of its ^^^search, for messages


@dataclass(frozen=True)
class EditFile:
    """Search/replace pairs for an existing file, applied in order, each to the result of the last."""

    path: str
    replacements: tuple[Replacement, ...]


Edit = WriteFile | DeleteFile | EditFile


def _marker(line: str) -> str | None:
    """The marker on a line, if it is one; a trailing CR (CRLF answers) is not part of it."""
    if not line.startswith(MARK):
        return None
    return line[:-1] if line.endswith("\r") else line


def parse_answer(text: str, censor: Callable[[str], str] | None = None) -> list[Edit]:
    """Parse a model answer into edits, in answer order; raise AnswerRefused if malformed, and
    NeedsHuman if it is well formed and hands the task back (its reason passed through `censor`, the
    run's Redactor, before it is capped: a cut never leaves half a secret the censor cannot see)."""
    edits: list[Edit] = []
    hand_back = 0  # the line of the ^^^needs-human block, once one is opened
    reason: str | None = None
    path: str | None = None
    header_line = 0
    body: list[str] = []
    pairs: list[Replacement] | None = None  # None: a whole-file block (so far)
    search: str | None = None  # an edit block's current search text, once its ^^^replace is seen
    search_line = 0
    for number, line in enumerate(text.split("\n"), start=1):
        marker = _marker(line)
        if path is None:
            if marker is None:
                continue
            if marker in (END, _DELETE, _SEARCH, _REPLACE):
                raise AnswerRefused.of(
                    "malformed", f"line {number}: {marker} outside a block; a block starts with ^^^<path>"
                )
            if marker == NEEDS_HUMAN:
                if hand_back:
                    raise AnswerRefused.of(
                        "malformed",
                        f"line {number}: a second {NEEDS_HUMAN} block (the first opened on line {hand_back}); an "
                        "answer hands the task back once, with one reason",
                    )
                hand_back = number
            path, header_line, body, pairs = marker[len(MARK) :], number, [], None
            continue
        if marker is None:
            body.append(line + "\n")
            continue
        if header_line == hand_back:
            reason = _reason(marker, body, number, hand_back)
            path = None
            continue
        where = f"inside the block for {path!r} opened on line {header_line}"
        if pairs is None:
            if marker == END:
                edits.append(WriteFile(path, "".join(body)))
                path = None
            elif marker == _DELETE and not body:
                edits.append(DeleteFile(path))
                path = None
            elif marker == _SEARCH and not body:
                pairs, search, search_line = [], None, number
            else:
                what = {_DELETE: "^^^delete after content", _SEARCH: "^^^search after content"}.get(
                    marker, repr(marker)
                )
                raise AnswerRefused.of(
                    "malformed",
                    f"line {number}: {what} {where}; a block ends with ^^^end, a content line cannot begin "
                    "with ^^^, and ^^^delete or ^^^search can only come right after the path line",
                )
        elif search is None:  # collecting a search text
            if marker != _REPLACE:
                raise AnswerRefused.of(
                    "malformed",
                    f"line {number}: {marker!r} {where}, in the search text that starts on line {search_line}; "
                    "every ^^^search needs its ^^^replace, and a content line cannot begin with ^^^",
                )
            search, body = "".join(body), []
        else:  # collecting a replacement text
            if marker not in (_SEARCH, END):
                raise AnswerRefused.of(
                    "malformed",
                    f"line {number}: {marker!r} {where}, in the replacement for the search on line {search_line}; "
                    "after a replacement comes ^^^search (the next pair) or ^^^end",
                )
            pairs.append(Replacement(search, "".join(body), search_line))
            if marker == END:
                edits.append(EditFile(path, tuple(pairs)))
                path = None
            else:
                search, body, search_line = None, [], number
    if path is not None:
        block = f"the {NEEDS_HUMAN} block" if header_line == hand_back else f"the block for {path!r}"
        raise AnswerRefused.of(
            "malformed", f"{block} opened on line {header_line} has no ^^^end (the answer may be cut off)"
        )
    if reason is not None:
        censored = censor(reason) if censor is not None else reason
        if len(censored) > REASON_CAP:
            censored = censored[:REASON_CAP] + f" [... cut: a reason is kept to its first {REASON_CAP:,} characters]"
        raise NeedsHuman(censored)
    return edits


def _reason(marker: str, body: list[str], number: int, opened: int) -> str:
    """The reason a ^^^needs-human block holds, once its `marker` (which must be ^^^end) is reached."""
    if marker != END:
        raise AnswerRefused.of(
            "malformed",
            f"line {number}: {marker!r} inside the {NEEDS_HUMAN} block opened on line {opened}; it holds only "
            "the reason, whose lines cannot begin with ^^^, and ends with ^^^end",
        )
    reason = "".join(body).strip()
    if not reason:
        raise AnswerRefused.of(
            "malformed",
            f"the {NEEDS_HUMAN} block opened on line {opened} holds no reason: say why a person must decide",
        )
    return reason


def render_answer(edits: list[Edit]) -> str:
    """The answer text for `edits`; `parse_answer(render_answer(e)) == e` for every valid edit list."""
    parts: list[str] = []
    for edit in edits:
        _check_expressible_path(edit.path)
        if isinstance(edit, DeleteFile):
            parts.append(f"{MARK}{edit.path}\n{_DELETE}\n")
        elif isinstance(edit, EditFile):
            if not edit.replacements:
                raise ValueError(f"{edit.path}: an edit block needs at least one search/replace pair")
            parts.append(f"{MARK}{edit.path}\n")
            for pair in edit.replacements:
                parts.append(
                    f"{_SEARCH}\n{_lines(edit.path, pair.search)}{_REPLACE}\n{_lines(edit.path, pair.replace)}"
                )
            parts.append(f"{END}\n")
        else:
            parts.append(f"{MARK}{edit.path}\n{_lines(edit.path, edit.content)}{END}\n")
    return "".join(parts)


def _lines(path: str, text: str) -> str:
    """`text` as block content, checked: whole lines, none of them a marker."""
    if text and not text.endswith("\n"):
        raise ValueError(f"{path}: block content must end with a newline")
    if any(line.startswith(MARK) for line in text.split("\n")):
        raise ValueError(f"{path}: a content line cannot begin with {MARK}")
    return text


def _check_expressible_path(path: str) -> None:
    """Raise ValueError for a path no block header can carry."""
    if "\n" in path:
        raise ValueError(f"{path!r}: a path cannot contain a newline")
    if path.endswith("\r"):
        raise ValueError(f"{path!r}: a path cannot end with a carriage return (it reads as part of the line break)")
    if MARK + path in (END, _DELETE, _SEARCH, _REPLACE, NEEDS_HUMAN):
        raise ValueError(f"{path!r}: {MARK}{path} is a marker, not a block header")
