"""The sandbox build.sh runs in: bubblewrap (`bwrap`) on Linux, chosen once per run.

Inside it the whole file system is read-only, the project root is writable except what the
run's integrity rests on (`.git`, the ignore files, build.sh, codeRollup.sh: see `integrity`),
agent-config/ is an empty tmpfs (no key, no config, no logs), so is the home but for the toolchains'
folders, read-only (`home`), and the credential stores among them (`withheld`: an empty folder or
file in their place), /tmp is private and empty, the
build has its own PID namespace and /proc (no process of code-commit or the user can be read),
and no network: `sandbox_network = true` gives it the whole network; names give it only those hosts,
through code-commit's proxy (sandbox/proxy.py), whose socket alone is bound in. A build.sh that exits
ends its namespace, and with it every process it started. Only this module knows bwrap's arguments; `build` runs the
command it is given.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from code_commit.config.sandbox_network import NO_NETWORK, NetworkAccess
from code_commit.config.sandbox_writable import PRIVATE_TMP, readable_problem, writable_problem
from code_commit.errors import BuildTampered, SetupError
from code_commit.git.env import distrust, find_program, git_env
from code_commit.sandbox.home import EVERYTHING_READ_ONLY, HomeView
from code_commit.sandbox.limits import NO_LIMITS, BuildLimits

if TYPE_CHECKING:  # the proxy (sockets, threads) is imported where a build names hosts, not at start-up
    from code_commit.sandbox.proxy import Proxy

BUBBLEWRAP = "bubblewrap"
NONE = "none"
PROBE_TIMEOUT = 30.0  # seconds; bwrap starts in milliseconds, this only bounds a hung system
_INSTALL_FIX = (
    "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap; "
    "Arch: pacman -S bubblewrap)"
)
_USERNS_FIX = (
    "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 23.10 and "
    "later, an AppArmor profile for bwrap or sysctl kernel.apparmor_restrict_unprivileged_userns=0; in a "
    "container, run it with user namespaces allowed)"
)
_OFF_FIX = 'or set sandbox = "off" to run builds with your full rights knowingly'

# The namespaces and mounts every sandboxed build gets (and the probe tries). Taken from Codex CLI's
# and Claude Code's (sandbox-runtime) bubblewrap pipelines: see docs/architecture.md.
BASE_ARGS = (
    "--ro-bind", "/", "/",
    "--dev", "/dev",
    "--unshare-pid",
    "--proc", "/proc",
    "--tmpfs", str(PRIVATE_TMP),
    "--unshare-ipc",
    "--unshare-uts",
    "--die-with-parent",
    "--new-session",
    "--cap-drop", "ALL",  # run as root, bwrap keeps every capability: umount would uncover agent-config/
)  # fmt: skip


@dataclass(frozen=True)
class Sandbox:
    """The sandbox a run's builds use, decided once per run."""

    mode: str  # the setting: auto, require or off
    kind: str  # BUBBLEWRAP or NONE
    bwrap: str | None = None  # the bwrap executable, when kind is BUBBLEWRAP
    problem: str | None = None  # auto without a working sandbox: why, and the fix

    @property
    def active(self) -> bool:
        return self.kind == BUBBLEWRAP

    def describe(self) -> str:
        if self.active:
            return f"bubblewrap ({self.bwrap})"
        if self.mode == "off":
            return 'none (sandbox = "off"): build.sh runs with your full rights'
        return f"none: {self.problem}"


@dataclass(frozen=True)
class SandboxPolicy:
    """What one build may touch; `wrap` turns it into bwrap's arguments."""

    bwrap: str
    root: Path  # writable
    network: bool  # the whole network (sandbox_network = true)
    writable: tuple[Path, ...]  # extra writable paths, outside the project (checked in settings)
    read_only: tuple[Path, ...]  # inside the writable ones, bound read-only again (real paths)
    hidden: tuple[Path, ...]  # folders replaced by an empty tmpfs (real paths)
    readable: tuple[Path, ...] = ()  # under the host's /tmp, shown read-only there (sandbox_readable)
    env: tuple[tuple[str, str], ...] = ()  # set in the build's environment (sandbox/toolchains.py)
    stand_ins: tuple[tuple[Path, str], ...] = ()  # files replaced by a read-only file holding this text
    limits: BuildLimits = NO_LIMITS  # processes and memory, put in place around bwrap
    home: HomeView = EVERYTHING_READ_ONLY  # the homes, emptied but for the toolchains' folders (sandbox/home.py)
    hosts: NetworkAccess = NO_NETWORK  # the hosts sandbox_network names, reached through the proxy
    proxy_env: tuple[tuple[str, str], ...] = ()  # what points the build's tools at it (proxy.proxy_env)
    proxy: Path | None = None  # the proxy's socket on the host, while it serves the build (`proxied`)
    tests: tuple[Path, ...] = ()  # the existing tests and the runners' files, bound read-only (tests = protect)

    def stand_in_texts(self) -> list[bytes]:
        """What each of `stand_ins` reads as, in order: `wrap` gets a descriptor to read each from."""
        return [text.encode() for _, text in self.stand_ins]


