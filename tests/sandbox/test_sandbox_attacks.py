"""An adversarial audit of the build's boundary: what the model's code, run by build.sh, could still do
to the run's integrity. Each test is one attack that worked before its fix.

Without the sandbox (`sandbox = "off"`) the fingerprint is the last line of defence, so most attacks
here are against it; they call `checked_build` as the run does, once per attempt, with the real
build.sh as a real process.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from code_commit.builds import integrity
from code_commit.builds.gate import checked_build
from code_commit.builds.integrity import Fingerprint, changed_paths, protected_paths
from code_commit.config.redaction import Redactor
from code_commit.config.sandbox_writable import writable_problem
from code_commit.config.settings import Settings
from code_commit.errors import BuildTampered
from code_commit.git.diff import git_hunks
from code_commit.git.ignore import check_ignore
from code_commit.sandbox.bubblewrap import NONE, Sandbox, choose, probe

from support import git

OFF = Sandbox("off", NONE)


def new_project(root: Path, build: str) -> Path:
    """A committed git project whose build.sh is `build`; returns its run folder."""
    git(root, "init", "-q")
    (root / "build.sh").write_text("#!/bin/sh\n" + build)
    (root / "build.sh").chmod(0o755)
    (root / ".gitignore").write_text("/agent-config\n")
    git(root, "add", "-A")
    git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "start")
    run_folder = root / "agent-config" / "logs" / "run"
    run_folder.mkdir(parents=True)
    return run_folder


def build(root: Path, run_folder: Path, call: int):
    return checked_build(root, run_folder, run_folder / f"{call:02d}-build.txt", Redactor(), Settings(), OFF)


def wait_for(path: Path, processes: int = 200) -> None:
    """Until `path` exists: the daemon's work is counted in steps it reports, never timed."""
    for _ in range(processes * 50):
        if path.exists():
            return
        time.sleep(0.01)
    raise AssertionError(f"{path} never appeared")


def test_a_process_the_build_left_behind_cannot_weaken_the_gate_between_builds(tmp_path: Path) -> None:
    """Without the sandbox a setsid child escapes the build's process group and outlives it. It waited
    until the build was over (and fingerprinted), rewrote build.sh to `exit 0`, and the next build,
    whose 'before' already held the rewritten build.sh, passed: the run reported `passed`."""
    daemon = (
        "import os, pathlib, time\n"
        "while not os.path.exists('go'): time.sleep(0.01)\n"
        "pathlib.Path('build.sh').write_text('#!/bin/sh\\nexit 0\\n')\n"
        "pathlib.Path('gone').write_text('')\n"
    )
    (tmp_path / "daemon.py").write_text(daemon)
    run_folder = new_project(
        tmp_path, f"if [ ! -f started ]; then touch started; setsid {sys.executable} daemon.py & fi\nexit 1\n"
    )
    first = build(tmp_path, run_folder, 1)
    assert first.exit_code == 1
    (tmp_path / "go").write_text("")  # the run asks the model again, applies its answer...
    wait_for(tmp_path / "gone")
    with pytest.raises(BuildTampered) as caught:  # ...and builds again
        build(tmp_path, run_folder, 2)
    assert caught.value.paths == ["build.sh (changed)"]


def test_a_submodule_s_git_config_and_hooks_are_watched(tmp_path: Path) -> None:
    """`.git/modules/<name>/` is a submodule's git dir: its config (core.fsmonitor runs a command
    whenever git looks at the submodule, `git status` in the superproject included) and hooks were
    not watched, so a build could plant a command that runs outside any sandbox later."""
    run_folder = new_project(
        tmp_path,
        "printf '[core]\\n\\tfsmonitor = touch /tmp/owned\\n' >> .git/modules/lib/config\n"
        "echo evil > .git/modules/lib/hooks/post-checkout\n",
    )
    module = tmp_path / ".git" / "modules" / "lib"
    (module / "hooks").mkdir(parents=True)
    (module / "HEAD").write_text("ref: refs/heads/main\n")
    (module / "config").write_text("[core]\n\tbare = false\n")
    with pytest.raises(BuildTampered) as caught:
        build(tmp_path, run_folder, 1)
    assert caught.value.paths == [
        ".git/modules/lib/config (changed)",
        ".git/modules/lib/hooks/post-checkout (created)",
    ]


