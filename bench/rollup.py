"""Rollup: `codeRollup.sh` on a generated 20,000-file repository, against
`git ls-files -z | xargs -0 cat > /dev/null`. Target: within 3x.

The repository holds small text files across nested directories, a few binaries and a few files
over the 256 KiB cap, all committed, so both commands see the same file list.

Quality: the share of the rollup that is the project's own source and tests, by default, on
projects shaped like the three libraries code-commit was first tried on (tests/shaped_projects.py:
a big uv.lock, .po catalogs, about a thousand tiny test-vector files), against the first rollup,
which included every text file, each under a header line. Target: at least 80%.

The query's target: a module that defines the function agent-config/query.txt names, planted among
PLANTED modules of the same shape and size, and their tests; at several budgets, is it whole in the
rollup, with the query (ours) and without it (reference)? Target: whole at every budget with it.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from code_commit.config.settings import Settings
from code_commit.rollup.writing import write_rollup

from .harness import REPO, Command, Row, bench_env, commit_fixture, side_by_side

REFERENCE = "git ls-files -z | xargs -0 cat > /dev/null"
FILES = 20000
QUALITY_TARGET = 0.80
PLANTED = 400
TARGET = PLANTED - 21  # in the last folder, among the largest files: the last a plain ranking would take
PLANTED_BUDGETS = (2_000, 5_000, 20_000, 100_000)
QUERY = "parse_config crashes on a line without '=': it should skip such lines.\n"


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
    return speed(repeat, files) + quality() + planted()


def speed(repeat: int, files: int) -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="bench-rollup-") as tmp:
        root = Path(tmp)
        size = generate(root, files)
        commands = {
            "ours": Command(["sh", str(REPO / "codeRollup.sh")], root),
            "reference": Command(["sh", "-c", REFERENCE], root),
        }
        best = side_by_side(repeat, commands)
    return [
        Row.compared(
            f"rollup: codeRollup.sh, {files:,} files",
            f"{size / 2**20:.1f} MiB",
            best,
            target=f"<= 3x: {'met' if best['ours'].seconds <= 3 * best['reference'].seconds else 'MISSED'}",
        )
    ]


def quality() -> list[Row]:
    sys.path.insert(0, str(REPO / "tests"))
    from shaped_projects import SHAPES, everything_share, make, own_share

    rows = []
    for shape in SHAPES:
        with tempfile.TemporaryDirectory(prefix="bench-rollup-quality-") as tmp:
            root = Path(tmp)
            own = make(root, shape)
            subprocess.run(["git", "init", "-q"], cwd=root, env=bench_env(), check=True)
            before = everything_share(root, own)
            result = write_rollup(root)
            share = own_share((root / result.output).read_bytes(), own)
        rows.append(
            Row(
                f"rollup quality: {shape}, own source and tests",
                f"{result.included + len(result.left_out):,} files",
                share * 100,
                before * 100,
                unit="%",
                note=f"{result.size:,} bytes, {result.included} included",
                target=f">= 80%: {'met' if share >= QUALITY_TARGET else 'MISSED'}",
            )
        )
    return rows


def _module(name: str, functions: int) -> str:
    return "".join(
        f"def {name}_{i}(value, scale=1):\n    total = value * scale\n    return total + {i}\n\n"
        for i in range(functions)
    )


def planted() -> list[Row]:
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-rollup-planted-") as tmp:
        root = Path(tmp)
        (root / ".gitignore").write_text("/agent-config\n")
        for i in range(PLANTED):
            folder = root / "src" / f"area{i % 20:02d}"
            folder.mkdir(parents=True, exist_ok=True)
            body = _module(f"step{i}", 12)
            if i == TARGET:
                body = (
                    _module(f"step{i}", 12) + "def parse_config(text):\n    return dict(l.split('=') for l in text)\n"
                )
            (folder / f"part{i:03d}.py").write_text(body)
            tests = root / "tests"
            tests.mkdir(exist_ok=True)
            (tests / f"test_part{i:03d}.py").write_text(_module(f"test_step{i}", 4))
        commit_fixture(root)
        target = f"src/area{TARGET % 20:02d}/part{TARGET:03d}.py"
        for budget in PLANTED_BUDGETS:
            found = {}
            for label, query in (("with", QUERY), ("without", None)):
                result = write_rollup(root, settings=Settings(rollup_budget=budget), query=query)
                found[label] = f"==> {target} <==" in (root / result.output).read_text().splitlines()
            rows.append(
                Row(
                    f"rollup: the query's target among {PLANTED} modules, budget {budget:,}",
                    f"{PLANTED * 2} files",
                    100.0 * found["with"],
                    100.0 * found["without"],
                    unit="%",
                    note="ours: whole with agent-config/query.txt naming its function; reference: without a query",
                    target=f"whole: {'met' if found['with'] else 'MISSED'}",
                )
            )
    return rows
