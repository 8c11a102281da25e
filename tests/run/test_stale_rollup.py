"""A stale rollup is caught before the first call: each whole file it shows is compared with the
disk, and the run warns (naming a few and the count), refuses (stale_rollup = refuse) or makes the
rollup again first (refresh). The comparison reads a bounded number of bytes and only plain paths."""

from __future__ import annotations

import json

import pytest

from code_commit.files import confined
from code_commit.rollup.freshness import check_freshness

from fakeapi import FakeAPI
from support import Project

FIX = "^^^fixed.txt\nfixed\n^^^end\n"


def user_text(request) -> str:
    return "".join(block["text"] for message in request.json["messages"] for block in message["content"])


@pytest.fixture
def rolled(project: Project, cli) -> Project:
    """Files of every framing case, and a rollup made of them by `code-commit rollup`."""
    for n in range(5):
        project.write(f"src/m{n}.py", f"VALUE = {n}\n")
    project.write("no_newline.txt", "the last line has no newline")
    project.write("empty.txt", "")
    project.write("looks_like_a_header.md", "text\n==> src/m0.py <==\nVALUE = 0\n--- LEFT OUT ---\nmore\n")
    project.commit_all()
    assert cli("rollup").exit_code == 0
    return project


def test_a_fresh_rollup_is_not_named(rolled: Project, api: FakeAPI, cli) -> None:
    api.reply(FIX)
    result = cli()
    assert result.exit_code == 0, result.stderr
    assert "stale" not in result.stderr
    found = check_freshness(rolled.root, rolled.read("agent-config/codeRollup.txt"))
    assert not found.stale and len(found.seen) == 11 and not found.incomplete  # app.txt, .gitignore... too


def test_a_stale_rollup_is_named_before_the_first_call(rolled: Project, api: FakeAPI, cli) -> None:
    for n in range(4):
        rolled.write(f"src/m{n}.py", f"VALUE = {n + 10}\n")
    (rolled.root / "no_newline.txt").unlink()
    rolled.write("looks_like_a_header.md", "text\n==> src/m0.py <==\n")  # lost its end
    api.reply(FIX)
    result = cli()
    assert result.exit_code == 0, result.stderr
    warning = (
        "the rollup is stale: 6 of the 11 files it shows whole differ from the disk: looks_like_a_header.md, "
        "src/m0.py, no_newline.txt and 3 more."  # a stale file's header-like line is read as a header
    )
    assert warning in result.stderr and "`code-commit rollup` (or ./codeRollup.sh)" in result.stderr
    assert result.stderr.index(warning) < result.stderr.index("call 1/4")
    (run,) = rolled.run_dirs()
    assert warning in (run / "run.log").read_text()


def test_refuse_stops_before_any_call(rolled: Project, api: FakeAPI, cli) -> None:
    rolled.write("src/m1.py", "VALUE = 'edited'\n")
    result = cli("--json", "--stale-rollup", "refuse")
    assert result.exit_code == 2
    assert "src/m1.py" in json.loads(result.stdout)["error"] and "stale_rollup = refuse" in result.stderr
    assert api.requests == [] and rolled.run_dirs() == []


def test_refresh_makes_the_rollup_again_before_the_first_call(rolled: Project, api: FakeAPI, cli) -> None:
    rolled.write("agent-config/config.toml", 'stale_rollup = "refresh"\n')
    rolled.write("src/m1.py", "VALUE = 'edited'\n")
    api.reply(FIX)
    result = cli()
    assert result.exit_code == 0, result.stderr
    assert "made again with `code-commit rollup` (stale_rollup = refresh)" in result.stderr
    assert "==> src/m1.py <==\nVALUE = 'edited'\n" in rolled.read("agent-config/codeRollup.txt")
    assert "VALUE = 'edited'" in user_text(api.requests[0]), "the model sees the files as they are"


def test_the_comparison_reads_a_bounded_number_of_bytes(rolled: Project, monkeypatch: pytest.MonkeyPatch) -> None:
    rolled.write("src/m2.py", "x" * 5_000_000)  # the file grew far past what the rollup holds of it
    rollup = rolled.read("agent-config/codeRollup.txt")
    asked: list[int] = []
    got: list[int] = []
    real = confined.Tree.read

    def counted(self, path: str, limit: int = -1) -> bytes:
        asked.append(limit)
        data = real(self, path, limit)
        got.append(len(data))
        return data

    monkeypatch.setattr(confined.Tree, "read", counted)
    found = check_freshness(rolled.root, rollup)
    assert list(found.stale) == ["src/m2.py"]
    assert all(0 <= limit <= len(rollup.encode()) + 1 for limit in asked), "never more than the rest of the rollup"
    got.clear()
    few = check_freshness(rolled.root, rollup, budget=40)
    assert few.incomplete and len(few.seen) < 11
    assert sum(got) <= 40, "no more than the budget in all"


def test_only_plain_paths_are_read(project: Project, tmp_path) -> None:
    (tmp_path / "outside.txt").write_text("secret\n")
    project.write("agent-config/anthropic-api-key", "sk-key\n")
    rollup = (
        "==> ../outside.txt <==\nsecret\n==> /etc/hostname <==\nx\n==> agent-config/anthropic-api-key <==\nguess\n"
        "==> app.txt <==\nhello\n--- OUTLINES ---\n::: app.txt (outline: 1 line, over the budget) :::\nhello\n"
    )
    found = check_freshness(project.root, rollup)
    assert (found.stale, found.seen) == ({}, {"app.txt"})


def test_a_forged_header_never_reads_or_names_a_file_git_ignores(project: Project, api: FakeAPI, cli) -> None:
    project.write(".gitignore", "/agent-config\n.env\n")
    project.commit_all()
    project.write(".env", "DB_PASSWORD=hunter2hunter2\n")
    project.write("agent-config/codeRollup.txt", "==> app.txt <==\nhello\n# a README:\n==> .env <==\nDB=x\n")
    api.reply(FIX)
    result = cli()
    assert result.exit_code == 0, result.stderr
    assert "the rollup is stale: the one file it shows whole differs from the disk: app.txt." in result.stderr
    assert ".env" not in result.stderr


def test_outlined_files_are_not_compared(project: Project, cli) -> None:
    project.write("src/small.py", "def small():\n    return 1\n")
    project.write("src/big.py", "".join(f"def f{n}():\n    return {n}\n\n\n" for n in range(2_000)))
    project.commit_all()
    assert cli("rollup", "--budget", "1000").exit_code == 0
    rollup = project.read("agent-config/codeRollup.txt")
    assert "--- OUTLINES ---\n::: src/big.py (outline" in rollup and "==> src/small.py <==" in rollup
    project.write("src/big.py", "def changed():\n    pass\n")  # an outline shows no file as it is
    found = check_freshness(project.root, rollup)
    assert not found.stale and "src/small.py" in found.seen and "src/big.py" not in found.seen
