"""The API key: from the provider's environment variable, else its key file in agent-config/; and
when a run may go without one. Never shown but through its source (`ApiKey.source`)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from code_commit.config.paths import CONFIG_DIR
from code_commit.config.settings import Settings
from code_commit.credentials import KEY_ENV, KEY_FILE_BYTES, KEY_FILES
from code_commit.errors import SetupError
from code_commit.files.setup_files import read_setup_file
from code_commit.providers import PROVIDERS

_MIN_KEY_LENGTH = 8


@dataclass(frozen=True)
class ApiKey:
    value: str
    source: str  # where it came from, for messages: never the key itself
    # Other secrets of the same credentials (a cloud's secret key and session token), censored as the key.
    also_censored: tuple[str, ...] = ()

    @property
    def censored(self) -> tuple[str, ...]:
        """Every secret these credentials hold, for the run's censor."""
        return (self.value, *self.also_censored)

    def __repr__(self) -> str:  # keeps the key out of tracebacks and debug output
        return f"ApiKey(source={self.source!r})"


def key_is_optional(settings: Settings, env: Mapping[str, str]) -> bool:
    """Only an OpenAI-compatible server of the user's choosing (llama.cpp, Ollama) may need no key;
    the default endpoint of either provider always does."""
    entry = PROVIDERS.get(settings.provider)
    return entry is not None and entry.any_server and bool(settings.base_url or env.get(entry.url_env))


def resolve_api_key(root: Path, provider: str, env: Mapping[str, str] | None = None, optional: bool = False) -> ApiKey:
    """The key from the provider's environment variable, else from its file in agent-config/.

    optional: with neither, return an empty key (sent as no key at all) instead of failing."""
    env = os.environ if env is None else env
    var = KEY_ENV[provider]
    key_file = root / CONFIG_DIR / KEY_FILES[provider]
    raw = None if env.get(var, "").strip() else read_setup_file(key_file, "the key file", KEY_FILE_BYTES)
    if env.get(var, "").strip():
        key = ApiKey(env[var].strip(), f"environment variable {var}")
    elif raw is not None:
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise SetupError(f"cannot read the key file {key_file}: {exc}") from exc
        key = ApiKey(text.strip(), f"key file {CONFIG_DIR}/{KEY_FILES[provider]}")
        if not key.value:
            raise SetupError(f"the key file {key_file} is empty. Put your {provider} API key in it.")
    elif optional:
        return ApiKey("", f"no key configured (neither {var} nor {CONFIG_DIR}/{KEY_FILES[provider]})")
    else:
        raise SetupError(
            f"no API key configured for {provider}. Set {var}, or write the key to "
            f"{CONFIG_DIR}/{KEY_FILES[provider]} (agent-config/ is git-ignored)."
        )
    if len(key.value) < _MIN_KEY_LENGTH or any(ch.isspace() or ord(ch) < 32 for ch in key.value):
        raise SetupError(
            f"the API key from {key.source} does not look like a key: it must be at least "
            f"{_MIN_KEY_LENGTH} characters with no spaces or control characters."
        )
    return key
