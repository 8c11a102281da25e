"""agent-config/config.toml as `code-commit init` writes it, and `code-commit config`'s report.

Both are generated from `settings.Settings`' fields and their doc metadata, so a new setting
appears in the template and the report without anyone remembering to add it.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from code_commit.config.keys import ApiKey
from code_commit.config.paths import CONFIG_DIR, CONFIG_FILE
from code_commit.config.redaction import censor
from code_commit.config.secrets import collect_secrets, looks_secret
from code_commit.config.settings import ENV_PREFIX, Flags, LoadedSettings, Settings, load_settings
from code_commit.console.output import to_stdout
from code_commit.credentials import CLOUD_PROVIDERS
from code_commit.errors import CodeCommitError
from code_commit.exits import EXIT
from code_commit.llm.cloud import credentials
from code_commit.sandbox.bubblewrap import preview
from code_commit.sandbox.withheld import build_environment

_HEADER = f"""\
# code-commit settings for this project ({CONFIG_DIR}/{CONFIG_FILE}).
#
# Every setting is listed below at its default, commented out: uncomment a line to change it.
# Precedence, highest first: command-line flags, {ENV_PREFIX}<NAME> environment variables
# (e.g. {ENV_PREFIX}MODEL), this file, the defaults. `code-commit config` shows the values in
# effect and where each came from.
#
# The API key does not belong here: set ANTHROPIC_API_KEY, or put the key alone in
# {CONFIG_DIR}/anthropic-api-key (OPENAI_API_KEY / openai-api-key for the openai provider).
# bedrock and vertex use the cloud's own credentials (AWS's chain; Google's application default
# credentials): `code-commit config` says which.
#
# Model prices and limits can be added or overridden in [models."<model id>"] tables (input,
# output, cache_write, cache_read in US dollars per million tokens; context_window, max_output;
# effort, true for a model that takes an effort level; tiers).
"""


def toml_value(value: Any) -> str:
    """A value in TOML syntax (JSON's strings, numbers and arrays are valid TOML)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return json.dumps(value)


def template(chosen: Mapping[str, tuple[Any, str]] | None = None) -> str:
    """The documented config file: every setting at its default, commented out; a setting in `chosen`
    (name -> value, why) set, with a comment saying why."""
    chosen = chosen or {}
    parts = [_HEADER]
    for f in dataclasses.fields(Settings):
        default = f.default_factory() if f.default_factory is not dataclasses.MISSING else f.default
        parts.append(f"\n# {f.metadata['doc']}\n")
        if f.name in chosen:
            value, why = chosen[f.name]
            parts.append(f"# code-commit init set this: {why}\n{f.name} = {toml_value(value)}\n")
        elif default is None:
            parts.append(f"# Unset by default. For example:\n# {f.name} = {toml_value(f.metadata['example'])}\n")
        else:
            if f.metadata.get("example") is not None:
                parts.append(f"# For example: {f.name} = {toml_value(f.metadata['example'])}\n")
            parts.append(f"# {f.name} = {toml_value(default)}\n")
    return "".join(parts)


def report(
    loaded: LoadedSettings,
    key: ApiKey | None,
    key_problem: str | None,
    censored: tuple[str, ...] = (),
    sandbox: str = "",
    env: Mapping[str, str] | None = None,
) -> str:
    """`code-commit config`: the effective settings, where each came from, the key, censored, the
    sandbox a run's builds would use, and the environment they would get (`_build_variables`)."""
    names = [f.name for f in dataclasses.fields(Settings)]
    width = max(len(n) for n in [*names, "api_key"])
    lines = [
        "# Effective settings. Precedence: flags > CODE_COMMIT_* environment > "
        f"{CONFIG_DIR}/{CONFIG_FILE} > defaults.\n"
    ]
    for name in names:
        value = getattr(loaded.settings, name)
        shown = "(unset)" if value is None else toml_value(value)
        lines.append(f"{name:<{width}} = {shown}  # {loaded.sources[name]}\n")
    if loaded.settings.provider in CLOUD_PROVIDERS:
        shown = "(none)" if key is None or not key.value else json.dumps(censor(key.value))
        lines.append(f"{'api_key':<{width}} = {shown}  # {loaded.settings.provider} uses the cloud's credentials\n")
        lines.append(f"# credentials: {key.source if key is not None else key_problem}\n")
    elif key is not None and not key.value:
        lines.append(f"{'api_key':<{width}} = (none)  # {_no_key_needed(key)}\n")
    elif key is not None:
        lines.append(f"{'api_key':<{width}} = {json.dumps(censor(key.value))}  # {key.source}\n")
    else:
        lines.append(f"{'api_key':<{width}} = (none)  # {key_problem}\n")
    lines.append(f"# Censored everywhere (values never shown): {', '.join(censored) or 'nothing found'}\n")
    if sandbox:
        lines.append(f"# builds would run under: {sandbox}\n")
    given, withheld = _build_variables(loaded.settings, env)
    lines.append(
        "# A build's environment (the sandbox's tables and build_env; values that could be secret censored):\n"
    )
    lines += [f"#   {name}={value}\n" for name, value in given.items()]
    lines.append(f"# Withheld from builds (build_env passes one on purpose): {', '.join(withheld) or 'nothing'}\n")
    return "".join(lines)


def _build_variables(settings: Settings, env: Mapping[str, str] | None = None) -> tuple[dict[str, str], list[str]]:
    """What a build would get of `env` (this process's by default), by name, its values censored where
    they could be secret (build_env passes a variable whatever it holds), and the names it would not."""
    env = os.environ if env is None else env
    built = build_environment(env, settings.build_env, settings.redact_env)
    given = {
        name: censor(value) if name in settings.build_env or looks_secret(name) else value
        for name, value in sorted(built.items())
    }
    return given, sorted(set(env) - set(built))


def _no_key_needed(key: ApiKey) -> str:
    """An empty key: a server at a base URL of the user's choosing (llama.cpp, Ollama) may take none."""
    return f"not needed for a server at a base URL of your choosing: {key.source}, so none is sent"


def as_json(
    loaded: LoadedSettings,
    key: ApiKey | None,
    key_problem: str | None,
    censored: tuple[str, ...] = (),
    sandbox: str = "",
    env: Mapping[str, str] | None = None,
) -> str:
    settings: Mapping[str, Any] = dataclasses.asdict(loaded.settings)
    if loaded.settings.provider in CLOUD_PROVIDERS:
        api_key: dict[str, Any] = {
            "value": censor(key.value) if key is not None and key.value else None,
            "needed": False,
            "credentials": key.source if key is not None else None,
            **({"problem": key_problem} if key is None else {}),
        }
    elif key is not None and not key.value:
        api_key = {"value": None, "needed": False, "source": _no_key_needed(key)}
    elif key is not None:
        api_key = {"value": censor(key.value), "source": key.source}
    else:
        api_key = {"value": None, "problem": key_problem}
    data = {
        "settings": {name: {"value": value, "source": loaded.sources[name]} for name, value in settings.items()},
        "api_key": api_key,
        "censored": list(censored),
        "sandbox": sandbox,
        "build_environment": dict(zip(("given", "withheld"), _build_variables(loaded.settings, env), strict=True)),
    }
    return json.dumps(data, indent=2) + "\n"


def command(console: Any, root: Path, flags: Flags, json_output: bool) -> int:
    """`code-commit config`: the effective settings, where each came from, and the key, censored."""
    loaded = load_settings(root, flags=flags)
    secrets = collect_secrets(root, redact_env=loaded.settings.redact_env, urls=[loaded.settings.base_url])
    key = problem = None
    try:
        key = credentials(root, loaded.settings)
    except CodeCommitError as exc:
        problem = str(exc)
    sandbox = preview(loaded.settings.sandbox)
    shown = (as_json if json_output else report)(loaded, key, problem, secrets.sources, sandbox)
    to_stdout(secrets.redactor(*(key.censored if key else ()))(shown))
    return EXIT.OK
