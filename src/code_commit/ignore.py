"""Git's ignore rules, exactly as `git status` applies them to a path that does not exist yet.

Sources, highest priority first (git's order): the `.gitignore` of the path's own directory,
then each parent's up to the repository's top, then `$GIT_COMMON_DIR/info/exclude`, then
`core.excludesFile` (default `$XDG_CONFIG_HOME/git/ignore`). Within one file the last matching
line wins, and the first source with a matching line decides, negations included. A directory
is checked before anything inside it, against the files above it: once a directory is
excluded, git never looks inside, so nothing below it can be re-included (and its own
`.gitignore` is never read).

Patterns are matched as git matches them: on bytes (so `?` matches one byte of a UTF-8
name), with git's wildmatch rules for `*`, `**`, `?`, `[...]` and `\\`, and with its quirks
(a pattern's leading literal part is compared first, which makes the `**` of `ab**/c`
slash-crossing). With `core.ignoreCase` (macOS and Windows clones) matching folds ASCII case the
way git does. `tests/test_ignore_differential.py` checks all of this against `git check-ignore`.

Most patterns are compiled into one regular expression per ignore file, tried in reverse line
order, so a path costs one regex call per file. A pattern with three or more star runs could
make a backtracking regex blow up, so it is matched by a port of git's own `wildmatch`, which
prunes the way git does. Everything is cached per directory: each ignore file is read once, and
each directory's verdict is computed once.

A line that can never match (an unterminated `[`, an unknown `[:class:]`, a trailing
backslash, a bare `/` or `!`) is skipped, as git skips it, and reported in `warnings`.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import subprocess
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from .gitenv import git_env
from .regular import read_regular

GITIGNORE = ".gitignore"
_BOM = b"\xef\xbb\xbf"
_SPECIAL = b"*?[\\"
_STAR, _QMARK, _LBRACKET, _RBRACKET, _BACKSLASH, _SLASH = (ord(c) for c in "*?[]\\/")
_BANG, _CARET, _DASH, _COLON = (ord(c) for c in "!^-:")

# Character classes in git's wildmatch (ASCII only, as git's own ctype tables).
_CLASSES: dict[bytes, frozenset[int]] = {
    b"alnum": frozenset(b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"),
    b"alpha": frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"),
    b"blank": frozenset(b" \t"),
    b"cntrl": frozenset([*range(32), 127]),
    b"digit": frozenset(b"0123456789"),
    b"graph": frozenset(range(33, 127)),
    b"lower": frozenset(b"abcdefghijklmnopqrstuvwxyz"),
    b"print": frozenset(range(32, 127)),
    b"punct": frozenset(c for c in range(33, 127) if not chr(c).isalnum()),
    b"space": frozenset(b" \t\n\r"),
    b"upper": frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ"),
    b"xdigit": frozenset(b"0123456789ABCDEFabcdef"),
}

# Patterns with more star runs than this are matched by `_dowild`, never by a regex.
_MAX_REGEX_STAR_RUNS = 2


class _Never(Exception):
    """The pattern can never match anything; git skips it."""


@dataclass(frozen=True)
class IgnoreMatch:
    """The line that decided a path is ignored."""

    source: str  # ".gitignore", "src/.gitignore", ".git/info/exclude", a file path, or "protected_patterns"
    line: int
    pattern: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: {self.pattern}"


@dataclass(frozen=True)
class _Pattern:
    index: int  # position in its list; a higher index wins
    match: IgnoreMatch
    negative: bool
    dir_only: bool
    basename: bool  # no slash: matched against the last path segment only
    prefix: bytes  # the literal start, compared before the wildcard part (git's nowildcardlen)
    rest: bytes  # the part after `prefix`, matched by wildmatch
    regex: bytes | None  # the whole pattern as a regex, or None when `_dowild` must match it
    lead: bytes  # literal bytes every matching subject starts with
    tail: bytes  # literal bytes every matching subject ends with

    @functools.cached_property
    def _compiled(self) -> re.Pattern[bytes] | None:
        return re.compile(self.regex, re.DOTALL) if self.regex is not None else None

    def matches(self, subject: bytes, casefold: bool) -> bool:
        """`subject` is already case-folded when `casefold` is set."""
        if self._compiled is not None:
            return self._compiled.fullmatch(subject) is not None
        if not subject.startswith(self.prefix):
            return False
        return _dowild(self.rest, 0, subject[len(self.prefix) :], 0, casefold) == _MATCH


def _parse_line(raw: bytes) -> tuple[bool, bool, bool, bytes] | None:
    """git's parse_path_pattern: (negative, dir_only, basename, pattern), or None for no pattern."""
    if not raw or raw.startswith(b"#"):
        return None
    raw = _trim_trailing_spaces(raw)
    negative = raw.startswith(b"!")
    if negative:
        raw = raw[1:]
    dir_only = raw.endswith(b"/")
    if dir_only:
        raw = raw[:-1]
    basename = b"/" not in raw
    if not basename and raw.startswith(b"/"):
        raw = raw[1:]
    return negative, dir_only, basename, raw