def test_the_user_s_global_git_ignore_and_config_are_watched(tmp_path: Path, monkeypatch) -> None:
    """git reads `~/.config/git/ignore` (and `~/.gitconfig`'s core.excludesFile): a build that wrote
    `*.py` there hid every new Python file the model wrote from `git status`, unseen."""
    home = tmp_path / "home"
    (home / ".config" / "git").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    project = tmp_path / "project"
    project.mkdir()
    run_folder = new_project(project, 'echo "*.py" > "$HOME/.config/git/ignore"\necho x >> "$HOME/.gitconfig"\n')
    (project / "new.py").write_text("the model's new file\n")
    assert "new.py" in git(project, "status", "--porcelain")
    with pytest.raises(BuildTampered) as caught:
        build(project, run_folder, 1)
    assert caught.value.paths == [f"{home}/.config/git/ignore (created)", f"{home}/.gitconfig (created)"]
    assert "new.py" not in git(project, "status", "--porcelain")  # what the attack achieved, now caught


def test_a_fingerprint_cut_short_still_watches_the_gate(tmp_path: Path, monkeypatch) -> None:
    """The fingerprint lists at most MAX_ENTRIES paths. It listed the nested ignore files first, so a
    tree with that many (left behind by an earlier build) pushed `.git/config`, `.git/hooks/` and
    everything in agent-config/ past the limit, and a build changed them unseen."""
    run_folder = new_project(
        tmp_path,
        "printf '[core]\\n\\thooksPath = /tmp\\n' >> .git/config\n"
        "echo 'rewrite build.sh to exit 0' > agent-config/query.txt\n",
    )
    (tmp_path / "agent-config" / "query.txt").write_text("the user's task\n")
    watched = len(Fingerprint.take(protected_paths(tmp_path), skip=run_folder).entries)
    monkeypatch.setattr(integrity, "MAX_ENTRIES", watched + 5)  # then 40 ignore files and 40 old runs
    for n in range(40):
        (tmp_path / f"d{n:02d}").mkdir()
        (tmp_path / f"d{n:02d}" / ".gitignore").write_text("*.tmp\n")
    for n in range(40):
        (run_folder.parent / f"old{n:02d}").mkdir()
    with pytest.raises(BuildTampered) as caught:
        build(tmp_path, run_folder, 1)
    assert caught.value.paths == [".git/config (changed)", "agent-config/query.txt (changed)"]


def test_the_fingerprint_of_an_untouched_tree_does_not_change(tmp_path: Path) -> None:
    """The watched set is stable: two fingerprints with nothing changed in between agree (the new
    watches, a submodule's git dir and the global git files, included)."""
    new_project(tmp_path, "exit 0\n")
    module = tmp_path / ".git" / "modules" / "lib"
    (module / "hooks").mkdir(parents=True)
    (module / "HEAD").write_text("ref: refs/heads/main\n")
    before = Fingerprint.take(protected_paths(tmp_path))
    subprocess.run(["git", "status"], cwd=tmp_path, check=True, capture_output=True)  # rewrites the index
    assert changed_paths(before, Fingerprint.take(protected_paths(tmp_path))) == []
    assert ".git/modules/lib/hooks" in before.entries


@pytest.fixture
def outside(tmp_path_factory) -> Path:
    """A folder outside the project, as a cache the user lets builds write would be."""
    return tmp_path_factory.mktemp("outside")


@pytest.mark.skipif(
    shutil.which("bwrap") is None and not (os.environ.get("CI") or os.environ.get("REQUIRE_SANDBOX_TESTS")),
    reason="bubblewrap is not installed (in CI this test runs, and fails)",
)
def test_a_symlink_a_build_plants_in_a_writable_path_never_makes_more_writable(tmp_path: Path, outside: Path) -> None:
    """With `sandbox_writable = ["<cache>", "<cache>/pip"]` and no `pip` folder yet, the first build
    made `<cache>/pip` a symlink to the folder above (or to `/`); the next build's bwrap bound that
    writable (bwrap follows the link), and that build wrote where no setting allowed."""
    project = tmp_path / "project"
    project.mkdir()
    cache = outside / "cache"
    cache.mkdir()
    victim = outside / "victim.txt"
    run_folder = new_project(project, f"ln -s {outside} {cache}/pip 2>/dev/null || echo owned > {victim}\nexit 1\n")
    settings = Settings(sandbox_writable=[str(cache), str(cache / "pip")])
    assert [writable_problem(p, project, settings.sandbox_writable) for p in settings.sandbox_writable] == [None, None]
    sandbox = choose("require")

    def sandboxed(call: int):
        log = run_folder / f"{call:02d}-build.txt"
        return checked_build(project, run_folder, log, Redactor(), settings, sandbox)

    assert sandboxed(1).exit_code == 1 and (cache / "pip").is_symlink()
    with pytest.raises(BuildTampered) as caught:
        sandboxed(2)
    assert not victim.exists()
    link = repr(str(cache / "pip"))
    assert caught.value.paths == [
        f"sandbox_writable: {link} leads through {link}, a symlink a build can change (inside a writable path)"
    ]
    assert writable_problem(str(cache / "pip"), project, settings.sandbox_writable) is not None  # the next run's


