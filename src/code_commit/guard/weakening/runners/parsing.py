"""Reading the runners' configuration files: commands as a shell splits them, TOML, text."""

from __future__ import annotations

import shlex
import tomllib
from typing import Any


def split_command(text: str) -> list[str]:
    try:
        return shlex.split(text, comments=True)
    except ValueError:
        return text.split()


def read_toml(data: bytes | None) -> dict[str, Any] | None:
    if data is None:
        return {}
    try:
        return tomllib.loads(data.decode("utf-8", "replace"))
    except tomllib.TOMLDecodeError:
        return None


def text_of(data: bytes | None) -> str | None:
    return None if data is None else data.decode("utf-8", "replace")
