"""Unified diffs of planned changes agree with what `git diff` and `git apply` understand."""

from __future__ import annotations

import base64
import hashlib
import subprocess
import zlib
from pathlib import Path

from code_commit.answer.caret_blocks import DeleteFile, WriteFile
from code_commit.answer.plan import Plan
from code_commit.answer.planning import plan_changes
from code_commit.config.redaction import Redactor, censor
from code_commit.guard.policy import Guard
from code_commit.review.diffs import Redact, change_diff, patch_of, plan_changes_on_disk, write_patch

from support import git


def plan_diff(root: Path, plan: Plan) -> str:
    return "".join(change_diff(change) for change in plan_changes_on_disk(root, plan))


def plan_patch(root: Path, plan: Plan, redact: Redact) -> bytes:
    return patch_of(root, plan_changes_on_disk(root, plan), redact)


def test_plan_diff_applies_cleanly_with_git_apply(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("/agent-config\n")
    (tmp_path / "a.txt").write_text("one\ntwo\nthree\n")
    (tmp_path / "b.txt").write_text("no newline at end")
    (tmp_path / "gone.txt").write_text("bye\n")
    (tmp_path / "gone.txt").chmod(0o755)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    edits = [
        WriteFile("a.txt", "one\n2\x0cform feed\u2028kept\nthree\n"),
        WriteFile("b.txt", "now with newline\n"),
        WriteFile("new/c.txt", "new\n"),
        WriteFile("empty.txt", ""),
        DeleteFile("gone.txt"),
    ]
    plan = plan_changes(tmp_path, edits, Guard(tmp_path))
    patch = plan_diff(tmp_path, plan)
    assert "--- /dev/null\n+++ b/new/c.txt" in patch and "--- a/gone.txt\n+++ /dev/null" in patch
    assert "\\ No newline at end of file" in patch
    subprocess.run(["git", "apply", "--check", "-"], cwd=tmp_path, input=patch.encode(), check=True)
    subprocess.run(["git", "apply", "-"], cwd=tmp_path, input=patch.encode(), check=True)
    assert (tmp_path / "a.txt").read_text() == "one\n2\x0cform feed\u2028kept\nthree\n"
    assert (tmp_path / "b.txt").read_text() == "now with newline\n"
    assert (tmp_path / "new/c.txt").read_text() == "new\n"
    assert (tmp_path / "empty.txt").read_text() == ""
    assert not (tmp_path / "gone.txt").exists()


def binary_literals(patch: bytes) -> list[bytes]:
    """The contents a git binary patch carries (`literal N` blocks), decoded independently of git."""
    contents, lines = [], iter(patch.split(b"\n"))
    for line in lines:
        if line.startswith(b"literal "):
            compressed = b""
            for data in lines:
                if not data:
                    break
                size = data[0] - ord("A") + 1 if data[0] <= ord("Z") else data[0] - ord("a") + 27
                compressed += base64.b85decode(data[1:])[:size]
            contents.append(zlib.decompress(compressed))
            assert len(contents[-1]) == int(line.split()[1])
    return contents


LATIN1 = "caf\xe9 cr\xe8me\n".encode("latin-1")
BLOB = b"\x89PNG\r\n\x1a\n\x00\xff\xfe" * 40
BEFORE = {
    "latin.txt": LATIN1,
    "img.bin": bytes(range(256)) * 3,
    "blob.bin": BLOB,
    "crlf.txt": b"one\r\ntwo\r\nno newline \xff",
}


def test_patches_are_byte_exact_for_any_content_and_undo_with_git_apply_r(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("/agent-config\n")
    for name, data in BEFORE.items():
        (tmp_path / name).write_bytes(data)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "-A")
    status = git(tmp_path, "status", "--porcelain")
    edits = [
        WriteFile("latin.txt", "cafe\n"),  # Latin-1 text: a text diff with the raw byte \xe9
        WriteFile("img.bin", "now text\n"),  # binary -> text: git's binary form
        DeleteFile("blob.bin"),  # a binary file deleted
        WriteFile("crlf.txt", "one\r\ntwo\r\n"),  # CRLF kept, invalid UTF-8 in the old side
        WriteFile("new.txt", "new\n"),
    ]
    plan = plan_changes(tmp_path, edits, Guard(tmp_path))
    patch = plan_patch(tmp_path, plan, Redactor())
    assert b"-caf\xe9 cr\xe8me\n" in patch and b"\xef\xbf\xbd" not in patch, "raw bytes, no U+FFFD"
    assert b"GIT binary patch" in patch and b"index " + hashlib.sha1(b"blob 440\0" + BLOB).hexdigest().encode() in patch
    subprocess.run(["git", "apply", "--check", "-"], cwd=tmp_path, input=patch, check=True)
    subprocess.run(["git", "apply", "-"], cwd=tmp_path, input=patch, check=True)
    assert (tmp_path / "img.bin").read_bytes() == b"now text\n" and not (tmp_path / "blob.bin").exists()
    assert (tmp_path / "latin.txt").read_bytes() == b"cafe\n" and (tmp_path / "new.txt").exists()
    subprocess.run(["git", "apply", "-R", "-"], cwd=tmp_path, input=patch, check=True)
    for name, data in BEFORE.items():
        assert (tmp_path / name).read_bytes() == data, name
    assert not (tmp_path / "new.txt").exists()
    assert git(tmp_path, "status", "--porcelain") == status
    # For reading, a binary file is one line, as git diff shows it.
    readable = plan_diff(tmp_path, plan_changes(tmp_path, edits, Guard(tmp_path)))
    assert "Binary files a/blob.bin and /dev/null differ\n" in readable and "caf\ufffd" in readable


def test_the_key_is_censored_inside_a_binary_patch_too(tmp_path: Path) -> None:
    key = "sk-ant-test-0123456789abcdef-TESTKEY-Zq"
    (tmp_path / "key.bin").write_bytes(b"\0" + key.encode() + b"\0")
    plan = plan_changes(tmp_path, [DeleteFile("key.bin")], Guard(tmp_path))
    redact = Redactor.of([key])
    target = write_patch(tmp_path / "p.diff", plan_patch(tmp_path, plan, redact), redact)
    written = target.read_bytes()
    assert key.encode() not in written
    assert binary_literals(written) == [b"", b"\0" + censor(key).encode() + b"\0"]


def test_binary_patches_name_objects_with_the_repositorys_hash(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q", "--object-format=sha256")
    (tmp_path / "img.bin").write_bytes(bytes(range(256)))
    git(tmp_path, "add", "-A")
    plan = plan_changes(tmp_path, [WriteFile("img.bin", "text\n")], Guard(tmp_path))
    patch = plan_patch(tmp_path, plan, Redactor())
    assert hashlib.sha256(b"blob 256\0" + bytes(range(256))).hexdigest().encode() in patch
    subprocess.run(["git", "apply", "-"], cwd=tmp_path, input=patch, check=True)
    subprocess.run(["git", "apply", "-R", "-"], cwd=tmp_path, input=patch, check=True)
    assert (tmp_path / "img.bin").read_bytes() == bytes(range(256))
