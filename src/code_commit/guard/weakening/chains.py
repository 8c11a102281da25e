"""Call chains and code regions in a token list: the pieces test readers are built from.

A chain is a name followed by member accesses, calls and indexes: `expect(x).not.toBe(y)`,
`$this->assertSame(1, $x)`, `assert_eq!(a, b)`, `Assertions.assertEquals(1, x)`, `t.Errorf("...")`.
Assertions, skip calls and test declarations are all chains; what a chain means is the language's
business (`languages.py`). Everything here is one pass over the tokens, or a pass over one range.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from code_commit.guard.weakening.lexer import ID, NUM, PUNCT, STR, Token

MEMBER = frozenset({".", "->", "::", "?."})
LITERAL_WORDS = frozenset({"true", "false", "null", "nil", "None", "undefined", "True", "False", "NULL", "nullptr"})
# Tokens of one statement read at most to find its end: past it, the statement is taken to end there
# (checks after it then count as reachable, never the other way).
MAX_STATEMENT = 4096
MAX_OPERANDS = 512  # tokens of a check's arguments looked at to tell whether it can fail
# Keywords that bind the names after them, in one language or another.
BINDERS = frozenset({"let", "const", "var", "val", "mut", "auto", "my", "local"})


@dataclass(frozen=True)
class Chain:
    start: int  # index of the head name
    end: int  # index after the chain's last token
    names: tuple[str, ...]  # the head and member names, in order
    name_at: tuple[int, ...]  # their token indexes
    calls: tuple[tuple[int, int], ...]  # (open, close) of each call or index group, in order
    macro: bool = False  # Rust: name!(...)
    after: tuple[int, ...] = ()  # for each call, how many names came before it

    def call_after(self, name: str) -> tuple[int, int] | None:
        """The call group right after member `name` (`each` in `test.each(table)`), if any."""
        for i, count in enumerate(self.after):
            if count and self.names[count - 1] == name:
                return self.calls[i]
        return None


def chains(tokens: Sequence[Token], partner: Sequence[int], rust: bool = False) -> list[Chain]:
    """Every chain, in order of its head. Tokens inside a chain's calls are scanned too, so nested
    chains (`expect(foo.bar())`) are found on their own."""
    found = []
    n = len(tokens)
    for i, token in enumerate(tokens):
        if token.kind != ID or (i and tokens[i - 1].text in MEMBER and tokens[i - 1].kind == PUNCT):
            continue
        names = [token.text]
        name_at = [i]
        calls: list[tuple[int, int]] = []
        after: list[int] = []
        macro = False
        j = i + 1
        while j < n:
            text = tokens[j].text
            kind = tokens[j].kind
            if kind == PUNCT and text in MEMBER and j + 1 < n and tokens[j + 1].kind == ID:
                names.append(tokens[j + 1].text)
                name_at.append(j + 1)
                j += 2
            elif (text == "<" or (text == "::" and j + 1 < n and tokens[j + 1].text == "<")) and not calls:
                after_type = _type_arguments_end(tokens, j + 1 if text == "::" else j)
                if after_type is None:
                    break
                j = after_type  # Assert.IsType<Error>(x), parse::<i64>(), List.of<T>(...)
            elif kind == PUNCT and text in ("(", "["):
                close = min(partner[j], n - 1) if partner[j] >= 0 else n - 1
                calls.append((j, close))
                after.append(len(names))
                j = close + 1
            elif rust and text == "!" and j + 1 < n and tokens[j + 1].text in ("(", "[", "{") and not calls:
                macro = True
                j += 1
            elif kind == STR and tokens[j].text.startswith("`") and names[-1] == "each":
                calls.append((j, j))  # a tagged template table: test.each`...`
                after.append(len(names))
                j += 1
            else:
                break
        found.append(Chain(i, j, tuple(names), tuple(name_at), tuple(calls), macro, tuple(after)))
    return found


def _type_arguments_end(tokens: Sequence[Token], j: int) -> int | None:
    """Where the type arguments `<...>` at j end, if they are followed by a call: else None (a
    comparison `a < b`)."""
    depth = 0
    for k in range(j, min(j + 32, len(tokens))):
        text = tokens[k].text
        if text == "<":
            depth += 1
        elif text == ">":
            depth -= 1
            if depth == 0:
                return k + 1 if k + 1 < len(tokens) and tokens[k + 1].text == "(" else None
        elif text in (";", "{", "}", "(", ")", "=", "&&", "||"):
            return None
    return None


def arguments(tokens: Sequence[Token], partner: Sequence[int], open_: int, close: int) -> list[tuple[int, int]]:
    """The comma-separated parts of the group (open_, close), as (start, end) ranges; a trailing
    comma makes no empty part."""
    parts = []
    start = open_ + 1
    j = start
    while j < close:
        text = tokens[j].text
        if tokens[j].kind == PUNCT and text in "([{" and partner[j] > j:
            j = partner[j] + 1
            continue
        if tokens[j].kind == PUNCT and text == ",":
            parts.append((start, j))
            start = j + 1
        j += 1
    if start < close:
        parts.append((start, close))
    return parts


def local_names(
    tokens: Sequence[Token], partner: Sequence[int], start: int, end: int, php: bool = False
) -> dict[str, str]:
    """The names a body binds, renamed in order of first binding: `let x`, `const {a, b}`, `x :=`,
    `Type x =`, PHP's `$x`. A name read after `.` is a member, never renamed."""
    order: dict[str, str] = {}

    def bind(name: str) -> None:
        if name not in order and name not in LITERAL_WORDS:
            order[name] = f"_{len(order) + 1}"

    j = start
    while j < end:
        token = tokens[j]
        if token.kind == ID:
            following = tokens[j + 1] if j + 1 < end else None
            if php and token.text.startswith("$") and token.text != "$this":
                bind(token.text)
            elif token.text in BINDERS and following is not None:
                k = j + 1
                while k < end and tokens[k].text in BINDERS:
                    k += 1
                if k < end and tokens[k].kind == ID:
                    bind(tokens[k].text)
                elif k < end and tokens[k].text in "([{" and partner[k] > k:
                    for m in range(k + 1, min(partner[k], end)):
                        if tokens[m].kind == ID and tokens[m + 1].text != ":":
                            bind(tokens[m].text)
            elif following is not None and following.text in (":=", "=") and _declares(tokens, j, start):
                bind(token.text)
                k = j - 1
                while following.text == ":=" and k > start and tokens[k].text == "," and tokens[k - 1].kind == ID:
                    bind(tokens[k - 1].text)  # Go: a, b := ...
                    k -= 2
        j += 1
    return order


