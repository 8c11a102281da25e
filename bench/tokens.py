"""Tokens: the size of the initial and repair prompts for a 200k-token rollup, the share of each
repair prompt a provider can read from its prompt cache in either order, and the output tokens
an edit block saves over a whole-file answer.

Token counts are characters / 4, the usual approximation: no tokenizer of current Claude models
runs offline, and every figure here is a ratio or a share, which the approximation keeps.
"""

from __future__ import annotations

import random
import sysconfig
from pathlib import Path

from code_commit.llm.prompts import Feedback, Prompt, initial_prompt, load_system_prompts, repair_prompt

from . import edit_tokens_bench
from .checks import require
from .harness import Row

ROLLUP_TOKENS = 200_000
CHARS_PER_TOKEN = 4


def tokens(text: str) -> int:
    return len(text) // CHARS_PER_TOKEN


def rollup(target_tokens: int) -> str:
    """A codebase rollup of about `target_tokens` tokens: many files of ordinary-looking code."""
    parts: list[str] = []
    size = n = 0
    while size < target_tokens * CHARS_PER_TOKEN:
        body = "".join(f"def handler_{n}_{k}(request):\n    return respond(request, {k})\n\n" for k in range(40))
        part = f"==> src/module_{n:04d}.py <==\n{body}"
        parts.append(part)
        size += len(part)
        n += 1
    return "".join(parts)


def cacheable_share(prompt: Prompt) -> float:
    """The share of the prompt before its last cache breakpoint: what a repeat call reads from cache."""
    breakpoints = [i for i, section in enumerate(prompt.sections) if section.cache]
    if not breakpoints:
        return 0.0
    cached = sum(len(s.text) for s in prompt.sections[: breakpoints[-1] + 1])
    return cached / sum(len(s.text) for s in prompt.sections)


def smallest() -> list[Row]:
    return run(0, rollup_tokens=2_000, trials=1)


def run(repeat: int, rollup_tokens: int = ROLLUP_TOKENS, trials: int = 25) -> list[Row]:
    system = load_system_prompts()
    codebase = rollup(rollup_tokens)
    query = "Rename handler_0_0 to handle_index and update its callers.\n"
    build = "".join(f"tests/test_module_{n}.py::test_{n} FAILED: AssertionError\n" for n in range(300))
    replacements = {f"src/module_{n:04d}.py": codebase[n * 3000 : n * 3000 + 3000] for n in range(5)}
    rows: list[Row] = []
    for order in ("spec", "cache"):
        first = initial_prompt(system, query, codebase, order)
        repair = repair_prompt(system, Feedback(build), query, codebase, replacements, order)
        for kind, prompt in (("initial", first), ("repair", repair)):
            text = prompt.render()
            whole = codebase in text and query in text
            require(whole, f"the {kind} prompt ({order} order) lacks the codebase or the query")
            rows.append(
                Row(
                    f"tokens: {kind} prompt, --prompt-order {order}",
                    f"{tokens(codebase):,} tok rollup",
                    tokens(text),
                    tokens(codebase),
                    unit="tok",
                    note=f"cacheable share {cacheable_share(prompt):.1%}",
                )
            )
    site = Path(sysconfig.get_paths()["purelib"])
    rng = random.Random(6)
    counters = {"chars/4": tokens}
    files = edit_tokens_bench.pick_files(site)
    require(len(set(files)) == len(edit_tokens_bench.TARGETS), f"found {files} in {site}, not one file a size")
    for path in files:
        measured = edit_tokens_bench.measure(path, site, counters, rng, trials=trials, context=3)
        whole, edit = measured.medians["chars/4"]
        rows.append(
            Row(
                f"tokens: 3-line change, edit block vs whole file ({measured.lines} lines)",
                f"{measured.size / 1000:.0f} KB",
                edit,
                whole,
                unit="tok",
                note=f"{1 - edit / whole:.1%} fewer output tokens",
                target=f">= 80% fewer: {'met' if edit <= 0.2 * whole else 'MISSED'}",
            )
        )
    return rows
