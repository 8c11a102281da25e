"""Settings precedence (defaults < config file < env < flags), validation, and API-key sources."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from code_commit.config.keys import resolve_api_key
from code_commit.config.settings import DEFAULT_MODEL, Flags, load_settings
from code_commit.errors import SetupError


def write_config(root: Path, text: str) -> None:
    (root / "agent-config").mkdir(exist_ok=True)
    (root / "agent-config" / "config.toml").write_text(text)


def test_defaults(tmp_path: Path) -> None:
    loaded = load_settings(tmp_path, env={})
    assert loaded.settings.model == DEFAULT_MODEL
    assert set(loaded.sources.values()) == {"default"}


def test_precedence_flags_over_env_over_file_over_defaults(tmp_path: Path) -> None:
    write_config(tmp_path, 'model = "from-file"\nmax_tokens = 100\nbuild_timeout = 5\n')
    env = {"CODE_COMMIT_MODEL": "from-env", "CODE_COMMIT_MAX_TOKENS": "200"}
    loaded = load_settings(tmp_path, env=env, flags=Flags.of(model="from-flag", max_tokens=None))
    assert loaded.settings.model == "from-flag"
    assert loaded.settings.max_tokens == 200
    assert loaded.settings.build_timeout == 5.0
    assert loaded.sources["model"] == "flag"
    assert loaded.sources["max_tokens"] == "env CODE_COMMIT_MAX_TOKENS"
    assert loaded.sources["build_timeout"] == "config file"


@pytest.mark.parametrize(
    ("config", "env", "fragment"),
    [
        ("model = [1\n", {}, "not valid TOML"),
        ("colour = 1\n", {}, "unknown setting 'colour'"),
        ("max_tokens = 'many'\n", {}, "bad value 'many' for max_tokens"),
        ("max_tokens = true\n", {}, "bad value true for max_tokens"),
        ("", {"CODE_COMMIT_BUILD_TIMEOUT": "soon"}, "CODE_COMMIT_BUILD_TIMEOUT"),
        ("max_repairs = 4\n", {}, "between 0 and 3"),
        ("provider = 'gemini'\n", {}, "must be one of"),
    ],
)
def test_bad_values_name_their_source(tmp_path: Path, config: str, env: dict[str, str], fragment: str) -> None:
    write_config(tmp_path, config)
    with pytest.raises(SetupError) as caught:
        load_settings(tmp_path, env=env)
    assert fragment in str(caught.value)


def test_key_from_env_wins_over_file(tmp_path: Path) -> None:
    write_config(tmp_path, "")
    (tmp_path / "agent-config" / "anthropic-api-key").write_text("file-key-0123456789\n")
    key = resolve_api_key(tmp_path, "anthropic", {"ANTHROPIC_API_KEY": "env-key-0123456789"})
    assert (key.value, key.source) == ("env-key-0123456789", "environment variable ANTHROPIC_API_KEY")
    key = resolve_api_key(tmp_path, "anthropic", {})
    assert (key.value, key.source) == ("file-key-0123456789", "key file agent-config/anthropic-api-key")
    assert "0123456789" not in repr(key)


@pytest.mark.parametrize(
    ("file_text", "fragment"),
    [
        (None, "no API key configured"),
        ("\n", "is empty"),
        ("short", "does not look like a key"),
        ("has space in it", "does not look like a key"),
    ],
)
def test_bad_or_missing_keys(tmp_path: Path, file_text: str | None, fragment: str) -> None:
    write_config(tmp_path, "")
    if file_text is not None:
        (tmp_path / "agent-config" / "anthropic-api-key").write_text(file_text)
    with pytest.raises(SetupError) as caught:
        resolve_api_key(tmp_path, "anthropic", {})
    assert fragment in str(caught.value)


def test_edit_block_thresholds_and_the_deletion_policy(tmp_path: Path) -> None:
    loaded = load_settings(tmp_path, env={})
    assert (loaded.settings.edit_threshold_lines, loaded.settings.edit_threshold_bytes) == (500, 15000)
    assert loaded.settings.allow_delete is True
    write_config(tmp_path, "allow_delete = false\nedit_threshold_lines = 300\n")
    loaded = load_settings(tmp_path, env={"CODE_COMMIT_EDIT_THRESHOLD_BYTES": "8000"})
    assert loaded.settings.allow_delete is False
    assert (loaded.settings.edit_threshold_lines, loaded.settings.edit_threshold_bytes) == (300, 8000)
    assert load_settings(tmp_path, env={"CODE_COMMIT_ALLOW_DELETE": "yes"}).settings.allow_delete is True


@pytest.mark.parametrize(
    ("config", "fragment"),
    [
        ("edit_threshold_lines = 0\n", "edit_threshold_lines (from config file): must be at least 1"),
        ("edit_threshold_bytes = -5\n", "edit_threshold_bytes (from config file): must be at least 1"),
        ("allow_delete = 'no'\n", "bad value 'no' for allow_delete"),
    ],
)
def test_bad_edit_settings(tmp_path: Path, config: str, fragment: str) -> None:
    write_config(tmp_path, config)
    with pytest.raises(SetupError, match=re.escape(fragment)):
        load_settings(tmp_path, env={})
