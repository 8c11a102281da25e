"""Whether a file was only laid out anew: what a formatter in build.sh does to a test (black, ruff
format, gofmt, clang-format), as against a rewrite of what the test does.

Python is compared by its syntax tree (`ast`), which black and ruff format keep by design; the
brace languages by their tokens, comments and literals included, with whitespace between them
ignored, except line breaks where a line break can end a statement (JavaScript, TypeScript, Go,
Kotlin, and the languages read by the generic rules). Anything else is compared byte for byte.
Pure, and bounded by the caller's read limit: one parse, or one pass of the lexer, per side.
"""

from __future__ import annotations

import ast

from code_commit.guard.weakening.languages import BY_SUFFIX, GO, JS, KOTLIN, TS, Rules, suffix
from code_commit.guard.weakening.lexer import lex

# Where a line break can end a statement (automatic semicolons): moving one changes the code.
_LINES_MATTER = frozenset({JS.name, TS.name, GO.name, KOTLIN.name, "other"})


def same_code(path: str, before: bytes, after: bytes) -> bool:
    """Whether `after` holds the code `before` held, laid out anew."""
    if before == after:
        return True
    ending = suffix(path)
    if ending in (".py", ".pyi"):
        return _python_tree(before) == _python_tree(after) is not None
    rules = BY_SUFFIX.get(ending)
    if rules is None:
        return False
    return _tokens(before, rules) == _tokens(after, rules)


def _python_tree(source: bytes) -> str | None:
    try:
        return ast.dump(ast.parse(source))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _tokens(source: bytes, rules: Rules) -> list[tuple[str, str, bool]]:
    """Each token's kind and text, and whether a line break comes before it where that counts. What
    lies between two tokens and is not whitespace (a character the lexer passed over) is kept too."""
    text = source.decode("utf-8", "replace")
    lines = rules.name in _LINES_MATTER
    out = []
    end = 0
    for token in lex(text, rules.lexis):
        gap = text[end : token.pos]
        if gap.strip():
            out.append(("gap", gap.strip(), False))
        out.append((token.kind, token.text, lines and "\n" in gap))
        end = token.pos + len(token.text)
    if text[end:].strip():
        out.append(("gap", text[end:].strip(), False))
    return out
