"""The codebase rollup: the project's files, framed for the model, in agent-config/codeRollup.txt.

Which files: those of one `git ls-files -z -t --cached --others --exclude-standard` run in the
project root (the current directory): the tracked files. Untracked files git does not ignore are
listed by name ("not tracked by git"), never read, unless `rollup_include` names them: the model
could not change them, and an untracked build folder is no source. The lists are deduplicated (git
lists an unmerged path once per stage) and sorted by path bytes, so the same tree always gives the
same bytes, whatever order the files were created in.

Framing, as system_prompts/project_structure.txt explains it to the model (9 bytes a file, so
a thousand tiny files do not pay more for their headers than for their content):

    ==> path <==            then the file's bytes, unchanged, plus a "\\n" if they do not end
                            with one (an empty file is a header alone)
    ...                     the included files, in path order
    --- OUTLINES ---        then, for source and test files not included whole, their outlines:
    ::: path (outline: what; why) :::       a header, then `line: signature` per definition,
    12: class X             indented two spaces per level (outline.py), in path order
    --- LEFT OUT ---        then one line per file left out: `path (reason, size)`, but a
    path (reason, size)     folder that would take more than FOLDER_LINES lines is summed up
    dir/ (N files, size: N reason, ...)     on one, and the list stops at MAX_LISTED lines

Left out, and listed: what `rollup_exclude` matches; by default (`rollup_rules`, unless
`rollup_include` matches) lock files, images, translation catalogs, minified and generated files;
symlinks (never followed), binary files, files over `rollup_max_file_size` (decided from lstat,
before anything is read), directories (submodules, nested repositories), other non-regular
files, unreadable files; and what does not fit. What fits: under `rollup_budget` (estimated
tokens), files in the order of their rank (what `rollup_include` names, then the files relevant to
agent-config/query.txt (relevance.py), then source, tests, config, docs and data, cheaper and
shallower first); when not all fit, OUTLINE_SHARE of the budget is kept for the outlines of the
source and test files that do not (each first gets its first FIRST_LINES definitions, then each
grows in rank order); config, docs and data take at most
CONTEXT_SHARE of what source and tests take (or fill the rollup up to SMALL_ROLLUP bytes), since
the model is there to change code. The list of left-out files comes on top of the budget;
MAX_LISTED bounds it.

Left out silently: everything under agent-config/ (the tool's own inputs, keys and logs), and under
a nested project's agent-config/ (one that holds a file code-commit writes there: a key file,
config.toml, query.txt, codeRollup.txt, logs/), which the root's `/agent-config` line does not
ignore; a folder of that name without such files is the project's own. Also the output file
itself, tracked files deleted from the work tree. Left out and listed, with no word of their
content: files that hold a secret the run would censor (`secrets.collect_secrets`: a provider key
from the environment or a key file, a secret-looking variable's value), such as an untracked `.env`
or a hard link to a key file. The run censors prompts anyway, but the rollup is a file users read
and paste; censoring it in place would also show the model a file that is not the one on disk.
Left out with only a warning on stderr: paths that cannot stand on one header line (control characters, Unicode line
separators, bytes that are not UTF-8).

Binary means a NUL byte anywhere in the file, or content that is not valid UTF-8. git looks for
a NUL in the first 8000 bytes only; here the whole file is in memory anyway (it is under the
cap), so scanning all of it costs nothing, and code-commit reads the rollup back as strict
UTF-8, so one file that is not UTF-8 would make the whole rollup unreadable.

Two passes: the first reads every file to judge it (binary, generated) and keeps what it read
up to KEEP_IN_MEMORY bytes; the second writes the chosen files, reading again what was not
kept, and judges them again (a file may change in between).

Known limit: the format has no escaping, so a file containing a line that looks like a header
is passed on as it is.

POSIX only, like the rest of code-commit: files are opened relative to a directory descriptor.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
import subprocess
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Protocol

from code_commit.config.paths import CONFIG_DIR, CONFIG_FILE, LOGS_DIR, QUERY_FILE, QUERY_NAME, ROLLUP_FILE, ROLLUP_NAME
from code_commit.config.secrets import collect_secrets
from code_commit.config.settings import Settings
from code_commit.console.plural import count
from code_commit.credentials import KEY_FILES
from code_commit.errors import SetupError
from code_commit.exits import EXIT
from code_commit.files.owner_only import FILE_MODE, make_private_dirs
from code_commit.files.setup_files import INPUT_BYTES, read_regular
from code_commit.git.env import GIT_TIMEOUT, run_git
from code_commit.llm.catalog import CHARS_PER_TOKEN_HIGH_ESTIMATE, tokens_at_most
from code_commit.rollup.outline import MAX_OUTLINE_BYTES, Outline, outline
from code_commit.rollup.rules import Kind, excluded_by_content, excluded_by_name, kind_of

if TYPE_CHECKING:
    from code_commit.git.ignore import PathPatterns

DEFAULT_OUTPUT = ROLLUP_FILE
DEFAULT_MAX_FILE_SIZE = Settings().rollup_max_file_size
EXCLUDED_DIR = CONFIG_DIR.encode()
# What code-commit writes in agent-config/: a nested folder that holds one of them is a project's.
TOOL_FILES = frozenset(name.encode() for name in (*KEY_FILES.values(), CONFIG_FILE, QUERY_NAME, ROLLUP_NAME, LOGS_DIR))
HOLDS_SECRET = "holds a secret: an API key or a secret variable's value"
HEADER = b"==> %s <==\n"
LEFT_OUT_LABEL = b"--- LEFT OUT ---\n"
OUTLINES_LABEL = b"--- OUTLINES ---\n"
OUTLINE_HEADER = b"::: %s (outline: %s) :::\n"  # path, then what the outline is of and why it is not whole
_SHOWN = re.compile(r"^==> (.+) <==$", re.MULTILINE)  # a HEADER line (tests check the two agree)
_OUTLINED = re.compile(r"^::: (.+) \(outline: [^()\n]*\) :::$", re.MULTILINE)  # an OUTLINE_HEADER line
MAX_LISTED = 50
FOLDER_LINES = 8
# Configuration, docs and data take at most CONTEXT_SHARE of the bytes source and tests take, or whatever brings the
# rollup up to SMALL_ROLLUP bytes: a small project's README costs little and says much.
CONTEXT_SHARE = 0.15
SMALL_ROLLUP = 16 * 1024
KEEP_IN_MEMORY = 64 * 2**20
OVER_BUDGET = "over the token budget"
OVER_SHARE = "config, docs and data over their share"
NOT_TRACKED = "not tracked by git"
# When not every file fits whole, this share of the budget is kept for the outlines of the source and
# test files that do not (more when the whole files leave more).
OUTLINE_SHARE = 0.2
OUTLINED_KINDS = (Kind.SOURCE, Kind.TEST)
RELEVANT_SHOWN = 3  # the files relevant to the query that `code-commit rollup` names, with why
FIRST_LINES = 8  # every outlined file's first share: so many top-level definitions, before any grows

# C0 and C1 controls, DEL, and the characters str.splitlines() also breaks lines at.
_UNFRAMEABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")
# O_NOFOLLOW: a symlink swapped in after the lstat is refused, not followed.
# O_NONBLOCK: a FIFO swapped in after the lstat cannot hang the run.
_OPEN_FLAGS = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_WRITE_BUFFER = 1 << 20


class Reporter(Protocol):
    def info(self, text: str) -> None: ...
    def warn(self, text: str) -> None: ...


@dataclass(frozen=True)
class LeftOut:
    path: str
    reason: str
    size: int | None  # None: not a regular file


@dataclass
class _Candidate:
    path: bytes
    kind: Kind
    size: int
    forced: bool  # named by rollup_include
    content: bytes | None  # None: read it again when writing
    too_big: str | None = None  # over rollup_max_file_size (the reason): never whole, outlined if source
    shape: Outline | None = None  # its outline, when ranking it by the query made it already

    @property
    def cost(self) -> int:
        return len(HEADER % self.path) + self.size + 1


@dataclass(frozen=True)
class _Outlined:
    path: bytes
    text: bytes  # the header and the entries


@dataclass
class Rollup:
    """What one run wrote."""

    output: Path
    included: int = 0
    size: int = 0  # bytes written to the output
    left_out: list[LeftOut] = field(default_factory=list)
    outlined: list[LeftOut] = field(default_factory=list)  # not whole, shown by their outline: why not whole
    relevant: list[str] = field(default_factory=list)  # the files the query names most, with the reasons
    unframeable: list[bytes] = field(default_factory=list)

    @property
    def tokens(self) -> int:
        return tokens_at_most(self.size)

    def summary(self) -> str:
        reasons = Counter(_reason_group(item.reason) for item in self.left_out)
        why = ", ".join(f"{n} {reason}" for reason, n in reasons.most_common())
        return (
            f"rollup: {count(self.included, 'file')} included, "
            + (f"{len(self.outlined)} outlined, " if self.outlined else "")
            + f"{len(self.left_out)} left out"
            + (f" ({why})" if why else "")
            + f"; {count(self.size, 'byte')}, {count(self.tokens, 'token')} at most (estimated), "
            + f"written to {self.output}"
        )


def write_rollup(
    root: Path,
    output: Path | None = None,
    settings: Settings | None = None,
    env: Mapping[str, str] | None = None,
    query: str | None = None,
) -> Rollup:
    """Write the rollup of the git work tree at `root`; `output` is relative to `root` unless absolute.
    `env` (default: os.environ) is where the secrets no included file may hold are found; the files
    relevant to `query` (the text of agent-config/query.txt) come first."""
    settings = settings or Settings()
    secrets = tuple(v.encode() for v in collect_secrets(root, env, settings.redact_env, [settings.base_url]).values)
    from code_commit.git.ignore import PathPatterns

    exclude = PathPatterns(settings.rollup_exclude, "rollup_exclude")
    include = PathPatterns(settings.rollup_include, "rollup_include")
    target = root / (output if output is not None else DEFAULT_OUTPUT)
    listing = list_files(root)  # before creating anything, so a non-repository leaves no trace
    paths = listing.paths
    _check_output(root, target, given=output is not None)
    own = _relative_to(target, root)
    private = own is not None and own.startswith(CONFIG_DIR.encode() + b"/")  # agent-config/ is owner-only
    try:
        if private:
            make_private_dirs(target.parent)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SetupError(f"cannot create {target.parent}: {exc.strerror}") from exc
    if own is not None:  # an output inside the tree must not roll itself up on the next run
        paths = [p for p in paths if p != own]
    result = Rollup(output if output is not None else Path(DEFAULT_OUTPUT))
    root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        untracked = set(listing.untracked)
        cap = settings.rollup_max_file_size
        candidates = _judge(root_fd, paths, untracked, cap, exclude, include, secrets, result)
        tracked = frozenset(p.decode("utf-8", "surrogateescape") for p in listing.tracked)
        ranked = _ranked(candidates, query, tracked, result)
        chosen, pending, room = _choose(ranked, settings.rollup_budget, result)
        outlines = _outlines(root_fd, pending, room, secrets, result)
        with _atomic_output(target, FILE_MODE if private else 0o666 & ~_umask()) as out:
            _render(root_fd, chosen, outlines, cap, secrets, out, result)
            result.size = out.tell()
    finally:
        os.close(root_fd)
    return result


def command(reporter: Reporter, root: Path, output: Path | None, settings: Settings) -> int:
    """`code-commit rollup`: write the rollup, report it on stderr, return the exit code."""
    query = read_query(root)
    result = write_rollup(root, output, settings, query=query)
    if query is not None:
        first = f": {', '.join(result.relevant)}" if result.relevant else ": none named there is in the project"
        reporter.info(f"rollup: the files {QUERY_FILE} names come first{first}")
    for path in result.unframeable:
        reporter.warn(f"left out a path that cannot stand on one header line: {printable(path)}")
    reporter.info(result.summary())
    return EXIT.OK


def read_query(root: Path) -> str | None:
    """The query's text, when agent-config/query.txt is a readable UTF-8 file; the rollup is written
    without it otherwise (a run checks the query and says what is wrong with it)."""
    try:
        return read_regular(root / QUERY_FILE, INPUT_BYTES).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _check_output(root: Path, target: Path, given: bool) -> None:
    """The rollup replaces its output whole, so it must never land in git's own directory (`--output
    .git/index` corrupted the repository) nor, when `--output` is given, replace a file that is not a
    rollup (`--output src/main.py`; an untracked file git could not even restore). SetupError if so."""
    real = target.parent.resolve() / target.name
    proc = _git(root, "rev-parse", "--absolute-git-dir", "--git-common-dir")
    for line in proc.stdout.decode("utf-8", "surrogateescape").splitlines() if proc.returncode == 0 else []:
        git_dir = (root / line).resolve()
        if real == git_dir or git_dir in real.parents:
            raise SetupError(
                f"the rollup's output {target} is inside git's own directory {git_dir}: choose another --output"
            )
    if not given:
        return  # agent-config/codeRollup.txt is code-commit's own, whatever an older version wrote there
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise SetupError(f"cannot use {target} as the rollup's output: {exc.strerror}") from exc
    if stat.S_ISREG(st.st_mode):
        fd = os.open(target, _OPEN_FLAGS)  # never waits, should a FIFO be swapped in
        try:
            start = os.read(fd, max(len(LEFT_OUT_LABEL), len(OUTLINES_LABEL)))
        finally:
            os.close(fd)
        if not start or start.startswith(b"==> ") or start in (LEFT_OUT_LABEL, OUTLINES_LABEL):
            return
        what = "a file that is not a rollup"
    else:
        what = "a symlink" if stat.S_ISLNK(st.st_mode) else "not a regular file"
    raise SetupError(
        f"the rollup's output {target} exists and is {what}; the rollup replaces only an earlier rollup: "
        "remove it first, or choose another --output"
    )


@dataclass(frozen=True)
class Listing:
    """git's view of the work tree: each list deduplicated (git lists an unmerged path once per stage)
    and sorted by bytes."""

    tracked: list[bytes]
    untracked: list[bytes]  # not ignored; an untracked nested repository is "dir"

    @property
    def paths(self) -> list[bytes]:
        return sorted({*self.tracked, *self.untracked})


def list_files(root: Path) -> Listing:
    """The tracked files under `root`, and the untracked ones git does not ignore, in one git call."""
    try:
        proc = _git(root, "ls-files", "-z", "-t", "--cached", "--others", "--exclude-standard")
    except FileNotFoundError as exc:
        raise SetupError("git is not installed or not on PATH; the rollup asks git which files to include") from exc
    if proc.returncode != 0:
        message = proc.stderr.decode("utf-8", "replace").strip()
        if "not a git repository" in message:
            raise SetupError(
                f"{root} is not in a git repository: run the rollup from the project root of a git "
                "repository (git init creates one)"
            )
        raise SetupError(f"git ls-files failed in {root}: {message}")
    tracked: set[bytes] = set()
    untracked: set[bytes] = set()
    for entry in proc.stdout.split(b"\0"):
        tag, _, path = entry.partition(b" ")  # -t: "H path" (tracked), "? path" (untracked), ...
        if path:
            (untracked if tag == b"?" else tracked).add(path.rstrip(b"/"))
    return Listing(sorted(tracked), sorted(untracked - tracked))


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    """LC_ALL=C: git's messages are matched, so they must not be translated. A git that never answers
    is a setup error, not a hang."""
    try:
        return run_git(root, *args, timeout=GIT_TIMEOUT, extra={"LC_ALL": "C"})
    except subprocess.TimeoutExpired:
        raise SetupError(f"git {args[0]} gave no answer within {GIT_TIMEOUT} s in {root}") from None


def list_paths(root: Path) -> list[bytes]:
    """git's tracked and untracked-not-ignored paths under `root`, deduplicated, sorted by bytes."""
    return list_files(root).paths


def _judge(
    root_fd: int,
    paths: list[bytes],
    untracked: set[bytes],
    cap: int,
    exclude: PathPatterns,
    include: PathPatterns,
    secrets: tuple[bytes, ...],
    result: Rollup,
) -> list[_Candidate]:
    """Every path either becomes a candidate or is recorded as left out, with its reason."""
    from code_commit.git.ignore import GitUnanswered

    candidates = []
    kept = 0
    tools = tool_dirs(paths)
    names = [p.decode("utf-8") for p in paths if _frameable(p) and not excluded_dir(p, tools)]
    try:  # one git call for each setting that has patterns
        excluded, included = exclude.check(names), include.check(names)
    except GitUnanswered as exc:
        raise SetupError(f"cannot match rollup_exclude and rollup_include: {exc}") from exc
    for path in paths:
        if excluded_dir(path, tools):
            continue
        if not _frameable(path):
            result.unframeable.append(path)
            continue
        name = path.decode("utf-8")
        forced = included[name] is not None
        reason = "rollup_exclude" if excluded[name] is not None else None
        if reason is None and not forced:  # untracked build output, a stray .env: by name only, never read
            reason = NOT_TRACKED if path in untracked else excluded_by_name(name)
        if reason is not None:
            with contextlib.suppress(OSError):
                st = os.stat(path, dir_fd=root_fd, follow_symlinks=False)
                result.left_out.append(LeftOut(name, reason, st.st_size if stat.S_ISREG(st.st_mode) else None))
            continue
        content = _content(root_fd, path, cap)
        if content is None:
            continue
        kind = kind_of(name)
        if isinstance(content, Omitted):
            if content.too_big and kind in OUTLINED_KINDS and content.size is not None:
                candidates.append(_Candidate(path, kind, content.size, forced, None, too_big=content.reason))
            else:  # an oversized file's reason says its size
                result.left_out.append(LeftOut(name, content.reason, None if content.too_big else content.size))
            continue
        if holds_secret(content, secrets):  # rollup_include cannot bring it in
            result.left_out.append(LeftOut(name, HOLDS_SECRET, len(content)))
            continue
        reason = None if forced else excluded_by_content(content, kind)
        if reason is not None:
            result.left_out.append(LeftOut(name, reason, len(content)))
            continue
        keep = kept + len(content) <= KEEP_IN_MEMORY
        kept += len(content) if keep else 0
        candidates.append(_Candidate(path, kind, len(content), forced, content if keep else None))
    return candidates


def tool_dirs(paths: list[bytes]) -> set[bytes]:
    """The nested agent-config/ folders that are code-commit's: `sub/agent-config/` when it holds a key
    file, config.toml, query.txt, codeRollup.txt or logs/."""
    found = set()
    for path in paths:
        parts = path.split(b"/")
        for i, part in enumerate(parts[1:-1], start=1):
            if part == EXCLUDED_DIR and parts[i + 1] in TOOL_FILES:
                found.add(b"/".join(parts[: i + 1]) + b"/")
    return found


def excluded_dir(path: bytes, tools: set[bytes]) -> bool:
    """Under the root's agent-config/, or a nested project's (`sub/agent-config/anthropic-api-key`)."""
    if path == EXCLUDED_DIR or path.startswith(EXCLUDED_DIR + b"/"):
        return True
    return bool(tools) and b"/" + EXCLUDED_DIR + b"/" in path and any(path.startswith(tool) for tool in tools)


def holds_secret(content: bytes, secrets: tuple[bytes, ...]) -> bool:
    return any(secret in content for secret in secrets)


def _ranked(
    candidates: list[_Candidate], query: str | None, tracked: frozenset[str], result: Rollup
) -> list[_Candidate]:
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
    result.relevant = [f"{path} ({'; '.join(scores[path].reasons)})" for path in strongest[:RELEVANT_SHOWN]]

    def key(candidate: _Candidate) -> tuple[bool, int, float, Kind, int, bytes]:
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


def _choose(ranked: list[_Candidate], budget: int, result: Rollup) -> tuple[list[_Candidate], list[_Candidate], float]:
    """What fits whole, in path order; the source and test files that do not, in rank order, for their
    outlines; and the room left for those. Config, docs and data take at most their share of what source
    and tests take. When not everything fits, OUTLINE_SHARE of the budget is kept for the outlines."""
    room = budget * CHARS_PER_TOKEN_HIGH_ESTIMATE if budget else float("inf")
    everything = sum(c.cost for c in ranked if c.too_big is None)
    fits = everything <= room and all(c.too_big is None for c in ranked)
    whole_room = room if fits else room * (1 - OUTLINE_SHARE)
    chosen: list[_Candidate] = []
    pending: list[_Candidate] = []
    code = context = used = 0
    for candidate in ranked:
        context_file = candidate.kind >= Kind.CONFIG and not candidate.forced
        if candidate.too_big is not None or used + candidate.cost > whole_room:
            if candidate.kind in OUTLINED_KINDS:
                pending.append(candidate)
            else:
                result.left_out.append(LeftOut(candidate.path.decode(), OVER_BUDGET, candidate.size))
        elif context_file and context + candidate.cost > max(code * CONTEXT_SHARE, SMALL_ROLLUP - code):
            result.left_out.append(LeftOut(candidate.path.decode(), OVER_SHARE, candidate.size))
        else:
            chosen.append(candidate)
            used += candidate.cost
            if context_file:
                context += candidate.cost
            elif candidate.kind <= Kind.TEST:
                code += candidate.size
    return sorted(chosen, key=lambda c: c.path), pending, room - used


def _outlines(
    root_fd: int, pending: list[_Candidate], room: float, secrets: tuple[bytes, ...], result: Rollup
) -> list[_Outlined]:
    """The outlines of the source and test files not included whole, in path order. In rank order, each
    file first gets a short outline (its first FIRST_LINES top-level definitions) while the room lasts;
    then, in rank order again, each grows to its whole outline, or its top level, or as many top-level
    definitions as fit. A file for which not even one line fits is listed as left out."""
    kept: list[tuple[_Candidate, Outline, str, bytes]] = []
    room -= len(OUTLINES_LABEL)
    for candidate in pending:
        name = candidate.path.decode()
        why = candidate.too_big or OVER_BUDGET
        size = None if candidate.too_big else candidate.size  # an oversized file's reason says its size
        if room < len(OUTLINE_HEADER % (candidate.path, b"")):  # no file is parsed once nothing can fit
            result.left_out.append(LeftOut(name, why, size))
            continue
        data = candidate.content if candidate.content is not None else _head(root_fd, candidate.path)
        if data is None or b"\0" in data or holds_secret(data, secrets):
            result.left_out.append(LeftOut(name, why if data is not None else "unreadable", size))
            continue
        shape = candidate.shape if candidate.shape is not None else outline(name, data)
        lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
        of = f"{lines:,} lines" if len(data) >= candidate.size else f"its first {size_text(len(data))}"
        of += f"; {why}" if candidate.too_big else f", {size_text(candidate.size)}; {why}"
        text = _outline_text(candidate.path, shape, of, room, FIRST_LINES)
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
        outlined.append(_Outlined(candidate.path, grown))
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


def _head(root_fd: int, path: bytes) -> bytes | None:
    """The first MAX_OUTLINE_BYTES of a regular file (no symlink followed), or None."""
    try:
        fd = os.open(path, _OPEN_FLAGS, dir_fd=root_fd)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return _read_upto(fd, MAX_OUTLINE_BYTES, MAX_OUTLINE_BYTES - 1)
    except OSError:
        return None
    finally:
        os.close(fd)


def _render(
    root_fd: int,
    chosen: list[_Candidate],
    outlines: list[_Outlined],
    cap: int,
    secrets: tuple[bytes, ...],
    out: BinaryIO,
    result: Rollup,
) -> None:
    for candidate in chosen:
        content = candidate.content
        if content is None:
            read = _content(root_fd, candidate.path, cap)
            if read is None:
                continue  # deleted since it was judged
            if isinstance(read, Omitted):
                result.left_out.append(LeftOut(candidate.path.decode(), read.reason, read.size))
                continue
            content = read
            if holds_secret(content, secrets):  # it changed since it was judged
                result.left_out.append(LeftOut(candidate.path.decode(), HOLDS_SECRET, len(content)))
                continue
        out.write(HEADER % candidate.path)
        out.write(content)
        if content and not content.endswith(b"\n"):
            out.write(b"\n")  # so the next header starts on its own line
        result.included += 1
    if outlines:
        out.write(OUTLINES_LABEL)
        for item in outlines:
            out.write(item.text)
    if result.left_out:
        out.write(LEFT_OUT_LABEL)
        for line in listing(result.left_out):
            out.write(line.encode() + b"\n")


@dataclass(frozen=True)
class Omitted:
    reason: str
    size: int | None = None
    too_big: bool = False  # over the size cap: a source file still gets its outline


def _content(root_fd: int, path: bytes, cap: int) -> bytes | Omitted | None:
    """The file's bytes to include, or why it is left out, or None if it is not there."""
    try:
        st = os.stat(path, dir_fd=root_fd, follow_symlinks=False)
    except (FileNotFoundError, NotADirectoryError):
        return None  # a tracked file deleted from the work tree
    if stat.S_ISLNK(st.st_mode):
        return Omitted("symlink")
    if stat.S_ISDIR(st.st_mode):
        return Omitted("submodule or nested repository")
    if not stat.S_ISREG(st.st_mode):
        return Omitted("not a regular file")
    if st.st_size > cap:
        return Omitted(over_cap(st.st_size, cap), st.st_size, too_big=True)
    try:
        fd = os.open(path, _OPEN_FLAGS, dir_fd=root_fd)
    except FileNotFoundError:
        return None
    except OSError as exc:
        return Omitted("symlink" if exc.errno == errno.ELOOP else f"unreadable: {exc.strerror}")
    try:
        data = _read_upto(fd, st.st_size + 1, cap)
        if len(data) > cap:  # it grew since the lstat
            size = os.fstat(fd).st_size
            return Omitted(over_cap(size, cap), size, too_big=True)
    except OSError as exc:
        return Omitted(f"unreadable: {exc.strerror}")
    finally:
        os.close(fd)
    if b"\0" in data:
        return Omitted("binary", len(data))
    if not data.isascii():  # the common case skips the decode
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return Omitted("binary", len(data))
    return data


def _read_upto(fd: int, expected: int, cap: int) -> bytes:
    """Read to EOF, or until more than `cap` bytes are in. Asking for the lstat size plus one
    usually gets the whole file in one read, without allocating a cap-sized buffer per file."""
    chunks: list[bytes] = []
    total = 0
    want = expected
    while total <= cap:
        chunk = os.read(fd, want)
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
        want = cap + 1 - total
    return b"".join(chunks)


def shown_paths(codebase: str) -> list[str]:
    """The paths a rollup's headers name, in order (a header-like line inside a file's content too)."""
    return _SHOWN.findall(codebase)


def outlined_paths(codebase: str) -> list[str]:
    """The paths whose outline a rollup shows, in order (an outline-header-like line in a file too)."""
    return _OUTLINED.findall(codebase)


def listing(left_out: list[LeftOut]) -> list[str]:
    """One line per left-out file, in path order, except that a folder that would take more than
    FOLDER_LINES lines is summed up on one; past MAX_LISTED lines, a count of the rest.

    Folders are settled deepest first (no recursion, however deep the tree): a folder's lines are
    its own files and what each of its subfolders settled to. The work is linear in the bytes of
    the paths: folders are nodes found by (parent, name), a folder's name is spelled out only when
    it is summed up, and a summed-up line carries counts, not the files (before, every file was
    copied into the list of each of its folders, and each folder's name built again for every
    file: 20,000 images 1,000 folders deep took 30 s and 180 MB)."""
    node: dict[tuple[int, str], int] = {}
    parent_of = [-1]  # by folder node; node 0 is the top
    name_of = [""]
    depth_of = [0]
    lines_of: dict[int, list[tuple[str, _Group]]] = {0: []}
    folder_of: dict[str, int] = {"": 0}  # a file's folder, walked once for all the files in it
    for item in left_out:
        dirname = item.path.rpartition("/")[0]
        folder = folder_of.get(dirname, -1)
        if folder < 0:
            folder = 0
            for part in dirname.split("/"):
                found = node.get((folder, part))
                if found is None:
                    found = node[(folder, part)] = len(parent_of)
                    parent_of.append(folder)
                    name_of.append(part)
                    depth_of.append(depth_of[folder] + 1)
                folder = found
            folder_of[dirname] = folder
        lines_of.setdefault(folder, []).append(
            (item.path, _Group(1, item.size or 0, Counter([_reason_group(item.reason)]), item))
        )
    for folder in sorted(range(1, len(parent_of)), key=depth_of.__getitem__, reverse=True):
        entries = lines_of.pop(folder, [])
        if len(entries) > FOLDER_LINES:
            entries = [(_folder_name(folder, parent_of, name_of), _Group.merged(group for _, group in entries))]
        lines_of.setdefault(parent_of[folder], []).extend(entries)
    entries = sorted(lines_of[0], key=lambda entry: entry[0])
    lines = [_line(key, group) for key, group in entries]
    if len(lines) > MAX_LISTED:  # thousands of files at the top
        rest = sum(group.files for _, group in entries[MAX_LISTED - 1 :])
        lines = [*lines[: MAX_LISTED - 1], f"... and {count(rest, 'more file')}"]
    return lines


@dataclass
class _Group:
    """Left-out files summed up: how many, their bytes, their reasons; the file itself when one."""

    files: int
    size: int
    reasons: Counter[str]
    only: LeftOut | None

    @classmethod
    def merged(cls, groups: Iterator[_Group]) -> _Group:
        total = cls(0, 0, Counter(), None)
        for group in groups:
            total.files += group.files
            total.size += group.size
            total.reasons.update(group.reasons)
            total.only = group.only if total.files == 1 else None
        return total


def _folder_name(folder: int, parent_of: list[int], name_of: list[str]) -> str:
    parts = []
    while folder > 0:
        parts.append(name_of[folder])
        folder = parent_of[folder]
    return "".join(part + "/" for part in reversed(parts))


def _line(key: str, group: _Group) -> str:
    if group.only is not None:  # a file, or a folder with one left-out file: its own line says more
        item = group.only
        return f"{item.path} ({item.reason}" + (f", {size_text(item.size)})" if item.size is not None else ")")
    why = ", ".join(f"{n} {reason}" for reason, n in group.reasons.most_common())
    return f"{key} ({count(group.files, 'file')}, {size_text(group.size)}: {why})"


def _reason_group(reason: str) -> str:
    """Reasons that carry a size or an error name ("312 KiB, over the 256 KiB cap") counted as one."""
    if "over the" in reason and "cap" in reason:
        return "over the size cap"
    return reason.split(":", 1)[0]


def size_text(size: int) -> str:
    if size < 1024:
        return count(size, "byte")
    if size < 2**20:
        return f"{-(-size // 1024):,} KiB"
    return f"{size / 2**20:,.1f} MiB"


def over_cap(size: int, cap: int) -> str:
    """The reason for an oversized file, in KiB when the cap is a whole number of KiB, else in bytes.

    The size is rounded up, so it always reads as larger than the cap."""
    if cap % 1024 == 0:
        return f"{-(-size // 1024)} KiB, over the {cap // 1024} KiB cap"
    return f"{size} bytes, over the {cap}-byte cap"


def _frameable(path: bytes) -> bool:
    try:
        text = path.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return _UNFRAMEABLE.search(text) is None


def printable(path: bytes) -> str:
    """A path for a one-line message: invalid bytes and control characters escaped."""
    text = path.decode("utf-8", "backslashreplace")
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)


def _relative_to(target: Path, root: Path) -> bytes | None:
    """`target` as a git path relative to `root`, or None when it lies outside."""
    try:
        rel = (target.parent.resolve() / target.name).relative_to(root.resolve())
    except ValueError:
        return None
    return os.fsencode(rel.as_posix())


@contextlib.contextmanager
def _atomic_output(target: Path, mode: int) -> Iterator[BinaryIO]:
    """A buffered file that replaces `target` only once it is complete, so a reader (or a run
    that fails half-way) never sees half a rollup. No fsync: the file can always be regenerated."""
    import tempfile

    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise SetupError(f"cannot write in {target.parent}: {exc.strerror}") from exc
    try:
        with open(fd, "wb", buffering=_WRITE_BUFFER) as out:
            yield out
        os.chmod(tmp, mode)  # mkstemp makes it 0600
        os.replace(tmp, target)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError):  # disk full, target is a directory, ...
            raise SetupError(f"cannot write {target}: {exc.strerror or exc}") from exc
        raise


def _umask() -> int:
    mask = os.umask(0)  # the only way to read it; single-threaded here, so setting it back is safe
    os.umask(mask)
    return mask