def _trim_trailing_spaces(raw: bytes) -> bytes:
    """Drop trailing spaces unless escaped; a trailing backslash stops the trim (git's rule)."""
    last_space = None
    i = 0
    while i < len(raw):
        if raw[i] == 0x20:
            if last_space is None:
                last_space = i
        elif raw[i] == _BACKSLASH:
            i += 1
            if i >= len(raw):
                return raw
            last_space = None
        else:
            last_space = None
        i += 1
    return raw if last_space is None else raw[:last_space]


def _compile(index: int, match: IgnoreMatch, raw: bytes, casefold: bool) -> _Pattern | None:
    """One line -> a pattern; None for blanks and comments; raises _Never for a line that cannot match."""
    parsed = _parse_line(raw)
    if parsed is None:
        return None
    negative, dir_only, basename, text = parsed
    if not text:
        raise _Never("an empty pattern matches nothing")
    literal = len(text)
    for i, byte in enumerate(text):
        if byte in _SPECIAL:
            literal = i
            break
    # A basename pattern is matched whole (git's match_basename); a path pattern's literal
    # start is compared first and the rest is matched as if it began the pattern.
    prefix, rest = (b"", text) if basename else (text[:literal], text[literal:])
    if casefold:
        prefix = prefix.lower()
    regex, lead, tail = _translate(rest, casefold)  # raises _Never for a malformed pattern
    star_runs = len(re.findall(rb"\*+", rest))
    full = re.escape(prefix) + regex if star_runs <= _MAX_REGEX_STAR_RUNS else None
    lead = prefix + lead
    if tail is None:  # no wildcard at all: the whole pattern is one literal
        tail = lead
    return _Pattern(index, match, negative, dir_only, basename, prefix, rest, full, lead, tail)


