"""The user's uncommitted work is never lost: before a command first writes, it is saved in git's
stash (the tree and the index left as they are), and the run says where; a whole-file answer over
an uncommitted edit is named first; --revert-on-failure puts the user's own content back."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest

from code_commit.git.stash import head, save, uncommitted

from fakeapi import FakeAPI
from support import Project, git

FIX = "^^^fixed.txt\nfixed\n^^^end\n"


def record(result) -> dict:
    return json.loads(result.stdout)


def index_bytes(root: Path) -> str:
    return hashlib.sha256((root / ".git" / "index").read_bytes()).hexdigest()


@pytest.fixture
def edited(project: Project) -> Project:
    """The user's work in progress: an unstaged edit, a staged one, and a file with both."""
    project.write("notes.txt", "committed notes\n")
    project.write("both.txt", "committed both\n")
    project.commit_all()
    project.write("app.txt", "hello, my uncommitted edit\n")
    project.write("notes.txt", "staged notes\n")
    git(project.root, "add", "notes.txt")
    project.write("both.txt", "staged both\n")
    git(project.root, "add", "both.txt")
    project.write("both.txt", "staged both, then edited\n")
    return project


def test_uncommitted_work_is_saved_in_git_before_the_first_write_and_the_run_says_where(
    edited: Project, api: FakeAPI, cli
) -> None:
    staged = git(edited.root, "diff", "--cached")
    api.reply("^^^app.txt\nhello from the rollup\n^^^end\n" + FIX)
    result = cli("--json")
    assert result.exit_code == 0, result.stderr
    assert edited.read("app.txt") == "hello from the rollup\n"
    assert git(edited.root, "diff", "--cached") == staged, "the index is as the user left it"
    (saved,) = record(result)["saved_work"]
    assert saved["files"] == ["app.txt", "both.txt", "notes.txt"]
    (run,) = edited.run_dirs()
    assert saved["message"] == f"code-commit {run.name}"
    assert git(edited.root, "stash", "list") == f"stash@{{0}}: code-commit {run.name}\n"
    assert git(edited.root, "show", f"{saved['commit']}:app.txt") == "hello, my uncommitted edit\n"
    assert f"git stash apply {saved['commit']}" in saved["restore"]
    said = f"are saved in git's stash as {saved['commit'][:12]}"
    assert said in result.stderr and said in (run / "run.log").read_text()
    warned = result.stderr.index("the answer rewrites 1 file whole that has uncommitted changes of yours: app.txt")
    assert warned < result.stderr.index("applied: 2 files written")
    # All of it comes back with git alone, staged and unstaged apart.
    git(edited.root, "checkout", "-q", "--", ".")
    git(edited.root, "reset", "-q", "--hard")
    git(edited.root, "stash", "apply", "-q", "--index", saved["commit"])
    assert edited.read("app.txt") == "hello, my uncommitted edit\n"
    assert git(edited.root, "diff", "--cached", "--name-only").split() == ["both.txt", "notes.txt"]
    assert git(edited.root, "show", ":both.txt") == "staged both\n"
    assert edited.read("both.txt") == "staged both, then edited\n"


def test_a_clean_tree_saves_nothing_and_an_edit_block_over_an_edit_warns_of_nothing(
    project: Project, api: FakeAPI, cli
) -> None:
    api.reply(FIX)
    result = cli("--json")
    assert result.exit_code == 0 and record(result)["saved_work"] == []
    assert git(project.root, "stash", "list") == "" and "stash" not in result.stderr
    project.write("app.txt", "hello\nmy edit\n")
    (project.root / "fixed.txt").unlink()
    api.reply("^^^app.txt\n^^^search\nmy edit\n^^^replace\nmy edit, kept\n^^^end\n" + FIX)
    result = cli("--json")
    assert result.exit_code == 0 and "file whole that has uncommitted changes" not in result.stderr
    assert project.read("app.txt") == "hello\nmy edit, kept\n"
    assert [s["files"] for s in record(result)["saved_work"]] == [["app.txt"]]


def test_revert_on_failure_puts_back_the_users_own_uncommitted_content(edited: Project, api: FakeAPI, cli) -> None:
    # The build rewrites the user's edited file too, after each answer: what the run found comes back.
    edited.build_script("echo 'the build was here' >> app.txt\ntest -f fixed.txt\n")
    git(edited.root, "add", "build.sh")
    git(edited.root, "commit", "-q", "-m", "build", "--", "build.sh")
    for n in range(4):
        api.reply(f"^^^app.txt\nattempt {n}\n^^^end\n^^^both.txt\n^^^delete\n")
    result = cli("--json", "--revert-on-failure")
    assert result.exit_code == 1 and record(result)["reverted"] is True
    assert edited.read("app.txt") == "hello, my uncommitted edit\n", "not the committed hello"
    assert edited.read("both.txt") == "staged both, then edited\n"
    assert git(edited.root, "show", ":both.txt") == "staged both\n"
    # And the saved entry is there too, beside the revert: the same edit, reachable through git.
    first, *later = record(result)["saved_work"]
    (run,) = edited.run_dirs()
    assert git(edited.root, "stash", "list").splitlines()[-1] == f"stash@{{{len(later)}}}: code-commit {run.name}"
    # Saved before the first answer wrote: after the baseline build, the user's own build.sh, appended.
    assert git(edited.root, "show", f"{first['commit']}:app.txt") == "hello, my uncommitted edit\nthe build was here\n"
    assert git(edited.root, "show", f"{first['commit']}:both.txt") == "staged both, then edited\n"


