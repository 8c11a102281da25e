"""Reading the runners' configuration files: commands as a shell splits them, TOML, text."""

from __future__ import annotations

import tomllib
from typing import Any

from code_commit.git.config_files import split_command

__all__ = ["read_toml", "split_command", "text_of"]


def read_toml(data: bytes | None) -> dict[str, Any] | None:
    if data is None:
        return {}
    try:
        return tomllib.loads(data.decode("utf-8", "replace"))
    except tomllib.TOMLDecodeError:
        return None


def text_of(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", "replace")
