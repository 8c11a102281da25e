"""The build's home by allowlist, through the real gate and bubblewrap: an empty home but for the
toolchains' folders, read-only; the project, its sandbox cache and a writable path under the home
stay as they are (bwrap applies its mounts in order); another project's cache is never shown; and
old caches are pruned by their rule, never through a symlink, never outside their folder."""

from __future__ import annotations

import os
import shutil
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from code_commit.builds.gate import checked_build
from code_commit.builds.runner import BuildResult
from code_commit.config.redaction import Redactor
from code_commit.config.settings import Settings
from code_commit.sandbox.bubblewrap import choose, wrap
from code_commit.sandbox.home import home_view
from code_commit.sandbox.toolchains import PRUNE_REMOVE, cache_folder, prepare_cache, prune_caches

from support.sandbox import outside_tmp, require_bwrap

require_bwrap()

DAY = 86400


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A home outside /tmp (which the sandbox replaces anyway), holding the project, its caches and a
    toolchain, as a developer's does."""
    folder = outside_tmp("code-commit-home-")
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("XDG_CACHE_HOME")  # the caches in ~/.cache
    yield folder
    shutil.rmtree(folder)


def build(root: Path, script: str, **settings: object) -> BuildResult:
    (root / "build.sh").write_text("#!/bin/sh\n" + script)
    (root / "build.sh").chmod(0o755)
    folder = root / "agent-config" / "logs" / f"run-{len(list(root.glob('agent-config/logs/*')))}"
    folder.mkdir(parents=True)
    chosen = Settings(**settings)  # type: ignore[arg-type]
    return checked_build(root, folder, folder / "build.txt", Redactor(), chosen, choose("require", root=root))