def _translate(pattern: bytes, casefold: bool) -> tuple[bytes, bytes, bytes | None]:
    """wildmatch (WM_PATHNAME) -> (an equivalent regex over bytes for fullmatch, the literal
    bytes a match must start with, the literal bytes it must end with or None if the whole
    pattern is literal)."""
    out: list[bytes] = []
    literals: list[bytes | None] = []  # per piece of `out`: its literal bytes, or None for a wildcard
    i, n = 0, len(pattern)
    while i < n:
        c = pattern[i]
        if c == _BACKSLASH:
            if i + 1 >= n:
                raise _Never("a trailing backslash escapes nothing")
            out.append(_lit(pattern[i + 1]))  # an escaped letter is not case-folded (git compares it raw)
            literals.append(pattern[i + 1 : i + 2])
            i += 2
        elif c == _QMARK:
            out.append(b"[^/]")
            literals.append(None)
            i += 1
        elif c == _STAR:
            j = i
            while j < n and pattern[j] == _STAR:
                j += 1
            boundary_before = i == 0 or pattern[i - 1] == _SLASH
            after = pattern[j : j + 2]
            if j - i >= 2 and boundary_before and (j == n or after[:1] == b"/" or after == b"\\/"):
                if after[:1] == b"/":
                    out.append(b"(?:.*/)?")  # "**/": zero or more whole directories
                    j += 1
                else:
                    out.append(b".*")
            else:
                out.append(b"[^/]*")
            literals.append(None)
            i = j
        elif c == _LBRACKET:
            members, negated, i = _bracket(pattern, i, casefold)
            allowed = (set(range(256)) - members if negated else members) - {_SLASH}
            out.append(b"[" + b"".join(b"\\x%02x" % m for m in sorted(allowed)) + b"]" if allowed else b"(?!)")
            literals.append(None)
        else:
            byte = c + 32 if casefold and 65 <= c <= 90 else c
            out.append(_lit(byte))
            literals.append(bytes([byte]))
            i += 1
    wild = [n for n, literal in enumerate(literals) if literal is None]
    if not wild:
        return b"".join(out), b"".join(literals), None  # type: ignore[arg-type]
    lead = b"".join(literals[: wild[0]])  # type: ignore[arg-type]
    tail = b"".join(literals[wild[-1] + 1 :])  # type: ignore[arg-type]
    return b"".join(out), lead, tail


_ESCAPED = tuple(re.escape(bytes([byte])) for byte in range(256))


def _lit(byte: int) -> bytes:
    return _ESCAPED[byte]  # a table: re.escape per byte was a fifth of compiling a long .gitignore


def _bracket(p: bytes, i: int, casefold: bool) -> tuple[set[int], bool, int]:
    """Parse the bracket expression at p[i] == '[' as git's dowild does; (members, negated, next index)."""
    n = len(p)
    j = i + 1
    negated = j < n and p[j] in (_BANG, _CARET)
    if negated:
        j += 1
    members: set[int] = set()
    prev = 0
    while True:
        if j >= n:
            raise _Never("an unterminated [ bracket expression")
        ch = p[j]
        if ch == _BACKSLASH:
            j += 1
            if j >= n:
                raise _Never("an unterminated [ bracket expression")
            ch = p[j]
            members.add(ch)
        elif ch == _DASH and prev and j + 1 < n and p[j + 1] != _RBRACKET:
            j += 1
            hi = p[j]
            if hi == _BACKSLASH:
                j += 1
                if j >= n:
                    raise _Never("an unterminated [ bracket expression")
                hi = p[j]
            span = range(prev, hi + 1)
            members.update(span)
            if casefold:  # git also accepts a lower-case letter whose upper case is in the range
                members.update(c + 32 for c in span if 65 <= c <= 90)
            ch = 0
        elif ch == _LBRACKET and j + 1 < n and p[j + 1] == _COLON:
            k = j + 2
            while k < n and p[k] != _RBRACKET:
                k += 1
            if k >= n:
                raise _Never("an unterminated [ bracket expression")
            if k - (j + 2) - 1 < 0 or p[k - 1] != _COLON:
                members.add(_LBRACKET)  # no ":]": the "[" is an ordinary member, and so is what follows
            else:
                name = p[j + 2 : k - 1]
                if name not in _CLASSES:
                    raise _Never(f"an unknown character class [:{name.decode('latin-1')}:]")
                members.update(_CLASSES[name])
                if casefold and name == b"upper":
                    members.update(_CLASSES[b"lower"])
                j = k
                ch = 0
        else:
            members.add(ch)
        prev = ch
        j += 1
        if j < n and p[j] == _RBRACKET:
            return members, negated, j + 1


_MATCH, _NOMATCH, _ABORT_ALL, _ABORT_TO_STARSTAR = 0, 1, -1, -2


