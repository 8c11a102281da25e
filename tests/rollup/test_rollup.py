"""The rollup generator: which files, in what order, framed how, and its command-line surface.

Every test builds a real git repository in tmp_path. The generator runs in-process; a process
is spawned only where the process boundary is what is tested (the shell wrapper, exit codes).
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path
from typing import BinaryIO

import pytest
from typer.testing import CliRunner

from code_commit.cli.app import app
from code_commit.config.settings import Settings
from code_commit.errors import SetupError
from code_commit.rollup import writing as rollup_module
from code_commit.rollup.listing import Listing
from code_commit.rollup.writing import DEFAULT_MAX_FILE_SIZE, command, write_rollup

from support import write_file as write

REPO_ROOT = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
OUTPUT = "agent-config/codeRollup.txt"


@pytest.fixture(autouse=True)
def _isolated_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """git sees neither the developer's config (a global excludesFile would change the results)
    nor any repository above tmp_path, and commits without asking who the author is."""
    for name in list(os.environ):
        if name.startswith(("GIT_", "CODE_COMMIT_")):
            monkeypatch.delenv(name)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Test")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "test@example.invalid")


def git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True)


def commit(root: Path) -> None:
    git(root, "add", "-A")
    git(root, "commit", "-qm", "snapshot")


def read(root: Path, output: str = OUTPUT) -> bytes:
    return (root / output).read_bytes()


def headers(root: Path) -> list[str]:
    return [line for line in read(root).decode().splitlines() if line.startswith("==> ")]


def left_out(root: Path, output: str = OUTPUT) -> list[str]:
    """The lines listing the files left out, at the end of the rollup."""
    text = read(root, output).decode()
    return text.split("--- LEFT OUT ---\n", 1)[1].splitlines() if "--- LEFT OUT ---\n" in text else []


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, ".gitignore", "/agent-config\n")
    return root


# Which files


@pytest.mark.keep_untracked
def test_tracked_files_are_included_with_exact_framing_and_untracked_ones_listed_by_name(repo: Path) -> None:
    write(repo, "tracked.py", "print(1)\n")
    commit(repo)
    write(repo, "untracked.txt", "hello\n")

    result = write_rollup(repo)

    assert read(repo) == (
        b"==> .gitignore <==\n/agent-config\n==> tracked.py <==\nprint(1)\n"
        b"--- LEFT OUT ---\nuntracked.txt (not tracked by git, 6 bytes)\n"
    )
    assert (result.included, result.unframeable) == (2, [])

    write_rollup(repo, settings=Settings(rollup_include=["untracked.txt"]))  # named: it comes in
    assert headers(repo) == ["==> .gitignore <==", "==> tracked.py <==", "==> untracked.txt <=="]


@pytest.mark.keep_untracked
def test_an_untracked_build_folder_stays_out_on_one_line_and_is_never_read(repo: Path) -> None:
    """An untracked, not ignored CMake build/ folder put 96 generated files into a C project's rollup."""
    write(repo, "CMakeLists.txt", "project(x C)\nadd_library(x x.c)\n")
    write(repo, "x.c", "int x(void) { return 1; }\n")
    commit(repo)
    for i in range(30):
        write(repo, f"build/CMakeFiles/x.dir/gen{i}.c", f"int gen{i};\n")
    secret = write(repo, "build/secret.txt", "never read\n")
    secret.chmod(0)  # reading it would fail loudly as "unreadable"

    result = write_rollup(repo)

    assert headers(repo) == ["==> .gitignore <==", "==> CMakeLists.txt <==", "==> x.c <=="]
    assert left_out(repo) == [
        "build/CMakeFiles/x.dir/ (30 files, 320 bytes: 30 not tracked by git)",
        "build/secret.txt (not tracked by git, 11 bytes)",
    ]
    assert "not tracked by git" in result.summary()
    assert result.size == len(read(repo))


