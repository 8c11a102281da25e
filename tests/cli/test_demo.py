"""`code-commit demo`: the real loop repairs the bundled project, offline and with no key; and
the wheel carries everything it needs."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from support import git
from support.record import valid_record

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "src" / "code_commit" / "cli" / "demo"


def test_the_demo_repairs_the_bundled_project(tmp_path: Path, cli) -> None:
    target = tmp_path / "demo"
    result = cli("demo", "--dir", str(target))
    assert result.exit_code == 0, result.stderr
    err = result.stderr
    # The failing build, the repair and the passing build, in that order, then where the logs are.
    steps = [
        "call 1/4 (initial query): asking scripted-demo-model",
        "+        self.items[name] = count - have",
        "AssertionError: -1 != 1",
        "build fails: build.sh exited with code 1",
        "call 2/4 (repair 1 of 3)",
        "+        self.items[name] = have - count",
        "build passes",
        f"git -C {target} diff",
        "logs (every prompt, answer and build output):",
    ]
    positions = [err.index(step) for step in steps]
    assert positions == sorted(positions)

    (run,) = (target / "agent-config" / "logs").iterdir()
    assert str(run) in err
    assert "FAILED (failures=1)" in (run / "01-build.txt").read_text()
    assert "AssertionError: -1 != 1" in (run / "02-query.txt").read_text(), "the real failure reached the model"
    assert "==> inventory/stock.py <==" in (run / "01-query.txt").read_text(), "the real rollup"
    summary = valid_record((run / "summary.json").read_text())  # demo prints no --json: its record is here
    assert summary["outcome"] == "passed" and summary["attempts"] == 2
    assert summary["cost_usd"] == 0.0, "the scripted model is priced at nothing"
    assert summary["files_changed"] == ["inventory/stock.py"]
    assert git(target, "status", "--porcelain") == " M inventory/stock.py\n"
    assert "+        self.items[name] = have - count" in git(target, "diff")


def test_the_demo_repairs_the_project_with_bytecode_writing_on(
    tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """This suite runs with PYTHONDONTWRITEBYTECODE=1, which hid a stale-bytecode failure: users have it off."""
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    target = tmp_path / "demo"
    result = cli("demo", "--dir", str(target))
    assert result.exit_code == 0, result.stderr
    assert not list(target.rglob("__pycache__")), "no bytecode that could go stale"


@pytest.mark.parametrize("project", [DEMO / "project", REPO / "tests" / "e2e_project"], ids=["demo", "e2e"])
def test_a_same_size_fix_in_the_same_second_is_built_from_its_source(
    tmp_path: Path, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The demo's two answers have the same length and land within a second of the first build: with a
    cached .pyc, Python would run the wrong fix again. Here that timing is made certain."""
    monkeypatch.delenv("PYTHONDONTWRITEBYTECODE", raising=False)
    root = tmp_path / "project"
    shutil.copytree(project, root, ignore=shutil.ignore_patterns("__pycache__"))
    stock = root / "inventory" / "stock.py"
    original = stock.read_text()
    wrong = original.replace("self.items[name] = have + count", "self.items[name] = count - have")
    right = original.replace("self.items[name] = have + count", "self.items[name] = have - count")
    assert wrong != original and len(wrong) == len(right)

    def build() -> int:
        return subprocess.run(["sh", "build.sh"], cwd=root, capture_output=True, env=os.environ).returncode

    stock.write_text(wrong)
    assert build() != 0
    when = stock.stat().st_mtime_ns
    stock.write_text(right)
    os.utime(stock, ns=(when, when))  # the same modification time, the same size
    assert build() == 0, "the fix on disk is what runs"


def test_the_demo_wants_a_new_or_empty_directory(tmp_path: Path, cli) -> None:
    (tmp_path / "something").write_text("mine\n")
    result = cli("demo", "--dir", str(tmp_path))
    assert result.exit_code == 2 and "not an empty directory" in result.stderr
    assert [p.name for p in tmp_path.iterdir()] == ["something"]


def test_the_wheel_carries_the_demo_and_the_init_templates(tmp_path: Path, wheel: Path) -> None:
    """The README's first command installs the wheel and runs the demo: run it from the wheel alone."""
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        for path in [*DEMO.rglob("*")]:
            if path.is_file() and "__pycache__" not in path.parts:
                assert f"code_commit/cli/demo/{path.relative_to(DEMO).as_posix()}" in names
        assert archive.read("code_commit/templates/codeRollup.sh") == (REPO / "codeRollup.sh").read_bytes()
        archive.extractall(tmp_path / "site")
    # Only the wheel's files (and the installed dependencies): no source checkout on the path.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "CODE_COMMIT_", "CI"))}
    env["PYTHONPATH"] = str(tmp_path / "site")
    done = subprocess.run(
        [sys.executable, "-m", "code_commit", "demo", "--dir", str(tmp_path / "demo")],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "build passes" in done.stderr
    where = subprocess.run(
        [sys.executable, "-c", "import code_commit; print(code_commit.__file__)"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert where.stdout.startswith(str(tmp_path / "site"))


def test_quiet_demo_shows_only_warnings_and_errors(tmp_path: Path, cli) -> None:
    result = cli("demo", "-q", "--dir", str(tmp_path / "demo"))
    assert result.exit_code == 0, result.stderr
    assert "diff --git" not in result.stderr and "self.items" not in result.stderr
    others = [line for line in result.stderr.splitlines() if "warning:" not in line and "error:" not in line]
    assert others == [f"demo project: {tmp_path / 'demo'}"], "only where the project is"
