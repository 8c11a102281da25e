"""What a build changes in the files git shows is found, with what each held before: `BuildWatch`
around real builds (a real build.sh, real git), the changes a formatter or the model's code makes
beyond the answer."""

from __future__ import annotations

from pathlib import Path

from code_commit.builds.changes import CHANGED, CREATED, DELETED, BuildWatch, Change
from code_commit.builds.runner import run_build
from code_commit.config.redaction import Redactor
from code_commit.git.objects import blob_id

from support import git


def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    git(root, "init", "-q")
    (root / ".gitignore").write_text("/agent-config\n/.venv\n")
    (root / "README.md").write_text("# readme\n")
    (root / "tests").mkdir()
    (root / "tests" / "test_app.py").write_text("def test(): assert True\n")
    (root / "app.py").write_text("print( 1 )\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "start")
    (root / "agent-config").mkdir()
    return root


def build(root: Path, script: str, watch: BuildWatch) -> list[Change]:
    (root / "build.sh").write_text("#!/bin/sh\n" + script)
    (root / "build.sh").chmod(0o755)
    watch.before()
    run_build(root, root / "agent-config" / "out.txt", Redactor(), 60)
    return watch.after()


def test_every_file_the_build_changes_beyond_the_answer_is_found_with_what_it_held(tmp_path: Path) -> None:
    """The audit's attack: the build edited README.md (an encoded token in a comment) and the tests;
    the record named only the answer's file."""
    root = project(tmp_path)
    (root / "app.py").write_text("print(2)\n")  # the answer's change, applied before the build
    watch = BuildWatch(root)
    script = (
        "echo '<!-- dG9rZW4= -->' >> README.md\n"
        "echo 'def test(): pass' > tests/test_app.py\n"
        "echo generated > notes.txt\n"  # untracked, not ignored: git status shows it
        "mkdir -p .venv && echo x > .venv/cache\n"  # ignored: not the supervisor's to review
    )
    changes = build(root, script, watch)
    assert [str(c) for c in changes] == [
        "README.md (changed)",
        "notes.txt (created)",
        "tests/test_app.py (changed)",
    ]
    assert watch.originals["README.md"].read(root) == b"# readme\n"
    assert watch.originals["tests/test_app.py"].read(root) == b"def test(): assert True\n"
    assert watch.originals["notes.txt"].read(root) is None and watch.originals["notes.txt"].known


def test_a_rewrite_to_the_same_bytes_is_no_change_and_a_reformat_is(tmp_path: Path) -> None:
    root = project(tmp_path)
    watch = BuildWatch(root)
    rewrite = "cp README.md /tmp/r.$$ && cat /tmp/r.$$ > README.md && rm /tmp/r.$$\n"
    assert build(root, rewrite, watch) == []
    assert build(root, "sed -i 's/( 1 )/(1)/' app.py\n", watch) == [Change("app.py", CHANGED)]


def test_the_user_s_uncommitted_work_is_the_original_not_the_commit(tmp_path: Path) -> None:
    """Nothing is lost: an uncommitted edit the build overwrote is what a revert would put back."""
    root = project(tmp_path)
    (root / "README.md").write_text("# readme\nthe user's own edit, not committed\n")
    (root / "draft.txt").write_text("an untracked draft\n")
    watch = BuildWatch(root)
    changes = build(root, "echo overwritten > README.md\nrm draft.txt\n", watch)
    assert changes == [Change("README.md", CHANGED), Change("draft.txt", DELETED)]
    assert watch.originals["README.md"].read(root) == b"# readme\nthe user's own edit, not committed\n"
    assert watch.originals["draft.txt"].read(root) == b"an untracked draft\n"


def test_a_deleted_tracked_file_a_mode_change_and_a_symlink_are_changes(tmp_path: Path) -> None:
    root = project(tmp_path)
    watch = BuildWatch(root)
    changes = build(root, "rm tests/test_app.py\nchmod +x app.py\nrm README.md && ln -s /etc/passwd README.md\n", watch)
    assert changes == [Change("README.md", CHANGED), Change("app.py", CHANGED), Change("tests/test_app.py", DELETED)]
    assert watch.originals["app.py"].mode == 0o644 and watch.originals["app.py"].read(root) == b"print( 1 )\n"


def test_the_first_original_stands_across_builds(tmp_path: Path) -> None:
    """A file the first build created and the second changed did not exist before the run."""
    root = project(tmp_path)
    watch = BuildWatch(root)
    assert build(root, "echo one > gen.txt\n", watch) == [Change("gen.txt", CREATED)]
    assert build(root, "echo two > gen.txt\n", watch) == [Change("gen.txt", CHANGED)]
    assert watch.originals["gen.txt"].content is None and watch.originals["gen.txt"].known


def test_originals_are_kept_up_to_a_budget_and_past_it_the_change_is_still_named(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "big.dat").write_bytes(b"x" * 5000)  # untracked: only a copy could give it back
    (root / "small.dat").write_bytes(b"y" * 10)
    watch = BuildWatch(root, keep_bytes=100)
    changes = build(root, "echo z > big.dat\necho z > small.dat\n", watch)
    assert changes == [Change("big.dat", CHANGED), Change("small.dat", CHANGED)]
    assert not watch.originals["big.dat"].known
    assert watch.originals["small.dat"].read(root) == b"y" * 10


def test_the_watch_is_bounded_by_files(tmp_path: Path) -> None:
    root = project(tmp_path)
    for n in range(20):
        (root / f"f{n:02d}.txt").write_text("x\n")
    watch = BuildWatch(root, max_files=10)
    build(root, "true\n", watch)
    assert watch.truncated


def test_a_project_inside_a_bigger_repository_sees_only_its_own_files(tmp_path: Path) -> None:
    outer = project(tmp_path)
    sub = outer / "sub"
    sub.mkdir()
    (sub / "lib.py").write_text("x = 1\n")
    (outer / "README.md").write_text("an uncommitted edit outside the project\n")
    git(outer, "add", "sub/lib.py")
    git(outer, "commit", "-qm", "sub")
    (sub / "agent-config").mkdir()
    watch = BuildWatch(sub)
    changes = build(sub, "echo 'x = 2' > lib.py\n", watch)
    assert changes == [Change("lib.py", CHANGED)]
    assert watch.originals["lib.py"].read(sub) == b"x = 1\n"


def test_blob_ids_are_git_s() -> None:
    assert blob_id(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"  # git hash-object