def test_ignored_files_are_excluded_by_root_nested_and_info_exclude_rules(repo: Path) -> None:
    write(repo, ".gitignore", "/agent-config\n*.log\nbuild/\n")
    write(repo, "sub/.gitignore", "secret.txt\n")
    write(repo, ".git/info/exclude", "local.tmp\n")
    for path in ("app.log", "build/out.txt", "sub/secret.txt", "sub/deeper/secret.txt", "local.tmp"):
        write(repo, path, "ignored\n")
    write(repo, "secret.txt", "the nested rule does not reach the root\n")
    write(repo, "sub/keep.txt", "kept\n")
    write(repo, "forced.log", "tracked despite the pattern\n")
    git(repo, "add", "-f", "forced.log")

    write_rollup(repo)

    assert headers(repo) == [
        "==> .gitignore <==",
        "==> forced.log <==",
        "==> secret.txt <==",
        "==> sub/.gitignore <==",
        "==> sub/keep.txt <==",
    ]
    assert b"ignored\n" not in read(repo)


def test_agent_config_is_never_included_even_when_tracked_or_not_ignored(repo: Path) -> None:
    write(repo, ".gitignore", "")  # nothing ignores agent-config/ here
    write(repo, "agent-config/tracked.txt", "tracked\n")
    commit(repo)
    write(repo, "agent-config/query.txt", "untracked\n")
    write(repo, "agent-config.md", "a sibling, not inside\n")
    write(repo, "docs/agent-config/notes.txt", "only the root's agent-config/ is the tool's\n")

    result = write_rollup(repo)

    assert headers(repo) == [
        "==> .gitignore <==",
        "==> agent-config.md <==",
        "==> docs/agent-config/notes.txt <==",
    ]
    assert (result.included, result.left_out) == (3, [])


def test_tracked_files_deleted_from_the_work_tree_are_skipped_silently(repo: Path) -> None:
    write(repo, "gone.txt", "was here\n")
    write(repo, "d/inside.txt", "its directory becomes a file\n")
    write(repo, "kept.txt", "kept\n")
    commit(repo)
    (repo / "gone.txt").unlink()
    shutil.rmtree(repo / "d")
    write(repo, "d", "now a file\n")

    result = write_rollup(repo)

    assert headers(repo) == ["==> .gitignore <==", "==> d <==", "==> kept.txt <=="]
    assert (result.included, result.left_out) == (3, [])


def test_an_unmerged_path_is_framed_once(repo: Path) -> None:
    write(repo, "f.txt", "base\n")
    commit(repo)
    git(repo, "checkout", "-qb", "other")
    write(repo, "f.txt", "other\n")
    commit(repo)
    git(repo, "checkout", "-q", "-")
    write(repo, "f.txt", "main\n")
    commit(repo)
    merge = subprocess.run(["git", "merge", "-q", "other"], cwd=repo, capture_output=True)
    assert merge.returncode != 0  # a conflict: git ls-files lists f.txt once per stage
    assert git(repo, "ls-files", "--cached").stdout.count("f.txt") == 3

    write_rollup(repo)

    assert headers(repo) == ["==> .gitignore <==", "==> f.txt <=="]


# Omitted files


def test_binary_files_are_omitted_and_text_in_utf8_is_kept(repo: Path) -> None:
    write(repo, "nul.bin", b"abc\0def")
    write(repo, "late-nul.txt", b"a" * 9000 + b"\0\n")  # past git's 8000-byte window: still binary here
    write(repo, "latin1.txt", b"caf\xe9\n")
    write(repo, "utf16.txt", "hi\n".encode("utf-16"))
    write(repo, "utf8.txt", "café ✓\n")

    result = write_rollup(repo)

    assert read(repo).decode("utf-8") == (
        "==> .gitignore <==\n/agent-config\n"
        "==> utf8.txt <==\ncafé ✓\n"
        "--- LEFT OUT ---\n"
        "late-nul.txt (binary, 9 KiB)\n"
        "latin1.txt (binary, 5 bytes)\n"
        "nul.bin (binary, 7 bytes)\n"
        "utf16.txt (binary, 8 bytes)\n"
    )
    assert (result.included, len(result.left_out)) == (2, 4)