def test_a_writable_path_through_a_symlink_in_another_writable_path_is_a_setup_error(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "npm").symlink_to(tmp_path / "elsewhere")
    writable = [str(tmp_path / "cache"), str(tmp_path / "cache" / "npm")]
    assert writable_problem(writable[0], project, writable) is None
    assert "symlink" in (writable_problem(writable[1], project, writable) or "")
    (tmp_path / "link-to-project").symlink_to(project)  # inside the project through a link: still inside
    assert "inside the project" in (writable_problem(str(tmp_path / "link-to-project" / "x"), project, []) or "")


@pytest.mark.parametrize(
    ("hide", "changed"),
    [
        ("git update-index --skip-worktree app.py", [".git/index (changed)"]),  # status and diff skip it
        ("git update-index --assume-unchanged app.py", [".git/index (changed)"]),
        ("git -c user.name=x -c user.email=x@x commit -qam done", [".git/index (changed)", ".git/refs (changed)"]),
        ("git stash -q", [".git/refs (changed)"]),  # the change is gone, the build passes
    ],
)
def test_a_build_cannot_hide_the_models_change_from_git_status_and_diff(
    tmp_path: Path, hide: str, changed: list[str]
) -> None:
    """The supervisor's promise is that `git status` and `git diff` show every change the model made.
    Without the sandbox (where .git is read-only) a build could hide one in git's own state: flag the
    file skip-worktree or assume-unchanged, commit it, or stash it away."""
    (tmp_path / "app.py").write_text("original\n")
    run_folder = new_project(tmp_path, hide + "\n")
    (tmp_path / "app.py").write_text("the model's change\n")
    with pytest.raises(BuildTampered) as caught:
        build(tmp_path, run_folder, 1)
    assert caught.value.paths == changed
    assert "app.py" not in git(tmp_path, "status", "--porcelain")  # what the attack achieved, now caught


def test_in_a_project_below_the_repository_s_top_its_own_index_entries_are_watched(tmp_path: Path) -> None:
    """The project is a folder of a larger repository: a build that flags one of the project's files
    is caught; the index entries of the rest of the repository (the user's `git add` elsewhere while
    the build runs) are none of the check's business."""
    (tmp_path / "elsewhere.txt").write_text("the user's\n")
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text("original\n")
    new_project(tmp_path, "")
    for run, flagged, caught in (("run-1", "../elsewhere.txt", []), ("run-2", "app.py", [".git/index (changed)"])):
        (project / "build.sh").write_text(f"#!/bin/sh\ngit update-index --assume-unchanged {flagged}\n")
        run_folder = project / "agent-config" / "logs" / run
        run_folder.mkdir(parents=True)
        try:
            build(project, run_folder, 1)
        except BuildTampered as tampered:
            assert tampered.paths == caught
        else:
            assert caught == []


