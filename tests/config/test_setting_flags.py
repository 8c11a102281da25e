"""Each setting is declared once, in settings.Settings: its flag, the flag's help and default, its
environment variable and its config key all come from that one declaration."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest

from code_commit.config.settings import Settings

from support import Project

FLAGGED = [f for f in dataclasses.fields(Settings) if f.metadata["flag"]]
TEXT = {
    "provider": "openai",
    "model": "claude-x",
    "prompt_order": "cache",
    "sandbox": "off",
    "tests": "report",
    "stale_rollup": "refuse",
}
LISTS = {"sandbox_readable": ["/tmp/tools-a", "/tmp/tools-b"]}  # only folders under /tmp can be shown


def flag(f: dataclasses.Field) -> str:
    return "--" + f.name.replace("_", "-")


def other_value(f: dataclasses.Field) -> tuple[list[str], Any]:
    """Arguments giving setting `f` a value that is not its default, and that value."""
    default = f.default
    if default is False and f.type != "bool":  # a switch that may name what it is on for: names
        return [flag(f), "pypi", flag(f), "*.example.com"], ["pypi", "*.example.com"]
    if default is False:
        return [flag(f)], True
    if f.default is dataclasses.MISSING:  # a list
        first, second = LISTS.get(f.name, ["/var/tmp", "/srv/cache"])
        return [flag(f), first, flag(f), second], [first, second]
    if default is None:
        example = f.metadata["example"]
        return [flag(f), str(example)], example
    if isinstance(default, str):
        return [flag(f), TEXT[f.name]], TEXT[f.name]
    return [flag(f), str(default + 1)], default + 1


def test_every_setting_flag_sets_its_setting(project: Project, cli) -> None:
    args = [arg for f in FLAGGED for arg in other_value(f)[0]]
    result = cli(*args, "config", "--json")
    assert result.exit_code == 0, result.output
    shown = json.loads(result.stdout)["settings"]
    for f in FLAGGED:
        assert shown[f.name] == {"value": other_value(f)[1], "source": "flag"}, f.name
    assert len(FLAGGED) >= 14


def words(text: str) -> str:
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("setting", FLAGGED, ids=lambda f: f.name)
def test_each_setting_flag_s_help_is_its_doc_and_default(cli, setting: dataclasses.Field) -> None:
    shown = words(cli("--help").stdout)
    assert words(setting.metadata["doc"]).removesuffix(".") in shown  # a list's flag adds "(repeatable)."
    default = setting.default
    if default not in (None, dataclasses.MISSING) and not isinstance(default, bool):
        number = int(default) if isinstance(default, float) and default.is_integer() else default
        assert f"{words(setting.metadata['doc'])} [default: {number}]" in shown


def test_a_rollup_option_s_help_names_its_setting_and_default(cli) -> None:
    shown = words(cli("rollup", "--help").stdout)
    assert f"(setting rollup_budget). [default: {Settings().rollup_budget}]" in shown
    assert f"(setting rollup_max_file_size). [default: {Settings().rollup_max_file_size}]" in shown


def test_a_bad_rollup_option_names_its_setting_and_where_it_came_from(project: Project, cli) -> None:
    result = cli("rollup", "--budget", "5")
    assert result.exit_code == 2
    assert "setting rollup_budget (from flag): must be 0 (no limit) or at least 1,000 tokens" in result.stderr


def test_each_setting_flag_is_in_the_docs_flags_table_with_its_setting() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text()
    rows = page.split("## Commands and flags", 1)[1].split("\n## ", 1)[0].splitlines()
    for f in FLAGGED:
        (row,) = [row for row in rows if re.match(rf"\| `{flag(f)}[ `]", row)]
        assert f"setting `{f.name}`" in row, f.name


def test_each_setting_s_default_in_the_docs_is_its_declared_default() -> None:
    from code_commit.cli.config_report import toml_value

    page = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text()
    rows = page.split("## Settings", 1)[1].split("\n## ", 1)[0].splitlines()
    for f in dataclasses.fields(Settings):
        if f.name == "model":
            continue  # "a current Sonnet-class id": the docs do not pin the model
        default = f.default_factory() if f.default is dataclasses.MISSING else f.default
        (row,) = [row for row in rows if row.startswith(f"| `{f.name}` |")]
        assert row.split(" | ")[1] == ("unset" if default is None else f"`{toml_value(default)}`"), f.name


ROLLUP_OPTIONS = {"rollup_budget": "rollup --budget", "rollup_max_file_size": "rollup --max-file-size"}


def test_each_setting_s_row_in_the_docs_names_its_variable_and_its_flag() -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "configuration.md").read_text()
    rows = page.split("## Settings", 1)[1].split("\n## ", 1)[0].splitlines()
    for f in dataclasses.fields(Settings):
        (row,) = [row for row in rows if row.startswith(f"| `{f.name}` |")]
        named = flag(f) if f.metadata["flag"] else ROLLUP_OPTIONS.get(f.name)
        assert row.split(" | ")[2:4] == [f"`CODE_COMMIT_{f.name.upper()}`", f"`{named}`" if named else "none"], f.name
