"""A build run for a verdict: sandboxed when the run has a sandbox, fingerprinted before and after
either way. A build that changed what the run's integrity rests on raises `BuildTampered`, so its
result never counts and nothing more goes to the model. Used by the run and by `apply --build`."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

from code_commit.builds.integrity import Fingerprint, changed_paths, protected_paths
from code_commit.builds.runner import BuildResult, run_build
from code_commit.builds.sandbox import Sandbox, policy
from code_commit.config.paths import CONFIG_DIR
from code_commit.config.redaction import Redactor
from code_commit.config.settings import Settings
from code_commit.credentials import cloud_credential_folders
from code_commit.errors import BuildTampered
from code_commit.git.env import distrust

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
def own_change(root: Path, run_folder: Path) -> Iterator[None]:
    """code-commit itself changes a watched path between two builds (git's refs: a stash entry of
    the user's work). Nothing else may have changed since the last build, as `checked_build` would
    find; what the block changes is then part of the state the next build starts from."""
    last = _LAST_AFTER.get(run_folder)
    if last is None:  # no build yet: the first one's fingerprint is taken after this
        yield
        return
    changed = changed_paths(last, Fingerprint.take(protected_paths(root), skip=run_folder))
    if changed:
        del _LAST_AFTER[run_folder]
        raise BuildTampered(changed)
    try:
        yield
    finally:
        _LAST_AFTER[run_folder] = Fingerprint.take(protected_paths(root), skip=run_folder)
