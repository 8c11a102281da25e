"""Where the model service is, and who said so: every connection error names both.

Light on purpose (no SDK): the endpoint is resolved and checked with the setup, before any call.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from code_commit.errors import SetupError

DEFAULT_URLS = {"anthropic": "https://api.anthropic.com", "openai": "https://api.openai.com/v1"}
URL_ENV = {"anthropic": "ANTHROPIC_BASE_URL", "openai": "OPENAI_BASE_URL"}


@dataclass(frozen=True)
class Endpoint:
    url: str  # as configured: the provider's client gets exactly this
    source: str  # where it came from, in words: "the --base-url flag", "environment variable X", ...

    @property
    def host(self) -> str:
        """host[:port]: never a user name or password a URL may carry."""
        parts = urlsplit(self.url)
        host = parts.hostname or ""
        host = f"[{host}]" if ":" in host else host
        return host if parts.port is None else f"{host}:{parts.port}"

    @property
    def shown(self) -> str:
        """The URL for messages and logs: no user name or password, no query."""
        return _without_credentials(self.url)

    def describe(self) -> str:
        return f"{self.shown} (from {self.source})"


def resolve_endpoint(provider: str, base_url: str | None, setting_source: str, env: Mapping[str, str]) -> Endpoint:
    """The endpoint a run will call: the base_url setting, else the provider's environment variable,
    else its default. setting_source is `LoadedSettings.sources["base_url"]`. A URL no client can
    call is a SetupError naming it and its source."""
    if base_url:
        where = {"flag": "the --base-url flag", "config file": "agent-config/config.toml (base_url)"}
        source = where.get(setting_source) or setting_source.replace("env ", "environment variable ", 1)
        endpoint = Endpoint(base_url, source)
    elif env.get(URL_ENV[provider], "").strip():
        endpoint = Endpoint(env[URL_ENV[provider]].strip(), f"environment variable {URL_ENV[provider]}")
    else:
        endpoint = Endpoint(DEFAULT_URLS[provider], f"the {provider} default")
    try:
        parts = urlsplit(endpoint.url)
        usable = parts.scheme in ("http", "https") and bool(parts.hostname) and (parts.port or 1) > 0
    except ValueError:  # a port that is not a number, a bracket left open
        usable = False
    if not usable:
        raise SetupError(
            f"the {provider} endpoint {_without_credentials(endpoint.url)!r} (from {endpoint.source}) is not a "
            "URL code-commit can call: give one like https://host or http://127.0.0.1:4000"
        )
    return endpoint


def _without_credentials(url: str) -> str:
    return re.sub(r"(?<=//)[^/@]*@", "", url.split("?", 1)[0])