def _dowild(p: bytes, pi: int, t: bytes, ti: int, casefold: bool) -> int:
    """git's wildmatch.c dowild() with WM_PATHNAME, on a well-formed pattern; `t` is already
    case-folded when `casefold` is set. Its ABORT results prune the search as git's do, so a
    pattern full of stars stays polynomial."""
    np_, nt = len(p), len(t)
    while pi < np_:
        p_ch = p[pi]
        if ti >= nt and p_ch != _STAR:
            return _ABORT_ALL
        t_ch = t[ti] if ti < nt else 0
        if casefold and 65 <= p_ch <= 90:
            p_ch += 32
        if p_ch == _BACKSLASH:
            pi += 1
            if pi >= np_ or t_ch != p[pi]:
                return _NOMATCH
        elif p_ch == _QMARK:
            if t_ch == _SLASH:
                return _NOMATCH
        elif p_ch == _STAR:
            pi += 1
            match_slash = False
            if pi < np_ and p[pi] == _STAR:
                prev = pi - 2
                while pi < np_ and p[pi] == _STAR:
                    pi += 1
                if (prev < 0 or p[prev] == _SLASH) and (pi == np_ or p[pi] == _SLASH or p[pi : pi + 2] == b"\\/"):
                    if pi < np_ and p[pi] == _SLASH and _dowild(p, pi + 1, t, ti, casefold) == _MATCH:
                        return _MATCH
                    match_slash = True
            if pi == np_:
                return _NOMATCH if not match_slash and _SLASH in t[ti:] else _MATCH
            if not match_slash and p[pi] == _SLASH:
                slash = t.find(b"/", ti)
                if slash < 0:
                    return _NOMATCH
                ti = slash  # the star takes the rest of this segment; "/" matches below
            else:
                while ti < nt:
                    t_ch = t[ti]
                    if p[pi] not in _SPECIAL:
                        want = p[pi] + 32 if casefold and 65 <= p[pi] <= 90 else p[pi]
                        while ti < nt and (match_slash or t[ti] != _SLASH) and t[ti] != want:
                            ti += 1
                        if ti >= nt or t[ti] != want:
                            return _NOMATCH
                        t_ch = t[ti]
                    matched = _dowild(p, pi, t, ti, casefold)
                    if matched != _NOMATCH:
                        if not match_slash or matched != _ABORT_TO_STARSTAR:
                            return matched
                    elif not match_slash and t_ch == _SLASH:
                        return _ABORT_TO_STARSTAR
                    ti += 1
                return _ABORT_ALL
        elif p_ch == _LBRACKET:
            if t_ch == _SLASH:
                return _NOMATCH
            members, negated, pi = _bracket(p, pi, casefold)
            if (t_ch in members) == negated:
                return _NOMATCH
            ti += 1
            continue
        elif t_ch != p_ch:
            return _NOMATCH
        pi += 1
        ti += 1
    return _NOMATCH if ti < nt else _MATCH


