"""The censor recognises issue 31's credentials by their form, whatever the variable's name, wherever
text is logged: each in code-commit's environment, then quoted in a log line as a tool prints it."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from code_commit.config.secrets import collect_secrets, value_secrets

DOCKER_AUTH = base64.b64encode(b"ci-user:docker-pass-0123").decode()
# (variable, value, the secret in it, a line a tool prints that quotes it)
FORMS = [
    (
        "SENTRY_DSN",
        "https://0123456789abcdef0123456789abcdef@o1.ingest.sentry.io/42",
        "0123456789abcdef0123456789abcdef",
        "sentry: sending to https://0123456789abcdef0123456789abcdef@o1.ingest.sentry.io/42 failed",
    ),
    (
        "APP_ERRORS_URL",  # the key as a URL's user, in a variable whose name says nothing
        "https://feedfacefeedfacefeedface01@errors.example/7",
        "feedfacefeedfacefeedface01",
        "posting to errors at feedfacefeedfacefeedface01@errors.example",
    ),
    (
        "JDBC_URL",
        "jdbc:postgresql://db:5432/app?user=app&password=jdbc-pass-0123",
        "jdbc-pass-0123",
        "Connection refused: jdbc:postgresql://db:5432/app?user=app&password=jdbc-pass-0123",
    ),
    (
        "CONNECTION_STRING",
        "Server=db;Database=app;User Id=sa;Password=Conn-Pass-0123;",
        "Conn-Pass-0123",
        "Login failed for Server=db;Database=app;User Id=sa;Password=Conn-Pass-0123;",
    ),
    (
        "CONNECTION_STRING_SHORT",  # too short to censor alone: censored with its key
        "Server=db;Password=abc12;",
        "Password=abc12",
        "Login failed for Server=db;Password=abc12;",
    ),
    (
        "SLACK_WEBHOOK_URL",
        "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "POST https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX: 404",
    ),
    (
        "GIT_CONFIG_PARAMETERS",
        "'http.https://github.com/.extraheader'='AUTHORIZATION: bearer ghs_extraheader0123456789'",
        "ghs_extraheader0123456789",
        "git: http.extraheader=AUTHORIZATION: bearer ghs_extraheader0123456789",
    ),
    (
        "DOCKER_AUTH_CONFIG",
        '{"auths":{"registry.example.com":{"auth":"' + DOCKER_AUTH + '"}}}',
        DOCKER_AUTH,
        f'config: {{"auth": "{DOCKER_AUTH}"}}',
    ),
    (
        "DOCKER_AUTH_CONFIG",
        '{"auths":{"registry.example.com":{"auth":"' + DOCKER_AUTH + '"}}}',
        "docker-pass-0123",  # the password the base64 holds, should a build decode and print it
        "login as ci-user with docker-pass-0123",
    ),
    (
        "VAULT_LOGIN",
        "role_id=app-role secret_id=vault-secret-id-0123",
        "vault-secret-id-0123",
        "vault: login with secret_id=vault-secret-id-0123 denied",
    ),
]


@pytest.mark.parametrize(("name", "value", "secret", "line"), FORMS, ids=[f[0] for f in FORMS])
def test_the_censor_recognises_each_form_wherever_it_is_quoted(
    tmp_path: Path, name: str, value: str, secret: str, line: str
) -> None:
    redact = collect_secrets(tmp_path, {name: value, "PATH": "/usr/bin"}).redactor()

    censored = redact(line)

    assert secret not in censored, censored
    assert "********" in censored


def test_ordinary_values_hold_no_credential() -> None:
    ordinary = [
        "/usr/local/bin:/usr/bin",
        "en_US.UTF-8",
        "https://registry.npmjs.org/",
        "postgres://app@db/app",  # a user name alone
        "git@github.com:org/repo.git",
        "--jobs=4 --token-file=/run/secrets/token",  # a path to a token, not one
        "basic",
        '{"auths":{}}',
    ]
    assert [value for value in ordinary if value_secrets(value)] == []
