"""The job summary: the run's outcome, calls, tokens, cost, the diff stat and where the logs are, as
GitHub-flavoured Markdown for $GITHUB_STEP_SUMMARY.

Everything in it comes from `Facts` (never from the environment, where the key is). The record's
strings are the model's and the build's text, so none is written as Markdown: a short one is
written with every character but letters, digits and spaces as an HTML character reference (no
emphasis, link, table cell, tag or mention can start), a long one inside `<pre>` with HTML's
special characters escaped (the block ends only at our `</pre>`). The runner refuses a summary over
128 KiB; this one is bounded well below that by counting what it shows.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from code_commit.cli.github_action.facts import Facts
from code_commit.exits import BY_CODE

MOST_FILES = 50  # file rows shown; the rest are counted
_MOST_TEXT = 2000  # characters of the record's error shown
_PLAIN = re.compile(r"[A-Za-z0-9 ]")


@dataclass(frozen=True)
class FileStat:
    path: str
    added: int | None  # None: not counted (binary, too large, a symlink, unreadable)
    removed: int | None
    note: str = ""  # "deleted", "binary"...


def inline(text: str, limit: int = 200) -> str:
    """Hostile text as inert inline Markdown: control characters shown as `?`, everything but letters,
    digits and spaces as a character reference, cut to `limit` characters."""
    cut = text[:limit] + ("..." if len(text) > limit else "")
    return "".join(
        ch if _PLAIN.fullmatch(ch) else "?" if ord(ch) < 32 or ord(ch) == 127 else f"&#{ord(ch)};" for ch in cut
    )


def block(text: str, limit: int = _MOST_TEXT) -> str:
    """Hostile text as a preformatted HTML block."""
    cut = text[:limit] + ("\n[...]" if len(text) > limit else "")
    escaped = cut.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f"<pre>\n{escaped}\n</pre>\n"


def _count(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


def render(facts: Facts, stats: Sequence[FileStat] | None, artifact_url: str) -> str:
    meaning = (
        BY_CODE[facts.exit_code].meaning.replace("`", "") if facts.exit_code in BY_CODE else "not a code-commit code"
    )
    lines = [
        f"## code-commit: {inline(facts.outcome)} (exit {facts.exit_code})",
        "",
        f"{inline(meaning, 400)}",
        "",
        "| | |",
        "| --- | --- |",
        f"| outcome | {inline(facts.outcome)} |",
        f"| exit code | {facts.exit_code} |",
    ]
    if facts.model is not None:
        lines.append(f"| model | {inline(facts.model)} |")
    if facts.calls is not None:
        lines.append(f"| model calls | {facts.calls} |")
    if facts.usage is not None:
        usage = facts.usage
        tokens = (
            f"{_count(usage.input_tokens)} in, {_count(usage.output_tokens)} out "
            f"({_count(usage.thinking_tokens)} thinking), cache {_count(usage.cache_read_tokens)} read, "
            f"{_count(usage.cache_write_tokens)} written" + (" (partly estimated)" if usage.estimated else "")
        )
        lines.append(f"| tokens | {tokens} |")
    if facts.record_path is not None:
        cost = "unknown (no price for the model)" if facts.cost_usd is None else f"${facts.cost_usd:.4f} (estimated)"
        lines.append(f"| cost | {cost} |")
    if facts.duration_s is not None:
        lines.append(f"| duration | {facts.duration_s:.1f} s |")
    if facts.last_build is not None:
        lines.append(f"| last build | {_build(facts.last_build)} |")
    lines.append(f"| logs | {_logs(facts, artifact_url)} |")
    lines.append("")
    if facts.files:
        lines += _files(facts, stats)
    if facts.error:
        lines += ["### What ended the run", "", block(facts.error)]
    if facts.problems:
        lines += ["### Problems the action found", ""]
        lines += [f"- {inline(problem, 400)}" for problem in facts.problems] + [""]
    return "\n".join(lines) + "\n"


def _build(build: object) -> str:
    if not isinstance(build, dict):
        return "?"
    passed = build.get("passed")
    code = build.get("exit_code")
    verdict = "passed" if passed is True else "failed" if passed is False else "?"
    shown = f"{verdict}, exit code {code}" if type(code) is int else f"{verdict}, killed at its time limit"
    sandbox = build.get("sandbox")
    return shown + (f", sandbox {inline(sandbox, 80)}" if isinstance(sandbox, str) else "")


def _logs(facts: Facts, artifact_url: str) -> str:
    where = []
    if artifact_url.startswith("https://"):  # upload-artifact's output, not the record's
        where.append(f'<a href="{inline(artifact_url, 500)}">the run folder, uploaded as an artifact</a>')
    if facts.log_dir is not None:
        where.append(
            f"on the runner: {inline(str(facts.log_dir), 300)} (run.log, summary.json, each prompt and answer)"
        )
    elif facts.record_path is not None:
        where.append("no run folder: the run ended before it made one")
    else:
        where.append("no record: this step's log and the steps above it")
    return "; ".join(where)


def _files(facts: Facts, stats: Sequence[FileStat] | None) -> list[str]:
    lines = [f"### Files changed ({len(facts.files)})", "", "| file | lines |", "| --- | --- |"]
    by_path = {stat.path: stat for stat in stats or ()}
    for path in facts.files[:MOST_FILES]:
        stat = by_path.get(path)
        if stat is None:
            counted = "deleted" if path in facts.deleted else "not counted"
        elif stat.added is None or stat.removed is None:
            counted = stat.note or "not counted"
        else:
            counted = f"+{stat.added} -{stat.removed}" + (f" ({stat.note})" if stat.note else "")
        lines.append(f"| {inline(path, 300)} | {counted} |")
    if len(facts.files) > MOST_FILES:
        lines.append(f"| and {len(facts.files) - MOST_FILES} more | |")
    if stats is None:
        lines += ["", "The lines were not counted: the build changed what git reads (exit 10)."]
    return [*lines, ""]