class _PatternList:
    """The patterns of one ignore file (or of the user's protected patterns), for paths below `base`.

    A path is tested against the patterns that could match it: those indexed under a literal
    start or end it has, and the few with neither (one combined regex, tried in reverse line
    order, finds the last of those that matches).
    """

    def __init__(self, base: bytes, patterns: list[_Pattern], casefold: bool) -> None:
        self.base = base  # b"" or b"dir/sub/": only paths below it are matched
        self.casefold = casefold
        self._patterns = patterns
        # Per kind (basename or path pattern): literal start or end -> patterns, and the lengths in use.
        self._by_lead: dict[bool, dict[bytes, list[_Pattern]]] = {True: {}, False: {}}
        self._by_tail: dict[bool, dict[bytes, list[_Pattern]]] = {True: {}, False: {}}
        unindexed: list[_Pattern] = []
        for p in patterns:
            if p.lead:
                self._by_lead[p.basename].setdefault(p.lead, []).append(p)
            elif p.tail:
                self._by_tail[p.basename].setdefault(p.tail, []).append(p)
            else:
                unindexed.append(p)
        self._lead_lengths = {k: sorted({len(key) for key in v}) for k, v in self._by_lead.items()}
        self._tail_lengths = {k: sorted({len(key) for key in v}) for k, v in self._by_tail.items()}
        self._unindexed = unindexed
        self._combined: dict[tuple[bool, bool], tuple[re.Pattern[bytes] | None, list[_Pattern]]] = {}

    def __bool__(self) -> bool:
        return bool(self._patterns)

    def last_match(self, path: bytes, is_dir: bool) -> _Pattern | None:
        """The last pattern matching `path` (relative to the top, below `base`), or None."""
        subject = path[len(self.base) :]
        if self.casefold:
            subject = subject.lower()
        name = subject.rsplit(b"/", 1)[-1]
        best: _Pattern | None = None
        candidates: list[_Pattern] = [p for p in self._unindexed if p.regex is None]
        for basename, text in ((True, name), (False, subject)):
            regex, order = self._combined_regex(basename, is_dir)
            found = regex.fullmatch(text) if regex is not None else None
            if found is not None and found.lastindex is not None:
                candidate = order[found.lastindex - 1]
                if best is None or candidate.index > best.index:
                    best = candidate
            for length in self._lead_lengths[basename]:
                candidates.extend(self._by_lead[basename].get(text[:length], ()))
            for length in self._tail_lengths[basename]:
                if length <= len(text):
                    candidates.extend(self._by_tail[basename].get(text[-length:], ()))
        for pattern in sorted(candidates, key=lambda p: -p.index):
            if best is not None and pattern.index < best.index:
                break
            if pattern.dir_only and not is_dir:
                continue
            if pattern.matches(name if pattern.basename else subject, self.casefold):
                return pattern
        return best

    def _combined_regex(self, basename: bool, is_dir: bool) -> tuple[re.Pattern[bytes] | None, list[_Pattern]]:
        """One regex for the unindexed patterns of a kind, last line first; group n is order[n - 1]."""
        key = (basename, is_dir)
        if key not in self._combined:
            order = [
                p
                for p in reversed(self._unindexed)
                if p.regex is not None and p.basename == basename and (is_dir or not p.dir_only)
            ]
            source = b"|".join(b"(" + p.regex + b")" for p in order if p.regex is not None)
            self._combined[key] = (re.compile(source, re.DOTALL) if order else None, order)
        return self._combined[key]


def _compile_lines(
    lines: Iterable[bytes], source: str, base: bytes, casefold: bool, warnings: list[str]
) -> _PatternList:
    patterns: list[_Pattern] = []
    for number, raw in enumerate(lines, start=1):
        text = raw.decode("utf-8", "backslashreplace")
        try:
            pattern = _compile(len(patterns), IgnoreMatch(source, number, text), raw, casefold)
        except _Never as why:
            warnings.append(f"{source}:{number}: pattern {text!r} is skipped, as git skips it: {why}")
            continue
        if pattern is not None:
            patterns.append(pattern)
    return _PatternList(base, patterns, casefold)


def _split_lines(data: bytes) -> list[bytes]:
    """Lines as git reads an ignore file: a BOM at the start is skipped, CRLF counts as LF."""
    if data.startswith(_BOM):
        data = data[len(_BOM) :]
    return [line[:-1] if line.endswith(b"\r") else line for line in data.split(b"\n")]


def pattern_problem(pattern: str) -> str | None:
    """Why a gitignore-style pattern can never match anything, or None if it is usable."""
    try:
        _compile(0, IgnoreMatch("", 0, pattern), os.fsencode(pattern), False)
    except _Never as why:
        return str(why)
    parsed = _parse_line(os.fsencode(pattern))
    return "it is blank or a comment" if parsed is None else None


