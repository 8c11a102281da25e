"""Every secret the run knows of, collected in one place, so that every one is censored.

The run, `code-commit apply` and `code-commit config` censor the same set, whatever the provider:

- every provider key and token variable (`PROVIDER_ENV`) and every key file in agent-config/,
  in use or not: with --provider openai, an ANTHROPIC_API_KEY in the rollup is still a secret;
- the value of every environment variable whose name looks secret (`*_TOKEN`, `*_SECRET`,
  `*_KEY`, `*_AUTH`, `*_DSN`, `*PASSWORD*`, and TOKEN, SECRET, PASS, APIKEY, PAT, JWT, CREDENTIAL(S),
  PRIVATE or WEBHOOK as any `_`-separated word, ignoring case): CI puts GITHUB_TOKEN, GH_PAT,
  CI_JOB_JWT and the job's other secrets there, and a build that prints one would send it to the model;
- the credentials of every URL that carries a password (`https://user:pass@gateway/`), in any
  variable (`DATABASE_URL`, `ANTHROPIC_BASE_URL`) or in the `base_url` setting: the password, and
  the URL's `//user:pass@host`, so even a short password is censored where the URL shows;
- the credential any variable's value holds by its form (`value_secrets`), whatever its name: a key
  as a URL's user (SENTRY_DSN), a `password=` or `Password=` pair (JDBC_URL, CONNECTION_STRING), a
  `secret_id=`, an Authorization header's token (GIT_CONFIG_PARAMETERS' http.extraheader), a JSON
  "auth" (DOCKER_AUTH_CONFIG), a webhook's URL (SLACK_WEBHOOK_URL);
- the variables the `redact_env` setting names;
- for the provider keys, their hex and percent-encoded forms too, as a service's error may quote
  the key it was sent.

A value shorter than `_MIN_SECRET_LENGTH` is not a secret one can censor (`FOO_TOKEN=1` would
censor every 1), nor is the path of an existing file or folder (`SSH_KEY=/home/me/.ssh/id`, a
path to a secret, not one). A multi-line value (a PEM key) is censored whole and line by line.
The limit: only these exact strings are recognised, not another encoded form of them (base64,
split across lines by the program printing it). The build never gets any of them
(`sandbox.withheld`), which is what keeps them from a hostile build.
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

from code_commit.config.paths import CONFIG_DIR
from code_commit.config.redaction import Redactor
from code_commit.credentials import KEY_FILE_BYTES, KEY_FILES, PROVIDER_ENV
from code_commit.errors import SetupError
from code_commit.files.setup_files import read_regular

# *_TOKEN, *_SECRET, *_KEY, *_AUTH, *_DSN, *PASSWORD*; and TOKEN, SECRET, PASS, APIKEY, PAT, JWT,
# CREDENTIAL(S), PRIVATE or WEBHOOK as any word (SECRET_KEY_BASE, GITLAB_TOKEN_RW, DB_PASS, OPENAI_APIKEY,
# GH_PAT, CI_JOB_JWT, NPM_AUTH, SENTRY_DSN, SLACK_WEBHOOK_URL). Not SSH_AUTH_SOCK, TOKENIZER, SECRETARY, PATH.
_SECRET_NAME = re.compile(
    r"(?:^|_)(?:TOKEN|SECRET|PASS|APIKEY|PAT|JWT|CREDENTIALS?|PRIVATE|WEBHOOK)(?:_|$)|(?:^|_)(?:KEY|AUTH|DSN)$"
    r"|PASSWORD|PASSWD",
    re.IGNORECASE,
)
# A URL's user:password@ (RFC 3986 userinfo); a user name alone is no secret.
_URL_CREDENTIALS = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:(//([^/?#@\s:]*):([^/?#@\s]*)@([^/?#\s]*))")
_MIN_SECRET_LENGTH = 8
# The credentials a value can hold besides a URL's password, each recognised by its form (group 1 is
# what is censored), in any variable, whatever its name:
_VALUE_CREDENTIALS = (
    # a key as a URL's user alone (Sentry's DSN: https://<32 hex>@o1.ingest.sentry.io/1): longer than a name
    re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://([A-Za-z0-9_-]{16,})@[^/?#@\s]"),
    # a key=value pair whose key names a credential: a JDBC URL's password=, a connection string's
    # Password= or AccountKey=, a Vault secret_id=, a JVM option's -Djavax.net.ssl.trustStorePassword=
    re.compile(
        r"(?i)(?<![A-Za-z0-9])[A-Za-z0-9_.-]*(?:password|passwd|pwd|secret|secret_id|token|apikey|api_key|accountkey"
        r"|accesskey|sig)\s*=\s*(\"[^\"]+\"|'[^']+'|[^;&\s'\"]+)"
    ),
    # an HTTP Authorization header's credential (git's http.extraheader in GIT_CONFIG_PARAMETERS)
    re.compile(r"(?i)(?:authorization:\s*(?:bearer|basic|token)?|bearer|basic)\s+([A-Za-z0-9._~+/=-]{8,})"),
    # a JSON credential field (DOCKER_AUTH_CONFIG's base64 "auth", an "identitytoken", a "password")
    re.compile(
        r'(?i)"(?:auth|password|identitytoken|registrytoken|token|secret|client_secret|private_key)"'
        r'\s*:\s*"([^"\\]+)"'
    ),
    # a webhook's URL is its credential (Slack's, Discord's, Teams')
    re.compile(r"(https?://(?:hooks\.slack\.com/|[^\s'\"]*?/webhooks?/|[^\s'\"]*?webhook\.office\.com/)[^\s'\"]+)"),
)


@dataclass(frozen=True)
class _Secrets:
    values: tuple[str, ...]
    sources: tuple[str, ...]  # where each came from, for `code-commit config`: names, never values

    def redactor(self, *keys: str) -> Redactor:
        """Censors these secrets and `keys` (the key in use), in every form they are known in."""
        return Redactor.of([*self.values, *keys, *(form for key in keys if key for form in _encoded_forms(key))])


def looks_secret(name: str) -> bool:
    """Whether a variable's name says it holds a secret."""
    return name in PROVIDER_ENV or _SECRET_NAME.search(name) is not None