def test_oversized_files_are_omitted_with_their_size_and_never_opened(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(repo, "big.txt", "x" * (312 * 1024))
    lines, rest = divmod(DEFAULT_MAX_FILE_SIZE, 100)
    write(repo, "at-cap.py", ("y" * 99 + "\n") * lines + "z" * (rest - 1) + "\n")  # exactly at the cap
    opened: list[bytes] = []
    real_open = os.open

    def spy(path: str | bytes, *args: object, **kwargs: object) -> int:
        opened.append(os.fsencode(path))
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(rollup_module.os, "open", spy)
    result = write_rollup(repo)
    monkeypatch.undo()

    assert headers(repo) == ["==> .gitignore <==", "==> at-cap.py <=="]
    assert left_out(repo) == ["big.txt (312 KiB, over the 256 KiB cap)"]
    assert b"at-cap.py" in opened and b"big.txt" not in opened
    assert (result.included, len(result.left_out)) == (2, 1)


@pytest.mark.parametrize(
    ("cap", "reason"),
    [(1024, "2 KiB, over the 1 KiB cap"), (1000, "1025 bytes, over the 1000-byte cap")],
)
def test_the_size_cap_is_configurable_and_its_reason_never_contradicts_itself(
    repo: Path, cap: int, reason: str
) -> None:
    write(repo, "over.txt", "o" * 1025)
    write(repo, "exactly.txt", "e" * cap)

    write_rollup(repo, settings=Settings(rollup_max_file_size=cap))

    assert headers(repo) == ["==> .gitignore <==", "==> exactly.txt <=="]
    assert left_out(repo) == [f"over.txt ({reason})"]


def test_symlinks_are_omitted_and_never_followed(repo: Path, tmp_path: Path) -> None:
    write(tmp_path, "outside/secret.txt", "TOP SECRET\n")
    (repo / "to-file").symlink_to(tmp_path / "outside" / "secret.txt")
    (repo / "to-dir").symlink_to(tmp_path / "outside")
    (repo / "dangling").symlink_to(repo / "nowhere")
    commit(repo)
    (repo / "untracked-link").symlink_to(tmp_path / "outside" / "secret.txt")

    result = write_rollup(repo)

    assert headers(repo) == ["==> .gitignore <=="]
    assert left_out(repo) == ["dangling (symlink)", "to-dir (symlink)", "to-file (symlink)", "untracked-link (symlink)"]
    assert b"TOP SECRET" not in read(repo)
    assert (result.included, len(result.left_out)) == (1, 4)


def test_a_nested_repository_is_omitted_as_a_directory(repo: Path) -> None:
    nested = repo / "vendor" / "lib"
    nested.mkdir(parents=True)
    git(nested, "init", "-q")
    write(nested, "lib.c", "int x;\n")
    git(nested, "add", "-A")
    git(nested, "commit", "-qm", "nested")
    git(repo, "add", ".gitignore", "vendor/lib")  # tracked as a gitlink, as a submodule is

    write_rollup(repo)

    assert headers(repo) == ["==> .gitignore <=="]
    assert left_out(repo) == ["vendor/lib (submodule or nested repository)"]


@pytest.mark.parametrize(
    ("error", "reason"),
    [
        (PermissionError(errno.EACCES, "Permission denied"), "unreadable: Permission denied"),
        (OSError(errno.ELOOP, "Too many levels of symbolic links"), "symlink"),  # swapped in after the lstat
    ],
)
def test_a_file_that_cannot_be_opened_is_omitted_with_the_reason(
    repo: Path, monkeypatch: pytest.MonkeyPatch, error: OSError, reason: str
) -> None:
    write(repo, "locked.txt", "locked\n")
    real_open = os.open

    def refuse(path: str | bytes, *args: object, **kwargs: object) -> int:
        if os.fsencode(path) == b"locked.txt":
            raise error
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(rollup_module.os, "open", refuse)
    write_rollup(repo)
    monkeypatch.undo()

    assert headers(repo) == ["==> .gitignore <=="]
    assert left_out(repo) == [f"locked.txt ({reason})"]


def test_a_fifo_is_omitted_without_being_opened(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    os.mkfifo(repo / "pipe")  # git never lists one; a path can still become one after git has listed it
    monkeypatch.setattr(rollup_module, "list_files", lambda root: Listing([b".gitignore", b"pipe"], []))

    write_rollup(repo)  # opening the FIFO for reading would block this test forever

    assert headers(repo) == ["==> .gitignore <=="]
    assert left_out(repo) == ["pipe (not a regular file)"]


# Framing


def test_a_missing_final_newline_is_added_and_other_bytes_are_kept(repo: Path) -> None:
    write(repo, ".gitignore", "")
    write(repo, "a.txt", "no newline")
    write(repo, "b.txt", "")
    write(repo, "c.txt", "crlf\r\nkept\r\n")
    write(repo, "d.txt", "\n\n")

    write_rollup(repo)

    assert read(repo) == (
        b"==> .gitignore <==\n"  # empty files are a header alone, no blank line
        b"==> a.txt <==\nno newline\n"
        b"==> b.txt <==\n"
        b"==> c.txt <==\ncrlf\r\nkept\r\n"
        b"==> d.txt <==\n\n\n"
    )


def test_order_is_by_path_bytes_with_left_out_files_at_the_end_and_runs_are_identical(repo: Path) -> None:
    names = ["é.txt", "a/b.txt", "a.txt", "a-b.txt", "B.txt"]
    for name in names:  # created in an order unlike the expected one
        write(repo, name, f"{name}\n")
    commit(repo)
    write(repo, "a.bin", b"\0")
    write(repo, "Z.txt", "untracked, sorts among the tracked\n")

    write_rollup(repo)
    first = read(repo)
    os.utime(repo / "a.txt", (0, 0))
    write_rollup(repo)

    assert headers(repo) == [
        "==> .gitignore <==",
        "==> B.txt <==",
        "==> Z.txt <==",
        "==> a-b.txt <==",
        "==> a.txt <==",
        "==> a/b.txt <==",
        "==> é.txt <==",
    ]
    assert left_out(repo) == ["a.bin (binary, 1 byte)"]
    assert read(repo) == first


def test_paths_with_spaces_unicode_and_brackets_are_framed_verbatim(repo: Path) -> None:
    write(repo, "dir with space/file name.txt", "spaces\n")
    write(repo, "ünïcødé/日本.txt", "unicode\n")
    write(repo, "weird [1].txt", "brackets\n")
    commit(repo)

    write_rollup(repo)

    assert read(repo).decode("utf-8") == (
        "==> .gitignore <==\n/agent-config\n"
        "==> dir with space/file name.txt <==\nspaces\n"
        "==> weird [1].txt <==\nbrackets\n"
        "==> ünïcødé/日本.txt <==\nunicode\n"
    )


def test_paths_that_cannot_stand_on_one_line_are_left_out_and_reported(repo: Path) -> None:
    bad = [b"new\nline.txt", b"tab\there.txt", "sep\u2028arator.txt".encode(), b"caf\xe9.txt"]
    for name in bad:
        (repo / os.fsdecode(name)).write_bytes(b"content\n")
    write(repo, "good.txt", "good\n")

    class Reporter:
        def __init__(self) -> None:
            self.lines: list[str] = []

        def info(self, text: str) -> None:
            self.lines.append(f"info: {text}")

        def warn(self, text: str) -> None:
            self.lines.append(f"warning: {text}")

    reporter = Reporter()
    assert command(reporter, repo, None, Settings()) == 0

    assert read(repo) == b"==> .gitignore <==\n/agent-config\n==> good.txt <==\ngood\n"
    prefix = "warning: left out a path that cannot stand on one header line: "
    assert reporter.lines[:-1] == [
        prefix + "caf\\xe9.txt",
        prefix + "new\\nline.txt",
        prefix + "sep\\u2028arator.txt",
        prefix + "tab\\there.txt",
    ]
    size = len(read(repo))
    assert reporter.lines[-1] == (
        f"info: rollup: 2 files included, 0 left out; {size} bytes, {-(-size // 3)} tokens at most (estimated), "
        f"written to {OUTPUT}"
    )


# Output


def test_the_default_output_creates_agent_config_owner_only(repo: Path) -> None:
    assert not (repo / "agent-config").exists()
    old_mask = os.umask(0o022)
    try:
        write_rollup(repo)
    finally:
        os.umask(old_mask)

    assert stat.S_IMODE((repo / OUTPUT).stat().st_mode) == 0o600  # agent-config/ is private
    assert stat.S_IMODE((repo / "agent-config").stat().st_mode) == 0o700
    assert os.listdir(repo / "agent-config") == ["codeRollup.txt"]  # no temporary file left


def test_an_output_inside_the_tree_does_not_roll_itself_up(repo: Path) -> None:
    write(repo, "app.txt", "app\n")

    write_rollup(repo, Path("rollup.txt"))
    first = read(repo, "rollup.txt")
    write_rollup(repo, Path("rollup.txt"))

    assert read(repo, "rollup.txt") == first
    assert b"[rollup.txt]" not in first


def test_a_failed_run_leaves_the_previous_rollup_whole(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(repo, OUTPUT, "previous rollup\n")

    def half_then_fail(
        root_fd: int, chosen: object, outlines: object, cap: int, secrets: object, out: BinaryIO, result: object
    ) -> None:
        out.write(b"==> half")
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(rollup_module, "_render", half_then_fail)
    with pytest.raises(RuntimeError):
        write_rollup(repo)

    assert read(repo) == b"previous rollup\n"
    assert os.listdir(repo / "agent-config") == ["codeRollup.txt"]


def test_outside_a_git_repository_it_is_a_setup_error_and_writes_nothing(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()

    with pytest.raises(SetupError, match="not in a git repository"):
        write_rollup(plain)
    assert list(plain.iterdir()) == []


# Command line


def test_cli_outside_a_git_repository_exits_2_with_a_clear_message(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()

    proc = subprocess.run([str(VENV_BIN / "code-commit"), "rollup"], cwd=plain, capture_output=True, text=True)

    assert proc.returncode == 2
    assert "is not in a git repository" in proc.stderr
    assert proc.stdout == ""
    assert list(plain.iterdir()) == []


def test_cli_maps_flags_and_the_environment_variable(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(repo, "five.txt", "12345")
    monkeypatch.chdir(repo)
    runner = CliRunner()

    by_env = runner.invoke(app, ["rollup"], env={"CODE_COMMIT_ROLLUP_MAX_FILE_SIZE": "4"})
    assert by_env.exit_code == 0
    assert "five.txt (5 bytes, over the 4-byte cap)" in left_out(repo)

    by_flag = runner.invoke(app, ["rollup", "--max-file-size", "5", "--output", "out/r.txt"])
    assert by_flag.exit_code == 0
    assert b"==> five.txt <==\n12345\n" in read(repo, "out/r.txt")

    negative = runner.invoke(app, ["rollup", "--max-file-size", "-1"])
    assert negative.exit_code == 2 and "rollup_max_file_size (from flag): must be 0 or more bytes" in negative.output
    usage = runner.invoke(app, ["rollup", "--help"]).output
    assert f"[default: {DEFAULT_MAX_FILE_SIZE}]" in usage and f"[default: {Settings().rollup_budget}]" in usage


def test_wrapper_script_end_to_end(repo: Path) -> None:
    wrapper = REPO_ROOT / "codeRollup.sh"
    assert wrapper.read_text().startswith("#!/bin/sh\n") and os.access(wrapper, os.X_OK)
    shutil.copy(wrapper, repo / "codeRollup.sh")
    write(repo, "app.py", "print('hi')\n")
    write(repo, "big.txt", "b" * 1001)
    commit(repo)  # the spawned command is not this process: the conftest's tracking does not reach it
    git_dir = str(Path(shutil.which("git") or "/usr/bin/git").parent)
    env = {**os.environ, "PATH": f"{VENV_BIN}{os.pathsep}{git_dir}"}

    proc = subprocess.run(
        ["sh", "codeRollup.sh", "--max-file-size", "1000"], cwd=repo, env=env, capture_output=True, text=True
    )

    assert proc.returncode == 0, proc.stderr
    assert headers(repo) == ["==> .gitignore <==", "==> app.py <==", "==> codeRollup.sh <=="]
    assert left_out(repo) == ["big.txt (1001 bytes, over the 1000-byte cap)"]
    (summary,) = proc.stderr.splitlines()
    assert summary.endswith(
        f"rollup: 3 files included, 1 left out (1 over the size cap); {len(read(repo)):,} bytes, "
        f"{-(-len(read(repo)) // 3):,} tokens at most (estimated), written to {OUTPUT}"
    )


def test_wrapper_without_code_commit_on_path_exits_127_saying_how_to_install(tmp_path: Path) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()

    proc = subprocess.run(
        ["/bin/sh", str(REPO_ROOT / "codeRollup.sh")],
        cwd=tmp_path,
        env={"PATH": str(empty)},
        capture_output=True,
        text=True,
    )

    assert proc.returncode == 127
    assert "code-commit is not on PATH" in proc.stderr and "pip install" in proc.stderr
