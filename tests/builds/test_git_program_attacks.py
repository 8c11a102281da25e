"""Nothing a build creates can make git run a program on the host later.

Each attack is a build.sh that plants something the user's next git command would run: a nested
repository whose config names a `core.fsmonitor` command (`git status` inside it runs it), a hook
in the folder core.hooksPath names (husky's ignored `.husky/_`), a rewritten script git's
configuration runs as a clean filter, a `git` in an activated `.venv/bin`. Through the real loop,
the real SDK and the fake service, in the sandbox and without it: each either cannot happen (a
read-only bind) or ends the run with exit 10 naming the path, and the project is left as the build
left it, for the user to inspect.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from fakeapi import FakeAPI
from support import Project, git
from support.sandbox import require_bwrap

require_bwrap()

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
SANDBOXES = ["require", "off"]


def run(project: Project, api: FakeAPI, cli, sandbox: str, attack: str) -> dict:
    """The attack is the model's code: it runs in the builds after an answer, not in the baseline's."""
    project.build_script(f"if [ -f fixed.txt ]; then\n{attack}fi\ntest -f fixed.txt\n")
    (project.root / "fixed.txt").unlink(missing_ok=True)  # a second run's fix changes the tree, so it is built
    git(project.root, "add", "-A")
    git(project.root, "commit", "-qm", "snapshot", "--allow-empty")
    api.reply(FIX)
    api.reply(FIX)
    result = cli("--json", "--sandbox", sandbox)
    record = json.loads(result.stdout)
    assert record["exit_code"] == result.exit_code
    return record


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    folder = tmp_path / "outside"
    folder.mkdir()
    return folder


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_nested_repository_with_an_fsmonitor_command_ends_the_run(
    project: Project, api: FakeAPI, cli, sandbox: str, outside: Path
) -> None:
    """The audit's attack: `git init src` in a tracked folder and a core.fsmonitor in src/.git/config.
    The root's `git status` did not show it, the run passed, and the user's next `git status` inside
    src/ ran the command on the host."""
    project.write("src/app.py", "print(1)\n")
    attack = f"git init -q src && printf '[core]\\n\\tfsmonitor = touch {outside}/PWNED\\n' >> src/.git/config\n"

    record = run(project, api, cli, sandbox, attack)

    assert record["outcome"] == "tampered" and record["exit_code"] == 10
    assert record["tampered"] == ["src/.git (created)"]
    assert "fsmonitor" in project.read("src/.git/config")  # left as the build left it, to inspect
    assert len(api.requests) == 1 and list(outside.iterdir()) == []


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_gitdir_file_a_build_creates_ends_the_run(project: Project, api: FakeAPI, cli, sandbox: str) -> None:
    """A `.git` file (a gitlink's form) pointing at a git dir the build made elsewhere in the tree."""
    attack = "mkdir -p .cache lib && git init -q --separate-git-dir=.cache/lib-git lib\n"
    project.write(".gitignore", "/agent-config\n/.cache\n")
    record = run(project, api, cli, sandbox, attack)
    assert record["outcome"] == "tampered"
    assert "lib/.git (created)" in record["tampered"]


def test_an_existing_nested_repository_s_config_is_read_only_in_the_sandbox_and_watched_without_it(
    project: Project, api: FakeAPI, cli, outside: Path
) -> None:
    vendored = project.root / "vendor" / "lib"
    vendored.mkdir(parents=True)
    git(vendored, "init", "-q")
    project.write(".gitignore", "/agent-config\n/vendor\n")
    attack = f"printf '[core]\\n\\tfsmonitor = touch {outside}/PWNED\\n' >> vendor/lib/.git/config || echo DENIED\n"

    sandboxed = run(project, api, cli, "require", attack)
    assert sandboxed["outcome"] == "passed", sandboxed
    assert "DENIED" in Path(sandboxed["last_build"]["log"]).read_text()
    assert "fsmonitor" not in (vendored / ".git" / "config").read_text()

    unsandboxed = run(project, api, cli, "off", attack)
    assert unsandboxed["outcome"] == "tampered"
    assert unsandboxed["tampered"] == ["vendor/lib/.git/config (changed)"]


def test_a_hook_in_an_ignored_hooks_folder_never_runs(project: Project, api: FakeAPI, cli, outside: Path) -> None:
    """husky sets core.hooksPath to its ignored `.husky/_`: a build wrote `pre-commit` there, the
    tamper check missed it, and the user's next `git commit` ran it."""
    project.write(".gitignore", "/agent-config\n.husky/_\n")
    project.write(".husky/_/h", "#!/bin/sh\n", mode=0o755)
    git(project.root, "config", "core.hooksPath", ".husky/_")
    attack = (
        f"printf '#!/bin/sh\\ntouch {outside}/PWNED\\n' > .husky/_/pre-commit && chmod +x .husky/_/pre-commit"
        " || echo DENIED\n"
    )

    sandboxed = run(project, api, cli, "require", attack)
    assert sandboxed["outcome"] == "passed", sandboxed
    assert "DENIED" in Path(sandboxed["last_build"]["log"]).read_text()
    assert not (project.root / ".husky" / "_" / "pre-commit").exists()

    unsandboxed = run(project, api, cli, "off", attack)
    assert unsandboxed["outcome"] == "tampered" and unsandboxed["exit_code"] == 10
    assert unsandboxed["tampered"] == [".husky/_/pre-commit (created)"]
    assert (project.root / ".husky" / "_" / "pre-commit").exists()  # left as the build left it
    assert list(outside.iterdir()) == []


def test_a_rewritten_clean_filter_script_never_runs(project: Project, api: FakeAPI, cli, outside: Path) -> None:
    """The repository's config names a tracked script as a clean filter: a build rewrote it, and the
    user's next `git diff` ran it."""
    project.write("scripts/clean.sh", "#!/bin/sh\ncat\n", mode=0o755)
    project.write(".gitattributes", "*.txt filter=tidy\n")
    project.commit_all()
    git(project.root, "config", "filter.tidy.clean", "./scripts/clean.sh")
    attack = f"printf '#!/bin/sh\\ntouch {outside}/PWNED\\ncat\\n' > scripts/clean.sh || echo DENIED\n"

    sandboxed = run(project, api, cli, "require", attack)
    assert sandboxed["outcome"] == "passed", sandboxed
    assert project.read("scripts/clean.sh") == "#!/bin/sh\ncat\n"

    unsandboxed = run(project, api, cli, "off", attack)
    assert unsandboxed["outcome"] == "tampered"
    assert unsandboxed["tampered"] == ["scripts/clean.sh (changed)"]
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_git_planted_in_a_path_folder_the_build_may_write_ends_the_run(
    project: Project, api: FakeAPI, cli, sandbox: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the project's virtualenv activated, the user's next `git` is the build's `.venv/bin/git`."""
    project.write(".gitignore", "/agent-config\n/.venv\n")
    (project.root / ".venv" / "bin").mkdir(parents=True)
    monkeypatch.setenv("PATH", f"{project.root / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}")
    attack = "printf '#!/bin/sh\\nexec /usr/bin/git \"$@\"\\n' > .venv/bin/git && chmod +x .venv/bin/git\n"

    record = run(project, api, cli, sandbox, attack)

    assert record["outcome"] == "tampered"
    assert record["tampered"] == [".venv/bin/git (created)"]
