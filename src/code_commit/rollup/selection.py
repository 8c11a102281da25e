"""Which of the files judged fit the rollup, in which order, and the outlines of those that do not.

What fits: under `rollup_budget` (estimated tokens), files in the order of their rank (what
`rollup_include` names, then the files relevant to agent-config/query.txt (relevance.py), then
source, tests, config, docs and data, cheaper and shallower first); when not all fit,
OUTLINE_SHARE of the budget is kept for the outlines of the source and test files that do not
(each first gets its first FIRST_LINES definitions, then each grows in rank order); config, docs
and data take at most CONTEXT_SHARE of what source and tests take (or fill the rollup up to
SMALL_ROLLUP bytes), since the model is there to change code. The list of left-out files comes on
top of the budget; MAX_LISTED bounds it.
"""

from __future__ import annotations

from dataclasses import dataclass

from code_commit.console.plural import count
from code_commit.llm.catalog import CHARS_PER_TOKEN_HIGH_ESTIMATE
from code_commit.rollup.framing import OUTLINE_HEADER, OUTLINES_LABEL, LeftOut, Rollup, size_text
from code_commit.rollup.outline import Outline, outline
from code_commit.rollup.reading import OUTLINED_KINDS, Candidate, holds_secret, read_head
from code_commit.rollup.rules import Kind

# Configuration, docs and data take at most _CONTEXT_SHARE of the bytes source and tests take, or whatever brings the
# rollup up to _SMALL_ROLLUP bytes: a small project's README costs little and says much.
_CONTEXT_SHARE = 0.15
_SMALL_ROLLUP = 16 * 1024
_OVER_BUDGET = "over the token budget"
_OVER_SHARE = "config, docs and data over their share"
# When not every file fits whole, this share of the budget is kept for the outlines of the source and
# test files that do not (more when the whole files leave more).
_OUTLINE_SHARE = 0.2
_RELEVANT_SHOWN = 3  # the files relevant to the query that `code-commit rollup` names, with why
_FIRST_LINES = 8  # every outlined file's first share: so many top-level definitions, before any grows


@dataclass(frozen=True)
class Outlined:
    path: bytes
    text: bytes  # the header and the entries


def rank(candidates: list[Candidate], query: str | None, tracked: frozenset[str], result: Rollup) -> list[Candidate]:
    """The order in which files are given room: what `rollup_include` names; then, with a query, the files
    it names or whose definitions it names and what goes with them (relevance.py), most relevant first,
    then the few that use its words most; then source, tests, config, docs and data, cheaper and
    shallower first."""
    from code_commit.rollup.relevance import Query, relevance

    parsed = Query.parse(query) if query else None
    scores = (
        relevance(parsed, {c.path.decode(): c.content for c in candidates}, tracked)
        if parsed is not None and not parsed.empty
        else {}
    )

    for candidate in candidates:
        found = scores.get(candidate.path.decode())
        candidate.shape = None if found is None else found.outline
    strongest = sorted((p for p, r in scores.items() if r.strong), key=lambda p: (-scores[p].score, p))
    result.relevant = [f"{path} ({'; '.join(scores[path].reasons)})" for path in strongest[:_RELEVANT_SHOWN]]

    def key(candidate: Candidate) -> tuple[bool, int, float, Kind, int, bytes]:
        found = scores.get(candidate.path.decode())
        tier = 2 if found is None else 0 if found.strong else 1 if found.top else 2
        score = -found.score if found is not None and tier < 2 else 0.0
        return (
            not candidate.forced,
            tier,
            score,
            candidate.kind,
            candidate.cost * (candidate.path.count(b"/") + 1),
            candidate.path,
        )

    return sorted(candidates, key=key)