@dataclass(frozen=True)
class GitSetup:
    """What git's configuration and index say about what `git status` shows, read once per guard."""

    excludes_file: Path | None = None  # core.excludesFile, or git's default if it exists
    ignore_case: bool = False  # core.ignoreCase: set by git on case-insensitive file systems
    # Tracked files whose changes git status does not show: flagged assume-unchanged or
    # skip-worktree in the index (paths relative to the top).
    hidden: frozenset[str] = frozenset()
    # Submodules: index entries of mode 160000 (gitlinks). git status never looks inside one, and
    # one that was never initialized (a plain clone) is an empty folder with no `.git` to see.
    gitlinks: frozenset[str] = frozenset()
    # Every path in the index (relative to the top). None: no index to compare with (the project
    # is not in a repository, or the caller did not read it), which turns the untracked-file rule off.
    tracked: frozenset[str] | None = None
    # Why git could not list the index of the repository around the project, if it could not.
    index_error: str | None = None


_GITLINK_MODE = "160000"


def read_git_setup(top: Path, env: Mapping[str, str] | None = None, repository: bool = True) -> GitSetup:
    """core.excludesFile and core.ignoreCase as git sees them in `top` (includes and all), and, in
    a repository, what its index says: every tracked path, the hidden ones and the submodules."""
    env = git_env(env)  # git sees the repository the layout was found in, not one the environment names
    values: dict[str, str] = {}
    try:
        result = subprocess.run(
            ["git", "config", "-z", "--type=path", "--get-regexp", r"^core\.(excludesfile|ignorecase)$"],
            cwd=top,
            env=env,
            capture_output=True,
            timeout=30,
            check=False,
        )
        for record in result.stdout.decode("utf-8", "surrogateescape").split("\0"):
            key, _, value = record.partition("\n")
            if key:
                values[key.lower()] = value
    except (OSError, subprocess.SubprocessError):
        pass  # no git: its defaults below
    ignore_case = values.get("core.ignorecase", "false").strip().lower() in ("true", "yes", "on", "1")
    index = _read_index(top, env) if repository else _Index()
    if "core.excludesfile" in values:
        excludes = Path(top, values["core.excludesfile"]) if values["core.excludesfile"] else None
    else:
        config_home = env.get("XDG_CONFIG_HOME") or (str(Path(env["HOME"], ".config")) if env.get("HOME") else "")
        excludes = Path(config_home, "git", "ignore") if config_home else None
    return GitSetup(excludes, ignore_case, index.hidden, index.gitlinks, index.tracked, index.error)


@dataclass(frozen=True)
class _Index:
    hidden: frozenset[str] = frozenset()
    gitlinks: frozenset[str] = frozenset()
    tracked: frozenset[str] | None = None
    error: str | None = None


