"""A build may not delete or change the user's own ignored files (`.env`, local settings): they are
saved before it and put back after it, and the user is told. What a build makes itself (an in-tree
make's `*.o`, a folder git ignores whole) stays the build's to rewrite: honest builds pass as before.
Through `code-commit check`, real git, a real make, in the sandbox and without it."""

from __future__ import annotations

import os
import shutil

import pytest

from code_commit.builds import ignored_files

from support import Project
from support.record import valid_record

SANDBOXES = ["off", "require"] if shutil.which("bwrap") or os.environ.get("REQUIRE_SANDBOX_TESTS") else ["off"]
ENV = "API_TOKEN=user-secret\n"


def checked(project: Project, cli, sandbox: str) -> tuple[dict, str]:
    """`code-commit check`: its record (summary.json) and everything it printed."""
    project.write("agent-config/config.toml", f'sandbox = "{sandbox}"\n')
    result = cli("check")
    record = valid_record((project.run_dirs()[-1] / "summary.json").read_text())
    return record, result.stdout + result.stderr


ATTACKS = [  # (build.sh, its sandbox, builds in a row, the files it deletes or changes)
    ("rm -f .env", SANDBOXES[-1], 2, [".env"]),  # twice: a file put back never becomes the build's own
    ("echo x > .env", SANDBOXES[-1], 1, [".env"]),
    ("chmod 777 .env", SANDBOXES[-1], 1, [".env"]),
    ("rm -rf config", SANDBOXES[-1], 1, ["config/local_settings.py"]),
    ("rm -f .env config/local_settings.py", "off", 1, [".env", "config/local_settings.py"]),
]


@pytest.mark.parametrize(("attack", "sandbox", "builds", "named"), ATTACKS)
def test_the_user_s_ignored_files_survive_a_build_that_deletes_or_changes_them(
    project: Project, cli, attack: str, sandbox: str, builds: int, named: list[str]
) -> None:
    project.write(".gitignore", "/agent-config/\n.env\nlocal_settings.py\n")
    project.build_script(f"{attack}\ntest -f fixed.txt\n")
    project.commit_all()
    project.write(".env", ENV).chmod(0o600)
    project.write("config/local_settings.py", "DEBUG = True\n")
    before = os.stat(project.root / ".env").st_mtime_ns
    for _ in range(builds):
        record, printed = checked(project, cli, sandbox)
        assert record["last_build"] is not None and not record["last_build"]["passed"]
        assert project.read(".env") == ENV and os.stat(project.root / ".env").st_mode & 0o777 == 0o600
        assert os.stat(project.root / ".env").st_mtime_ns == before
        assert project.read("config/local_settings.py") == "DEBUG = True\n"
        told = next(line for line in printed.splitlines() if "put back" in line)
        assert all(name in told for name in named) and f"changed {len(named)} of your" in told, told


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_an_in_tree_make_rewrites_its_own_object_files_build_after_build(project: Project, cli, sandbox: str) -> None:
    """jsmn's and cJSON's shape: objects next to the sources, `*.o` ignored. The objects the first
    build makes are its own: the next builds rebuild them (a changed source) with nothing put back."""
    if shutil.which("make") is None or shutil.which("cc") is None:
        pytest.fail("make and a C compiler are installed here and in CI")
    project.write(".gitignore", "/agent-config/\n*.o\nprog\n")
    project.write("lib.c", "int answer(void) { return 41; }\n")
    project.write("main.c", "int answer(void);\nint main(void) { return answer() == 42 ? 0 : 1; }\n")
    project.write("Makefile", "prog: main.o lib.o\n\tcc -o prog main.o lib.o\n%.o: %.c\n\tcc -c -o $@ $<\n")
    project.build_script("make -s\n./prog\n")
    project.commit_all()
    record, printed = checked(project, cli, sandbox)
    assert not record["last_build"]["passed"]
    project.write("lib.c", "int answer(void) { return 42; }\n")  # the model's fix: lib.o is rebuilt
    project.commit_all()
    for _ in range(2):
        record, printed = checked(project, cli, sandbox)
        assert record["last_build"]["passed"], printed
        assert "put back" not in printed, printed
    assert (project.root / "lib.o").exists()


def test_objects_the_user_made_are_put_back_with_their_time_and_rebuilt_next_time(project: Project, cli) -> None:
    """The rule's cost: an ignored file no build of code-commit made is the user's, even an object
    file (nothing in its name says otherwise). Put back with its mtime, make builds it again next
    time: the build still passes, and the user is told."""
    project.write(".gitignore", "/agent-config/\n*.o\n")
    project.write("lib.c", "int answer(void) { return 42; }\n")
    project.build_script("cc -c -o lib.o lib.c\n")
    project.commit_all()
    project.write("lib.o", "made by the user's own make\n")
    record, printed = checked(project, cli, "off")
    assert record["last_build"]["passed"] and "put back" in printed and "lib.o" in printed
    assert project.read("lib.o") == "made by the user's own make\n"


def test_a_folder_git_ignores_whole_is_the_build_s(project: Project, cli) -> None:
    project.write(".gitignore", "/agent-config/\nbuild/\n")
    project.build_script("rm -rf build\nmkdir build\necho new > build/out.txt\n")
    project.commit_all()
    project.write("build/out.txt", "old\n")
    record, printed = checked(project, cli, "off")
    assert record["last_build"]["passed"] and "put back" not in printed
    assert project.read("build/out.txt") == "new\n"


def test_files_over_the_budget_are_named(project: Project, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ignored_files, "SAVE_FILES", 1)
    project.write(".gitignore", "/agent-config/\n*.local\n")
    project.build_script("true\n")
    project.commit_all()
    project.write("a.local", "a\n")
    project.write("b.local", "b\n")
    _, printed = checked(project, cli, "off")
    assert "1 of your ignored files were not saved" in printed and "b.local" in printed, printed
