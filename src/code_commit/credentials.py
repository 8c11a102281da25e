"""Where each provider's credentials come from: the one place that names the variables and key files
a key is read from, censored under, and kept out of every child process (git, bwrap, build.sh)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from code_commit.providers import CLOUD, KEY, TABLE

KEY_FILES = {p.name: p.key_file for p in TABLE if p.credentials == KEY and p.key_file}  # under agent-config/
KEY_ENV = {p.name: p.key_env for p in TABLE if p.credentials == KEY and p.key_env}
# Claude through a cloud: the cloud's own credential chain, not a key of code-commit's.
CLOUD_PROVIDERS = tuple(p.name for p in TABLE if p.credentials == CLOUD)
# The clouds' credential variables: secrets, or where to fetch one (a container's credentials URL).
_CLOUD_ENV = (
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_SECURITY_TOKEN",
    "AWS_BEARER_TOKEN_BEDROCK",
    "AWS_CONTAINER_AUTHORIZATION_TOKEN",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "GOOGLE_OAUTH_ACCESS_TOKEN",
    "CLOUDSDK_AUTH_ACCESS_TOKEN",
)
# Variables that only name a credentials file: kept out of child processes, but not censored (a path).
CLOUD_FILE_ENV = ("AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_SHARED_CREDENTIALS_FILE", "GOOGLE_APPLICATION_CREDENTIALS")
# Every variable a provider's SDK reads a credential from.
PROVIDER_ENV = (*KEY_ENV.values(), "ANTHROPIC_AUTH_TOKEN", *_CLOUD_ENV)
# ... and every one kept out of a child process.
CHILD_SCRUBBED_ENV = (*PROVIDER_ENV, *CLOUD_FILE_ENV)
KEY_FILE_BYTES = 64 << 10  # a key file is read up to this much: a key is a few hundred bytes


def cloud_credential_folders(env: Mapping[str, str] | None = None) -> tuple[Path, ...]:
    """The folders the clouds' command-line tools keep credentials in (~/.aws, gcloud's configuration):
    a sandboxed build sees them empty."""
    env = os.environ if env is None else env
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    gcloud = env.get("CLOUDSDK_CONFIG", "").strip()
    return (home / ".aws", Path(gcloud).expanduser() if gcloud else home / ".config" / "gcloud")
