"""The codebase rollup: the project's files, framed for the model, in agent-config/codeRollup.txt
(`code-commit rollup`). The files git lists (listing.py), each judged and read (reading.py), those
that fit chosen with the outlines of those that do not (selection.py), framed (framing.py) and written
whole or not at all.

Left out silently: everything under agent-config/ (the tool's own inputs, keys and logs), and under
a nested project's agent-config/; also the output file itself, and tracked files deleted from the
work tree. Left out with only a warning on stderr: paths that cannot stand on one header line.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import BinaryIO, Protocol

from code_commit.config.paths import CONFIG_DIR, QUERY_FILE, ROLLUP_FILE
from code_commit.config.secrets import collect_secrets
from code_commit.config.settings import Settings
from code_commit.errors import SetupError
from code_commit.exits import EXIT
from code_commit.files.owner_only import FILE_MODE, make_private_dirs
from code_commit.files.setup_files import INPUT_BYTES, read_regular
from code_commit.rollup.framing import HEADER, LEFT_OUT_LABEL, OUTLINES_LABEL, LeftOut, Rollup, listing, printable
from code_commit.rollup.listing import ask_git, list_files
from code_commit.rollup.reading import HOLDS_SECRET, OPEN_FLAGS, Candidate, Omitted, holds_secret, judge, read_content
from code_commit.rollup.selection import Outlined, choose, outline_pending, rank

_DEFAULT_OUTPUT = ROLLUP_FILE
DEFAULT_MAX_FILE_SIZE = Settings().rollup_max_file_size
_WRITE_BUFFER = 1 << 20


class _Reporter(Protocol):
    def info(self, text: str) -> None: ...
    def warn(self, text: str) -> None: ...


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
    target = root / (output if output is not None else _DEFAULT_OUTPUT)
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
    result = Rollup(output if output is not None else Path(_DEFAULT_OUTPUT))
    root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        untracked = set(listing.untracked)
        cap = settings.rollup_max_file_size
        candidates = judge(root_fd, paths, untracked, cap, exclude, include, secrets, result)
        tracked = frozenset(p.decode("utf-8", "surrogateescape") for p in listing.tracked)
        ranked = rank(candidates, query, tracked, result)
        chosen, pending, room = choose(ranked, settings.rollup_budget, result)
        outlines = outline_pending(root_fd, pending, room, secrets, result)
        with _atomic_output(target, FILE_MODE if private else 0o666 & ~_umask()) as out:
            _render(root_fd, chosen, outlines, cap, secrets, out, result)
            result.size = out.tell()
    finally:
        os.close(root_fd)
    return result


def command(reporter: _Reporter, root: Path, output: Path | None, settings: Settings) -> int:
    """`code-commit rollup`: write the rollup, report it on stderr, return the exit code."""
    query = _read_query(root)
    result = write_rollup(root, output, settings, query=query)
    if query is not None:
        first = f": {', '.join(result.relevant)}" if result.relevant else ": none named there is in the project"
        reporter.info(f"rollup: the files {QUERY_FILE} names come first{first}")
    for path in result.unframeable:
        reporter.warn(f"left out a path that cannot stand on one header line: {printable(path)}")
    reporter.info(result.summary())
    return EXIT.OK


def _read_query(root: Path) -> str | None:
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
    proc = ask_git(root, "rev-parse", "--absolute-git-dir", "--git-common-dir")
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
        fd = os.open(target, OPEN_FLAGS)  # never waits, should a FIFO be swapped in
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


def _render(
    root_fd: int,
    chosen: list[Candidate],
    outlines: list[Outlined],
    cap: int,
    secrets: tuple[bytes, ...],
    out: BinaryIO,
    result: Rollup,
) -> None:
    for candidate in chosen:
        content = candidate.content
        if content is None:
            read = read_content(root_fd, candidate.path, cap)
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
