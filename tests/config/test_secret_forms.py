"""A secret is censored in every form code-commit itself writes it in: a JSON record escapes `"`
and `\\` (and, in `apply --json`, every non-ASCII character), and a message quoting a line with
repr() doubles each backslash. Censoring only the raw string let `--json` carry the secret, which
any JSON reader decodes back to the original."""

from __future__ import annotations

import json

import pytest

from support import Project, git
from support.record import valid_record

SECRET = 'hunter2"quote\\slash-é'


def _strings(value: object) -> list[str]:
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return [value] if isinstance(value, str) else []


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "text"])
def test_a_secret_with_quotes_and_backslashes_is_censored_in_apply_s_report(
    project: Project, cli, monkeypatch: pytest.MonkeyPatch, as_json: bool
) -> None:
    monkeypatch.setenv("DB_PASSWORD", SECRET)
    project.write("app.py", f"pw = {SECRET}\nother line\n")
    git(project.root, "add", "app.py")
    # The search text misses by one character: the report quotes it, and the closest line of the file.
    answer = project.write("answer.txt", f"^^^app.py\n^^^search\npw = {SECRET}X\n^^^replace\nx\n^^^end\n")

    result = cli("apply", *(["--json"] if as_json else []), str(answer))

    assert result.exit_code == 7, result.stdout + result.stderr
    forms = {SECRET, json.dumps(SECRET)[1:-1], json.dumps(SECRET, ensure_ascii=False)[1:-1], repr(SECRET)[1:-1]}
    for form in forms:
        assert form not in result.stdout + result.stderr
    if as_json:
        assert not [s for s in _strings(json.loads(result.stdout)) if SECRET in s]


def test_a_secret_with_quotes_is_censored_in_a_run_s_json_record(project: Project, api, cli, monkeypatch) -> None:
    monkeypatch.setenv("DB_PASSWORD", SECRET)
    project.write("app.py", f"pw = {SECRET}\nother line\n")
    project.commit_all()
    project.write("agent-config/config.toml", "max_repairs = 0\n")
    api.reply(f"^^^app.py\n^^^search\npw = {SECRET}X\n^^^replace\nx\n^^^end\n")

    result = cli("--json")

    assert result.exit_code == 1, result.stdout + result.stderr
    record = json.loads(result.stdout)
    assert "matches nowhere" in record["error"]
    assert not [s for s in _strings(record) if SECRET in s]
    (run,) = project.run_dirs()
    assert SECRET not in valid_record((run / "summary.json").read_text())["error"]


def test_the_common_short_names_of_passwords_and_api_keys_look_secret(tmp_path) -> None:
    """DB_PASS, SMTP_PASS and OPENAI_APIKEY are as common in CI as *_PASSWORD and *_API_KEY."""
    from code_commit.config.secrets import collect_secrets

    value = "a-long-enough-value-0123"
    secret = ["DB_PASS", "SMTP_PASS_RW", "MYSQL_PASSWD", "OPENAI_APIKEY", "APIKEY"]
    ordinary = ["BYPASS_CACHE", "PASSENGER_ENV", "COMPASS_HOME", "APIKEYS_URL_DOCS"]
    env = {name: f"{value}-{name}" for name in secret + ordinary}

    found = collect_secrets(tmp_path, env)

    assert sorted(found.sources) == sorted(f"environment variable {name}" for name in secret)


def test_a_non_ascii_secret_in_a_diff_s_context_is_censored_in_the_logged_patch(
    project: Project, api, cli, monkeypatch
) -> None:
    """Patches are censored as bytes: a UTF-8 secret must be found as its UTF-8 bytes, not only as
    Latin-1 characters (pässwörd is p\\xc3\\xa4ssw... in the file)."""
    secret = "pässwörd-0123456789"
    monkeypatch.setenv("DB_PASSWORD", secret)
    project.write("settings.py", f"DEBUG = False\nPASSWORD = '{secret}'\nHOST = 'db'\n")
    project.commit_all()
    api.reply("^^^settings.py\n^^^search\nDEBUG = False\n^^^replace\nDEBUG = True\n^^^end\n^^^fixed.txt\nok\n^^^end\n")

    result = cli("--diff")

    assert result.exit_code == 0, result.stderr
    (run,) = project.run_dirs()
    patch = (run / "01-changes.diff").read_bytes()
    assert b"DEBUG = True" in patch
    assert secret.encode() not in patch
    assert secret not in result.stderr
