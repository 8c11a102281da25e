"""Every model provider, one entry each: its name, the key it reads or the cloud chain it signs with,
where its endpoint is by default, the client that speaks to it, and the form its model ids take in
the catalog. Adding a provider is one entry here plus its client's module under llm/.

A pure leaf: the client is named, not imported (llm.make_provider imports the one in use, when a
call is about to be made), so the setup checks read this table without loading any SDK.
"""

from __future__ import annotations

from dataclasses import dataclass

KEY = "key"  # an API key: its environment variable, else its key file under agent-config/
CLOUD = "cloud"  # the cloud's own credential chain (llm/cloud.py), not a key of code-commit's


@dataclass(frozen=True)
class _ProviderEntry:
    name: str  # the provider setting's value
    client: str  # "module:Class" under code_commit.llm, taking (settings, key, hooks, endpoint, model)
    credentials: str  # KEY or CLOUD
    url_env: str  # the variable that moves its endpoint
    default_url: str  # a cloud's holds {region}
    key_env: str | None = None  # KEY: where its key is read from...
    key_file: str | None = None  # ...else this file under agent-config/
    region_env: tuple[str, ...] = ()  # CLOUD: the variables its region is read from, in order
    region_urls: tuple[tuple[str, str], ...] = ()  # regions whose endpoint does not follow default_url
    # The provider's form of a model id, as a regular expression whose group `id` is the catalog's
    # name of the model (Bedrock's global.anthropic.<id>-v1): the catalog knows the model in that form too.
    model_ids: str | None = None
    # Why the default model id is not one of the provider's ({default}: that id), if it is not.
    needs_model: str | None = None
    any_server: bool = False  # any server that speaks its API: one of the user's choosing needs no key,
    # and publishes its context window


TABLE = (
    _ProviderEntry(
        "anthropic",
        "anthropic_api:AnthropicProvider",
        KEY,
        "ANTHROPIC_BASE_URL",
        "https://api.anthropic.com",
        key_env="ANTHROPIC_API_KEY",
        key_file="anthropic-api-key",
    ),
    _ProviderEntry(
        "openai",
        "openai_api:OpenAIProvider",
        KEY,
        "OPENAI_BASE_URL",
        "https://api.openai.com/v1",
        key_env="OPENAI_API_KEY",
        key_file="openai-api-key",
        needs_model="the default, {default}, is an Anthropic model; name the server's model",
        any_server=True,
    ),
    _ProviderEntry(
        "bedrock",
        "anthropic_api:AnthropicProvider",
        CLOUD,
        "ANTHROPIC_BEDROCK_BASE_URL",
        "https://bedrock-runtime.{region}.amazonaws.com",  # the SDK's client computes the same
        region_env=("AWS_REGION", "AWS_DEFAULT_REGION"),
        # [geo.]anthropic.<id>[-YYYYMMDD][-vN[:M]]
        model_ids=r"^(?:[a-z-]{2,8}\.)?anthropic\.(?P<id>[a-z0-9.-]+?)(?:-\d{8})?(?:-v\d+(?::\d+)?)?$",
        needs_model="Bedrock's ids differ from Anthropic's: name an inference profile or model id, like "
        "global.anthropic.{default},",
    ),
    _ProviderEntry(
        "vertex",
        "anthropic_api:AnthropicProvider",
        CLOUD,
        "ANTHROPIC_VERTEX_BASE_URL",
        "https://{region}-aiplatform.googleapis.com/v1",
        region_env=("CLOUD_ML_REGION",),
        region_urls=(
            ("global", "https://aiplatform.googleapis.com/v1"),
            ("us", "https://aiplatform.us.rep.googleapis.com/v1"),
            ("eu", "https://aiplatform.eu.rep.googleapis.com/v1"),
        ),
        model_ids=r"^(?P<id>[a-z0-9.-]+)@\d{8}$",  # <id>@YYYYMMDD
    ),
)
PROVIDERS = {entry.name: entry for entry in TABLE}