def test_code_commit_s_own_git_processes_never_carry_the_key(tmp_path: Path, monkeypatch) -> None:
    """Not dumpable keeps /proc/<code-commit>/environ closed to a same-user build, but execve makes a
    child dumpable again: every git process code-commit starts after a build (the tamper check's,
    the guard's, a patch's) carried ANTHROPIC_API_KEY in an environ that a process the build left
    behind (setsid escapes the group without the sandbox) could read. Here a `git` first on PATH
    records the environment each git call gets."""
    seen = tmp_path / "environs"
    seen.mkdir()
    wrapper = tmp_path / "bin" / "git"
    wrapper.parent.mkdir()
    for name in ("git", "bwrap"):
        real = shutil.which(name) or "false"
        (wrapper.parent / name).write_text(f'#!/bin/sh\nenv > "{seen}/$$"\nexec {real} "$@"\n')
        (wrapper.parent / name).chmod(0o755)
    key = "sk-ant-" + "k3y" * 12
    project = tmp_path / "project"
    project.mkdir()
    run_folder = new_project(project, "exit 1\n")
    (project / "app.py").write_text("print(1)\n")
    monkeypatch.setenv("PATH", f"{wrapper.parent}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("ANTHROPIC_API_KEY", key)
    monkeypatch.setenv("OPENAI_API_KEY", key + "o")

    assert build(project, run_folder, 1).exit_code == 1  # the tamper check's git calls
    assert git_hunks(b"a\n", b"b\n", 3)  # a patch's
    assert check_ignore(project, ["app.py", "agent-config/x"])["agent-config/x"] is not None  # the guard's
    probe(os.environ)  # the sandbox's probe: bwrap

    environs = [p.read_text() for p in seen.iterdir()]
    assert len(environs) >= 6
    assert not [e for e in environs if key in e]


def with_submodule(tmp_path: Path, build_script: str) -> tuple[Path, Path]:
    """A project with a submodule `sub` (its `.git` is a `gitdir:` file) and the given build.sh."""
    lib = tmp_path / "lib"
    lib.mkdir()
    git(lib, "init", "-q")
    (lib / "l.txt").write_text("l\n")
    git(lib, "add", "-A")
    git(lib, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "lib")
    project = tmp_path / "project"
    project.mkdir()
    run_folder = new_project(project, build_script)
    git(project, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "sub")
    git(project, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "sub")
    return project, run_folder


# Repoints the submodule's `.git` file at a git dir the build made, whose config names a command as
# core.fsmonitor: the next `git status` in the project, on the host, outside any sandbox, runs it.
REPOINT = (
    "cp -r .git/modules/sub evilgit && sed -i /worktree/d evilgit/config && "
    "printf '[core]\\n\\tfsmonitor = touch %s/PWNED\\n' \"$PWD\" >> evilgit/config && "
    "echo 'gitdir: ../evilgit' > sub/.git || echo REPOINT-FAILED\n"
)


def test_a_submodule_s_git_file_is_watched_without_the_sandbox(tmp_path: Path) -> None:
    project, run_folder = with_submodule(tmp_path, REPOINT)
    with pytest.raises(BuildTampered) as caught:
        build(project, run_folder, 1)
    assert "sub/.git (changed)" in caught.value.paths
    assert "evilgit/config (created)" in caught.value.paths  # the git dir it now names is watched too


@pytest.mark.skipif(
    shutil.which("bwrap") is None and not (os.environ.get("CI") or os.environ.get("REQUIRE_SANDBOX_TESTS")),
    reason="bubblewrap is not installed (in CI this test runs, and fails)",
)
def test_a_submodule_s_git_file_is_read_only_in_the_sandbox(tmp_path: Path) -> None:
    """The sandbox bound `.git` read-only but not a submodule's `.git` file: a build repointed it, and
    the user's next `git status` ran the build's command on the host."""
    project, run_folder = with_submodule(tmp_path, REPOINT)
    original = (project / "sub" / ".git").read_text()
    log = run_folder / "01-build.txt"
    checked_build(project, run_folder, log, Redactor(), Settings(), choose("require"))
    assert "REPOINT-FAILED" in log.read_text()
    assert (project / "sub" / ".git").read_text() == original
    git(project, "status")
    assert not (project / "PWNED").exists()


@pytest.mark.skipif(
    shutil.which("bwrap") is None and not (os.environ.get("CI") or os.environ.get("REQUIRE_SANDBOX_TESTS")),
    reason="bubblewrap is not installed (in CI this test runs, and fails)",
)
def test_a_git_or_bwrap_a_build_plants_on_path_never_runs_on_the_host(tmp_path: Path, monkeypatch) -> None:
    """With the project's virtualenv activated, PATH starts with <project>/.venv/bin, a folder git
    ignores and the sandboxed build may write. The build put a `git` there, and the tamper check's
    own `git ls-files`, right after the build, ran it on the host with code-commit's rights; a
    `bwrap` there would be the next run's "sandbox"."""
    outside = tmp_path / "outside"
    outside.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    planted = f'#!/bin/sh\ntouch "{outside}/$(basename "$0")-RAN-ON-THE-HOST"\nexec {{real}} "$@"\n'
    script = "".join(
        f"printf '%s' '{planted.format(real=shutil.which(name))}' > .venv/bin/{name} && chmod +x .venv/bin/{name}\n"
        for name in ("git", "bwrap")
    )
    run_folder = new_project(project, script + "exit 1\n")
    (project / ".gitignore").write_text("/agent-config\n/.venv\n")
    (project / ".venv" / "bin").mkdir(parents=True)
    real_bwrap = shutil.which("bwrap")
    monkeypatch.setenv("PATH", f"{project / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}")
    sandbox = choose("require", root=project)
    log = run_folder / "01-build.txt"

    with pytest.raises(BuildTampered) as caught:  # the user's own next `git`, in the activated venv, is it
        checked_build(project, run_folder, log, Redactor(), Settings(), sandbox)
    assert caught.value.paths == [".venv/bin/git (created)"]
    assert (project / ".venv" / "bin" / "git").exists(), log.read_text()  # planted, as a build may
    assert check_ignore(project, ["x"]) == {"x": None}  # code-commit's next git call
    assert choose("require", root=project).bwrap == sandbox.bwrap == real_bwrap  # the next run's probe
    assert sorted(p.name for p in outside.iterdir()) == []


def with_included_config(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A project whose .git/config includes a tracked file of the project (a shared team config),
    and a build that gives it a core.fsmonitor command: git runs that command for `git status` and
    even `git ls-files`, which the tamper check itself calls right after the build, on the host."""
    outside = tmp_path / "outside"
    outside.mkdir()
    project = tmp_path / "project"
    project.mkdir()
    (project / "team.gitconfig").write_text("[diff]\n\trenames = true\n")
    run_folder = new_project(
        project,
        f"printf '[core]\\n\\tfsmonitor = touch {outside}/PWNED\\n' >> team.gitconfig || echo INCLUDE-FAILED\n",
    )
    git(project, "config", "include.path", "../team.gitconfig")
    return project, run_folder, outside


def test_a_config_file_git_includes_is_watched_and_code_commit_s_git_runs_no_fsmonitor(tmp_path: Path) -> None:
    project, run_folder, outside = with_included_config(tmp_path)
    with pytest.raises(BuildTampered) as caught:
        build(project, run_folder, 1)
    assert caught.value.paths == ["team.gitconfig (changed)"]
    assert check_ignore(project, ["x"]) == {"x": None}  # and code-commit's next git call
    assert list(outside.iterdir()) == [], "code-commit's own git ran the build's fsmonitor command"


@pytest.mark.skipif(
    shutil.which("bwrap") is None and not (os.environ.get("CI") or os.environ.get("REQUIRE_SANDBOX_TESTS")),
    reason="bubblewrap is not installed (in CI this test runs, and fails)",
)
def test_a_config_file_git_includes_is_read_only_in_the_sandbox(tmp_path: Path) -> None:
    project, run_folder, outside = with_included_config(tmp_path)
    log = run_folder / "01-build.txt"
    checked_build(project, run_folder, log, Redactor(), Settings(), choose("require", root=project))
    assert "INCLUDE-FAILED" in log.read_text()
    assert (project / "team.gitconfig").read_text() == "[diff]\n\trenames = true\n"
    assert list(outside.iterdir()) == []


@pytest.mark.skipif(
    shutil.which("bwrap") is None and not (os.environ.get("CI") or os.environ.get("REQUIRE_SANDBOX_TESTS")),
    reason="bubblewrap is not installed (in CI this test runs, and fails)",
)
def test_renaming_the_folder_of_a_read_only_ignore_file_is_caught(tmp_path: Path) -> None:
    """A read-only bind protects the file, not its folder: the build renames the folder away and makes
    a new one with its own `.gitignore`. `.git` itself is a mount point and cannot be renamed."""
    run_folder = new_project(
        tmp_path,
        "mv .git .git2 || echo GIT-RENAME-FAILED\n"
        "mv sub sub2 && mkdir sub && echo '!/agent-config' > sub/.gitignore && echo SWAPPED\n",
    )
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / ".gitignore").write_text("*.log\n")
    log = run_folder / "01-build.txt"
    with pytest.raises(BuildTampered) as caught:
        checked_build(tmp_path, run_folder, log, Redactor(), Settings(), choose("require", root=tmp_path))
    assert "GIT-RENAME-FAILED" in log.read_text() and "SWAPPED" in log.read_text()
    assert caught.value.paths == ["sub/.gitignore (changed)", "sub2/.gitignore (created)"]
