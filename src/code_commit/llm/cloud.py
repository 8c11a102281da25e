"""Claude on AWS Bedrock and Google Vertex AI: whose credentials a run would use, in words and censored,
and the secret values among them, so that they are censored everywhere like an API key.

The SDK's own clients do the authenticating (anthropic.AnthropicBedrock signs with the AWS credential
chain through boto3; anthropic.AnthropicVertex fetches a token with Google's application default
credentials through google-auth). Here the same chains are asked who they would use: for AWS, boto3
itself (environment, profiles and their files, SSO, web identity, container and instance roles);
for Google, the file the application default credentials come from (GOOGLE_APPLICATION_CREDENTIALS,
else gcloud's), read without any network call, or else the metadata server of a Google Cloud machine.

Their packages are an optional extra: `pip install 'code-commit[bedrock]'` or `'code-commit[vertex]'`.
"""

from __future__ import annotations

import importlib
import json
import os
from collections.abc import Mapping
from pathlib import Path

from code_commit.config.keys import ApiKey, key_is_optional, resolve_api_key
from code_commit.config.redaction import censor
from code_commit.config.secrets import secret_forms
from code_commit.config.settings import Settings
from code_commit.credentials import CLOUD_PROVIDERS
from code_commit.errors import SetupError

_PACKAGES = {"bedrock": ("boto3", "botocore"), "vertex": ("google.auth",)}
_INSTALL = {provider: f"pip install 'code-commit[{provider}]'" for provider in _PACKAGES}
_BEDROCK_API_KEY_ENV = "AWS_BEARER_TOKEN_BEDROCK"
_VERTEX_PROJECT_ENV = "ANTHROPIC_VERTEX_PROJECT_ID"
_PROJECT_ENV = (_VERTEX_PROJECT_ENV, "GOOGLE_CLOUD_PROJECT", "GCLOUD_PROJECT")
_GOOGLE_CREDENTIALS_ENV = "GOOGLE_APPLICATION_CREDENTIALS"
# The secret fields of Google's credential files: service account, authorized user, external account.
_GOOGLE_SECRET_FIELDS = ("private_key", "private_key_id", "refresh_token", "client_secret")
# botocore's names for where credentials came from, in words.
_AWS_METHODS = {
    "env": "environment variables (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)",
    "shared-credentials-file": "the shared credentials file",
    "config-file": "the AWS config file",
    "sso": "AWS IAM Identity Center (SSO)",
    "assume-role": "an assumed role",
    "assume-role-with-web-identity": "a web identity token (OIDC) exchanged for a role",
    "container-role": "the container's role",
    "iam-role": "the instance's role (instance metadata)",
    "custom-process": "a credential_process",
    "explicit": "explicit credentials",
}


def require_packages(provider: str) -> None:
    """SetupError naming the install command when the cloud's packages are missing."""
    missing = [name for name in _PACKAGES[provider] if not _importable(name)]
    if missing:
        raise SetupError(
            f"provider {provider} needs {', '.join(missing)}, which is not installed: {_INSTALL[provider]} "
            "(in the environment code-commit runs from)"
        )


def _importable(name: str) -> bool:
    try:
        importlib.import_module(name)
    except ImportError:
        return False
    return True


def profile_region() -> str | None:
    """The region of the AWS profile in use (AWS_PROFILE or the default), if it names one."""
    require_packages("bedrock")
    import boto3  # type: ignore[import-untyped,import-not-found,unused-ignore]

    region = boto3.Session().region_name
    return str(region) if region else None


def vertex_project(settings: Settings, env: Mapping[str, str] | None = None) -> str | None:
    """The Vertex project: the vertex_project setting, else ANTHROPIC_VERTEX_PROJECT_ID, else the project
    google-auth would give (GOOGLE_CLOUD_PROJECT, GCLOUD_PROJECT, the credentials file's project_id).
    The SDK needs it before it loads the credentials (it is part of the URL)."""
    env = os.environ if env is None else env
    for value in (settings.vertex_project, *(env.get(name, "") for name in _PROJECT_ENV)):
        if value and value.strip():
            return value.strip()
    path = _google_file(env)[0]
    try:
        info = json.loads(path.read_bytes()) if path is not None else None
    except (OSError, ValueError):
        return None
    project = info.get("project_id") or info.get("quota_project_id") if isinstance(info, dict) else None
    return str(project) if isinstance(project, str) and project else None


def credentials(root: Path, settings: Settings, env: Mapping[str, str] | None = None) -> ApiKey:
    """What a run would authenticate with: the cloud's credential chain for Bedrock and Vertex, else
    the provider's key (none needed for a server of the user's choosing). SetupError when missing."""
    env = os.environ if env is None else env
    if settings.provider in CLOUD_PROVIDERS:
        return _cloud_key(settings, env)
    return resolve_api_key(root, settings.provider, env, optional=key_is_optional(settings, env))


