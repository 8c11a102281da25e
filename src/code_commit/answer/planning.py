"""Answer text -> a checked plan: parsed (caret blocks or applydir's JSON), every edit run
through the guard, every edit block placed in its file, and the answer's net effect computed,
without writing anything. Only a plan with no problem reaches the apply (apply/transaction.py).

`checked_plan` is the stage's one entry, for the run and for `code-commit apply` alike.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from code_commit.answer.caret_blocks import DeleteFile, Edit, EditFile, WriteFile
from code_commit.answer.elision import line_set, new_placeholders
from code_commit.answer.formats import FORMATS
from code_commit.answer.match.finding import Work
from code_commit.answer.match.mismatch import EXPLAINED_FAILURES, AmbiguousMatch, MatchFailure, NoMatch
from code_commit.answer.match.resolve import resolve
from code_commit.answer.plan import AnswerRefused, Change, Plan, Problem
from code_commit.config.redaction import Redactor
from code_commit.config.settings import Settings
from code_commit.files.confined import Tree
from code_commit.guard.policy import Guard

_MATCH_FAILURES = (NoMatch.kind, AmbiguousMatch.kind)  # the kinds of problem whose report is costly


# For match_work, every LINE_CHARS characters of a file count as a line when that is more than its lines:
# a pass costs about as much per line of an ordinary file as per this many characters of a long one.
LINE_CHARS = 256


@dataclass(frozen=True)
class MatchLimits:
    """What matching one answer may cost. An answer with one failing pair is refused anyway, so past
    `failed_pairs` failures the rest are not tried; and every pair costs a pass over its file, so the
    lines matched in all (`work`: the file's lines plus the pair's own, per pair) are bounded too."""

    failed_pairs: int
    work: int

    @classmethod
    def of(cls, settings: Settings) -> MatchLimits:
        return cls(settings.max_failed_pairs, settings.match_work)


@dataclass
class MatchWork:
    """What matching an answer cost, counted as `MatchLimits` counts it (pass one to `plan_changes` to read it)."""

    pairs: int = 0  # search/replace pairs tried
    lines: int = 0  # lines matched in all
    failed: int = 0  # pairs that failed
    unchecked: int = 0  # pairs not tried: past the failure or the work limit
    stopped: str = ""  # which limit ended the matching, if one did: "failed_pairs" or "work"
    matching: Work = field(default_factory=Work)  # the matcher's own counts, across every pair


def checked_plan(
    root: Path,
    text: str,
    settings: Settings,
    *,
    fmt: str = "caret",
    guard: Guard | None = None,
    need_edits: bool = False,
    secrets: Redactor | None = None,
) -> Plan:
    """Answer text (`fmt`: a name in answer.formats.FORMATS) parsed, guarded and planned.
    Raises `AnswerRefused`, one problem per reason, if any part of it cannot be applied, or, with
    `need_edits`, if it has no edit at all (prose alone is no answer to apply), or if it would write
    one of the `secrets` into a project file. Raises `NeedsHuman` for an answer that hands the task
    back (a ^^^needs-human block): nothing of it is planned, its reason censored with `secrets`."""
    answer_format = FORMATS[fmt]
    edits = answer_format.parse(text, secrets)
    if need_edits and not edits:
        raise AnswerRefused.of("empty", f"the answer has no {answer_format.parts}, so there is nothing to apply")
    guard = guard or Guard(root, settings.protected_patterns)
    plan = plan_changes(root, edits, guard, allow_delete=settings.allow_delete, limits=MatchLimits.of(settings))
    leaks = [] if secrets is None else _secret_problems(root, plan, secrets)
    if leaks:
        raise AnswerRefused(leaks)
    return plan


def _secret_problems(root: Path, plan: Plan, secrets: Redactor) -> list[Problem]:
    """A problem for each file the plan would write a secret into that the file did not hold already,
    or name after one: an answer that echoes the key (a service or a prompt injection may put it
    before the model) is refused rather than written where `git add -A` would commit it; a file
    that held one (a test fixture, a config the user keeps) can still be edited around it. Bytes are
    read as Latin-1, as the censor reads a patch, so the key's UTF-8 form is found in any file."""
    problems = []
    for change in plan.changes:
        new = secrets.found_in(change.content.decode("latin-1")) if change.content is not None else frozenset()
        holds = bool(new and new - secrets.found_in(_on_disk(root, change.path).decode("latin-1")))
        if holds or secrets.found_in(change.path):
            where = "its content" if holds else "its path"
            problems.append(
                Problem(
                    "secret",
                    f"{secrets(change.path)!r}: {where} holds a secret code-commit censors (an API key, a token, a "
                    "password from the environment or a key file): an answer never writes one into the project",
                    secrets(change.path),
                )
            )
    return problems


def _on_disk(root: Path, path: str) -> bytes:
    """The file's bytes now (none if it is missing or cannot be read), never through a symlink."""
    try:
        with Tree(root) as tree:
            return tree.read(path) if tree.lstat(path) is not None else b""
    except OSError:
        return b""


