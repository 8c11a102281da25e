"""What git ignores, as git itself says: `git check-ignore`, asked once for a whole batch of paths.

Inside a repository the guard runs `git check-ignore --no-index --stdin -z --verbose
--non-matching` in the project root. git reads every `.gitignore` (not a symlinked one), the
repository's `info/exclude` and `core.excludesFile`, applies `core.ignoreCase` and its own
wildmatch, and names the line that decided each path. `--no-index` asks what git would ignore
if the path were untracked, which is the guard's rule. Each path is sent as `./path`, so one
that starts with ":" is a name, not pathspec magic. `tests/test_ignore_differential.py` checks
the guard's verdicts against a separate `git check-ignore` on generated cases.

Outside a repository there is no git directory to ask, so code-commit makes one for the call: a
throwaway bare git directory whose work tree is the project root. git then reads the project's
`.gitignore` files and the user's `core.excludesFile` as it would in a repository (there is no
`info/exclude` and no index). The user's `protected_patterns` are asked the same way: they are
the throwaway's `info/exclude`, its work tree is an empty folder (so no other ignore file
counts), and paths and patterns are both case-folded first.

git keeps an ignore line it can never match (an unterminated `[`, an unknown `[:class:]`, a
trailing backslash, a bare `!` or `/`) and says nothing about it. `line_problem` recognises those
lines, so the guard can report them and settings can refuse such a protected pattern without
starting git. A `.gitignore` that is a FIFO, socket or device would make git wait forever: the guard
looks at each ignore file before it asks, and refuses instead.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import subprocess
import tempfile
import unicodedata
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from code_commit.files.setup_files import IGNORE_FILE_BYTES, SPECIAL, NotRegularFile, read_regular
from code_commit.git.env import GIT_TIMEOUT, git_failure, run_git
from code_commit.git.layout import find_git_layout

GITIGNORE = ".gitignore"
_INFO_EXCLUDE = ".git/info/exclude"  # how a reason names the repository's info/exclude, wherever it is
_BOM = b"\xef\xbb\xbf"
# PathPatterns' verdicts, by the patterns' source and lines, then by path; bounded in entries.
_PATTERN_VERDICTS: dict[tuple[str, tuple[str, ...]], dict[str, IgnoreMatch | None]] = {}
_MAX_PATTERN_VERDICTS = 100_000
# git's wildmatch character classes: any other [:name:] makes a pattern that never matches.
_CLASSES = frozenset(b"alnum alpha blank cntrl digit graph lower print punct space upper xdigit".split())


class GitUnanswered(OSError):
    """git could not say what it ignores; the message is why. Every path asked about is refused
    (as for any OSError on the way, such as no room for a throwaway git directory)."""


@dataclass(frozen=True)
class IgnoreMatch:
    """The line that decided a path is ignored."""

    source: str  # ".gitignore", "src/.gitignore", ".git/info/exclude", a file path, or "protected_patterns"
    line: int
    pattern: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.pattern}"


def check_ignore(
    cwd: Path, paths: Iterable[str], git_dir: Path | None = None, config: Sequence[str] = ()
) -> dict[str, IgnoreMatch | None]:
    """git's verdict on each path (relative to `cwd`): the line that makes git ignore it, or None.
    `git_dir`: a throwaway git directory to use, with `cwd` as its work tree. `config`: `-c` settings.
    One git process for all the paths; raises GitUnanswered if git gives no complete answer."""
    order = sorted(set(paths))  # neighbours share folders, whose ignore files git then keeps loaded
    if not order:
        return {}
    command = [arg for setting in config for arg in ("-c", setting)]
    if git_dir is not None:
        command += [f"--git-dir={git_dir}", f"--work-tree={cwd}"]
    command += ["check-ignore", "--no-index", "--stdin", "-z", "--verbose", "--non-matching"]
    asked = [b"./" + os.fsencode(path) for path in order]
    try:
        # GIT_FLUSH: one write at the end, not one per path
        done = run_git(cwd, *command, input=b"".join(path + b"\0" for path in asked), extra={"GIT_FLUSH": "0"})
    except subprocess.TimeoutExpired:
        raise GitUnanswered(f"git check-ignore gave no answer within {GIT_TIMEOUT} s") from None
    except OSError as exc:
        raise GitUnanswered(f"git check-ignore could not run: {exc.strerror or exc}") from None
    fields = done.stdout.split(b"\0")
    if done.returncode not in (0, 1) or len(fields) != 4 * len(order) + 1:  # 1: nothing is ignored
        raise GitUnanswered(f"git check-ignore failed: {git_failure(done)}")
    verdicts: dict[str, IgnoreMatch | None] = {}
    for n, path in enumerate(order):
        source, line, pattern, echoed = fields[4 * n : 4 * n + 4]
        if echoed != asked[n] or (source and not line.isdigit()):
            raise GitUnanswered(f"git check-ignore answered {echoed!r} when asked about {path!r}")
        # --verbose also names a deciding "!" line, which re-includes the path: not ignored.
        ignored = source and not pattern.startswith(b"!")
        verdicts[path] = IgnoreMatch(_text(source), int(line), _text(pattern)) if ignored else None
    return verdicts


def _text(data: bytes) -> str:
    return data.decode("utf-8", "backslashreplace")


@contextlib.contextmanager
def throwaway_git_dir(exclude: bytes = b"") -> Iterator[Path]:
    """A new bare git directory, removed afterwards, whose info/exclude holds `exclude`."""
    with tempfile.TemporaryDirectory(prefix="code-commit-git-") as tmp:
        git_dir = Path(tmp, "git")
        try:
            done = run_git(tmp, "init", "-q", "--bare", "--template=", str(git_dir))
        except (OSError, subprocess.SubprocessError) as exc:
            raise GitUnanswered(f"git init could not run: {exc}") from None
        if done.returncode != 0:
            raise GitUnanswered(f"git init failed: {git_failure(done)}")
        (git_dir / "info").mkdir()
        (git_dir / "info" / "exclude").write_bytes(exclude)
        yield git_dir


def line_problem(raw: bytes) -> str | None:
    """Why git can never match this ignore line (not blank, not a comment), or None if it can."""
    line = raw.rstrip(b" ")
    if line != raw and _escapes_last(line):
        line += b" "  # "\ " at the end is an escaped space, which git keeps
    line = line.removeprefix(b"!").removesuffix(b"/").removeprefix(b"/")
    if not line:
        return "an empty pattern matches nothing"
    i = 0
    while i < len(line):
        if line[i : i + 1] == b"\\":
            if i + 1 == len(line):
                return "a trailing backslash escapes nothing"
            i += 2
        elif line[i : i + 1] == b"[":
            problem, i = _bracket(line, i)
            if problem:
                return problem
        else:
            i += 1
    return None


def _escapes_last(line: bytes) -> bool:
    return (len(line) - len(line.rstrip(b"\\"))) % 2 == 1


def _bracket(p: bytes, i: int) -> tuple[str | None, int]:
    """Read the bracket expression at p[i] == "[" as git's wildmatch does: (its problem, the next index)."""
    unterminated = "an unterminated [ bracket expression"
    n = len(p)
    j = i + 2 if p[i + 1 : i + 2] in (b"!", b"^") else i + 1
    prev = False  # a member a "-" could start a range from
    while True:
        if j >= n:
            return unterminated, n
        ch = p[j : j + 1]
        member = True
        if ch == b"\\":
            j += 1
            if j >= n:
                return unterminated, n
        elif ch == b"-" and prev and j + 1 < n and p[j + 1 : j + 2] != b"]":
            j += 2 if p[j + 1 : j + 2] == b"\\" else 1
            if j >= n:
                return unterminated, n
            member = False
        elif ch == b"[" and p[j + 1 : j + 2] == b":":
            k = p.find(b"]", j + 2)
            if k < 0:
                return unterminated, n
            if k - (j + 2) >= 1 and p[k - 1 : k] == b":":  # else "[" is an ordinary member
                name = p[j + 2 : k - 1]
                if name not in _CLASSES:
                    return f"an unknown character class [:{name.decode('latin-1')}:]", n
                j, member = k, False
        prev = member
        j += 1
        if p[j : j + 1] == b"]":
            return None, j + 1


