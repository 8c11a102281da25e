"""Rollup: `codeRollup.sh` on a generated 20,000-file repository, against
`git ls-files -z | xargs -0 cat > /dev/null`. Target: within 3x.

The repository holds small text files across nested directories, a few binaries and a few files
over the 256 KiB cap, all committed, so both commands see the same file list.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from .harness import REPO, Command, Row, commit_fixture, side_by_side

REFERENCE = "git ls-files -z | xargs -0 cat > /dev/null"
FILES = 20000


def generate(root: Path, files: int) -> int:
    """Write the repository and commit it; return the bytes of its files."""
    total = 0

    def put(rel: str, data: bytes) -> None:
        nonlocal total
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        total += len(data)

    put(".gitignore", b"/agent-config\n")
    for i in range(files):  # 20 packages x 10 modules x 100 files at the default size
        body = "".join(f"def f{i}_{j}(x):\n    return x * {j} + {i}\n\n" for j in range(i % 13 + 2))
        put(f"pkg{i % 20:02d}/mod{i // 20 % 10}/sub{i // 200 % 5}/file{i:05d}.py", body.encode())
    for i in range(5):
        put(f"assets/image{i}.bin", bytes(range(256)) * 256)  # 64 KiB, NUL bytes: binary
    for i in range(3):
        put(f"data/big{i}.csv", b"a,b,c,d,e,f,g,h\n" * 65536)  # 1 MiB, over the cap
    commit_fixture(root)
    return total


def run(repeat: int, files: int = FILES) -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="bench-rollup-") as tmp:
        root = Path(tmp)
        size = generate(root, files)
        commands = {
            "ours": Command(["sh", str(REPO / "codeRollup.sh")], root),
            "reference": Command(["sh", "-c", REFERENCE], root),
        }
        best = side_by_side(repeat, commands)
    return [
        Row(
            f"rollup: codeRollup.sh, {files:,} files",
            f"{size / 2**20:.1f} MiB",
            best["ours"].seconds,
            best["reference"].seconds,
            best["ours"].peak_rss,
            target=f"<= 3x: {'met' if best['ours'].seconds <= 3 * best['reference'].seconds else 'MISSED'}",
        )
    ]
