"""The provider protocol and the typed results every provider returns."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from ..prompts import Prompt


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_write_tokens: int = 0
    cache_read_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_write_tokens + other.cache_write_tokens,
            self.cache_read_tokens + other.cache_read_tokens,
        )


@dataclass(frozen=True)
class Completion:
    text: str
    stop_reason: str
    usage: Usage
    duration: float


class Provider(Protocol):
    def complete(self, prompt: Prompt, on_text: Callable[[str], None] | None = None) -> Completion:
        """Send the prompt; return the whole answer. Raise ServiceError when the service fails."""
        ...