def test_content_a_build_wrote_is_saved_before_a_later_answer_writes_over_it(
    project: Project, api: FakeAPI, cli
) -> None:
    project.build_script("echo 'the build was here' >> app.txt\ntest -f fixed.txt\n")
    project.commit_all()
    api.reply("^^^other.txt\nfirst\n^^^end\n")  # the tree is clean: nothing to save yet
    api.reply("^^^app.txt\nreplaced\n^^^end\n" + FIX)
    result = cli("--json")
    assert result.exit_code == 0, result.stderr
    *_, saved = record(result)["saved_work"]  # the baseline build, before any answer, wrote app.txt too
    assert saved["files"] == ["app.txt"] and saved["message"].endswith("(before call 2)")
    assert git(project.root, "show", f"{saved['commit']}:app.txt") == "hello\n" + "the build was here\n" * 2


def test_apply_saves_uncommitted_work_before_it_writes(edited: Project, cli) -> None:
    result = cli("apply", "--json", "-", input="^^^app.txt\nfrom a saved answer\n^^^end\n")
    assert result.exit_code == 0, result.stderr
    (saved,) = record(result)["saved_work"]
    assert git(edited.root, "show", f"{saved['commit']}:app.txt") == "hello, my uncommitted edit\n"
    assert "rewrites 1 file whole" in result.stderr
    checked = cli("apply", "--check", "-", input="^^^app.txt\nagain\n^^^end\n")
    assert checked.exit_code == 0 and len(git(edited.root, "stash", "list").splitlines()) == 1, "--check writes nothing"


def test_a_repository_with_no_commit_yet_is_saved_by_hand(tmp_path: Path) -> None:
    root = tmp_path / "fresh"
    root.mkdir()
    git(root, "init", "-q")
    (root / "a.txt").write_text("staged\n")
    git(root, "add", "a.txt")
    (root / "a.txt").write_text("staged, then edited\n")
    before = index_bytes(root)
    saved = save(root, "code-commit test", uncommitted(root, head(root)))
    assert saved.unborn and "git checkout" in saved.restore and "stash apply" not in saved.restore
    assert index_bytes(root) == before and (root / "a.txt").read_text() == "staged, then edited\n"
    assert git(root, "stash", "list") == "stash@{0}: code-commit test\n"
    assert git(root, "show", f"{saved.commit}:a.txt") == "staged, then edited\n"
    assert git(root, "show", f"{saved.commit}^2:a.txt") == "staged\n"
    (root / "a.txt").write_text("overwritten\n")
    git(root, "checkout", saved.commit, "--", "a.txt")
    assert (root / "a.txt").read_text() == "staged, then edited\n"


def test_a_detached_head_and_a_merge_stopped_on_conflicts_are_saved_too(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    (root / "f.txt").write_text("base\n")
    git(root, "add", "f.txt")
    git(root, "commit", "-qm", "base")
    git(root, "checkout", "-q", "--detach")
    (root / "f.txt").write_text("edited on a detached HEAD\n")
    before = index_bytes(root)
    saved = save(root, "detached", uncommitted(root, head(root)))
    assert index_bytes(root) == before, "stash create gets a copy of the index: the real one is not rewritten"
    assert git(root, "show", f"{saved.commit}:f.txt") == "edited on a detached HEAD\n"
    git(root, "checkout", "-q", "-f", "main")
    git(root, "checkout", "-qb", "other")
    (root / "f.txt").write_text("other\n")
    git(root, "commit", "-qam", "other")
    git(root, "checkout", "-q", "main")
    (root / "f.txt").write_text("main\n")
    git(root, "commit", "-qam", "main")
    with pytest.raises(subprocess.CalledProcessError):  # git merge exits 1 on a conflict
        git(root, "merge", "-q", "other")
    assert uncommitted(root, head(root)) == ("f.txt",)
    conflicted = (root / "f.txt").read_text()
    saved = save(root, "merging", uncommitted(root, head(root)))
    assert git(root, "show", f"{saved.commit}:f.txt") == conflicted
    assert git(root, "ls-files", "-u"), "the merge is still in progress"


def test_saving_runs_no_hook(tmp_path: Path) -> None:
    """Writing the index copy would run post-index-change; a hook is a program the save never runs."""
    root = tmp_path / "hooked"
    root.mkdir()
    git(root, "init", "-q")
    (root / "a.txt").write_text("a\n")
    git(root, "add", "a.txt")
    git(root, "commit", "-qm", "a")
    marker = tmp_path / "hook-ran"
    for hook in ("post-index-change", "pre-commit", "post-commit"):
        script = root / ".git" / "hooks" / hook
        script.write_text(f"#!/bin/sh\necho {hook} >> {marker}\n")
        script.chmod(0o755)
    (root / "a.txt").write_text("edited\n")
    git(root, "add", "a.txt")  # git itself runs the hook here, as it would for the save
    assert marker.read_text() == "post-index-change\n"
    marker.unlink()
    (root / "a.txt").write_text("edited again\n")
    save(root, "hooked", uncommitted(root, head(root)))
    assert not marker.exists()
