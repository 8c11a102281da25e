"""One table of providers (providers.py): every fact of a provider comes from its entry, so adding a
provider is one entry plus its client's module."""

from __future__ import annotations

import importlib
import re

import pytest

from code_commit.config.keys import ApiKey
from code_commit.config.settings import Settings, load_settings
from code_commit.credentials import CHILD_SCRUBBED_ENV, CLOUD_PROVIDERS, KEY_ENV, KEY_FILES
from code_commit.errors import SetupError
from code_commit.llm import make_provider
from code_commit.llm.catalog import load_catalog
from code_commit.llm.endpoint import Endpoint, resolve_endpoint
from code_commit.providers import CLOUD, KEY, PROVIDERS, TABLE


def client_of(name: str) -> type:
    module, _, cls = PROVIDERS[name].client.partition(":")
    return getattr(importlib.import_module(f"code_commit.llm.{module}"), cls)  # type: ignore[no-any-return]


@pytest.mark.parametrize("name", list(PROVIDERS))
def test_each_entry_s_client_is_what_a_run_of_that_provider_calls(name: str) -> None:
    settings = Settings(provider=name, model="m", cloud_region="us-east-1")
    endpoint = Endpoint("http://127.0.0.1:9", "the test")
    provider = make_provider(settings, ApiKey("k" * 40, "the test"), endpoint=endpoint)
    assert type(provider) is client_of(name)


def test_an_unknown_provider_is_a_setup_error_naming_the_table_s_names(tmp_path) -> None:
    (tmp_path / "agent-config").mkdir()
    (tmp_path / "agent-config" / "config.toml").write_text('provider = "mistral"\n')
    with pytest.raises(SetupError, match="must be one of anthropic, openai, bedrock, vertex, not 'mistral'"):
        load_settings(tmp_path)


@pytest.mark.parametrize("entry", TABLE, ids=lambda entry: entry.name)
def test_each_entry_s_credentials_are_read_and_kept_from_children(entry) -> None:
    if entry.credentials == KEY:
        assert KEY_ENV[entry.name] == entry.key_env and KEY_FILES[entry.name] == entry.key_file
        assert entry.key_env in CHILD_SCRUBBED_ENV, "a build never sees the key"
        assert entry.name not in CLOUD_PROVIDERS
    else:
        assert entry.credentials == CLOUD and entry.name in CLOUD_PROVIDERS and entry.region_env
        assert entry.name not in KEY_ENV and entry.name not in KEY_FILES


@pytest.mark.parametrize("entry", TABLE, ids=lambda entry: entry.name)
def test_each_entry_s_endpoint_is_its_default_or_its_variable(entry) -> None:
    env = {variable: "us-east-1" for variable in entry.region_env}
    default = resolve_endpoint(entry.name, None, "default", env, Settings(provider=entry.name))
    assert default.url == entry.default_url.format(region="us-east-1")
    moved = resolve_endpoint(entry.name, None, "default", {**env, entry.url_env: "http://127.0.0.1:4000"})
    assert moved.url == "http://127.0.0.1:4000" and entry.url_env in moved.source


def test_a_cloud_s_model_id_finds_the_catalog_s_entry(tmp_path) -> None:
    catalog = load_catalog(tmp_path)
    forms = {"bedrock": "global.anthropic.claude-sonnet-4-5-20250929-v1:0", "vertex": "claude-sonnet-4-5@20250929"}
    assert {entry.name for entry in TABLE if entry.model_ids} == set(forms)
    for name, model in forms.items():
        assert re.match(PROVIDERS[name].model_ids or "", model)
        assert catalog.lookup(model).entry == "claude-sonnet-4-5", name