def wrap(policy: SandboxPolicy, command: Sequence[str], stand_in_fds: Sequence[int] = ()) -> list[str]:
    """bwrap's command line for `command`. bwrap applies its mounts in order, so the empty homes come
    right after the read-only root and the private /tmp, with the toolchains' folders bound back into
    them; the writable binds after those (a project or a cache under the home stays writable), and
    the read-only and hidden ones last (a credential store in a toolchain's folder stays hidden).
    `stand_in_fds`: a descriptor for each of `policy.stand_ins`, which bwrap reads its text from
    (`--ro-bind-data`: a real, empty or near-empty file, as a tool that opens it expects)."""
    if len(stand_in_fds) != len(policy.stand_ins):
        raise ValueError("one descriptor for each stand-in file")
    args = [policy.bwrap, *BASE_ARGS]
    for path in policy.home.homes:
        args += ["--tmpfs", str(path)]  # before the project, a cache or a toolchain under it is bound
    for path in policy.home.shown:
        args += ["--ro-bind", str(path), str(path)]
    for link, target in policy.home.links:
        args += ["--symlink", str(target), str(link)]
    for path in policy.home.also_empty:  # after what is shown: a visible ~/.cache shows no other cache
        args += ["--tmpfs", str(path)]
    for path in policy.readable:  # after the private /tmp, which they show through; before all else
        args += ["--ro-bind-try", str(path), str(path)]
    if not policy.network:
        args.append("--unshare-net")
    if policy.proxy is not None:  # in the private /tmp, the one way out of the network namespace
        from code_commit.sandbox.proxy import SANDBOX_SOCKET, bridge_command, interpreter_home

        args += ["--bind", str(policy.proxy), str(SANDBOX_SOCKET)]
        command = bridge_command(command)
    for name, value in (*policy.env, *(policy.proxy_env if policy.proxy is not None else ())):
        args += ["--setenv", name, value]
    for path in policy.writable:  # --bind-try: a cache folder that does not exist yet is no error
        args += ["--bind-try", str(path), str(path)]
    args += ["--bind", str(policy.root), str(policy.root)]
    for path in (*policy.read_only, *policy.tests):
        args += ["--ro-bind", str(path), str(path)]
    for path in policy.hidden:
        args += ["--tmpfs", str(path)]
    for (path, _), fd in zip(policy.stand_ins, stand_in_fds, strict=True):
        args += ["--ro-bind-data", str(fd), str(path)]
    if policy.proxy is not None and _may_bind(interpreter_home(), policy):  # the bridge's Python, read-only
        args += ["--ro-bind-try", str(interpreter_home()), str(interpreter_home())]
    args += ["--chdir", str(policy.root), "--", *command]
    return args


def _may_bind(folder: Path, policy: SandboxPolicy) -> bool:
    """Whether `folder` may be bound read-only over what is there: not where that would make a
    writable path read-only again or show a hidden one (a Python under /usr, seen anyway)."""
    inside = (policy.root, *policy.writable, *policy.hidden, *(path for path, _ in policy.stand_ins))
    return folder != Path("/") and not any(folder == path or folder in path.parents for path in inside)


@contextlib.contextmanager
def proxied(policy: SandboxPolicy | None) -> Iterator[tuple[SandboxPolicy | None, Proxy | None]]:
    """The build's policy with its proxy serving, where it names hosts: the proxy runs only while
    the block does (sandbox/proxy.py)."""
    if policy is None or policy.network or not policy.hosts.proxied:
        yield policy, None
        return
    from code_commit.sandbox.proxy import serving

    with serving(policy.hosts) as proxy:
        yield dataclasses.replace(policy, proxy=proxy.socket_path), proxy


