"""Where each provider's credentials come from: the one place that names the variables and key files
a key is read from, censored under, and kept out of every child process (git, bwrap, build.sh)."""

from __future__ import annotations

KEY_FILES = {"anthropic": "anthropic-api-key", "openai": "openai-api-key"}  # under agent-config/
KEY_ENV = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}
# Every variable a provider's SDK reads a credential from.
PROVIDER_ENV = (*KEY_ENV.values(), "ANTHROPIC_AUTH_TOKEN")
