"""Every secret the run knows of, collected in one place, so that every one is censored.

The run, `code-commit apply` and `code-commit config` censor the same set, whatever the provider:

- every provider key and token variable (`PROVIDER_ENV`) and every key file in agent-config/,
  in use or not: with --provider openai, an ANTHROPIC_API_KEY in the rollup is still a secret;
- the value of every environment variable whose name looks secret (`*_TOKEN`, `*_SECRET`,
  `*_KEY`, `*PASSWORD*`, and TOKEN, SECRET, PASS or APIKEY as any `_`-separated word, ignoring case): CI puts
  GITHUB_TOKEN and the job's other secrets there, and a build that prints one would send it to
  the model;
- the variables the `redact_env` setting names.

A value shorter than `MIN_SECRET_LENGTH` is not a secret one can censor (`FOO_TOKEN=1` would
censor every 1), nor is the path of an existing file or folder (`SSH_KEY=/home/me/.ssh/id`, a
path to a secret, not one). A multi-line value (a PEM key) is censored whole and line by line.
The limit: only these exact strings are recognised, not an encoded form of them (base64, URL
escapes, split across lines by the program printing it).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from code_commit.config.paths import CONFIG_DIR
from code_commit.config.redaction import Redactor
from code_commit.credentials import KEY_FILES, PROVIDER_ENV
from code_commit.errors import SetupError
from code_commit.files.setup_files import read_regular

# *_TOKEN, *_SECRET, *_KEY, *PASSWORD*; and TOKEN, SECRET, PASS or APIKEY as any word (SECRET_KEY_BASE,
# GITLAB_TOKEN_RW, DB_PASS, OPENAI_APIKEY).
SECRET_NAME = re.compile(r"(?:^|_)(?:TOKEN|SECRET|PASS|APIKEY)(?:_|$)|_KEY$|^KEY$|PASSWORD|PASSWD", re.IGNORECASE)
MIN_SECRET_LENGTH = 8


@dataclass(frozen=True)
class Secrets:
    values: tuple[str, ...]
    sources: tuple[str, ...]  # where each came from, for `code-commit config`: names, never values

    def redactor(self, *more: str) -> Redactor:
        return Redactor.of([*self.values, *more])


def collect_secrets(root: Path, env: Mapping[str, str] | None = None, redact_env: Iterable[str] = ()) -> Secrets:
    """The secrets of a run in `root`; SetupError if a variable `redact_env` names is too short to censor."""
    env = os.environ if env is None else env
    named = set(redact_env)
    values: list[str] = []
    sources: list[str] = []

    def add(value: str, source: str) -> None:
        forms = {value.strip(), *(line.strip() for line in value.splitlines())}
        forms = {form for form in forms if len(form) >= MIN_SECRET_LENGTH}
        if forms:
            values.extend(sorted(forms))
            sources.append(source)

    for name in sorted(named):
        value = env.get(name, "").strip()
        if value and len(value) < MIN_SECRET_LENGTH:
            raise SetupError(
                f"setting redact_env names {name}, whose value is only {len(value)} characters: too short to censor "
                f"without censoring ordinary text (the minimum is {MIN_SECRET_LENGTH}); remove it from redact_env"
            )
    for name in sorted(env):
        value = env[name]
        if name in named or name in PROVIDER_ENV or (SECRET_NAME.search(name) and not _names_a_path(value)):
            add(value, f"environment variable {name}")
    for name in sorted(KEY_FILES.values()):
        try:
            text = read_regular(root / CONFIG_DIR / name).decode("utf-8", "replace")
        except OSError:
            continue  # absent or unreadable: the provider that needs it says so
        add(text, f"key file {CONFIG_DIR}/{name}")
    return Secrets(tuple(values), tuple(sources))


def _names_a_path(value: str) -> bool:
    return value.startswith("/") and os.path.exists(value)