def choose(mode: str, env: Mapping[str, str] | None = None, root: Path | None = None) -> Sandbox:
    """The sandbox for this run's builds. `require` without a working one is a SetupError (exit 2),
    raised before any model call; `auto` falls back to none, with the reason and the fix. `root`:
    the project, where bwrap (nor git, from now on) is never looked up: its builds can write there."""
    if root is not None:
        distrust(root)
    if mode == "off":
        return Sandbox(mode, NONE)
    bwrap, problem = probe(os.environ if env is None else env)
    if bwrap is not None:
        return Sandbox(mode, BUBBLEWRAP, bwrap)
    if mode == "require":
        raise SetupError(f'sandbox = "require", but no working sandbox: {problem}.')
    return Sandbox(mode, NONE, problem=f"{problem}, {_OFF_FIX}")


def find_bwrap(env: Mapping[str, str]) -> str | None:
    return find_program("bwrap", env) if sys.platform == "linux" else None


# The bwrap programs that made a sandbox in this process, by path and file identity: `init` checks
# the build after its own probe, and the tests make many runs in one process. A failure is probed again.
_WORKED: set[tuple[str, int, int, int, int]] = set()


def probe(env: Mapping[str, str]) -> tuple[str | None, str]:
    """(bwrap's path, "") when bwrap can create the sandbox here; else (None, why and the fix).
    One run of `true` inside the same namespaces a build gets, network off, once per process and
    bwrap program."""
    if sys.platform != "linux":
        return None, f"builds are sandboxed only on Linux so far, not on {sys.platform} (macOS is planned)"
    bwrap = find_bwrap(env)
    if bwrap is None:
        return None, f"bubblewrap (bwrap) is not installed (not on PATH): {_INSTALL_FIX}"
    try:
        st = os.stat(bwrap)
    except OSError as exc:
        return None, f"bubblewrap ({bwrap}) could not be run: {exc}"
    identity = (bwrap, st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    if identity in _WORKED:
        return bwrap, ""
    try:
        done = subprocess.run(
            [bwrap, *BASE_ARGS, "--unshare-net", "--", "true"],
            env=git_env(env),  # no provider key: a child is dumpable again after execve
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=PROBE_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return None, f"bubblewrap ({bwrap}) could not be run: {exc}"
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip()[-500:] or f"exit code {done.returncode}"
        return None, f"bubblewrap ({bwrap}) cannot create its sandbox here (bwrap said: {said}): {_USERNS_FIX}"
    _WORKED.add(identity)
    return bwrap, ""


def _writable_paths(paths: Sequence[str]) -> tuple[Path, ...]:
    return tuple(Path(os.path.realpath(os.path.expanduser(p))) for p in paths)


def policy(
    sandbox: Sandbox,
    root: Path,
    protected: Sequence[Path],
    hidden: Sequence[Path],
    network: bool,
    writable: Sequence[str],
    readable: Sequence[str] = (),
    env: Sequence[tuple[str, str]] = (),
    cache: Path | None = None,
    stand_ins: Sequence[tuple[Path, str]] = (),
    limits: BuildLimits = NO_LIMITS,
    home: HomeView = EVERYTHING_READ_ONLY,
    hosts: NetworkAccess = NO_NETWORK,
    proxy_env: Sequence[tuple[str, str]] = (),
    tests: Sequence[Path] = (),
) -> SandboxPolicy | None:
    """The policy for one build, or None without a sandbox. Paths are bound by their real path:
    bwrap follows a symlink at a mount point, so a protected name that is a symlink has its target
    bound read-only (the link itself, in the writable root, is watched by the fingerprint). Missing
    paths are not bound: a bind would create them on the host; their creation is what the
    fingerprint catches. `cache`: the project's own toolchain cache (sandbox/toolchains.py), writable
    like a sandbox_writable path and checked as one; `env`: the variables pointing tools at it."""
    if not sandbox.active or sandbox.bwrap is None:
        return None
    # Checked again at each build: an earlier build may have planted a symlink in a writable path.
    every = [*writable, *([str(cache)] if cache is not None else [])]
    problems = [f"sandbox_writable: {problem}" for p in writable if (problem := writable_problem(p, root, every))]
    if cache is not None and (problem := writable_problem(str(cache), root, every)):
        problems.append(f"the project's sandbox cache: {problem}")
    problems += [f"sandbox_readable: {problem}" for p in readable if (problem := readable_problem(p, root, every))]
    if problems:
        raise BuildTampered(problems)
    return SandboxPolicy(
        sandbox.bwrap,
        Path(os.path.realpath(root)),
        network,
        _writable_paths(every),
        _existing_real(protected),
        _existing_real(hidden),
        tuple(Path(os.path.normpath(os.path.expanduser(p))) for p in readable),  # as named: bwrap binds there
        tuple(env),
        tuple(stand_ins),
        limits,
        home,
        hosts,
        tuple(proxy_env),
        tests=_existing_real(tests),
    )


def describe_policy(
    policy: SandboxPolicy, home: Path | None = None, cache: Path | None = None
) -> list[tuple[str, str]]:
    """What a build may touch under `policy`, in words, one (what, where) pair a line: for `check`.
    `cache`: the project's toolchain cache, among the writable paths."""

    def shown(path: Path) -> str:
        if home is not None and (path == home or home in path.parents):
            return "~/" + path.relative_to(home).as_posix() if path != home else "~"
        return str(path)

    root = policy.root
    protected = sorted({p.relative_to(root).as_posix() for p in policy.read_only if root in p.parents})
    hidden = [shown(p) + ("/" if p.is_dir() else "") for p in policy.hidden]
    cached = "the project's toolchain cache"
    writable = [f"{shown(p)} ({cached if p == cache else 'sandbox_writable'})" for p in policy.writable]
    lines = [
        ("network", _network_words(policy)),
        ("writable", f"the project, {root}, but {_some(protected) or 'nothing'} in it"),
        *[("writable", text) for text in writable],
        ("read-only", "everything else" + ("" if policy.home.empty else ", your home folder included")),
        *[("read-only", f"{shown(path)} (sandbox_readable), under the host's /tmp") for path in policy.readable],
        ("hidden", f"the host's {PRIVATE_TMP} (the build gets its own, empty), {', '.join(hidden)}"),
        *_home_lines(policy.home, shown),
    ]
    if policy.env:
        variables = [f"{name}={shown(Path(value)) if value.startswith('/') else value}" for name, value in policy.env]
        lines.append(("toolchains", ", ".join(variables)))
    return lines


def _home_lines(view: HomeView, shown: Callable[[Path], str]) -> list[tuple[str, str]]:
    if not view.empty:
        return []
    folders = [shown(path) for path in view.shown] + [f"{shown(link)} -> {target}" for link, target in view.links]
    return [
        ("hidden", f"{', '.join(shown(path) for path in view.empty)}: empty, but for the folders below"),
        ("read-only", f"in the home: {_some(folders, 12) or 'nothing'} (toolchains, PATH, sandbox_visible)"),
    ]


def _network_words(policy: SandboxPolicy) -> str:
    if policy.network:
        return "on, every host (sandbox_network = true)"
    if policy.hosts.proxied:
        entries = list(dict.fromkeys(rule.entry for rule in policy.hosts.rules))
        return f"only {', '.join(entries)}, through code-commit's proxy (sandbox_network)"
    return "off (sandbox_network names the hosts a build may reach)"


def _some(names: list[str], most: int = 6) -> str:
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more


def _existing_real(paths: Sequence[Path]) -> tuple[Path, ...]:
    """The real paths of those that exist, files and folders only: GIT_CONFIG_GLOBAL=/dev/null is
    no file to protect, and a read-only /dev/null would break every build."""
    real = (Path(os.path.realpath(p)) for p in paths if os.path.lexists(p))
    return tuple(dict.fromkeys(p for p in real if p.is_file() or p.is_dir()))


def preview(mode: str, env: Mapping[str, str] | None = None) -> str:
    """What a run would use, for `code-commit config`: found on PATH or not, without starting bwrap
    (a run does that once, before its first build)."""
    if mode == "off":
        return Sandbox(mode, NONE).describe()
    bwrap = find_bwrap(os.environ if env is None else env)
    if bwrap is not None:
        return f"bubblewrap ({bwrap}), if it can create its namespaces here: a run checks once, before its first build"
    why = (
        f"builds are sandboxed only on Linux so far, not on {sys.platform}"
        if sys.platform != "linux"
        else f"bubblewrap (bwrap) is not installed (not on PATH): {_INSTALL_FIX}"
    )
    if mode == "require":
        return f"none: a run would stop with exit 2 before any model call: {why}"
    return f"none: {why}, {_OFF_FIX}"
