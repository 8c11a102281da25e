"""End to end: a small real project whose build runs real unit tests, broken at the start, is
repaired by scripted answers through `code-commit`, the real SDK and the fake service."""

from __future__ import annotations

from pathlib import Path

import pytest

from fakeapi import FakeAPI
from support import git
from support.inventory import SAMPLE, inventory_project

STOCK = (SAMPLE / "inventory" / "stock.py").read_text()
WRONG_FIX = STOCK.replace("self.items[name] = have + count", "self.items[name] = have")
RIGHT_FIX = STOCK.replace("self.items[name] = have + count", "self.items[name] = have - count")


@pytest.fixture
def sample(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = inventory_project(tmp_path / "inventory-project")
    monkeypatch.chdir(root)
    return root


def test_a_broken_project_is_repaired(sample: Path, api: FakeAPI, cli) -> None:
    assert WRONG_FIX != STOCK != RIGHT_FIX
    api.reply(f"The sign is wrong; stop adding.\n^^^inventory/stock.py\n{WRONG_FIX}^^^end\n")
    api.reply(f"Subtract the count.\n^^^inventory/stock.py\n{RIGHT_FIX}^^^end\n")

    result = cli()

    assert result.exit_code == 0, result.stderr
    assert len(api.requests) == 2
    first_prompt = api.requests[0].prompt_text
    assert "==> inventory/stock.py <==" in first_prompt and "Fix Stock.remove." in first_prompt
    repair_prompt = api.requests[1].prompt_text
    assert "AssertionError: 3 != 1" in repair_prompt, "the real test failure reaches the model"
    assert f"--- FILE REPLACEMENT [inventory/stock.py] ---\n{WRONG_FIX}" in repair_prompt

    (run,) = sorted((sample / "agent-config" / "logs").iterdir())
    assert "FAILED (failures=1)" in (run / "01-build.txt").read_text()
    assert "exited with code 0" in (run / "02-build.txt").read_text()

    assert git(sample, "status", "--porcelain") == " M inventory/stock.py\n"
    diff = git(sample, "diff")
    assert "-        self.items[name] = have + count" in diff
    assert "+        self.items[name] = have - count" in diff