def pattern_problem(pattern: str) -> str | None:
    """Why a gitignore-style pattern can never match anything, or None if it is usable."""
    if _broken(pattern):
        return "it holds a line break or NUL, and git reads one pattern a line"
    raw = os.fsencode(pattern)
    if not raw or raw.startswith(b"#"):
        return "it is blank or a comment"
    return line_problem(raw)


def _broken(pattern: str) -> bool:
    return any(c in pattern for c in "\n\r\0")


def _lines(data: bytes) -> list[bytes]:
    """Lines as git reads an ignore file: a BOM at the start is skipped, CRLF counts as LF."""
    return [line.removesuffix(b"\r") for line in data.removeprefix(_BOM).split(b"\n")]


def _line_warnings(name: str, lines: Iterable[bytes]) -> list[str]:
    found = []
    for number, raw in enumerate(lines, start=1):
        problem = None if not raw or raw.startswith(b"#") else line_problem(raw)
        if problem:
            found.append(f"{name}:{number}: pattern {_text(raw)!r} is skipped, as git skips it: {problem}")
    return found


class IgnoreRules:
    """git's ignore verdicts for paths below one project root, and the problems in the ignore files."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.layout = find_git_layout(root)
        self.warnings: list[str] = []  # invalid lines and unreadable files, each once
        self._looked_at: set[str] = set()  # folders (relative to the top) whose .gitignore was read
        self._blocked: str | None = None  # an ignore file git would wait on forever
        self._exclude = self.layout.common_dir / "info" / "exclude" if self.layout.common_dir else None
        if self._exclude is not None:
            self._look_at(self._exclude, _INFO_EXCLUDE, follow=True)

    def check(self, paths: Sequence[str]) -> dict[str, IgnoreMatch | None]:
        """The line that makes git ignore each path (relative to the root), or None; one git call.
        Raises GitUnanswered if git cannot say."""
        for path in paths:
            folders = (self.layout.prefix + path).split("/")[:-1]
            for n in range(len(folders), -1, -1):  # deepest first, up to one already read
                folder = "/".join(folders[:n])
                if folder in self._looked_at:
                    break
                self._looked_at.add(folder)
                name = f"{folder}/{GITIGNORE}" if folder else GITIGNORE
                self._look_at(self.layout.top / name, name, follow=False)  # git does not follow it
        if self._blocked is not None:
            raise GitUnanswered(self._blocked)
        if self._exclude is None:
            with throwaway_git_dir() as git_dir:
                return check_ignore(self.root, paths, git_dir)
        verdicts = check_ignore(self.root, paths)
        return {path: self._named(match) for path, match in verdicts.items()}

    def _named(self, match: IgnoreMatch | None) -> IgnoreMatch | None:
        """info/exclude as ".git/info/exclude", also where git names it by its full path (a linked worktree)."""
        if match is None or match.source == _INFO_EXCLUDE or self._exclude is None:
            return match
        if Path(self.layout.top, match.source).resolve() == self._exclude.resolve():
            return dataclasses.replace(match, source=_INFO_EXCLUDE)
        return match

    def _look_at(self, path: Path, name: str, follow: bool) -> None:
        try:
            data = read_regular(path, IGNORE_FILE_BYTES, follow=follow)  # never waits on a FIFO planted there
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            return
        except NotRegularFile:
            if not follow and os.path.islink(path):
                self.warnings.append(f"{name} is a symlink; git does not read it, so neither does code-commit")
            else:
                self._blocked = f"{name} is {SPECIAL}, which git would wait on forever; replace it with a file"
            return
        except OSError as exc:
            self.warnings.append(f"{name} cannot be read ({exc.strerror}); its patterns are not applied")
            return
        self.warnings += _line_warnings(name, _lines(data))


class PathPatterns:
    """Gitignore-style patterns from a setting, matched from the project root, git deciding: the
    last match wins, a `!` line re-allows, and nothing below a matched directory can be re-allowed.
    `casefold`: matched case-insensitively after NFC normalisation (see `ProtectedPatterns`)."""

    def __init__(self, patterns: Iterable[str], source: str, casefold: bool = False) -> None:
        self.source = source
        self._fold = fold if casefold else (lambda name: name)
        self._lines = [self._fold(p) for p in patterns]
        problems = _line_warnings(source, (line.encode("utf-8", "surrogateescape") for line in self._lines))
        problems += [f"{source}: pattern {p!r} holds a line break or NUL" for p in self._lines if _broken(p)]
        if problems:
            raise ValueError("; ".join(problems))

    def check(self, paths: Iterable[str]) -> dict[str, IgnoreMatch | None]:
        """The pattern that matches each path (relative to the root), or None; at most one git call,
        none for the paths these same patterns were asked about before. Raises GitUnanswered if git
        cannot say."""
        paths = list(paths)
        if not self._lines or not paths:
            return dict.fromkeys(paths)
        # git's answer depends on nothing but the patterns and the name (an empty tree, no other
        # exclude file): the same question is not asked twice in a process (a run asks at each build).
        known = _PATTERN_VERDICTS.setdefault((self.source, tuple(self._lines)), {})
        asked = {path: self._fold(path) for path in paths if path not in known}
        if not asked:
            return {path: known[path] for path in paths}
        # A first line of its own: a pattern that starts with a BOM is not read as one.
        exclude = f"# {self.source}\n{''.join(line + chr(10) for line in self._lines)}"
        with throwaway_git_dir(exclude.encode("utf-8", "surrogateescape")) as git_dir:
            tree = git_dir.parent / "tree"  # empty: no .gitignore of the project counts
            tree.mkdir()
            no_file = git_dir / "no-excludes-file"  # nor the user's own core.excludesFile
            found = check_ignore(
                tree, asked.values(), git_dir, (f"core.excludesFile={no_file}", "core.ignoreCase=false")
            )
        answered = {
            path: None
            if (match := found[name]) is None
            else IgnoreMatch(self.source, match.line - 1, self._lines[match.line - 2])
            for path, name in asked.items()
        }
        verdicts = {path: answered[path] if path in answered else known[path] for path in paths}
        if len(known) + len(answered) > _MAX_PATTERN_VERDICTS:
            known.clear()
        known.update(answered)
        return verdicts

    def _named(self, match: IgnoreMatch | None) -> IgnoreMatch | None:
        """git's match in the throwaway exclude file, as the line of the setting it came from."""
        return None if match is None else IgnoreMatch(self.source, match.line - 1, self._lines[match.line - 2])


class ProtectedPatterns(PathPatterns):
    """The user's own gitignore-style patterns (`protected_patterns`), matched from the project root.

    Matched case-insensitively after NFC normalisation, like the built-in protected names, because
    on macOS and Windows `.ENV` and `.env` are the same file. Same semantics as an ignore file
    otherwise (git decides).
    """

    SOURCE = "protected_patterns"

    def __init__(self, patterns: Iterable[str]) -> None:
        super().__init__(patterns, self.SOURCE, casefold=True)


def fold(name: str) -> str:
    """A name as a case-insensitive, normalising file system compares it (macOS, Windows)."""
    return unicodedata.normalize("NFC", name).casefold()
