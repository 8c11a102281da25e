"""How relevant each file is to the query (agent-config/query.txt): an additive score that keeps its
reasons, offline and deterministic. Pure: the query and the files' bytes in, scores out.

- +100 when the query names the file: its path, a path ending, its name, or its stem as a word
  (`keys.py`, `src/x.ts`, `JSONObject`);
- +20 for each identifier the query names that the file defines (`TTLCache`, `cJSON_Minify`,
  `incrementPatchVersion`), +5 for a plain word it defines (`parse`): the definitions come from the
  file's outline, which tells the defining file from the hundred files that use a name;
- BM25 (k1 = 1.2, b = 0.75) of the query's words over the file's identifiers, split at camelCase and
  snake_case (`TTLCache` -> ttl, cache): the files that use what the query names;
- +5 when a folder or file name equals a word of the query.

Then one hop: a file a strong file imports (imports.py), a test and its subject (`test_x.py`,
`x_test.go`, `x.test.ts`, `XTest.java` and `x`), and a header and its source share half of the
stronger one's score. A file is *strong* when the query names it or an identifier it defines, or
through the hop from such a file; the rollup puts strong files first, then the TOP_USES files that use
the query's words most, then the rest in its usual order.

Bounded: the query's first MAX_QUERY characters, each file's first MAX_SCORED bytes, and outlines
only of the files that hold a query identifier, at most MAX_OUTLINED of them.
"""

# ruff: noqa: SIM905 - word lists read best as words
from __future__ import annotations

import math
import posixpath
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from code_commit.rollup.imports import GENERIC_STEMS, Project, imported, subject
from code_commit.rollup.outline import Outline, outline
from code_commit.rollup.rules import CODE_SUFFIXES

_MAX_QUERY = 8192
_MAX_SCORED = 256 * 1024
_MAX_OUTLINED = 300
_TOP_USES = 8
_NAMED = 100.0
_DEFINES = 20.0
_DEFINES_WORD = 5.0
_PATH_WORD = 5.0
_STRONG = _DEFINES_WORD * 2  # a named path or identifier, not a plain word alone
K1, B = 1.2, 0.75

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_PATHLIKE = re.compile(r"[\w./-]*[\w-]/[\w./-]+|[\w./-]+\.[A-Za-z]\w{0,9}\b")
_PARTS = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+\d*|[A-Z]+\d*|\d+")
_STOP = frozenset(
    """the and for with that this from into when then than are was were not but all any can its use used using
    make makes should would could add adds added fix fixes fixed bug bugs test tests file files code function
    method class return returns value values new old get set also only each more most some such very does did
    doesn don isn wrong instead still there their they them what which while where who why how has have had
    been being just like out off now after before see seems because fails failed failing error errors build""".split()
)


@dataclass(frozen=True)
class Query:
    identifiers: frozenset[str]  # words shaped like code: snake_case, camelCase, with digits or capitals
    words: frozenset[str]  # the other words, lower-cased
    parts: Counter[str]  # every word's parts, lower-cased, for BM25
    paths: frozenset[str]  # path-like words: with a slash or an extension

    @classmethod
    def parse(cls, text: str) -> Query:
        text = text[:_MAX_QUERY]
        words = [w for w in _WORD.findall(text) if w.lower() not in _STOP]
        identifiers = frozenset(w for w in words if _code_shaped(w))
        plain = frozenset(w.lower() for w in words if w not in identifiers)
        parts = Counter(p for w in words for p in _split_identifier(w) if p not in _STOP)
        paths = frozenset(p.strip("./") for p in _PATHLIKE.findall(text) if p.strip("./"))
        return cls(identifiers, plain, parts, paths)

    @property
    def empty(self) -> bool:
        return not (self.identifiers or self.words or self.paths)


@dataclass
class _Relevance:
    score: float = 0.0
    strong: bool = False
    reasons: list[str] = field(default_factory=list)
    top: bool = False  # among the _TOP_USES files that use the query's words most
    outline: Outline | None = None  # the whole file's outline, when its definitions were scored: made once


def _split_identifier(word: str) -> list[str]:
    """TTLCache -> [ttl, cache]; max_size -> [max, size]; HTTPServer2 -> [http, server2]."""
    return [p.lower() for chunk in word.split("_") for p in _PARTS.findall(chunk) if len(p) > 1]


def _code_shaped(word: str) -> bool:
    return "_" in word.strip("_") or any(c.isdigit() for c in word) or any(c.isupper() for c in word[1:])