def plan_changes(
    root: Path,
    edits: Sequence[Edit],
    guard: Guard,
    *,
    allow_delete: bool = True,
    limits: MatchLimits | None = None,
    work: MatchWork | None = None,
) -> Plan:
    """Check every edit and compute the answer's net effect; raise AnswerRefused listing all refusals.

    Edit blocks are resolved here, against each file as the earlier blocks of the answer left it,
    within `limits` (by default the settings' defaults); `work` is filled in with what it cost.
    """
    limits = limits or MatchLimits.of(Settings())
    work = MatchWork() if work is None else work
    problems: list[Problem] = []
    final: dict[str, bytes | None] = {}
    whole: set[str] = set()  # written by a whole-file block
    guard.prepare(edit.path for edit in edits)  # one git call for the whole answer, not one per path
    on_disk: dict[str, frozenset[str]] = {}  # each file's lines, read once for the elision check
    for block, edit in enumerate(edits, start=1):
        if isinstance(edit, DeleteFile) and not allow_delete:
            problems.append(
                Problem(
                    "delete_disabled",
                    f"{edit.path!r}: deleting files is turned off in this project (allow_delete = false); "
                    "change the file instead, or leave it for the supervisor",
                    edit.path,
                    block,
                )
            )
            continue
        refusal = guard.check_delete(edit.path) if isinstance(edit, DeleteFile) else guard.check_write(edit.path)
        if refusal:
            problems.append(Problem("guard", str(refusal), edit.path, block))
            continue
        if isinstance(edit, DeleteFile):
            final[edit.path] = None
            continue
        # Only after the guard: "it already exists" about a path it refuses would tell what is there.
        if isinstance(edit, WriteFile) and edit.new_file and os.path.lexists(root / edit.path):
            message = f"{edit.path!r}: create_file, but the file already exists; use replace_lines to change it"
            problems.append(Problem("exists", message, edit.path, block))
            continue
        if isinstance(edit, EditFile):
            content = _resolve_edit(root, edit, block, final, problems, limits, work)
        elif not work.stopped and (elided := _elided(root, edit, block, final, on_disk)):
            # Past a matching limit the answer is refused anyway: the check is skipped, so an answer of
            # 90,000 elided blocks is not a report of 90,000 problems. Each counts as a failing pair.
            problems.append(elided)
            work.failed += 1
            if work.failed >= limits.failed_pairs:
                work.stopped = "failed_pairs"
            continue
        else:
            content = _encode(edit.path, edit.content, block, problems)
            whole.add(edit.path)
        if content is not None:
            final[edit.path] = content
    if work.unchecked:
        problems.append(_unchecked(work, limits))
    written = {path for path, content in final.items() if content is not None}
    for path in written:
        parts = path.split("/")
        for n in range(1, len(parts)):
            if (folder := "/".join(parts[:n])) in written:
                message = f"{folder!r}: written as a file, but {path!r} needs it to be a folder"
                problems.append(Problem("file_and_folder", message, folder))
    if problems:
        raise AnswerRefused(problems)

    changes: list[Change] = []
    missing: list[str] = []
    for path, content in final.items():
        try:
            current = _read_existing(root / path)
        except OSError as exc:
            problems.append(_unreadable(path, exc, None))
            continue
        if content is None and current is None:
            missing.append(path)
        elif content != current:
            changes.append(Change(path, content))
    if problems:
        raise AnswerRefused(problems)
    return Plan(final, tuple(changes), tuple(missing), frozenset(path for path in whole if final.get(path) is not None))


def _unchecked(work: MatchWork, limits: MatchLimits) -> Problem:
    if work.stopped == "failed_pairs":
        why = (
            f"the answer is refused after its first {limits.failed_pairs} failing search texts "
            "(max_failed_pairs), so the rest were not looked for"
        )
    else:
        why = (
            f"matching them would have taken more than the {limits.work:,} lines of matching one answer may cost "
            f"(match_work: each search/replace pair costs a pass over its file); use fewer search/replace pairs "
            "in a large file (one pair can replace many neighbouring lines), or give the whole file"
        )
    return Problem("unchecked", f"{work.unchecked} search/replace pair(s) of the answer were not checked: {why}")


def _elided(
    root: Path, edit: WriteFile, block: int, final: dict[str, bytes | None], on_disk: dict[str, frozenset[str]]
) -> Problem | None:
    """A whole-file block for an existing file with a line standing for code left out, which the
    file did not already hold: applied, it would delete what the line stands for. A file on disk is
    read once (`on_disk`): thousands of such blocks for one large file each read it again (65 s
    for 2,000 blocks on a 10 MB file)."""
    if not new_placeholders(edit.content, ""):  # most answers: no need to read the file
        return None
    if edit.path in final:
        current = final[edit.path]
        if current is None:
            return None  # a new file leaves nothing out
        old: str | frozenset[str] = current.decode("utf-8", "replace")
    elif edit.path in on_disk:
        old = on_disk[edit.path]
    else:
        try:
            current = _read_existing(root / edit.path)
        except OSError:
            return None  # reported as unreadable when the plan compares it with the disk
        if current is None:
            return None  # a new file leaves nothing out
        old = on_disk[edit.path] = line_set(current.decode("utf-8", "replace"))
    found = new_placeholders(edit.content, old)
    if not found:
        return None
    lines = ", ".join(f"line {n}: {line.strip()!r}" for n, line in found[:3])
    more = f" and {len(found) - 3} more" if len(found) > 3 else ""
    return Problem(
        "elided",
        f"{edit.path!r}: block {block} is a whole-file block, but it leaves code out ({lines}{more}); a "
        "whole-file block replaces the entire file, so the code such a line stands for would be deleted. "
        "Change an existing file with an edit block (^^^search/^^^replace pairs), or give every line of it",
        edit.path,
        block,
    )