def _cloud_key(settings: Settings, env: Mapping[str, str] | None = None) -> ApiKey:
    """The credentials a Bedrock or Vertex run would use: `value` a Bedrock API key if one is set (else
    empty: the request is signed), `source` who they are, censored, and `also_censored` every secret
    the chain holds. SetupError when the packages are missing or there are no credentials at all."""
    env = os.environ if env is None else env
    require_packages(settings.provider)
    if settings.provider == "bedrock":
        return _aws_key(env)
    return _google_key(settings, env)


def _aws_key(env: Mapping[str, str]) -> ApiKey:
    token = env.get(_BEDROCK_API_KEY_ENV, "").strip()
    if token:
        return ApiKey(token, f"environment variable {_BEDROCK_API_KEY_ENV} (a Bedrock API key)")
    import boto3  # type: ignore[import-untyped,import-not-found,unused-ignore]
    import botocore.exceptions  # type: ignore[import-untyped,import-not-found,unused-ignore]

    try:
        session = boto3.Session()
        credentials = session.get_credentials()
        frozen = credentials.get_frozen_credentials() if credentials is not None else None
    except botocore.exceptions.BotoCoreError as exc:  # a profile that does not exist, a broken file, ...
        raise SetupError(f"the AWS credentials cannot be read: {exc}") from None
    if frozen is None or not frozen.access_key:
        raise SetupError(
            "no AWS credentials found for bedrock: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, choose a "
            f"profile with AWS_PROFILE, run where a role is attached, or set {_BEDROCK_API_KEY_ENV} to a "
            "Bedrock API key"
        )
    method = _AWS_METHODS.get(str(credentials.method), str(credentials.method))
    if credentials.method in ("shared-credentials-file", "config-file", "sso", "assume-role"):
        method += f", profile {session.profile_name}"
    kind = "temporary" if frozen.token else "long-term"
    source = f"AWS {kind} credentials {censor(frozen.access_key)} from {method}"
    return ApiKey("", source, _secrets(frozen.access_key, frozen.secret_key, frozen.token))


def _google_key(settings: Settings, env: Mapping[str, str]) -> ApiKey:
    path, origin = _google_file(env)
    project = vertex_project(settings, env)
    if project is None:
        raise SetupError(
            "vertex needs a Google Cloud project: set vertex_project in agent-config/config.toml, or "
            f"{_VERTEX_PROJECT_ENV} (or GOOGLE_CLOUD_PROJECT)"
        )
    where = f"project {project}"
    if path is None:
        return ApiKey(
            "",
            "Google application default credentials from the metadata server of the Google Cloud machine this "
            f"runs on (no credentials file found: {_GOOGLE_CREDENTIALS_ENV} is unset and gcloud has none); {where}",
        )
    try:
        info = json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise SetupError(f"cannot read the Google credentials file {path} ({origin}): {exc}") from None
    if not isinstance(info, dict):
        raise SetupError(f"the Google credentials file {path} ({origin}) is not a JSON object")
    kind = str(info.get("type") or "unknown")
    who = {
        "service_account": f"service account {info.get('client_email', '?')}",
        "authorized_user": "a user's credentials (gcloud auth application-default login)",
        "external_account": "workload identity federation (an external token exchanged for a Google one)",
        "impersonated_service_account": "an impersonated service account",
    }.get(kind, f"credentials of type {kind}")
    secrets = [str(info[field]) for field in _GOOGLE_SECRET_FIELDS if isinstance(info.get(field), str)]
    source = f"Google application default credentials: {who}, from {path} ({origin}); {where}"
    return ApiKey("", source, _secrets(*secrets))


def _google_file(env: Mapping[str, str]) -> tuple[Path | None, str]:
    """The file the application default credentials would come from, and why that one."""
    explicit = env.get(_GOOGLE_CREDENTIALS_ENV, "").strip()
    if explicit:
        return Path(explicit).expanduser(), f"environment variable {_GOOGLE_CREDENTIALS_ENV}"
    config = env.get("CLOUDSDK_CONFIG", "").strip()
    folder = Path(config).expanduser() if config else Path(env.get("HOME", "~")).expanduser() / ".config" / "gcloud"
    gcloud = folder / "application_default_credentials.json"
    return (gcloud, "gcloud's application default credentials") if gcloud.is_file() else (None, "")


def _secrets(*values: str | None) -> tuple[str, ...]:
    """Each value, and each line of a multi-line one (a PEM key), long enough to censor."""
    return tuple(dict.fromkeys(form for value in values for form in secret_forms(value or "")))
