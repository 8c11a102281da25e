"""The wheel ships the system prompts, the price table and the record's JSON Schema, so `pip install .`
works outside the checkout and a script can validate the record against the installed package's schema."""

from __future__ import annotations

import zipfile
from pathlib import Path

from code_commit.llm.prompts import PROMPT_FILES

REPO = Path(__file__).resolve().parents[2]


def test_wheel_contains_the_system_prompts_and_the_console_script(wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        for filename in PROMPT_FILES.values():
            packaged = f"code_commit/system_prompts/{filename}"
            assert packaged in names
            assert archive.read(packaged) == (REPO / "system_prompts" / filename).read_bytes()
        price_table = REPO / "src" / "code_commit" / "llm" / "models.toml"
        assert archive.read("code_commit/llm/models.toml") == price_table.read_bytes()
        for schema in ("events.schema.json", "record.schema.json"):
            shipped = REPO / "src" / "code_commit" / "schemas" / schema
            assert archive.read(f"code_commit/schemas/{schema}") == shipped.read_bytes()
        entry_points = next(n for n in names if n.endswith("entry_points.txt"))
        assert "code-commit = code_commit.cli.app:main" in archive.read(entry_points).decode()
