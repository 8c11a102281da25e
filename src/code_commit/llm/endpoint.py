"""Where the model service is, and who said so: every connection error names both.

Light on purpose (no SDK): the endpoint is resolved and checked with the setup, before any call.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from code_commit.config.settings import Settings
from code_commit.errors import SetupError
from code_commit.providers import PROVIDERS, TABLE

# A cloud's default depends on the region (the SDK's clients compute the same).
_DEFAULT_URLS = {p.name: p.default_url for p in TABLE}
_URL_ENV = {p.name: p.url_env for p in TABLE}
_REGION_ENV = {p.name: p.region_env for p in TABLE if p.region_env}
_REGION = re.compile(r"[a-z0-9-]{2,32}")


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


def cloud_region(provider: str, settings: Settings, env: Mapping[str, str] | None = None) -> str:
    """Bedrock's or Vertex's region: the cloud_region setting, else the cloud's variables, else (Bedrock)
    the AWS profile's. SetupError when there is none, or it cannot be part of a host name."""
    env = os.environ if env is None else env
    region = settings.cloud_region or next(
        (env[v].strip() for v in _REGION_ENV[provider] if env.get(v, "").strip()), ""
    )
    if not region and provider == "bedrock":
        from code_commit.llm.cloud import profile_region

        region = profile_region() or ""
    if not region:
        where = " or ".join(_REGION_ENV[provider]) + (" (or the AWS profile's region)" if provider == "bedrock" else "")
        raise SetupError(f"{provider} needs a region: set cloud_region in agent-config/config.toml, or {where}")
    if not _REGION.fullmatch(region):
        raise SetupError(f"the {provider} region {region!r} is not a region name (like us-east-1 or us-east5)")
    return region


def resolve_endpoint(
    provider: str,
    base_url: str | None,
    setting_source: str,
    env: Mapping[str, str],
    settings: Settings | None = None,
) -> Endpoint:
    """The endpoint a run will call: the base_url setting, else the provider's environment variable,
    else its default (for a cloud, in the region `settings` gives). setting_source is
    `LoadedSettings.sources["base_url"]`. A URL no client can call is a SetupError naming it and its
    source."""
    if base_url:
        where = {"flag": "the --base-url flag", "config file": "agent-config/config.toml (base_url)"}
        source = where.get(setting_source) or setting_source.replace("env ", "environment variable ", 1)
        endpoint = Endpoint(base_url, source)
    elif env.get(_URL_ENV[provider], "").strip():
        endpoint = Endpoint(env[_URL_ENV[provider]].strip(), f"environment variable {_URL_ENV[provider]}")
    elif provider in _REGION_ENV:
        region = cloud_region(provider, settings or Settings(provider=provider), env)
        url = dict(PROVIDERS[provider].region_urls).get(region, _DEFAULT_URLS[provider])
        endpoint = Endpoint(url.format(region=region), f"the {provider} default for {region}")
    else:
        endpoint = Endpoint(_DEFAULT_URLS[provider], f"the {provider} default")
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