def _unreadable(path: str, exc: OSError, block: int | None) -> Problem:
    """A file the answer names that this process cannot read: nothing can be checked or journaled."""
    why = exc.strerror or str(exc)
    return Problem(
        "unreadable",
        f"{path!r}: the file cannot be read ({why}), so code-commit cannot check or record the change; "
        "leave it alone, or fix its permissions",
        path,
        block,
    )


def _encode(path: str, text: str, block: int, problems: list[Problem]) -> bytes | None:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        problems.append(Problem("not_utf8", f"{path!r}: the content is not valid UTF-8 text", path, block))
        return None


def _resolve_edit(
    root: Path,
    edit: EditFile,
    block: int,
    final: dict[str, bytes | None],
    problems: list[Problem],
    limits: MatchLimits,
    work: MatchWork,
) -> bytes | None:
    """The file's bytes after the edit block, or None after adding a problem for every pair that fails
    (within `limits`: the pairs past them are only counted, in `work.unchecked`)."""
    path = edit.path
    if work.stopped:  # past a limit: not even read (2,000 blocks re-reading a 10 MB file took 29 s)
        work.unchecked += len(edit.replacements)
        return None
    earlier = path in final  # an earlier block of this answer already changed the file
    try:
        current = final[path] if earlier else _read_existing(root / path)
    except OSError as exc:
        problems.append(_unreadable(path, exc, block))
        return None
    if current is None:
        why = (
            "an earlier block of this answer deletes it"
            if earlier
            else "it does not exist; create a new file with a whole-file block"
        )
        problems.append(Problem("missing_file", f"{path!r}: block {block} is an edit block, but {why}", path, block))
        return None
    try:
        text = current.decode("utf-8")
    except UnicodeDecodeError:
        problems.append(
            Problem(
                "not_text",
                f"{path!r}: block {block} is an edit block, but the file is not UTF-8 text; give the whole file",
                path,
                block,
            )
        )
        return None
    failed = False
    count = len(edit.replacements)
    for number, pair in enumerate(edit.replacements, start=1):
        # A file of long lines costs its characters, not its few lines (1,000 lines of 10 KB: 39 s).
        cost = max(text.count("\n"), len(text) // LINE_CHARS) + pair.search.count("\n") + pair.replace.count("\n") + 1
        if work.stopped or work.lines + cost > limits.work:
            work.stopped = work.stopped or "work"
            work.unchecked += len(edit.replacements) - number + 1
            failed = True
            break
        work.pairs += 1
        work.lines += cost
        # Only the answer's first few failures get the costly parts of a report: an answer of many
        # failing pairs (a few bytes each) must not cost a pass over the file per window size each.
        explain = sum(problem.kind in _MATCH_FAILURES for problem in problems) < EXPLAINED_FAILURES
        if found := new_placeholders(pair.replace, text):
            # A replacement that says "code left out" deletes what it stands for, as a whole-file block would.
            failed = True
            work.failed += 1
            if work.failed >= limits.failed_pairs:
                work.stopped = "failed_pairs"
            lines = ", ".join(repr(line.strip()) for _, line in found[:3])
            problems.append(
                Problem(
                    "elided",
                    f"{path!r}: block {block} (an edit block), search {number} of {count}: its replacement has a "
                    f"line standing for code left out ({lines}); a replacement takes the place of the whole search "
                    "text, so that code would be deleted. Give every line of the replacement",
                    path,
                    block,
                    number,
                    pair.line,
                )
            )
            continue
        try:
            text = resolve(text, pair.search, pair.replace, explain, work.matching).text
        except MatchFailure as failure:
            failed = True
            work.failed += 1
            if work.failed >= limits.failed_pairs:
                work.stopped = "failed_pairs"
            where = f"{path!r}: block {block} (an edit block), search {number} of {count}"
            if pair.line is not None:
                where += f" (answer line {pair.line})"
            if earlier or number > 1:
                where += ", matched against the file as the earlier edits of this answer left it"
            problems.append(
                Problem(
                    failure.kind,
                    f"{where}: {failure.describe(path)}",
                    path,
                    block,
                    number,
                    pair.line,
                    failure.closest,
                    failure.locations,
                    failure.unique_around,
                    failure.min_context,
                    failure.already_there,
                )
            )
    return None if failed else _encode(path, text, block, problems)


def _read_existing(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None
