"""Git's ignore rules, as far as they hide a file from `git status`.

Sources, lowest priority first: `.git/info/exclude`, the root `.gitignore`, and the user's
extra protected patterns (which only ever add refusals). Git cannot re-include a file whose
parent directory is excluded, so every parent directory is checked too.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pathspec


@dataclass(frozen=True)
class _Source:
    name: str
    spec: pathspec.GitIgnoreSpec


class IgnoreRules:
    def __init__(self, git_sources: list[_Source], extra: _Source | None) -> None:
        self._git = git_sources
        self._extra = extra

    @classmethod
    def load(cls, root: Path, extra_patterns: list[str] | tuple[str, ...] = ()) -> IgnoreRules:
        lines: list[str] = []
        names: list[str] = []
        for rel in (".git/info/exclude", ".gitignore"):
            try:
                text = (root / rel).read_text(encoding="utf-8", errors="surrogateescape")
            except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
                continue
            lines.extend(text.splitlines())
            names.append(rel)
        git = [_Source(" and ".join(names), pathspec.GitIgnoreSpec.from_lines(lines))] if names else []
        extra = (
            _Source("an extra protected pattern", pathspec.GitIgnoreSpec.from_lines(list(extra_patterns)))
            if extra_patterns
            else None
        )
        return cls(git, extra)

    def ignored_by(self, path: str) -> str | None:
        """Which source ignores `path` (a file path relative to the root), or None."""
        parts = path.split("/")
        candidates = [path] + ["/".join(parts[:n]) + "/" for n in range(1, len(parts))]
        for source in [*self._git, *([self._extra] if self._extra else [])]:
            if any(source.spec.match_file(candidate) for candidate in candidates):
                return source.name
        return None