def test_a_project_its_cache_and_a_toolchain_under_the_home_keep_their_place_in_the_empty_home(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, tool = home / "src" / "app", home / ".cargo" / "bin" / "greet"
    root.mkdir(parents=True)
    tool.parent.mkdir(parents=True)
    tool.write_text("#!/bin/sh\necho hello from the toolchain\n")
    tool.chmod(0o755)
    (home / ".cargo" / "credentials.toml").write_text("CARGO-TOKEN-home\n")
    (home / "notes.txt").write_text("NOTES-home\n")
    writable = home / "shared-cache"
    writable.mkdir()
    other = cache_folder(home / "src" / "other", os.environ)
    assert other is not None and prepare_cache(other) == other
    (other / "uv").mkdir()
    (other / "uv" / "entry").write_text("OTHER-PROJECT-CACHE\n")
    monkeypatch.setenv("PATH", f"{tool.parent}:{os.environ['PATH']}")
    script = (
        "greet\n"
        "echo written > out.txt && echo PROJECT-WRITABLE\n"
        'mkdir -p "$UV_CACHE_DIR" && echo kept > "$UV_CACHE_DIR/entry" && echo CACHE-WRITABLE\n'
        f"echo shared > {writable}/entry && echo WRITABLE-PATH\n"
        f"(: > {home}/.cargo/planted) 2>/dev/null || echo TOOLCHAIN-READ-ONLY\n"
        f"cat {home}/.cargo/credentials.toml {home}/notes.txt {other}/uv/entry\n"
        f'echo "listing: $(ls -a {home}/.cache/code-commit/sandbox | tr "\\n" " ")"\n'
    )

    result = build(root, script, sandbox_writable=[str(writable)])

    log = result.log_path.read_text()
    cache = cache_folder(root, os.environ)
    assert result.passed, log
    assert "hello from the toolchain" in log and "TOOLCHAIN-READ-ONLY" in log
    assert "PROJECT-WRITABLE" in log and (root / "out.txt").exists()
    assert "CACHE-WRITABLE" in log and cache is not None and (cache / "uv" / "entry").read_text() == "kept\n"
    assert "WRITABLE-PATH" in log and (writable / "entry").exists()
    assert "CARGO-TOKEN" not in log and "NOTES-home" not in log and "OTHER-PROJECT-CACHE" not in log
    listing = next(line for line in log.splitlines() if line.startswith("listing: "))
    assert listing == f"listing: . .. {root.name}-{cache.name.rsplit('-', 1)[1]} ", "no other project's cache"
    assert not (home / ".cargo" / "planted").exists()


def test_the_caches_are_private_to_their_user(home: Path) -> None:
    folder = cache_folder(home / "app", os.environ)
    assert folder is not None
    folder.parent.mkdir(parents=True)
    folder.parent.chmod(0o755)  # as an earlier version made it

    made = prepare_cache(folder)

    assert made == folder
    for path in (folder, folder.parent, folder.parent.parent):
        assert stat.S_IMODE(path.stat().st_mode) == 0o700, path


def test_the_home_view_shows_the_tables_folders_never_a_home_and_recreates_a_link(home: Path) -> None:
    (home / ".rustup").mkdir()
    (home / ".m2" / "repository").mkdir(parents=True)
    (home / ".m2" / "settings.xml").write_text("<settings/>")
    outside = outside_tmp("code-commit-outside-")
    try:
        (home / ".pyenv").symlink_to(outside)
        env = {"HOME": str(home), "PATH": f"{home}:{home}/bin:/usr/bin", "GOPATH": str(home)}
        (home / "bin").mkdir()

        view = home_view(env, visible=["~/notes"])

        assert home in view.homes
        shown = {path for path in view.shown if home in path.parents}  # (not the password file's home's)
        assert shown == {home / ".rustup", home / ".m2" / "repository", home / "bin"}
        assert view.links == ((home / ".pyenv", outside),)
        assert home not in view.shown, "GOPATH=$HOME and a PATH of ~ show no home"
    finally:
        shutil.rmtree(outside)


def test_bwrap_gets_the_empty_home_before_the_project_and_the_credential_stores_last(home: Path) -> None:
    root = home / "app"
    root.mkdir()
    (home / ".cargo").mkdir()
    (home / ".cargo" / "credentials.toml").write_text("x")
    from code_commit.builds.gate import sandbox_policy

    policy = sandbox_policy(root, Settings(), choose("require", root=root))
    assert policy is not None
    args = wrap(policy, ["true"], [0] * len(policy.stand_ins))

    def at(*what: str) -> int:
        return next(i for i in range(len(args)) if tuple(args[i : i + len(what)]) == what)

    assert at("--tmpfs", str(home)) < at("--ro-bind", str(home / ".cargo"), str(home / ".cargo"))
    assert at("--ro-bind", str(home / ".cargo"), str(home / ".cargo")) < at("--bind", str(root), str(root))
    credentials = str(home / ".cargo" / "credentials.toml")
    assert at("--bind", str(root), str(root)) < args.index(credentials)


def test_old_caches_are_pruned_by_their_rule_never_through_a_symlink(home: Path) -> None:
    own = prepare_cache(cache_folder(home / "app", os.environ))
    assert own is not None
    parent = own.parent
    old, fresh = cache_folder(home / "old", os.environ), cache_folder(home / "fresh", os.environ)
    assert old is not None and fresh is not None
    for folder in (old, fresh):
        (folder / "uv" / "deep").mkdir(parents=True)
        (folder / "uv" / "deep" / "file").write_text("x")
    victim = home / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("never removed")
    (old / "uv" / "link").symlink_to(victim)  # a build planted it: never followed
    (old / "uv" / "deep").chmod(0o555)  # made read-only, as Go's module cache is
    linked = parent / ("linked-" + "0" * 16)
    linked.symlink_to(victim)  # a cache's name, a symlink: never followed, never removed
    not_a_cache = parent / "notes"
    not_a_cache.mkdir()
    now = time.time()
    for path in (old, linked, not_a_cache, own):
        os.utime(path, (now - 40 * DAY, now - 40 * DAY), follow_symlinks=False)

    removed = prune_caches(parent, own.name, 30, now)

    assert removed == [old.name]
    assert not old.exists() and fresh.exists() and own.exists() and not_a_cache.exists() and linked.is_symlink()
    assert (victim / "keep.txt").read_text() == "never removed"


def test_pruning_is_bounded_and_goes_on_at_the_next_build(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    own = prepare_cache(cache_folder(home / "app", os.environ))
    old = cache_folder(home / "old", os.environ)
    assert own is not None and old is not None
    old.mkdir()
    for n in range(30):
        (old / f"f{n}").write_text("x")
    now = time.time()
    os.utime(old, (now - 40 * DAY, now - 40 * DAY))
    monkeypatch.setattr("code_commit.sandbox.toolchains.PRUNE_REMOVE", 20)

    first = prune_caches(own.parent, own.name, 30, now)
    left = len(list(old.iterdir()))
    second = prune_caches(own.parent, own.name, 30, now)

    assert first == [] and left == 10, "20 removed, and the folder still counts as old"
    assert second == [old.name] and not old.exists()
    assert PRUNE_REMOVE > 1000


def test_a_visible_cache_folder_shows_no_other_projects_sandbox_cache(home: Path) -> None:
    root = home / "app"
    root.mkdir()
    other = prepare_cache(cache_folder(home / "other", os.environ))
    assert other is not None
    (other / "secret-build-output").write_text("OTHER-PROJECT\n")
    (home / ".cache" / "pip").mkdir()

    result = build(
        root,
        f'echo "listing: $(ls -a {other.parent} | tr "\\n" " ")"\nls {home}/.cache\n',
        sandbox_visible=["~/.cache"],
    )

    log = result.log_path.read_text()
    assert result.passed, log
    assert f"listing: . .. {cache_folder(root, os.environ).name} " in log  # type: ignore[union-attr]
    assert other.name not in log and "pip" in log
