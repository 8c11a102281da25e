"""A build run for a verdict: sandboxed when the run has a sandbox, fingerprinted before and after
either way. A build that changed what the run's integrity rests on raises `BuildTampered`, so its
result never counts and nothing more goes to the model. Used by the run and by `apply --build`."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from code_commit.builds.changes import BuildWatch
from code_commit.builds.diagnosis import Diagnosis, Host, diagnose
from code_commit.builds.diagnosis.nested import probe
from code_commit.builds.ignored_files import put_back, saved
from code_commit.builds.integrity import (
    CREATED,
    TREE_ENTRIES,
    Fingerprint,
    ProtectedPaths,
    changed_paths,
    protected_paths,
)
from code_commit.builds.runner import BuildResult, run_build
from code_commit.config.paths import CONFIG_DIR
from code_commit.config.protected import BUILD_SCRIPT, GIT_DIR
from code_commit.config.redaction import Redactor
from code_commit.config.sandbox_writable import holds_socket
from code_commit.config.settings import Settings
from code_commit.errors import BuildTampered
from code_commit.files.ends import read_ends
from code_commit.files.setup_files import read_regular
from code_commit.git.config_files import GitFiles
from code_commit.git.env import distrust
from code_commit.git.ignore import check_ignore
from code_commit.sandbox.bubblewrap import Sandbox, SandboxPolicy, policy, proxied
from code_commit.sandbox.home import home_view
from code_commit.sandbox.limits import BuildLimits
from code_commit.sandbox.proxy import Refusal, proxy_env
from code_commit.sandbox.toolchains import Toolchains, cache_folder, cache_parents, prepare_cache, toolchain_env
from code_commit.sandbox.withheld import hidden_stores

# The caches whose tools write a `.gitignore` of `*` into them on their first run: pytest, ruff, mypy.
_TOOL_CACHES = (".pytest_cache", ".ruff_cache", ".mypy_cache")
_TOOL_IGNORE_BYTES = 4096  # a tool's own .gitignore is a line or two
_OUTPUT_HEAD = 64 << 10  # bytes of a failed build's log a diagnosis reads from its start...
_OUTPUT_TAIL = 256 << 10  # ...and from its end
_SCRIPT_READ = 64 << 10  # bytes of build.sh a diagnosis reads (does it name the missing program?)
_WHOLE_NETWORK = (
    "sandbox_network = true: the build, the model's code, can reach any host (name the hosts it needs instead)"
)
# Each run's state after its last build, by run folder: the next build starts from it.
_LAST_AFTER: dict[Path, Fingerprint] = {}


def checked_build(
    root: Path,
    run_folder: Path,
    log_path: Path,
    redact: Redactor,
    settings: Settings,
    sandbox: Sandbox,
    on_output: Callable[[str], None] | None = None,
    on_note: Callable[[str], None] | None = None,
    watch: BuildWatch | None = None,
    read_only: Callable[[list[str] | None], Sequence[str]] | None = None,
) -> BuildResult:
    """Run build.sh; raise BuildTampered naming every watched path it changed, even when the build
    was stopped (a signal, the run's time limit) before it ended. `watch`: the files git shows,
    whose changes by the build it records (`watch.last`), however the build ended. `read_only`:
    which of the files git shows the sandbox binds read-only besides the protected ones (the tests)."""
    distrust(root, *settings.sandbox_writable)  # as the settings did: no git a build plants ever runs here
    protected = protected_paths(root, run_folder)  # its listing of the files git shows serves the watch
    configured = protected.configured  # the check after the build looks where this one did
    before = Fingerprint.take(protected, skip=run_folder)
    # Between two builds of a run only the guarded apply writes, and never a watched path: a change
    # there is a process an earlier build left behind (a setsid child escapes the process group
    # without the sandbox) that waited until that build's check was over.
    since_last = changed_paths(_LAST_AFTER.pop(run_folder), before) if run_folder in _LAST_AFTER else []
    if since_last:
        raise BuildTampered(since_last)
    if before.truncated and on_note is not None:
        on_note(
            "the tamper check watches only its first entries: the tree has very many ignore files, or "
            f"{CONFIG_DIR}/ very many files (delete old run folders: keep_runs)"
        )
    if protected.tree_truncated and on_note is not None:
        on_note(
            f"the tamper check looks for new .git folders and files among the tree's first {TREE_ENTRIES:,} "
            "entries only (breadth first): the tree has more"
        )
    extra = read_only(protected.shown) if read_only is not None and sandbox.active else ()
    build_policy = sandbox_policy(root, settings, sandbox, protected, extra)
    if build_policy is not None and build_policy.network and on_note is not None:
        on_note(_WHOLE_NETWORK)
    if watch is not None:
        watch.before(protected.index, protected.shown)
    kept = saved(root, run_folder, on_note)  # the user's own ignored files (.env): put back after the build
    refused: list[Refusal] = []
    try:
        with proxied(build_policy) as (serving, proxy):
            result = run_build(
                root,
                log_path,
                redact,
                settings.build_timeout,
                on_output=on_output,
                linger=settings.build_linger,
                log_cap=settings.build_log_cap,
                sandbox=serving,
                pass_env=settings.build_env,
                withhold_env=settings.redact_env,
            )
            refused = proxy.refusals if proxy is not None else []
    except BaseException as stopped:
        # The stop is what ends the run: what the watch can still tell counts, its failure does not.
        after = _look_after(root, run_folder, configured, watch, contextlib.suppress(Exception))
        changed = changed_paths(before, after)
        if changed:
            raise BuildTampered(changed) from stopped
        raise
    finally:
        put_back(kept, on_note)
    after = _look_after(root, run_folder, configured, watch, contextlib.nullcontext())
    changed = changed_paths(before, after)
    own = [path for path in changed if watch is not None and _tool_ignore_file(path, watch, protected)]
    if own and on_note is not None:
        on_note(
            f"the build made {', '.join(p.removesuffix(CREATED) for p in own)} in a folder of its own "
            "(a tool's cache, as pytest, ruff and mypy make): it hides only what the build created there"
        )
    changed = [path for path in changed if path not in own]
    if changed:
        raise BuildTampered(changed)
    _LAST_AFTER[run_folder] = after
    if refused and on_note is not None:
        on_note(_refusals_note(refused))
    if not result.passed:
        result = dataclasses.replace(result, diagnosis=diagnosed(root, result, build_policy, refused))
    return result


def _look_after(
    root: Path,
    run_folder: Path,
    configured: GitFiles,
    watch: BuildWatch | None,
    watching: contextlib.AbstractContextManager[object],
) -> Fingerprint:
    """After a build: the watch's record of what it changed (inside `watching`), and the tamper
    check's fingerprint, from one listing of the files git shows and the index."""
    protected = protected_paths(root, run_folder, configured)
    if watch is not None:
        with watching:
            watch.after(protected.shown)
    return Fingerprint.take(protected, skip=run_folder)


def _tool_ignore_file(change: str, watch: BuildWatch, protected: ProtectedPaths) -> bool:
    """A tool's own folder, as pytest, ruff and mypy make their caches and venv and uv their virtual
    environments: a `.gitignore` holding only `*`, created in a new folder of one of TOOL_CACHES'
    names or a virtual environment's (`_virtualenv`), where git showed nothing before the build
    (`.pytest_cache/.gitignore`, `.venv/.gitignore`). What it hides there, the build itself made,
    and test runners do not look into it. Any other new ignore file is tampering: one in a folder
    that held a file git showed would hide the user's untracked work; one in another folder could
    hide from the report and the test guard a `conftest.py` pytest still runs, or an editor's
    `.vscode/tasks.json` that runs when the folder is opened; one with other patterns could hide
    some files and not others; and git's folders, agent-config/ and a hooks folder hold no tool's
    cache."""
    if not change.endswith(CREATED):
        return False
    path = change.removesuffix(CREATED)
    folder, _, name = path.rpartition("/")
    parts = folder.split("/")
    if name != ".gitignore" or not folder or parts[0] == CONFIG_DIR:
        return False
    if parts[-1] not in _TOOL_CACHES and not _virtualenv(protected.root / folder, parts[-1]):
        return False
    if any(part.casefold() == GIT_DIR for part in parts):
        return False
    absolute = protected.root / path
    if any(hooks == absolute or hooks in absolute.parents for hooks in protected.hook_folders):
        return False
    return _ignores_all(absolute) and watch.showed_nothing_in(folder)


def _virtualenv(folder: Path, name: str) -> bool:
    """A virtual environment, as `python -m venv` (3.13 on) and uv make one with a `.gitignore` of
    `*`: its `pyvenv.cfg` at the top. A dot-folder only by uv's and venv's usual name: a `.vscode/`
    the build made into a look-alike still holds what an editor runs when the folder is opened."""
    if name.startswith(".") and name != ".venv":
        return False
    try:
        return stat.S_ISREG(os.lstat(folder / "pyvenv.cfg").st_mode)
    except OSError:
        return False


def _ignores_all(path: Path) -> bool:
    """Whether the ignore file is a regular file whose one pattern is `*` (comments and blank lines
    aside), read up to a few KiB, never through a symlink."""
    try:
        data = read_regular(path, _TOOL_IGNORE_BYTES, follow=False)
    except OSError:
        return False
    lines = [line.strip() for line in data.decode("utf-8", "replace").splitlines()]
    return [line for line in lines if line and not line.startswith("#")] == ["*"]


@contextlib.contextmanager
def own_change(root: Path, run_folder: Path) -> Iterator[None]:
    """code-commit itself changes a watched path between two builds (git's refs: a stash entry of
    the user's work). Nothing else may have changed since the last build, as `checked_build` would
    find; what the block changes is then part of the state the next build starts from."""
    last = _LAST_AFTER.get(run_folder)
    if last is None:  # no build yet: the first one's fingerprint is taken after this
        yield
        return
    protected = protected_paths(root, run_folder)  # what the block changes (refs) is no protected path
    changed = changed_paths(last, Fingerprint.take(protected, skip=run_folder))
    if changed:
        del _LAST_AFTER[run_folder]
        raise BuildTampered(changed)
    try:
        yield
    finally:
        _LAST_AFTER[run_folder] = Fingerprint.take(protected, skip=run_folder)


def sandbox_policy(
    root: Path,
    settings: Settings,
    sandbox: Sandbox,
    protected: ProtectedPaths | None = None,
    read_only: Sequence[str] = (),
) -> SandboxPolicy | None:
    """What the next build may touch (None without a sandbox): `check` shows it before its build.
    `read_only`: more files of the project to bind read-only (relative paths)."""
    protected = protected or protected_paths(root)
    tools = toolchains(root, settings, sandbox)
    writable = [Path(os.path.expanduser(path)) for path in settings.sandbox_writable]
    kept = [root, *writable, *([tools.cache] if tools.cache is not None else [])]
    view = home_view(os.environ, settings.sandbox_visible, also_empty=cache_parents(os.environ))
    hidden = hidden_stores(settings.sandbox_hidden, settings.sandbox_visible, keep=kept, view=view)
    hosts = settings.network
    return policy(
        sandbox,
        root,
        protected.read_only,
        [root / CONFIG_DIR, *hidden.folders],
        hosts.everything,
        settings.sandbox_writable,
        readable=settings.sandbox_readable,
        env=tools.env,
        cache=tools.cache,
        stand_ins=hidden.files,
        limits=BuildLimits.of(settings),
        home=view,
        hosts=hosts,
        proxy_env=proxy_env(hosts, os.environ.get("MAVEN_OPTS", "")) if hosts.proxied else (),
        tests=[root / path for path in read_only],
    )


def toolchains(root: Path, settings: Settings, sandbox: Sandbox) -> Toolchains:
    """The project's sandbox cache and the toolchains' variables, for a sandboxed build."""
    if not sandbox.active:
        return Toolchains((), None)
    cache = prepare_cache(cache_folder(root, os.environ), settings.sandbox_cache_days)
    network = settings.network
    return toolchain_env(os.environ, network.everything or network.proxied, cache, os.geteuid() == 0)


def _refusals_note(refused: list[Refusal], most: int = 5) -> str:
    """The hosts the proxy refused a build, for the console and run.log: the first few."""
    shown = ", ".join(f"{r.host}:{r.port} ({r.reason})" for r in refused[:most])
    more = f" and {len(refused) - most} more" if len(refused) > most else ""
    return f"code-commit's proxy refused the build {shown}{more}"


def diagnosed(
    root: Path, result: BuildResult, build_policy: SandboxPolicy | None, refused: list[Refusal]
) -> Diagnosis | None:
    """What kept a failed build from running, if the sandbox or the setup did (builds/diagnosis/);
    `refused`: the hosts the proxy refused it, from the proxy's own record."""
    env = {**os.environ, **dict(build_policy.env if build_policy else ())}
    script = _head(root / BUILD_SCRIPT, _SCRIPT_READ).decode("utf-8", "replace")
    host = Host.of(
        root,
        env,
        script,
        lambda name: _head(root / name, _SCRIPT_READ).decode(errors="replace"),
        holds_socket,
        probe,
        lambda path: _ignored(root, path),
    )
    return diagnose(output_text(result), result.exit_code, build_policy, host, result.start_error, refused)


def _ignored(root: Path, path: str) -> bool:
    """git ignores the project's `path` (a generated file a clone lacks?); no answer counts as no."""
    try:
        return check_ignore(root, [path]).get(path) is not None
    except OSError:  # GitUnanswered among them
        return False


def output_text(result: BuildResult) -> str:
    """The build's output as its log keeps it, its start and its end (a diagnosis looks no further),
    without the lines code-commit added at its end."""
    try:
        ends = read_ends(result.log_path, _OUTPUT_HEAD, _OUTPUT_TAIL)
    except OSError:
        return ""
    text = (ends.head + ends.tail).decode("utf-8", "replace")
    return text[: len(text) - result.output.trailer] if result.output.trailer else text


def _head(path: Path, size: int) -> bytes:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)  # never waits on a FIFO
    except OSError:
        return b""
    try:
        return os.read(fd, size) if stat.S_ISREG(os.fstat(fd).st_mode) else b""
    finally:
        os.close(fd)