def relevance(query: Query, files: Mapping[str, bytes | None], tracked: frozenset[str]) -> dict[str, _Relevance]:
    """Each file's relevance to `query`. `files`: path -> its bytes (None: not read; scored by its path)."""
    scores = {path: _Relevance() for path in files}
    if query.empty:
        return scores
    counts = {path: _identifier_parts(data) for path, data in files.items() if data is not None}
    total = sum(sum(c.values()) for c in counts.values())
    average = total / max(1, len(counts))
    frequency = Counter(part for c in counts.values() for part in c)
    outlined = 0
    for path, data in files.items():
        found = scores[path]
        _score_path(query, path, found)
        if data is None:
            continue
        names_one = any(word.encode() in data for word in query.identifiers) or _holds_a_word(data, query.words)
        if outlined < _MAX_OUTLINED and _is_code(path) and names_one:
            outlined += 1
            _score_definitions(query, path, data, found)
        bm25 = _bm25(query.parts, counts[path], average, frequency, len(counts))
        if bm25 > 0:
            found.score += bm25
            used = sorted((p for p in query.parts if counts[path].get(p)), key=lambda p: -counts[path][p])[:3]
            found.reasons.append(f"uses {', '.join(used)}")
    _hop(scores, files, tracked)
    ranked = sorted((r.score, path) for path, r in scores.items() if not r.strong and r.score > 0)
    for _, path in ranked[::-1][:_TOP_USES]:
        scores[path].top = True
    return scores


def _is_code(path: str) -> bool:
    name = posixpath.basename(path).lower()
    return "." in name and "." + name.rsplit(".", 1)[1] in CODE_SUFFIXES


def _holds_a_word(data: bytes, words: frozenset[str]) -> bool:
    lower = data[:_MAX_SCORED].lower()
    return any(word.encode() in lower for word in words)


def _identifier_parts(data: bytes) -> Counter[str]:
    text = data[:_MAX_SCORED].decode("utf-8", "replace")
    return Counter(part for word in _WORD.findall(text) for part in _split_identifier(word))


def _score_path(query: Query, path: str, found: _Relevance) -> None:
    name = posixpath.basename(path)
    stem = name.split(".", 1)[0]
    named = any(path == p or path.endswith("/" + p) or name == p for p in query.paths)
    if named or (stem in query.identifiers and stem.lower() not in GENERIC_STEMS and len(stem) > 3):
        found.score += _NAMED
        found.strong = True
        found.reasons.append("named in the query")
    folders = {part.lower() for part in re.split(r"[/._-]", path) if part}
    if folders & (query.words | {w.lower() for w in query.identifiers} | set(query.parts)):
        found.score += _PATH_WORD
        found.reasons.append("its path has a word of the query")


def _score_definitions(query: Query, path: str, data: bytes, found: _Relevance) -> None:
    shape = outline(path, data[:_MAX_SCORED])
    if len(data) <= _MAX_SCORED:  # the outline of all of it: the rollup shows this one, if any
        found.outline = shape
    names = shape.names
    defined = sorted(query.identifiers & names)
    words = sorted(query.words & {n.lower() for n in names})
    if defined:
        found.score += _DEFINES * len(defined)
        found.strong = True
        found.reasons.append("defines " + ", ".join(defined[:5]))
    if words:
        found.score += _DEFINES_WORD * len(words)
        found.reasons.append("defines " + ", ".join(words[:5]))


def _bm25(parts: Counter[str], counts: Counter[str], average: float, frequency: Counter[str], n: int) -> float:
    length = sum(counts.values())
    score = 0.0
    for part, in_query in parts.items():
        tf = counts.get(part, 0)
        if tf:
            idf = math.log(1 + (n - frequency[part] + 0.5) / (frequency[part] + 0.5))
            score += in_query * idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / max(average, 1.0)))
    return score


def _hop(scores: dict[str, _Relevance], files: Mapping[str, bytes | None], tracked: frozenset[str]) -> None:
    """A strong file's imports, its test or subject, and its header or source share half its score."""
    project = Project(tracked)
    strong = sorted((path for path, r in scores.items() if r.strong), key=lambda p: -scores[p].score)
    pairs = _pairs(scores)
    for path in strong:
        data = files.get(path)
        neighbours = [*(imported(path, data, project) if data is not None else []), *pairs.get(path, ())]
        for other in neighbours:
            theirs = scores.get(other)
            if theirs is None or theirs.strong:
                continue
            theirs.score = max(theirs.score, scores[path].score / 2)
            theirs.strong = True
            theirs.reasons.append(f"goes with {path}")


def _pairs(scores: Mapping[str, _Relevance]) -> dict[str, list[str]]:
    """A test and its subject, a header and its source: paths that share a subject key."""
    groups: dict[str, list[str]] = {}
    for path in scores:
        key = subject(path)
        if key:
            groups.setdefault(key, []).append(path)
    return {path: [other for other in group if other != path] for group in groups.values() for path in group}
