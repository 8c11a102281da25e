"""Model providers. Each turns a `Prompt` into a `Completion`; only the one in use is imported."""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable

from code_commit.config.keys import ApiKey
from code_commit.config.settings import Settings
from code_commit.errors import SetupError
from code_commit.llm.base import Completion, Hooks, Provider, Tally, Usage
from code_commit.llm.catalog import ModelInfo
from code_commit.llm.endpoint import Endpoint, resolve_endpoint
from code_commit.providers import PROVIDERS

__all__ = ["Completion", "Hooks", "Provider", "Tally", "Usage", "make_provider"]


def make_provider(
    settings: Settings,
    key: ApiKey | None,
    hooks: Hooks | None = None,
    endpoint: Endpoint | None = None,
    model: ModelInfo | None = None,
) -> Provider:
    """key: None is none at all, sent as no key (as `resolve_api_key(optional=True)` gives it).
    endpoint: as resolved with the setup, with its source; else from the settings and environment.
    model: what the catalog knows of the model (what it takes); None knows nothing."""
    if key is None:
        key = ApiKey("", "no key given")
    if endpoint is None:
        endpoint = resolve_endpoint(settings.provider, settings.base_url, "the base_url setting", os.environ, settings)
    model = model or ModelInfo(settings.model)
    entry = PROVIDERS.get(settings.provider)
    if entry is None:
        raise SetupError(f"unknown provider {settings.provider!r}")
    module, _, name = entry.client.partition(":")
    client: Callable[..., Provider] = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    return client(settings, key, hooks, endpoint, model)
