"""Model providers. Each turns a `Prompt` into a `Completion`; only the one in use is imported."""

from __future__ import annotations

import os

from ..errors import SetupError
from ..settings import ApiKey, Settings
from .base import Completion, Hooks, Provider, Tally, Usage

__all__ = ["Completion", "Hooks", "Provider", "Tally", "Usage", "make_provider"]


def make_provider(settings: Settings, key: ApiKey, hooks: Hooks | None = None) -> Provider:
    if settings.provider == "anthropic":
        from .anthropic_api import AnthropicProvider

        return AnthropicProvider(settings, key, hooks)
    if settings.provider == "openai":
        from .openai_api import OpenAIProvider

        return OpenAIProvider(settings, key, hooks, base_url=settings.base_url or os.environ.get("OPENAI_BASE_URL"))
    raise SetupError(f"unknown provider {settings.provider!r}")
