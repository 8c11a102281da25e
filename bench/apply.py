"""Parse, guard and apply: answers writing 100, 1,000 and 10,000 files, against `git apply` of the
same change as a patch, in a repository with a 1,000-line .gitignore and nested ignore files.

Target: within 2x `git apply`, and linear in size (the per-file time must not grow with size).
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from code_commit.answer.caret_blocks import WriteFile, render_answer
from code_commit.review.diffs import file_diff

from .checks import require, require_tracked
from .harness import BIN, Command, Row, bench_env, commit_fixture, side_by_side

SIZES = (100, 1000, 10000)
FILES_PER_DIR = 100


def _content(i: int, version: str) -> str:
    line = f"value_{i} = compute({i}, '{version}')  # a line of ordinary source code, padded out\n"
    return line * 13  # about 1 KB a file: the 10,000-file answer is over 10 MB, a large change's worth


def _gitignore() -> str:
    lines = []
    for i in range(250):
        lines += [f"*.tmp{i}", f"/cache{i}/", f"build{i}/", f"!keep{i}.tmp{i}"]
    return "\n".join(lines) + "\n"


def generate(root: Path, files: int) -> tuple[Path, Path]:
    """A committed repository of `files` files; return (answer, patch) rewriting every one of them."""
    (root / ".gitignore").write_text("/agent-config\n" + _gitignore())
    paths = [f"src/d{i // FILES_PER_DIR:03d}/f{i:05d}.py" for i in range(files)]
    for d in range(0, files, FILES_PER_DIR):
        folder = root / f"src/d{d // FILES_PER_DIR:03d}"
        folder.mkdir(parents=True)
        (folder / ".gitignore").write_text("".join(f"*.gen{j}\n/out{j}/\n" for j in range(5)))
    for i, path in enumerate(paths):
        (root / path).write_text(_content(i, "old"))
    commit_fixture(root, "base")
    edits = [WriteFile(path, _content(i, "new")) for i, path in enumerate(paths)]
    answer = root.parent / "answer.txt"
    answer.write_text(render_answer(edits))
    patch = root.parent / "change.patch"
    patch.write_text(
        "".join(file_diff(p, _content(i, "old").encode(), _content(i, "new").encode()) for i, p in enumerate(paths))
    )
    return answer, patch


def applied(root: Path, files: int, by: str) -> None:
    """Every file of the change is rewritten as the answer says: a refused or partial apply would be
    timed as a fast one."""
    changed = subprocess.run(
        ["git", "diff", "--name-only", "-z"], cwd=root, env=bench_env(), capture_output=True, check=True
    ).stdout.count(b"\0")
    last = files - 1
    path = root / f"src/d{last // FILES_PER_DIR:03d}/f{last:05d}.py"
    require(
        changed == files and path.read_text() == _content(last, "new"),
        f"{by} changed {changed} of the {files} files it was given in {root}",
    )


def smallest() -> Iterator[Row]:
    return run(0, sizes=(10,))


def run(repeat: int, sizes: tuple[int, ...] = SIZES) -> Iterator[Row]:
    for files in sizes:
        with tempfile.TemporaryDirectory(prefix="bench-apply-") as tmp:
            root = Path(tmp) / "repo"
            root.mkdir()
            answer, patch = generate(root, files)
            require_tracked(root, files)
            env = bench_env()

            def reset(root: Path = root, env: dict[str, str] = env) -> None:
                subprocess.run(["git", "checkout", "-q", "--", "."], cwd=root, env=env, check=True)
                # A real tree is on disk long before a change arrives; without this, the command that
                # runs first after the reset frees still-dirty blocks for free and the other does not.
                os.sync()

            commands = {
                # The 10 MB answer is over the default max_answer_bytes (2 MB: what a model's answer can
                # be), which would refuse it; a saved answer this large is the user's to allow.
                "ours": Command(
                    [str(BIN / "code-commit"), "apply", str(answer)],
                    root,
                    reset=reset,
                    env=bench_env(CODE_COMMIT_MAX_ANSWER_BYTES=str(answer.stat().st_size)),
                    check=lambda root=root, files=files: applied(root, files, "code-commit apply"),
                ),
                "reference": Command(
                    ["git", "apply", str(patch)],
                    root,
                    reset=reset,
                    check=lambda root=root, files=files: applied(root, files, "git apply"),
                ),
            }
            best = side_by_side(repeat, commands)
            size = answer.stat().st_size
        per_file = best["ours"].seconds / files * 1e6
        met = best["ours"].seconds <= 2 * best["reference"].seconds
        yield Row.compared(
            f"apply: {files:,} files",
            f"{size / 2**20:.1f} MiB",
            best,
            note=f"{per_file:.0f} us/file (git apply {best['reference'].seconds / files * 1e6:.0f})",
            target=f"<= 2x git apply: {'met' if met else 'MISSED'}",
        )