def _declares(tokens: Sequence[Token], j: int, start: int) -> bool:
    """`x := ...` (Go), or `Type x = ...` (a name after a type: Java, C#, C)."""
    if tokens[j + 1].text == ":=":
        return True
    if j <= start:
        return False
    before = tokens[j - 1]
    return (before.kind == ID and before.text not in ("return", "else")) or before.text in (">", "]", "?", "*")


def form(
    tokens: Sequence[Token],
    start: int,
    end: int,
    names: dict[str, str],
    blank: bool = False,
    leave_out: Sequence[tuple[int, int]] = (),
    limit: int | None = None,
) -> str:
    """The tokens' text, layout ignored, local names renamed; `blank` turns every literal into `?`;
    the ranges in `leave_out` (a check's message) are left out; past `limit` tokens, `...`."""
    out = []
    skip = Ranges(leave_out) if leave_out else None
    cut = end if limit is None else min(end, start + limit)
    for j in range(start, cut):
        if skip is not None and j in skip:
            continue
        token = tokens[j]
        if token.kind == ID:
            member = j > start and tokens[j - 1].text in MEMBER
            text = token.text if member else names.get(token.text, token.text)
            out.append("?" if blank and text in LITERAL_WORDS else text)
        elif token.kind in (STR, NUM):
            out.append("?" if blank else _unquoted(token.text))
        elif blank and _sign(tokens, j, start, cut):
            continue  # -1 is one literal: `toBe(5)` to `toBe(-1)` changes an expected value, not the form
        else:
            out.append(token.text)
    if cut < end:
        out.append("...")
    return " ".join(out)


def _sign(tokens: Sequence[Token], j: int, start: int, end: int) -> bool:
    """Whether tokens[j] is the sign of a number: a unary - or + (no operand before it) just before one."""
    token = tokens[j]
    if token.kind != PUNCT or token.text not in ("-", "+") or j + 1 >= end or tokens[j + 1].kind != NUM:
        return False
    before = tokens[j - 1] if j > start else None
    return before is None or (before.kind == PUNCT and before.text not in (")", "]", "}"))


