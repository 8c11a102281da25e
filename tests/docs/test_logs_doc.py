"""docs/logs.md against the code: every name the run folder's layout declares has its row, and
every file a real run writes is one the page describes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from code_commit.logs import run_folder

from fakeapi import FakeAPI
from support.inventory import inventory_project

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "logs.md").read_text()
IN_A_JOURNAL = {run_folder.MANIFEST, run_folder.CONFLICTS, run_folder.SAVED_ORIGINAL}


def documented() -> list[re.Pattern[str]]:
    """Each table row's file name as a pattern: `NN` is a call's two digits, a trailing `/` a folder."""
    names = re.findall(r"^\| `([^`]+)` \|", PAGE, flags=re.MULTILINE)
    return [re.compile(re.escape(name.rstrip("/")).replace("NN", r"\d\d")) for name in names]


def described(name: str) -> bool:
    return any(pattern.fullmatch(name) for pattern in documented())


def test_every_name_of_the_run_folder_has_its_row() -> None:
    declared = {
        value
        for key, value in vars(run_folder).items()
        if key.isupper() and isinstance(value, str) and value not in IN_A_JOURNAL and not value.startswith("-")
    }
    assert len(declared) > 15, "the layout's names were read"
    per_call = {
        run_folder.QUERY,
        run_folder.RESPONSE,
        run_folder.RAW_RESPONSE,
        run_folder.THINKING,
        run_folder.USAGE,
        run_folder.REVIEW,
        run_folder.CHANGES_DIFF,
        run_folder.REFUSED,
        run_folder.BUILD_LOG,
        run_folder.JOURNAL,
        run_folder.HELD_JOURNAL,
        run_folder.NEW_TESTS_BUILD_LOG,
    }
    missing = [name for name in sorted(declared) if not described(f"07-{name}" if name in per_call else name)]
    assert missing == []
    for name in IN_A_JOURNAL:
        assert f"`{name.split('{')[0]}" in PAGE, name


def test_a_real_runs_folder_holds_only_what_the_page_describes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, api: FakeAPI, cli
) -> None:
    root = inventory_project(tmp_path / "project")
    monkeypatch.chdir(root)
    stock = (root / "inventory" / "stock.py").read_text()
    api.reply("^^^../outside.py\nx = 1\n^^^end\n")  # refused: 01-refused.txt
    api.reply(f"^^^inventory/stock.py\n{stock.replace('have + count', 'have - count')}^^^end\n")

    result = cli()

    assert result.exit_code == 0, result.stderr
    (run,) = (root / "agent-config" / "logs").iterdir()
    written = sorted(path.name for path in run.iterdir())
    for expected in ("00-build.txt", "01-query.txt", "01-refused.txt", "02-build.txt", "run.log", "summary.json"):
        assert expected in written
    assert [name for name in written if not described(name)] == []
