"""applydir's JSON answers -> the same edit objects as the ^^^ format. Pure.

    [
      {"file": "src/main.py", "action": "replace_lines",
       "changes": [{"original_lines": ["def f():", "    return 1"], "changed_lines": ["def f():", "    return 2"]}]},
      {"file": "src/new.py", "action": "create_file", "changes": [{"original_lines": [], "changed_lines": ["x = 1"]}]},
      {"file": "src/old.py", "action": "delete_file"}
    ]

- The document is the whole answer, or the one fenced Markdown block in it tagged json or whose
  body starts with '[' (prose around it is ignored: models explain themselves). An answer with
  several such blocks is refused: which one the model meant is a guess.
- `action` defaults to `replace_lines`. Each change becomes a search/replace pair of one edit
  block, matched like any other (`matching`): `original_lines` is the search text,
  `changed_lines` the replacement.
- `create_file` (or `replace_lines` whose every `original_lines` is empty, as applydir allows)
  becomes a whole-file block of the `changed_lines`, which must not be empty, marked as a new
  file: the plan refuses it if the file exists (once the guard has accepted the path).
- `delete_file` becomes a delete block; `changes` is ignored.
- Lines are strings without their newline (a trailing "\\n" is tolerated and dropped).
  Unknown keys are ignored. Every structural mistake is reported, each naming its entry.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from code_commit.answer.caret_blocks import MARK, DeleteFile, Edit, EditFile, Replacement, WriteFile
from code_commit.answer.plan import AnswerRefused

_ACTIONS = ("replace_lines", "create_file", "delete_file")


def looks_like_json(text: str) -> bool:
    """Whether an answer is applydir JSON rather than ^^^ blocks: it starts with '[', or it has no
    ^^^ line and holds a fenced block of JSON (one a ^^^ answer holds is file content)."""
    if text.strip().startswith("["):
        return True
    if any(line.startswith(MARK) for line in text.split("\n")):
        return False
    return bool(_json_fences(text))


@dataclass(frozen=True)
class _Fence:
    """A fenced code block of an answer that may hold the applydir document."""

    first_line: int  # the answer line of its first body line, from 1
    body: str


def _opening(line: str) -> tuple[str, str] | None:
    """(fence marker, info word) if the stripped line opens a fenced block: three or more backticks
    or tildes, then an info string (for backticks, one without a backtick). By hand, in one pass:
    the regex it replaced backtracked quadratically on a long line that ends in a backtick."""
    char = line[:1]
    if char not in ("`", "~"):
        return None
    marker = line[: len(line) - len(line.lstrip(char))]
    info = line[len(marker) :]
    if len(marker) < 3 or (char == "`" and "`" in info):
        return None
    words = info.split(maxsplit=1)
    return marker, words[0] if words else ""


def _json_fences(text: str) -> list[_Fence]:
    """The Markdown fenced blocks tagged json or whose body starts with '[' (an applydir document
    is an array). A fence left open runs to the end of the answer, as in Markdown."""
    fences: list[_Fence] = []
    lines = text.split("\n")
    number = 0
    while number < len(lines):
        opening = _opening(lines[number].strip())
        number += 1
        if opening is None:
            continue
        marker, info = opening[0], opening[1].lower()
        body_start = number
        while number < len(lines):
            closing = lines[number].strip()
            number += 1
            if closing.startswith(marker[0] * len(marker)) and not closing.strip(marker[0]):
                body = "\n".join(lines[body_start : number - 1])
                break
        else:
            body = "\n".join(lines[body_start:])
        if info == "json" or body.strip().startswith("["):
            fences.append(_Fence(body_start + 1, body))
    return fences


def _document(text: str) -> tuple[str, int]:
    """The applydir document of an answer and the answer line it starts on: the whole answer if
    it starts as JSON does, else the one fenced JSON block in it. Prose around a fence is ignored,
    but with several fenced JSON blocks the answer is refused rather than one of them guessed at."""
    if text.strip().startswith(("[", "{")):
        return text.strip(), len(text[: len(text) - len(text.lstrip())].split("\n"))
    fences = _json_fences(text)
    if len(fences) == 1:
        return fences[0].body, fences[0].first_line
    if fences:
        where = ", ".join(str(fence.first_line - 1) for fence in fences)
        raise AnswerRefused.of(
            "malformed",
            f"the answer has {len(fences)} fenced JSON blocks (opening on lines {where}); it must hold "
            "exactly one applydir document, so none of them is applied",
        )
    raise AnswerRefused.of(
        "malformed",
        "the answer holds no applydir JSON: a JSON array of file objects, alone or in one ```json "
        "fenced block; if it is a ^^^ answer, pass --format caret",
    )


def parse_applydir(text: str) -> list[Edit]:
    """Map an applydir JSON answer onto edits; raise AnswerRefused listing every structural problem."""
    document, first_line = _document(text)
    try:
        data = json.loads(document)
    except json.JSONDecodeError as exc:
        raise AnswerRefused.of(
            "malformed",
            f"the answer is not valid JSON ({exc.msg} at line {first_line + exc.lineno - 1}, column {exc.colno}); "
            "if it is a ^^^ answer, pass --format caret",
        ) from exc
    except RecursionError as exc:  # json's decoder recurses once per level of nesting
        raise AnswerRefused.of(
            "malformed", "the answer's JSON is nested too deeply to be an applydir document"
        ) from exc
    except ValueError as exc:  # an integer of over 4,300 digits: Python refuses to convert it
        raise AnswerRefused.of("malformed", f"the answer's JSON holds a value Python cannot read ({exc})") from exc
    if not isinstance(data, list):
        raise AnswerRefused.of("malformed", "the JSON answer must be an array of file objects")
    problems: list[str] = []
    edits: list[Edit] = []
    for number, entry in enumerate(data, start=1):
        where = f"entry {number}"
        if not isinstance(entry, dict):
            problems.append(f"{where}: must be an object with a 'file' key")
            continue
        path = entry.get("file")
        if not isinstance(path, str) or not path:
            problems.append(f"{where}: 'file' must be a non-empty string (a path relative to the project root)")
            continue
        where = f"entry {number} ({path!r})"
        action = entry.get("action", "replace_lines")
        if not isinstance(action, str):
            problems.append(
                f"{where}: 'action' must be one of {', '.join(_ACTIONS)} (or left out: {_ACTIONS[0]}), "
                f"not {json.dumps(action)}"
            )
            continue
        if action not in _ACTIONS:
            problems.append(f"{where}: unknown action {action!r}; use one of {', '.join(_ACTIONS)}")
            continue
        if action == "delete_file":
            edits.append(DeleteFile(path))
            continue
        changes = _changes(entry.get("changes"), where, problems)
        if changes is None:
            continue
        creating = action == "create_file" or all(not original for original, _ in changes)
        if creating:
            if any(original for original, _ in changes):
                problems.append(f"{where}: create_file needs every original_lines to be empty")
                continue
            content = "".join(line for _, changed in changes for line in changed)
            if not content:
                problems.append(f"{where}: creating a file needs non-empty changed_lines")
                continue
            edits.append(WriteFile(path, content, new_file=True))
            continue
        empty = [n for n, (original, _) in enumerate(changes, start=1) if not original]
        if empty:
            problems.append(
                f"{where}: change {empty[0]} has empty original_lines; replace_lines needs lines copied from "
                "the file (to create a file, use create_file)"
            )
            continue
        edits.append(EditFile(path, tuple(Replacement("".join(o), "".join(c)) for o, c in changes)))
    if problems:
        raise AnswerRefused.of("malformed", *problems)
    return edits


def _changes(value: Any, where: str, problems: list[str]) -> list[tuple[list[str], list[str]]] | None:
    """Each change's (original, changed) lines, each line ending with a newline; None after a problem."""
    if not isinstance(value, list) or not value:
        problems.append(f"{where}: 'changes' must be a non-empty array of {{original_lines, changed_lines}} objects")
        return None
    result = []
    for number, change in enumerate(value, start=1):
        if not isinstance(change, dict):
            problems.append(f"{where}, change {number}: must be an object")
            return None
        pair = []
        for key in ("original_lines", "changed_lines"):
            lines = change.get(key)
            if not isinstance(lines, list) or not all(isinstance(line, str) for line in lines):
                problems.append(f"{where}, change {number}: {key!r} must be an array of strings")
                return None
            pair.append([(line[:-1] if line.endswith("\n") else line) + "\n" for line in lines])
        result.append((pair[0], pair[1]))
    return result
