"""A build run for a verdict: sandboxed when the run has a sandbox, fingerprinted before and after
either way. A build that changed what the run's integrity rests on raises `BuildTampered`, so its
result never counts and nothing more goes to the model. Used by the run and by `apply --build`."""

from __future__ import annotations

import contextlib
import ctypes
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from code_commit.builds.integrity import Fingerprint, changed_paths, protected_paths
from code_commit.builds.runner import BuildResult, run_build
from code_commit.builds.sandbox import Sandbox, policy
from code_commit.config.settings import CONFIG_DIR, Settings
from code_commit.credentials import cloud_credential_folders
from code_commit.errors import BuildTampered
from code_commit.git.env import distrust
from code_commit.logs.run_log import Redactor

PR_SET_DUMPABLE = 4
PR_GET_DUMPABLE = 3
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
) -> BuildResult:
    """Run build.sh; raise BuildTampered naming every watched path it changed, even when the build
    was stopped (a signal, the run's time limit) before it ended."""
    distrust(root)  # from now on, no git of the project's (a planted .venv/bin/git) runs on the host
    protected = protected_paths(root)
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
    build_policy = policy(
        sandbox,
        root,
        [*protected.files, *protected.git_dirs, *protected.git_config],
        [root / CONFIG_DIR, *cloud_credential_folders()],
        settings.sandbox_network,
        settings.sandbox_writable,
    )
    try:
        result = run_build(
            root,
            log_path,
            redact,
            settings.build_timeout,
            on_output=on_output,
            linger=settings.build_linger,
            log_cap=settings.build_log_cap,
            sandbox=build_policy,
        )
    except BaseException as stopped:
        changed = changed_paths(before, Fingerprint.take(protected_paths(root), skip=run_folder))
        if changed:
            raise BuildTampered(changed) from stopped
        raise
    after = Fingerprint.take(protected_paths(root), skip=run_folder)
    changed = changed_paths(before, after)
    if changed:
        raise BuildTampered(changed)
    _LAST_AFTER[run_folder] = after
    return result


@contextlib.contextmanager
def not_dumpable() -> Iterator[None]:
    """For the block, the process is not dumpable: a process of the same (non-root) user cannot read
    its /proc/<pid>/environ or memory, or attach a debugger. Linux only; elsewhere nothing happens."""
    prctl = _prctl()
    if prctl is None:
        yield
        return
    was = prctl(PR_GET_DUMPABLE, 0, 0, 0, 0)
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    try:
        yield
    finally:
        if was > 0:
            prctl(PR_SET_DUMPABLE, was, 0, 0, 0)


def _prctl() -> Callable[..., int] | None:
    if sys.platform != "linux":
        return None
    try:
        function: Callable[..., int] = ctypes.CDLL(None).prctl  # libc's, linked into the interpreter
    except (OSError, AttributeError):
        return None
    return function