def messages(tokens: Sequence[Token], partner: Sequence[int], chain: Chain, least: int = 3) -> list[tuple[int, int]]:
    """The message arguments of a check's calls, so rewording one changes no check: a lone string
    last among at least `least` arguments (`assertEquals(2, x, "why")`, `assert.equal(a, b, "why")`),
    or first if the last is no string (JUnit 4's `assertEquals("why", 2, x)`)."""
    found = []
    for open_, close in chain.calls:
        if tokens[open_].text != "(":
            continue
        parts = arguments(tokens, partner, open_, close)
        if len(parts) < least:
            continue
        last, first = parts[-1], parts[0]
        if last[1] - last[0] == 1 and tokens[last[0]].kind == STR:
            found.append((last[0] - 1, last[1]))  # with the comma before it
        elif first[1] - first[0] == 1 and tokens[first[0]].kind == STR:
            found.append((first[0], first[1] + 1))
    return found


def _unquoted(text: str) -> str:
    """A string literal's text without its quotes, so 'x' and "x" are the same."""
    if len(text) >= 2 and text[0] in "'\"" and text[-1] == text[0]:
        return "'" + text[1:-1] + "'"
    return text


def operands_constant(tokens: Sequence[Token], chain: Chain) -> bool:
    """Whether everything a chain passes its calls is literal: `expect(true).toBe(true)`,
    `assertEquals(1, 1)`, `assert!(true)`; or its first two arguments are the same thing:
    `expect(x).toBe(x)`, `assert_eq!(a, a)`."""
    inside: list[Token] = []
    groups: list[str] = []
    for open_, close in chain.calls:
        part = tokens[open_ + 1 : min(close, open_ + 1 + MAX_OPERANDS)]
        inside += part
        groups.append(" ".join(t.text for t in part))
    if not inside:
        return False
    if not any(t.kind == ID and t.text not in LITERAL_WORDS for t in inside):
        return True
    if len(groups) >= 2 and groups[0] and groups[0] == groups[1]:
        return True
    if len(chain.calls) == 1:
        open_, close = chain.calls[0]
        args = _split_top(tokens, open_ + 1, min(close, open_ + 1 + MAX_OPERANDS))
        return len(args) >= 2 and args[0] == args[1] and bool(args[0])
    return False


def _split_top(tokens: Sequence[Token], start: int, end: int) -> list[str]:
    parts: list[list[str]] = [[]]
    depth = 0
    for j in range(start, end):
        text = tokens[j].text
        if tokens[j].kind == PUNCT and text in "([{":
            depth += 1
        elif tokens[j].kind == PUNCT and text in ")]}":
            depth -= 1
        elif depth == 0 and text == ",":
            parts.append([])
            continue
        parts[-1].append(text)
    return [" ".join(p) for p in parts]


def dead_ranges(
    tokens: Sequence[Token], partner: Sequence[int], start: int, end: int, lines: Sequence[int]
) -> list[tuple[int, int]]:
    """Token ranges of a body that never run: the rest of the body after a `return` at its top
    level (or `if (true) return`), and the block of an `if (false)`. `lines`: each token's line.
    A `return` under a condition (`if (x) return;`) ends nothing."""
    dead = []
    j = start
    while j < end:
        token = tokens[j]
        if token.kind == PUNCT and token.text in "([" and partner[j] > j:
            j = partner[j] + 1
            continue
        if token.kind == ID and token.text == "return":
            rest = _after_statement(tokens, partner, j, end, lines)
            if rest < end:
                dead.append((rest, end))
            return dead
        if token.kind == ID and token.text == "if":
            condition, consequent = _condition(tokens, partner, j, end)
            truth = _constant_truth(tokens[condition[0] : condition[1]])
            after = _consequent_end(tokens, partner, consequent, end, lines)
            if truth is False:
                dead.append((consequent, after))
            elif truth is True and consequent < end and _returns_first(tokens, consequent):
                if after < end:
                    dead.append((after, end))
                return dead
            elif consequent < end:
                dead += dead_blocks_only(tokens, partner, consequent, after)
            j = after
            continue
        if token.kind == ID and token.text == "else" and j + 1 < end and tokens[j + 1].text not in ("{", "if"):
            after = _consequent_end(tokens, partner, j + 1, end, lines)
            dead += dead_blocks_only(tokens, partner, j + 1, after)
            j = after
            continue
        if token.kind == PUNCT and token.text == "{" and partner[j] > j:
            dead += dead_blocks_only(tokens, partner, j + 1, min(partner[j], end))
            j = partner[j] + 1
            continue
        j += 1
    return dead


