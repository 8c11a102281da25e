"""Model providers. Each turns a `Prompt` into a `Completion`; only the one in use is imported."""

from __future__ import annotations

from ..errors import SetupError
from ..settings import ApiKey, Settings
from .base import Completion, Provider, Usage

__all__ = ["Completion", "Provider", "Usage", "make_provider"]


def make_provider(settings: Settings, key: ApiKey) -> Provider:
    if settings.provider == "anthropic":
        from .anthropic_api import AnthropicProvider

        return AnthropicProvider(settings, key)
    raise SetupError(f"unknown provider {settings.provider!r}")