def _url_credentials(value: str) -> list[str]:
    """What censors the credentials of each URL in `value` that carries a password: its
    `//user:pass@host` (distinct enough to censor whatever the password's length), the password
    and `user:pass` where long enough to censor alone."""
    forms = []
    for match in _URL_CREDENTIALS.finditer(value):
        authority, user, password, _ = match.groups()
        if password:
            forms.append(authority)
            forms += [form for form in (password, f"{user}:{password}") if len(form) >= _MIN_SECRET_LENGTH]
    return forms


def value_secrets(value: str) -> list[str]:
    """What censors each credential `value` holds by its form, whatever the variable's name: a URL's
    password (`_url_credentials`), and each of VALUE_CREDENTIALS'. A credential too short to censor
    alone is censored with what surrounds it (`Password=abc`), as a URL's `//user:pass@host` is; a
    base64 `user:password` (Docker's auth) has its password censored too."""
    forms = _url_credentials(value)
    for pattern in _VALUE_CREDENTIALS:
        for match in pattern.finditer(value):
            found = match.group(1).strip("'\"")
            forms += [found] if len(found) >= _MIN_SECRET_LENGTH else [match.group(0)]
            forms += [p for p in _basic_password(found) if len(p) >= _MIN_SECRET_LENGTH]
    return list(dict.fromkeys(form for form in forms if form))


def _basic_password(text: str) -> list[str]:
    """The password of a base64 `user:password` (HTTP Basic, Docker's auth), if `text` is one."""
    try:
        decoded = base64.b64decode(text, validate=True).decode("utf-8")
    except (ValueError, UnicodeDecodeError):
        return []
    user, colon, password = decoded.partition(":")
    return [password] if colon and user.isprintable() and password.isprintable() else []


def secret_forms(value: str) -> list[str]:
    """What of `value` is censored: the value, and each line of a multi-line one (a PEM key), stripped,
    long enough to censor; each once, in that order."""
    forms = (value.strip(), *(line.strip() for line in value.splitlines()))
    return list(dict.fromkeys(form for form in forms if len(form) >= _MIN_SECRET_LENGTH))


def _encoded_forms(secret: str) -> list[str]:
    """A key as a service's error may quote it: hex, and percent-encoded byte by byte or as needed."""
    data = secret.encode("utf-8", "surrogatepass")
    percent = "".join(f"%{b:02X}" for b in data)
    return [data.hex(), data.hex().upper(), percent, percent.lower(), quote(secret, safe="")]


def collect_secrets(
    root: Path, env: Mapping[str, str] | None = None, redact_env: Iterable[str] = (), urls: Iterable[str | None] = ()
) -> _Secrets:
    """The secrets of a run in `root`; SetupError if a variable `redact_env` names is too short to censor.
    `urls`: URLs from the settings (base_url), whose credentials are censored."""
    env = os.environ if env is None else env
    named = set(redact_env)
    values: list[str] = []
    sources: list[str] = []

    def add(value: str, source: str, key: bool = False) -> None:
        forms = set(secret_forms(value))
        if key:  # a service's error may quote the key it was sent, encoded
            forms |= {encoded for form in forms for encoded in _encoded_forms(form)}
        if forms:
            values.extend(sorted(forms))
            sources.append(source)

    def url_forms(value: str, source: str) -> None:
        values.extend(_url_credentials(value))
        sources.append(source)

    for name in sorted(named):
        value = env.get(name, "").strip()
        if value and len(value) < _MIN_SECRET_LENGTH:
            raise SetupError(
                f"setting redact_env names {name}, whose value is only {len(value)} characters: too short to censor "
                f"without censoring ordinary text (the minimum is {_MIN_SECRET_LENGTH}); remove it from redact_env"
            )
    for name in sorted(env):
        value = env[name]
        if name in named or name in PROVIDER_ENV or (looks_secret(name) and not _names_a_path(value)):
            add(value, f"environment variable {name}", key=name in PROVIDER_ENV)
        if _url_credentials(value):
            url_forms(value, f"the URL in environment variable {name}")
        if held := [form for form in value_secrets(value) if form not in _url_credentials(value)]:
            values.extend(held)
            sources.append(f"a credential in environment variable {name}")
    for url in urls:
        if url and _url_credentials(url):
            url_forms(url, "the URL in the base_url setting")
    for name in sorted(KEY_FILES.values()):
        try:
            text = read_regular(root / CONFIG_DIR / name, KEY_FILE_BYTES).decode("utf-8", "replace")
        except OSError:
            continue  # absent or unreadable: the provider that needs it says so
        add(text, f"key file {CONFIG_DIR}/{name}", key=True)
    return _Secrets(tuple(values), tuple(sources))


def _names_a_path(value: str) -> bool:
    return value.startswith("/") and os.path.exists(value)
