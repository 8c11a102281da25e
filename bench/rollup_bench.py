"""Time the rollup against plain `git ls-files -z | xargs -0 cat > /dev/null` on a generated repository.

    .venv/bin/python bench/rollup_bench.py [--files 20000] [--repeat 3]

The repository (in a temporary directory, removed afterwards) holds `--files` small text files
across nested directories, a few binaries and a few files over the 256 KiB cap, all committed,
so both commands see the same file list. Each command runs once to warm the page cache, then
`--repeat` times, alternating; the best time of each is reported. The target is a ratio of at
most 3.

Rows:
  wrapper     ./codeRollup.sh as a user runs it: shell, interpreter start-up and all
  in-process  write_rollup() alone, which shows what the interpreter start-up costs
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
WRAPPER = REPO_ROOT / "codeRollup.sh"
REFERENCE = "git ls-files -z | xargs -0 cat > /dev/null"
GIT_ENV = {
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}


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
    env = {**os.environ, **GIT_ENV}
    for argv in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "bench"]):
        subprocess.run(argv, cwd=root, env=env, check=True)
    return total


def best_of(repeat: int, runs: dict[str, Callable[[], None]]) -> dict[str, float]:
    for run in runs.values():
        run()  # warm the page cache and git's index
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(repeat):
        for name, run in runs.items():  # alternating, so drift in the machine hits both alike
            start = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=20000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()

    from code_commit.rollup import write_rollup

    # The code-commit installed next to this interpreter, found the way the wrapper finds it.
    env = {**os.environ, **GIT_ENV, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    with tempfile.TemporaryDirectory(prefix="rollup-bench-") as tmp:
        root = Path(tmp)
        size = generate(root, args.files)

        def wrapper() -> None:
            subprocess.run(["sh", str(WRAPPER)], cwd=root, env=env, check=True, stderr=subprocess.DEVNULL)

        def in_process() -> None:
            write_rollup(root)

        def reference() -> None:
            subprocess.run(["sh", "-c", REFERENCE], cwd=root, env=env, check=True)

        result = write_rollup(root)
        assert (result.included, result.omitted) == (args.files + 1, 8), result
        best = best_of(args.repeat, {"wrapper": wrapper, "in-process": in_process, "reference": reference})

    print(f"{'scenario':<34} {'size':>9} {'ours':>8} {'reference':>10} {'ratio':>6}")
    for name in ("wrapper", "in-process"):
        scenario = f"{args.files} files, {name}"
        ratio = best[name] / best["reference"]
        print(f"{scenario:<34} {size / 2**20:>5.1f} MiB {best[name]:>7.3f}s {best['reference']:>9.3f}s {ratio:>5.2f}x")


if __name__ == "__main__":
    main()
