"""Placeholder lines that stand for omitted code: `# ... rest of the file unchanged ...`.

A whole-file block replaces the file with exactly what it holds, so a model that "abbreviates"
a file it rewrites deletes everything the placeholder stands for. This module finds such lines;
the plan refuses a whole-file block for an existing file that holds one the file did not already
hold. Pure: text in, line numbers out.

Legitimate code is full of `...` (Python's Ellipsis, `def f(): ...`, doctest continuations, JS
spread `...args`, Go and C variadics, numpy's `x[..., 0]`, prose in docstrings), so a line counts
only when it is a placeholder as a whole: a comment that is nothing but an ellipsis, or a comment
or an ellipsis-led line that says code was left out.
"""

from __future__ import annotations

import re

_ELLIPSIS = r"(?:\.\.\.+|…|\. \. \.)"
# Comment openers and closers of the common languages, and brackets a placeholder is often wrapped in.
_OPENER = re.compile(r"^(?:<!--|\{/\*|/\*+|//+|#+|\*|--|;+|%+)\s*")
_CLOSERS = ("-->", "*/}", "*/")  # `*/` with any stars before it; found with str methods, as below
_WRAPPERS = "()[]{}<>"
# A line that is not a comment counts only wrapped: led by an ellipsis (after opening brackets) and a
# space or bracket, and ending in an ellipsis or a closing bracket. The end is checked with str
# methods, not a regex: `.*` before an ellipsis alternative backtracks over a long run of dots (or a
# closer over a run of stars), work that grows with the square of the line, and an answer's line
# may be megabytes long.
_WRAPPED_START = re.compile(r"[(\[{]*" + _ELLIPSIS + r"[\s(\[{]")
_WRAPPED_ENDS = ("...", "…", ". . .", ")", "]", "}")
# "Code was left out", said with an ellipsis: `# ... existing code ...`, `// rest of the file...`.
_LEFT_OUT = re.compile(
    r"\b(?:rest|remaining|unchanged|existing|omitted|omit|elided|snip(?:ped)?|truncated|same|previous|"
    r"original|other|before|brevity|here|more|code|unmodified|untouched)\b",
    re.IGNORECASE,
)
# Said without an ellipsis, the comment must open with what it stands for and say it is unchanged
# or left out: `# rest of the file unchanged`, `// other methods remain the same`.
_WHAT = re.compile(r"^(?:the\s+)?(?:rest|remaining|existing|other|previous|original|unchanged)\b", re.IGNORECASE)
_KEPT = re.compile(
    r"\b(?:unchanged|the same|as before|as is|omitted|elided|not shown|for brevity|untouched|unmodified)\b",
    re.IGNORECASE,
)
# Said by an ellipsis-led line that is not a comment, where doctest continuations (`...     code`)
# also begin with an ellipsis: only the plain phrases of omission count.
_OMISSION = re.compile(
    r"\b(?:rest of|remaining (?:code|lines|methods|functions|file)|unchanged|existing code|omitted|elided|"
    r"for brevity|as before|same as before|no changes?)\b",
    re.IGNORECASE,
)


def is_placeholder(line: str) -> bool:
    """Whether this one line stands for code left out."""
    text = line.strip()
    opener = _OPENER.match(text)
    if opener is None:
        # Not a comment: wrapped in ellipses or brackets (never `...args`, nor a doctest's `...     code`),
        # and words of omission.
        start = _WRAPPED_START.match(text)
        wrapped = start is not None and text[start.end() :].endswith(_WRAPPED_ENDS)
        return wrapped and _OMISSION.search(text) is not None
    body = _without_closer(text[opener.end() :].strip())
    bare = re.sub(_ELLIPSIS, " ", body).strip(_WRAPPERS + " \t.,:;-")
    has_ellipsis = re.search(_ELLIPSIS, body) is not None
    if has_ellipsis and not bare:
        return True  # `# ...`, `/* ... */`, `<!-- … -->`, `// [...]`
    if has_ellipsis:
        led = re.match(r"[\s(\[{]*" + _ELLIPSIS, body) is not None
        words = _LEFT_OUT if led else _OMISSION  # `# Loading the data...` is a comment, not a placeholder
        return words.search(body) is not None
    if bare.lower() == "unchanged":
        return True
    what = _WHAT.match(bare)  # one "unchanged" says what, or that it is kept, not both: `# Unchanged lines are ...`
    return len(bare.split()) <= 10 and what is not None and _KEPT.search(bare, what.end()) is not None


def _without_closer(body: str) -> str:
    for closer in _CLOSERS:
        if body.endswith(closer):
            body = body[: -len(closer)]
            return (body.rstrip("*") if closer == "*/" else body).strip()
    return body


def line_set(text: str) -> frozenset[str]:
    """The lines of `text`, stripped: what `new_placeholders` compares with."""
    return frozenset(line.strip() for line in text.splitlines())


def new_placeholders(new: str, old: str | frozenset[str]) -> list[tuple[int, str]]:
    """The placeholder lines of `new` (line number from 1, the line) that `old` (a text, or its
    `line_set`) does not hold: a file that already had `# ...` may keep it."""
    found = [(n, line) for n, line in enumerate(new.splitlines(), start=1) if is_placeholder(line)]
    if not found:
        return []
    existing = line_set(old) if isinstance(old, str) else old
    return [(n, line) for n, line in found if line.strip() not in existing]