def _read_index(top: Path, env: Mapping[str, str]) -> _Index:
    """The index of the repository at `top`: `git ls-files -s -v` gives each entry's tag, mode and path."""
    try:
        listed = subprocess.run(
            ["git", "ls-files", "-s", "-v", "-z"], cwd=top, env=env, capture_output=True, timeout=120, check=False
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return _Index(error=f"git ls-files could not run: {exc}")
    if listed.returncode != 0:
        why = listed.stderr.decode("utf-8", "replace").strip().splitlines()
        return _Index(error=f"git ls-files failed: {why[0] if why else f'exit code {listed.returncode}'}")
    hidden: set[str] = set()
    gitlinks: set[str] = set()
    tracked: set[str] = set()
    for record in listed.stdout.decode("utf-8", "surrogateescape").split("\0"):
        entry, tab, path = record.partition("\t")  # "<tag> <mode> <object> <stage>\t<path>"
        if not tab or not path:
            continue
        tag, _, rest = entry.partition(" ")
        tracked.add(path)
        if tag == "S" or tag.islower():  # S: skip-worktree; lower case: assume-unchanged
            hidden.add(path)
        if rest.startswith(_GITLINK_MODE + " "):
            gitlinks.add(path)
    return _Index(frozenset(hidden), frozenset(gitlinks), frozenset(tracked))


@dataclass(frozen=True)
class GitLayout:
    """Where the repository around a project root keeps what ignoring depends on."""

    top: Path  # the work tree's top (the root itself when there is no repository)
    prefix: str  # the root relative to `top`, "" or ending in "/"
    common_dir: Path | None  # $GIT_COMMON_DIR, holding info/exclude


def find_git_layout(root: Path) -> GitLayout:
    """Find the repository containing `root` as git does: the nearest `.git` dir or `gitdir:` file."""
    root = root.resolve()
    for top in (root, *root.parents):
        dot_git = top / ".git"
        if dot_git.is_dir():
            git_dir = dot_git
        elif dot_git.is_file():
            try:
                text = dot_git.read_text(encoding="utf-8", errors="surrogateescape").strip()
            except OSError:
                continue
            if not text.startswith("gitdir:"):
                continue
            git_dir = (top / text[len("gitdir:") :].strip()).resolve()
        else:
            continue
        common = git_dir  # a linked worktree's shared files (info/exclude) are in its commondir
        with contextlib.suppress(OSError):
            common = (git_dir / (git_dir / "commondir").read_text(encoding="utf-8").strip()).resolve()
        prefix = root.relative_to(top).as_posix()
        return GitLayout(top, "" if prefix == "." else prefix + "/", common)
    return GitLayout(root, "", None)


@dataclass
class IgnoreRules:
    """git's ignore rules for one work tree; every ignore file is read at most once."""

    top: Path
    setup: GitSetup = field(default_factory=GitSetup)
    common_dir: Path | None = None
    warnings: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        casefold = self.setup.ignore_case
        # Lowest priority first: core.excludesFile, then info/exclude.
        self._global: list[_PatternList] = []
        files = [(self.setup.excludes_file, str(self.setup.excludes_file))]
        if self.common_dir is not None:
            files.append((self.common_dir / "info" / "exclude", ".git/info/exclude"))
        for path, name in files:
            data = _read_ignore_file(path, follow=True, name=name, warnings=self.warnings) if path else None
            if data is not None:
                self._global.insert(0, _compile_lines(_split_lines(data), name, b"", casefold, self.warnings))
        self._per_dir: dict[bytes, _PatternList | None] = {}
        self._stacks: dict[bytes, tuple[_PatternList, ...]] = {}
        self._dir_verdicts: dict[bytes, _Pattern | None] = {}

    @classmethod
    def for_root(cls, root: Path, setup: GitSetup | None = None) -> tuple[IgnoreRules, str]:
        """The rules of the repository around `root`, and the prefix that turns a root path into a top path."""
        layout = find_git_layout(root)
        if setup is None:
            setup = read_git_setup(layout.top, repository=layout.common_dir is not None)
        rules = cls(layout.top, setup, layout.common_dir)
        return rules, layout.prefix

    def ignored_by(self, path: str) -> IgnoreMatch | None:
        """The line that makes git ignore the file `path` (relative to the top), or None."""
        encoded = os.fsencode(path)
        parent, _, _ = encoded.rpartition(b"/")
        verdict = self._dir_verdict(parent) if parent else None
        if verdict is None:
            verdict = self._last_match(encoded, is_dir=False, stack=self._stack(parent))
        return verdict.match if verdict is not None and not verdict.negative else None

    def _dir_verdict(self, directory: bytes) -> _Pattern | None:
        """The pattern excluding `directory` or one of its parents (never a negative one), or None.

        Iterative, top down, cached per directory: a legal path can be 2,000 directories deep."""
        if directory in self._dir_verdicts:
            return self._dir_verdicts[directory]
        verdict: _Pattern | None = None
        parent = current = b""
        for part in directory.split(b"/"):
            parent, current = current, (current + b"/" + part if current else part)
            if current in self._dir_verdicts:
                verdict = self._dir_verdicts[current]
                continue
            if verdict is None:
                found = self._last_match(current, is_dir=True, stack=self._stack(parent))
                verdict = found if found is not None and not found.negative else None
            self._dir_verdicts[current] = verdict
        return verdict

    def _last_match(self, path: bytes, is_dir: bool, stack: tuple[_PatternList, ...]) -> _Pattern | None:
        for patterns in (*stack, *self._global):
            found = patterns.last_match(path, is_dir)
            if found is not None:
                return found
        return None

    def _stack(self, directory: bytes) -> tuple[_PatternList, ...]:
        """The .gitignore lists that apply inside `directory` (b"" for the top), deepest first."""
        chain: list[bytes] = []  # directory and its parents up to the nearest one already known
        current = directory
        while current not in self._stacks:
            chain.append(current)
            if not current:
                break
            current = current.rpartition(b"/")[0]
        stack = self._stacks.get(current, ())
        for known in reversed(chain):
            own = self._gitignore_of(known)
            stack = self._stacks[known] = ((own,) if own else ()) + stack
        return self._stacks[directory]

    def _gitignore_of(self, directory: bytes) -> _PatternList | None:
        if directory not in self._per_dir:
            rel = os.fsdecode(directory + b"/" if directory else b"") + GITIGNORE
            # git opens in-tree ignore files with O_NOFOLLOW: a symlinked .gitignore is not read.
            data = _read_ignore_file(self.top / rel, follow=False, name=rel, warnings=self.warnings)
            base = directory + b"/" if directory else b""
            compiled = (
                _compile_lines(_split_lines(data), rel, base, self.setup.ignore_case, self.warnings)
                if data is not None
                else None
            )
            self._per_dir[directory] = compiled
        return self._per_dir[directory]


def _read_ignore_file(path: Path, follow: bool, name: str, warnings: list[str]) -> bytes | None:
    try:
        return read_regular(path, follow=follow)  # never waits on a FIFO planted as an ignore file
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    except OSError as exc:
        if not follow and os.path.islink(path):
            warnings.append(f"{name} is a symlink; git does not read it, so neither does code-commit")
        else:
            warnings.append(f"{name} cannot be read ({exc.strerror}); its patterns are not applied")
        return None


class PathPatterns:
    """Gitignore-style patterns from a setting, matched from the project root: the last match wins,
    a `!` line re-allows, and nothing below a matched directory can be re-allowed."""

    def __init__(self, patterns: Iterable[str], source: str) -> None:
        warnings: list[str] = []
        self._list = _compile_lines([os.fsencode(p) for p in patterns], source, b"", False, warnings)
        if warnings:
            raise ValueError("; ".join(warnings))
        self._dirs: dict[bytes, _Pattern | None] = {}

    def matched_by(self, path: str) -> IgnoreMatch | None:
        if not self._list:
            return None
        encoded = os.fsencode(path)
        directory = b""
        for part in encoded.split(b"/")[:-1]:
            directory = directory + b"/" + part if directory else part
            if directory not in self._dirs:
                self._dirs[directory] = self._list.last_match(directory, is_dir=True)
            found = self._dirs[directory]
            if found is not None and not found.negative:
                return found.match
        found = self._list.last_match(encoded, is_dir=False)
        return found.match if found is not None and not found.negative else None


class ProtectedPatterns(PathPatterns):
    """The user's own gitignore-style patterns (`protected_patterns`), matched from the project root.

    Matched case-insensitively after NFC normalisation, like the built-in protected names, because
    on macOS and Windows `.ENV` and `.env` are the same file. Same semantics otherwise: last match
    wins, a `!` line re-allows, and nothing below a protected directory can be re-allowed.
    """

    SOURCE = "protected_patterns"

    def __init__(self, patterns: Iterable[str]) -> None:
        super().__init__([fold(p) for p in patterns], self.SOURCE)

    def protected_by(self, path: str) -> IgnoreMatch | None:
        return self.matched_by(fold(path))


def fold(name: str) -> str:
    """A name as a case-insensitive, normalising file system compares it (macOS, Windows)."""
    return unicodedata.normalize("NFC", name).casefold()