def _consequent_end(tokens: Sequence[Token], partner: Sequence[int], j: int, end: int, lines: Sequence[int]) -> int:
    """The end of the statement an `if` or `else` governs: its block, or one statement."""
    if j >= end:
        return end
    if tokens[j].text == "{" and partner[j] > j:
        return min(partner[j] + 1, end)
    return _after_statement(tokens, partner, j, end, lines) if tokens[j].text != ";" else j + 1


def dead_blocks_only(tokens: Sequence[Token], partner: Sequence[int], start: int, end: int) -> list[tuple[int, int]]:
    """The `if (false)` blocks within a nested block (its own returns end only that block)."""
    dead = []
    for j in range(start, end):
        if tokens[j].kind == ID and tokens[j].text == "if":
            condition, consequent = _condition(tokens, partner, j, end)
            if _constant_truth(tokens[condition[0] : condition[1]]) is False and consequent < end:
                close = (
                    partner[consequent] if tokens[consequent].text == "{" else _statement_end(tokens, consequent, end)
                )
                dead.append((consequent, min(close + 1, end)))
    return dead


def _condition(tokens: Sequence[Token], partner: Sequence[int], j: int, end: int) -> tuple[tuple[int, int], int]:
    """The condition of the `if` at j and where its consequent starts: `if (c) x` or `if c { x }`."""
    if j + 1 < end and tokens[j + 1].text == "(" and partner[j + 1] > j:
        close = partner[j + 1]
        return (j + 2, close), close + 1
    k = j + 1
    while k < end and tokens[k].text != "{":
        if tokens[k].text in "([" and partner[k] > k:
            k = partner[k]
        k += 1
    return (j + 1, k), k


def _constant_truth(condition: Sequence[Token]) -> bool | None:
    texts = [t.text for t in condition]
    negated = False
    while texts and texts[0] == "!":
        negated = not negated
        texts = texts[1:]
    if len(texts) != 1:
        return None
    value = {"true": True, "True": True, "1": True, "false": False, "False": False, "0": False}.get(texts[0])
    return None if value is None else value != negated


def _returns_first(tokens: Sequence[Token], j: int) -> bool:
    if tokens[j].text == "{":
        j += 1
    return j < len(tokens) and tokens[j].text == "return"


def _statement_end(tokens: Sequence[Token], j: int, end: int) -> int:
    limit = min(end, j + MAX_STATEMENT)
    while j < limit and tokens[j].text != ";":
        j += 1
    return j


def _after_statement(tokens: Sequence[Token], partner: Sequence[int], j: int, end: int, lines: Sequence[int]) -> int:
    """The first token after the statement that starts at j: after its `;`, or, in languages without
    one (Go, Kotlin), the first token on a later line outside any bracket."""
    k = j + 1
    limit = min(end, j + MAX_STATEMENT)
    while k < limit:
        text = tokens[k].text
        if text == ";" and tokens[k].kind == PUNCT:
            return k + 1
        if tokens[k].kind == PUNCT and text in "([{" and partner[k] > k:
            k = partner[k] + 1
            continue
        if lines[k] > lines[j] and text != "}":
            return k
        k += 1
    return end


class Ranges:
    """A set of token ranges, asked about by bisection: each question costs log(ranges)."""

    def __init__(self, ranges: Iterable[tuple[int, int]]) -> None:
        merged: list[list[int]] = []
        for a, b in sorted(ranges):
            if merged and a <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], b)
            else:
                merged.append([a, b])
        self._starts = [a for a, _ in merged]
        self._ends = [b for _, b in merged]

    def __contains__(self, index: int) -> bool:
        k = bisect.bisect_right(self._starts, index) - 1
        return k >= 0 and index < self._ends[k]
