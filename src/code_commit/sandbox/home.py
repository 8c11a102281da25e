"""What a sandboxed build sees of the home: an empty folder, but for the toolchains' folders.

The home is an allowlist, as the environment is: the build gets an empty tmpfs over it (over both
homes where $HOME is not the password file's: Maven and other JVM tools take the second), and only
these folders of it, bound back read-only:

- the toolchains' folders the table names (`allowlist`: ~/.cargo, ~/.rustup, ~/.pyenv, ~/go,
  ~/.m2/repository, ~/.npm...), and the folders its variables name (CARGO_HOME, VIRTUAL_ENV...);
- the folders of the build's PATH under the home (~/.local/bin, pyenv's shims), where its programs are;
- what `sandbox_visible` names.

Never a home itself (GOPATH=$HOME would show it all), and the credential stores inside what is
shown stay hidden (`withheld.hidden_stores`). The project, the writable paths and the project's
sandbox cache are bound after the empty home, as they are (writable): bubblewrap applies its mounts
in order. A home that is `/` or holds the system's folders is left read-only, as everything else.
"""

from __future__ import annotations

import contextlib
import glob
import os
import pwd
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from code_commit.sandbox.allowlist import folder_variables, home_folders

# Folders a home may not be, nor hold: an empty tmpfs there would take the system from the build.
_SYSTEM = tuple(
    Path(p) for p in ("/", "/bin", "/dev", "/etc", "/lib", "/lib64", "/nix", "/opt", "/proc", "/run", "/sbin",
                      "/srv", "/sys", "/tmp", "/usr", "/var")
)  # fmt: skip


@dataclass(frozen=True)
class HomeView:
    """The folders a sandboxed build gets empty, and those shown in them read-only (real paths)."""

    homes: tuple[Path, ...] = ()  # each an empty tmpfs, before anything else is bound
    shown: tuple[Path, ...] = ()  # under those, bound back read-only
    links: tuple[tuple[Path, Path], ...] = ()  # (a symlink under a home, where it leads): made again
    also_empty: tuple[Path, ...] = ()  # emptied after `shown` is bound (the sandbox caches' parent)

    @property
    def empty(self) -> tuple[Path, ...]:
        return (*self.homes, *self.also_empty)

    def hides(self, path: Path) -> bool:
        """Whether the empty homes hide `path` (a real path) from the build, unless bound again."""
        return _inside(path, self.empty) and not any(path == p or p in path.parents for p in self.shown)


def homes(env: Mapping[str, str]) -> tuple[Path, ...]:
    """$HOME and the password file's home, by their real paths, each an existing folder, never a
    system folder nor one that holds one."""
    found = [env.get("HOME", "")]
    with contextlib.suppress(KeyError):  # a user id the password file does not know (a container's)
        found.append(pwd.getpwuid(os.geteuid()).pw_dir)
    real = (Path(os.path.realpath(home)) for home in found if home.startswith("/"))
    return tuple(dict.fromkeys(home for home in real if home.is_dir() and not _holds_system(home)))


def home_view(env: Mapping[str, str], visible: Sequence[str] = (), also_empty: Sequence[Path] = ()) -> HomeView:
    """The view of the homes for a build whose environment is `env`. `visible`: sandbox_visible's
    paths (~ is $HOME); `also_empty`: more folders to empty after the shown ones are bound (the
    sandbox caches' parent, wherever XDG_CACHE_HOME put it: a visible ~/.cache shows no other
    project's cache)."""
    every = homes(env)
    if not every:
        return HomeView()
    home = env.get("HOME", "")
    candidates = [
        path for h in every for folder in home_folders() for path in glob.glob(glob.escape(str(h)) + folder[1:])
    ]
    candidates += [env.get(name, "") for name in folder_variables()]
    candidates += env.get("PATH", "").split(os.pathsep)
    candidates += [home + path[1:] if path == "~" or path.startswith("~/") else path for path in visible]
    shown: dict[Path, None] = {}
    links: dict[Path, Path] = {}
    for candidate in candidates:
        if not candidate.startswith("/") or not os.path.exists(candidate):
            continue
        lexical, real = Path(os.path.normpath(candidate)), Path(os.path.realpath(candidate))
        if any(real == h or real in h.parents for h in every):
            continue  # never a home, nor what holds one
        if _inside(real, every):
            shown.setdefault(real)
        if lexical != real and _inside(lexical, every) and Path(os.path.realpath(lexical.parent)) == lexical.parent:
            links.setdefault(lexical, real)  # a link under the home (~/.cargo -> /opt/cargo): made again
    outermost = tuple(path for path in shown if not _inside(path, [p for p in shown if p != path]))
    extra = tuple(path for path in also_empty if path.is_dir() and path not in every)  # a mount point must exist
    return HomeView(every, outermost, tuple((link, to) for link, to in links.items() if link not in shown), extra)


def _inside(path: Path, folders: Sequence[Path]) -> bool:
    return any(folder in path.parents for folder in folders)


def _holds_system(home: Path) -> bool:
    return any(home == system or home in system.parents for system in _SYSTEM)


EVERYTHING_READ_ONLY = HomeView()  # no home emptied: the home read-only, as the rest