def choose(ranked: list[Candidate], budget: int, result: Rollup) -> tuple[list[Candidate], list[Candidate], float]:
    """What fits whole, in path order; the source and test files that do not, in rank order, for their
    outlines; and the room left for those. Config, docs and data take at most their share of what source
    and tests take. When not everything fits, _OUTLINE_SHARE of the budget is kept for the outlines."""
    room = budget * CHARS_PER_TOKEN_HIGH_ESTIMATE if budget else float("inf")
    everything = sum(c.cost for c in ranked if c.too_big is None)
    fits = everything <= room and all(c.too_big is None for c in ranked)
    whole_room = room if fits else room * (1 - _OUTLINE_SHARE)
    chosen: list[Candidate] = []
    pending: list[Candidate] = []
    code = context = used = 0
    for candidate in ranked:
        context_file = candidate.kind >= Kind.CONFIG and not candidate.forced
        if candidate.too_big is not None or used + candidate.cost > whole_room:
            if candidate.kind in OUTLINED_KINDS:
                pending.append(candidate)
            else:
                result.left_out.append(LeftOut(candidate.path.decode(), _OVER_BUDGET, candidate.size))
        elif context_file and context + candidate.cost > max(code * _CONTEXT_SHARE, _SMALL_ROLLUP - code):
            result.left_out.append(LeftOut(candidate.path.decode(), _OVER_SHARE, candidate.size))
        else:
            chosen.append(candidate)
            used += candidate.cost
            if context_file:
                context += candidate.cost
            elif candidate.kind <= Kind.TEST:
                code += candidate.size
    return sorted(chosen, key=lambda c: c.path), pending, room - used


def outline_pending(
    root_fd: int, pending: list[Candidate], room: float, secrets: tuple[bytes, ...], result: Rollup
) -> list[Outlined]:
    """The outlines of the source and test files not included whole, in path order. In rank order, each
    file first gets a short outline (its first FIRST_LINES top-level definitions) while the room lasts;
    then, in rank order again, each grows to its whole outline, or its top level, or as many top-level
    definitions as fit. A file for which not even one line fits is listed as left out."""
    kept: list[tuple[Candidate, Outline, str, bytes]] = []
    room -= len(OUTLINES_LABEL)
    for candidate in pending:
        name = candidate.path.decode()
        why = candidate.too_big or _OVER_BUDGET
        size = None if candidate.too_big else candidate.size  # an oversized file's reason says its size
        if room < len(OUTLINE_HEADER % (candidate.path, b"")):  # no file is parsed once nothing can fit
            result.left_out.append(LeftOut(name, why, size))
            continue
        data = candidate.content if candidate.content is not None else read_head(root_fd, candidate.path)
        if data is None or b"\0" in data or holds_secret(data, secrets):
            result.left_out.append(LeftOut(name, why if data is not None else "unreadable", size))
            continue
        shape = candidate.shape if candidate.shape is not None else outline(name, data)
        lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
        of = f"{lines:,} lines" if len(data) >= candidate.size else f"its first {size_text(len(data))}"
        of += f"; {why}" if candidate.too_big else f", {size_text(candidate.size)}; {why}"
        text = _outline_text(candidate.path, shape, of, room, _FIRST_LINES)
        if text is None:
            result.left_out.append(LeftOut(name, why, size))
            continue
        kept.append((candidate, shape, of, text))
        result.outlined.append(LeftOut(name, why, size))
        room -= len(text)
    outlined = []
    for candidate, shape, of, text in kept:
        grown = _outline_text(candidate.path, shape, of, room + len(text)) or text
        room -= len(grown) - len(text)
        outlined.append(Outlined(candidate.path, grown))
    return sorted(outlined, key=lambda o: o.path)


def _outline_text(path: bytes, shape: Outline, of: str, room: float, most: int | None = None) -> bytes | None:
    """The outline's header and lines in at most `room` bytes and `most` lines: every definition, or the
    top-level ones, or the first top-level ones (at least one); None when not even that fits."""
    for depth in (None, 0):
        entries = [e for e in shape.entries if depth is None or e.depth <= depth]
        what = f"{count(len(entries), 'definition')}{' at the top level' if depth is not None else ''} of {of}"
        text = OUTLINE_HEADER % (path, what.encode()) + shape.render(depth).encode()
        if len(text) <= room and (most is None or len(entries) <= most):
            return text
    lines = shape.render(0).encode().splitlines(keepends=True)
    top = len(lines)
    longest = OUTLINE_HEADER % (path, f"the first {top:,} of {top:,} top-level definitions of {of}".encode())
    left, shown = room - len(longest), 0
    while shown < min(top, most or top) and len(lines[shown]) <= left:
        left -= len(lines[shown])
        shown += 1
    if shown == 0:
        return None
    what = f"the first {shown:,} of {top:,} top-level definitions of {of}"
    return OUTLINE_HEADER % (path, what.encode()) + b"".join(lines[:shown])
