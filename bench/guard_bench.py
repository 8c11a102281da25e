"""Time the guard on a large answer: every path of it checked against a large set of ignore rules.

    .venv/bin/python -m bench.guard_bench [--files 10000] [--patterns 1000] [--nested 50] [--repeat 3]

The project (in a temporary directory, removed afterwards) has a root `.gitignore` of `--patterns`
lines in the shapes real ignore files use (names, `*.ext`, `dir/`, `/rooted`, `**/x`, `a/**/b`,
character classes, negations), `--nested` nested `.gitignore` files of 20 lines each, and an
`info/exclude`, in a git repository (git decides what it ignores). The answer writes `--files`
new files spread over nested directories, some of which exist. The time reported is the best of
`--repeat` runs of: build a `Guard`, `prepare` every path (one `git check-ignore`), then
`check_write` every path (what `plan_changes` does). Refusals are counted so a change in the
rules' results shows up next to a change in speed.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import tempfile
import time
from pathlib import Path

from code_commit.git.layout import GitSetup
from code_commit.guard.policy import Guard

from .harness import bench_env

WORDS = ["src", "lib", "test", "docs", "build", "dist", "cache", "tmp", "node", "app", "core", "util", "data", "gen"]
EXTS = ["py", "js", "ts", "o", "so", "log", "tmp", "pyc", "class", "map", "lock", "bak", "swp", "out"]


def pattern(rng: random.Random) -> str:
    # Mostly names no path uses (as in a long real ignore file), some that match.
    word = rng.choice(WORDS) + (str(rng.randrange(100)) if rng.random() < 0.995 else "")
    ext = rng.choice(EXTS) + (str(rng.randrange(100)) if rng.random() < 0.995 else "")
    shapes = [
        word,
        f"*.{ext}",
        f"{word}/",
        f"/{word}",
        f"**/{word}",
        f"{rng.choice(WORDS)}/**/{word}",
        f"{word}[0-9].{ext}",
        f"!{word}.{ext}",
        f"{rng.choice(WORDS)}/*.{ext}",
        f"[Tt]emp{rng.randrange(100)}/",
    ]
    return rng.choice(shapes)


def generate(root: Path, files: int, patterns: int, nested: int, rng: random.Random) -> list[str]:
    subprocess.run(["git", "init", "-q", str(root)], env=bench_env(), check=True)
    (root / ".git" / "info").mkdir(parents=True, exist_ok=True)
    (root / ".git" / "info" / "exclude").write_text("\n".join(pattern(rng) for _ in range(50)) + "\n")
    (root / ".gitignore").write_text("/agent-config\n" + "\n".join(pattern(rng) for _ in range(patterns)) + "\n")
    dirs = ["/".join(rng.choice(WORDS) for _ in range(rng.randint(1, 4))) for _ in range(files // 20)]
    for directory in rng.sample(dirs, min(nested, len(dirs))):
        (root / directory).mkdir(parents=True, exist_ok=True)
        (root / directory / ".gitignore").write_text("\n".join(pattern(rng) for _ in range(20)) + "\n")
    return [f"{rng.choice(dirs)}/file{n}.{rng.choice(EXTS)}" for n in range(files)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=10000)
    parser.add_argument("--patterns", type=int, default=1000)
    parser.add_argument("--nested", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        paths = generate(root, args.files, args.patterns, args.nested, random.Random(1))
        best, refused = float("inf"), 0
        for _ in range(args.repeat):
            start = time.perf_counter()
            guard = Guard(root, git=GitSetup())  # no index: every path is new
            guard.prepare(paths)
            refused = sum(guard.check_write(path) is not None for path in paths)
            best = min(best, time.perf_counter() - start)
    print(
        f"{args.files} paths, {args.patterns}-line .gitignore, {args.nested} nested: "
        f"{best:.3f} s ({best / args.files * 1e6:.0f} µs per path), {refused} refused"
    )


if __name__ == "__main__":
    main()
