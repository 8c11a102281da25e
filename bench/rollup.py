"""Rollup: `codeRollup.sh` on a generated 20,000-file repository, against
`git ls-files -z | xargs -0 cat > /dev/null`. Target: within 3x.

The repository holds small text files across nested directories, a few binaries and a few files
over the 256 KiB cap, all committed, so both commands see the same file list.

Every figure is checked against its input before its row is printed (checks.py): the fixtures'
files are tracked (the rollup reads nothing else: until 2026-11-28 the quality rows rolled up a
`git init`ed project with nothing added, and printed 0%), and each rollup included some.

Quality: the share of the rollup that is the project's own source and tests, by default, on
projects shaped like the three libraries code-commit was first tried on (tests/shaped_projects.py:
a big uv.lock, .po catalogs, about a thousand tiny test-vector files), against the first rollup,
which included every text file, each under a header line. Target: at least 80%.

The query's target: a module that defines the function agent-config/query.txt names, planted among
PLANTED modules of the same shape and size, and their tests; at several budgets, is it whole in the
rollup, with the query (ours) and without it (reference)? Target: whole at every budget with it.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from code_commit.config.settings import Settings
from code_commit.rollup.framing import Rollup
from code_commit.rollup.writing import write_rollup

from .checks import require, require_tracked, tracked
from .harness import REPO, Command, Row, commit_fixture, side_by_side

REFERENCE = "git ls-files -z | xargs -0 cat > /dev/null"
FILES = 20000
QUALITY_TARGET = 0.80
PLANTED = 400
FROM_END = 21  # the target's place: in the last folder, among the largest files: the last a plain ranking takes
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


def run(
    repeat: int,
    files: int = FILES,
    scale: float = 1.0,
    modules: int = PLANTED,
    budgets: tuple[int, ...] = PLANTED_BUDGETS,
) -> list[Row]:
    return speed(repeat, files) + quality(scale) + planted(modules, budgets)


def smallest() -> list[Row]:
    return run(0, files=100, scale=0.05, modules=30, budgets=(2_000,))


def _included(root: Path, result: Rollup) -> None:
    """The rollup read something: a rollup of nothing would make every share and every `whole` 0."""
    require(result.included > 0, f"the rollup of {root} included no file: {result.summary()}")


def speed(repeat: int, files: int) -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="bench-rollup-") as tmp:
        root = Path(tmp)
        size = generate(root, files)
        require_tracked(root, files)

        def wrote_files(root: Path = root) -> None:
            text = (root / "agent-config" / "codeRollup.txt").read_text(encoding="utf-8")
            require(text.startswith("==> "), f"codeRollup.sh wrote a rollup of no file in {root}")

        commands = {
            "ours": Command(["sh", str(REPO / "codeRollup.sh")], root, check=wrote_files),
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


def quality(scale: float = 1.0) -> list[Row]:
    sys.path.insert(0, str(REPO / "tests"))
    from shaped_projects import SHAPES, make

    rows = []
    for shape in SHAPES:
        with tempfile.TemporaryDirectory(prefix="bench-rollup-quality-") as tmp:
            root = Path(tmp)
            own = make(root, shape, scale)
            commit_fixture(root)  # the rollup reads only the files git tracks
            rows.append(quality_row(root, shape, own))
    return rows


def quality_row(root: Path, shape: str, own: set[str]) -> Row:
    """The row of one shaped project at `root`: EmptyMeasurement unless git tracks its own files and
    the rollup included some."""
    from shaped_projects import everything_share, own_share

    require_tracked(root, len(own))
    before = everything_share(root, own)
    result = write_rollup(root)
    _included(root, result)
    share = own_share((root / result.output).read_bytes(), own)
    return Row(
        f"rollup quality: {shape}, own source and tests",
        f"{result.included + len(result.left_out):,} files",
        share * 100,
        before * 100,
        unit="%",
        note=f"{result.size:,} bytes, {result.included} included",
        target=f">= 80%: {'met' if share >= QUALITY_TARGET else 'MISSED'}",
    )


def _module(name: str, functions: int) -> str:
    return "".join(
        f"def {name}_{i}(value, scale=1):\n    total = value * scale\n    return total + {i}\n\n"
        for i in range(functions)
    )


def planted(modules: int = PLANTED, budgets: tuple[int, ...] = PLANTED_BUDGETS) -> list[Row]:
    rows = []
    target_at = modules - FROM_END
    with tempfile.TemporaryDirectory(prefix="bench-rollup-planted-") as tmp:
        root = Path(tmp)
        (root / ".gitignore").write_text("/agent-config\n")
        for i in range(modules):
            folder = root / "src" / f"area{i % 20:02d}"
            folder.mkdir(parents=True, exist_ok=True)
            body = _module(f"step{i}", 12)
            if i == target_at:
                body = (
                    _module(f"step{i}", 12) + "def parse_config(text):\n    return dict(l.split('=') for l in text)\n"
                )
            (folder / f"part{i:03d}.py").write_text(body)
            tests = root / "tests"
            tests.mkdir(exist_ok=True)
            (tests / f"test_part{i:03d}.py").write_text(_module(f"test_step{i}", 4))
        commit_fixture(root)
        target = f"src/area{target_at % 20:02d}/part{target_at:03d}.py"
        require(target in tracked(root), f"the planted target {target} is not tracked in {root}")
        for budget in budgets:
            found = {}
            for label, query in (("with", QUERY), ("without", None)):
                result = write_rollup(root, settings=Settings(rollup_budget=budget), query=query)
                _included(root, result)
                found[label] = f"==> {target} <==" in (root / result.output).read_text().splitlines()
            rows.append(
                Row(
                    f"rollup: the query's target among {modules} modules, budget {budget:,}",
                    f"{modules * 2} files",
                    100.0 * found["with"],
                    100.0 * found["without"],
                    unit="%",
                    note="ours: whole with agent-config/query.txt naming its function; reference: without a query",
                    target=f"whole: {'met' if found['with'] else 'MISSED'}",
                )
            )
    return rows
