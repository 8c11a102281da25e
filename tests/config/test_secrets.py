"""Every secret the run knows of is censored, whatever the provider: the provider keys and tokens in
use or not, the key files, environment variables named like secrets, and those `redact_env` names.
Through the CLI, against the fake model service."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fakeapi import FakeAPI
from support import TEST_KEY, Project

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
WRONG = "^^^wrong.txt\nnope\n^^^end\n"
OPENAI_KEY = "sk-openai-test-0123456789-KEYab"
GITHUB_TOKEN = "ghs_0123456789abcdefGITHUBtokenXY"
UNUSED_FILE_KEY = "sk-unused-key-file-0123456789-Qw"


def censored(secret: str) -> str:
    return "********" + secret[-2:]


def everything_logged(project: Project) -> str:
    return "".join(p.read_text() for run in project.run_dirs() for p in sorted(run.rglob("*")) if p.is_file())


def test_an_anthropic_key_in_the_rollup_never_reaches_an_openai_server(
    project: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ANTHROPIC_API_KEY (TEST_KEY, set by the api fixture) is not the key in use: it is still a secret.
    monkeypatch.setenv("OPENAI_API_KEY", OPENAI_KEY)
    monkeypatch.setenv("ANTHROPIC_AUTH_TOKEN", "anthropic-auth-token-0123456789")
    project.write(
        "agent-config/codeRollup.txt",
        f"==> .env <==\nANTHROPIC={TEST_KEY}\nAUTH=anthropic-auth-token-0123456789\n",
    )
    api.reply(FIX)

    result = cli("--provider", "openai", "--model", "gpt-fake", "--base-url", f"{api.url}/v1", "--json")

    assert result.exit_code == 0, result.stderr
    body = api.requests[0].body.decode()
    assert TEST_KEY not in body and "anthropic-auth-token-0123456789" not in body
    assert censored(TEST_KEY) in api.requests[0].prompt_text
    (run,) = project.run_dirs()
    assert censored(TEST_KEY) in (run / "01-query.txt").read_text()
    for secret in (TEST_KEY, "anthropic-auth-token-0123456789", OPENAI_KEY):
        assert secret not in everything_logged(project) + result.stdout + result.stderr


def test_an_unused_key_file_is_censored_too(project: Project, api: FakeAPI, cli) -> None:
    project.write("agent-config/openai-api-key", UNUSED_FILE_KEY + "\n")
    project.write("agent-config/codeRollup.txt", f"==> notes <==\n{UNUSED_FILE_KEY}\n")
    api.reply(FIX)

    result = cli()

    assert result.exit_code == 0, result.stderr
    assert UNUSED_FILE_KEY not in api.requests[0].body.decode()
    assert censored(UNUSED_FILE_KEY) in api.requests[0].prompt_text
    assert UNUSED_FILE_KEY not in everything_logged(project) + result.stderr


def test_a_token_the_build_prints_never_reaches_the_next_prompt_the_logs_or_the_console(
    project: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", GITHUB_TOKEN)
    project.build_script('echo "deploying with $GITHUB_TOKEN"\ntest -f fixed.txt\n')
    api.reply(WRONG)
    api.reply(FIX)

    # A build gets no secret unless build_env passes it on purpose (builds/test_withheld.py); one passed
    # is still censored wherever its output goes.
    result = cli("-v", "--json", env={"CODE_COMMIT_BUILD_ENV": "GITHUB_TOKEN"})

    assert result.exit_code == 0, result.stderr
    repair = api.requests[1].prompt_text
    assert f"deploying with {censored(GITHUB_TOKEN)}" in repair
    assert GITHUB_TOKEN not in api.requests[1].body.decode()
    assert f"deploying with {censored(GITHUB_TOKEN)}" in result.stderr, "-v shows the build's output, censored"
    assert GITHUB_TOKEN not in everything_logged(project) + result.stdout + result.stderr


def test_short_values_and_paths_are_not_censored(
    project: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    key_path = tmp_path / "deploy_key"
    key_path.write_text("not read\n")
    monkeypatch.setenv("FEATURE_TOKEN", "1")
    monkeypatch.setenv("SHORT_KEY", "abcdefg")  # 7 characters
    monkeypatch.setenv("SSH_KEY", str(key_path))  # a path to a secret, not one
    project.build_script('echo "flag=$FEATURE_TOKEN short=$SHORT_KEY path=$SSH_KEY"\nexit 1\n')
    api.reply(WRONG)

    project.write(
        "agent-config/config.toml", 'max_repairs = 0\nbuild_env = ["FEATURE_TOKEN", "SHORT_KEY", "SSH_KEY"]\n'
    )
    result = cli()

    assert result.exit_code == 1, result.stderr
    (run,) = project.run_dirs()
    assert f"flag=1 short=abcdefg path={key_path}" in (run / "01-build.txt").read_text()


def test_redact_env_names_more_variables(project: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    url = "postgres://db.internal/app-hunter2hunter2"
    monkeypatch.setenv("DATABASE_URL", url)  # not named like a secret, no password: only redact_env makes it one
    project.build_script('echo "connecting to ${DATABASE_URL:-nothing}"\ntest -f fixed.txt\n')
    api.reply(WRONG)
    api.reply(FIX)
    api.reply(WRONG.replace("nope", "nope again"))  # the first run's is committed: the same would change nothing
    api.reply(FIX)

    withheld = cli("-v", env={"CODE_COMMIT_REDACT_ENV": "DATABASE_URL"})
    assert withheld.exit_code == 0, withheld.stderr
    assert "connecting to nothing" in api.requests[1].prompt_text  # a variable redact_env names is withheld too
    (project.root / "fixed.txt").unlink()
    project.commit_all()

    result = cli("-v", env={"CODE_COMMIT_REDACT_ENV": "DATABASE_URL", "CODE_COMMIT_BUILD_ENV": "DATABASE_URL"})

    assert result.exit_code == 0, result.stderr
    assert f"connecting to {censored(url)}" in api.requests[3].prompt_text
    assert url not in everything_logged(project) + result.stderr


def test_without_redact_env_an_ordinary_variable_is_not_censored(
    project: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DATABASE_URL", "postgres://db.internal/app")
    project.write("agent-config/config.toml", 'build_env = ["DATABASE_URL"]\n')  # no table allows it
    project.build_script('echo "connecting to $DATABASE_URL"\ntest -f fixed.txt\n')
    api.reply(WRONG)
    api.reply(FIX)

    assert cli().exit_code == 0
    assert "connecting to postgres://db.internal/app" in api.requests[1].prompt_text


@pytest.mark.parametrize(
    ("value", "fragment"),
    [("SHORT", "only 5 characters: too short to censor"), (None, "'NOT A NAME' is not an environment variable name")],
)
def test_a_bad_redact_env_is_a_setup_error(
    project: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch, value: str | None, fragment: str
) -> None:
    monkeypatch.setenv("SHORT", "abc12")
    redact_env = "SHORT" if value else "NOT A NAME"

    result = cli(env={"CODE_COMMIT_REDACT_ENV": redact_env})

    assert result.exit_code == 2
    assert fragment in result.stderr
    assert api.requests == []


def test_config_censors_every_secret_and_names_their_sources(
    project: Project, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", TEST_KEY)
    monkeypatch.setenv("GITHUB_TOKEN", GITHUB_TOKEN)
    project.write("agent-config/openai-api-key", UNUSED_FILE_KEY)

    text = cli("--base-url", f"https://proxy.example/{GITHUB_TOKEN}", "config")
    as_json = cli("--base-url", f"https://proxy.example/{GITHUB_TOKEN}", "config", "--json")

    for result in (text, as_json):
        assert result.exit_code == 0, result.stderr
        for secret in (TEST_KEY, GITHUB_TOKEN, UNUSED_FILE_KEY):
            assert secret not in result.stdout
    assert f"https://proxy.example/{censored(GITHUB_TOKEN)}" in text.stdout
    assert set(json.loads(as_json.stdout)["censored"]) >= {
        "environment variable ANTHROPIC_API_KEY",
        "environment variable GITHUB_TOKEN",
        "key file agent-config/openai-api-key",
    }


def test_apply_censors_every_secret_in_its_report_and_logs(
    project: Project, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", GITHUB_TOKEN)
    answer = project.write("answer.txt", f"^^^notes-{GITHUB_TOKEN}.txt\n{GITHUB_TOKEN}\n^^^end\n")

    result = cli("apply", str(answer), "--json")

    assert result.exit_code == 7, result.stderr  # an answer never writes a secret into the project
    assert GITHUB_TOKEN not in result.stdout + result.stderr + everything_logged(project)
    assert f"notes-{censored(GITHUB_TOKEN)}.txt" in result.stdout


def test_which_variable_names_look_secret(tmp_path: Path) -> None:
    from code_commit.config.secrets import collect_secrets

    value = "a-long-enough-value-0123"
    secret = ["GITHUB_TOKEN", "SECRET_KEY_BASE", "AWS_SECRET_ACCESS_KEY", "DB_PASSWORD", "api_key", "NPM_TOKEN_RW"]
    secret += ["GH_PAT", "CI_JOB_JWT", "NPM_AUTH", "GOOGLE_CREDENTIALS", "SIGNING_PRIVATE_KEY", "AUTH"]
    ordinary = ["SSH_AUTH_SOCK", "KEYBOARD", "TOKENIZER", "CODE_COMMIT_MAX_TOKENS", "SECRETARY", "MONKEY"]
    ordinary += ["PATH", "PATTERN", "AUTHOR", "GIT_AUTHOR_NAME", "PRIVATEER"]
    env = {name: f"{value}-{name}" for name in secret + ordinary}

    found = collect_secrets(tmp_path, env)

    assert sorted(found.sources) == sorted(f"environment variable {name}" for name in secret)
    # AWS_SECRET_ACCESS_KEY is a provider credential (Bedrock's): censored in its encoded forms too.
    assert {v for v in found.values if v.startswith(value)} == {f"{value}-{name}" for name in secret}


GATEWAY_PASSWORD = "gw-Pa55"  # short: censored where the URL shows, as //user:password@host


def test_a_base_url_s_password_is_censored_everywhere_code_commit_writes_or_prints(
    project: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A password in ANTHROPIC_BASE_URL was shown plain in the build log, the prompt and the console.
    The build no longer gets it (builds/test_withheld.py); here a file the build prints holds the URL."""
    gateway = api.url.replace("http://", f"http://gw-user:{GATEWAY_PASSWORD}@")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", gateway)
    project.write("deploy.cfg", f"gateway = {gateway}\n")
    project.build_script("cat deploy.cfg\ntest -f fixed.txt\n")
    project.commit_all()
    api.reply(WRONG)
    api.reply(FIX)

    result = cli("-v", "--json")

    assert result.exit_code == 0, result.stderr
    assert api.requests[0].headers.get("authorization", "").startswith("Basic ")  # the gateway got its password
    seen = everything_logged(project) + result.stdout + result.stderr + api.requests[1].body.decode()
    assert f"gw-user:{GATEWAY_PASSWORD}" not in seen
    assert "gateway = http:********" in api.requests[1].prompt_text


def test_a_password_in_the_base_url_setting_is_censored_by_config(project: Project, cli) -> None:
    url = f"https://ci:{GATEWAY_PASSWORD}@gateway.example/v1"
    project.write("agent-config/config.toml", f'base_url = "{url}"\n')
    for args in (["config"], ["config", "--json"]):
        result = cli(*args)
        assert result.exit_code == 0, result.stderr
        assert GATEWAY_PASSWORD not in result.stdout
    assert "the URL in the base_url setting" in json.loads(cli("config", "--json").stdout)["censored"]


@pytest.mark.parametrize("encoding", ["hex", "HEX", "percent", "percent-lower"])
def test_a_key_a_service_quotes_hex_or_percent_encoded_is_censored(
    project: Project, api: FakeAPI, cli, encoding: str
) -> None:
    data = TEST_KEY.encode()
    quoted = {
        "hex": data.hex(),
        "HEX": data.hex().upper(),
        "percent": "".join(f"%{b:02X}" for b in data),
        "percent-lower": "".join(f"%{b:02x}" for b in data),
    }[encoding]
    message = f"invalid x-api-key header (received {quoted})"
    api.status(400, body={"type": "error", "error": {"type": "invalid_request_error", "message": message}})

    result = cli("--json")

    assert result.exit_code == 3, result.stderr
    seen = everything_logged(project) + result.stdout + result.stderr
    assert "invalid x-api-key" in seen and quoted not in seen


@pytest.mark.parametrize(
    "write",
    [
        lambda key: f"^^^settings.py\nAPI_KEY = {key!r}\n^^^end\n",
        lambda key: f"^^^notes/{key}.txt\nhello\n^^^end\n",
        lambda key: f"^^^blob.txt\n{key.encode().hex()}\n^^^end\n",  # as a service's error quoted it
    ],
    ids=["content", "path", "hex"],
)
def test_an_answer_that_echoes_the_key_is_refused_not_written(project: Project, api: FakeAPI, cli, write) -> None:
    """The key reaches no prompt (it is censored), but a service's error, an injected instruction or a
    build's output read back could still put it before the model: an answer that writes it into a
    file (or a file name) the next `git add -A` commits is refused, and the model is told why."""
    api.reply(write(TEST_KEY) + FIX)
    api.reply(FIX)

    result = cli("--json")

    assert result.exit_code == 0, result.stderr
    assert len(api.requests) == 2, "the refusal went back to the model"
    assert "holds a secret code-commit censors" in api.requests[1].prompt_text
    assert not (project.root / "settings.py").exists() and not (project.root / "notes").exists()
    assert not (project.root / "blob.txt").exists()
    for form in (TEST_KEY, TEST_KEY.encode().hex()):
        assert form not in everything_logged(project) + result.stdout + result.stderr


def test_apply_refuses_an_answer_that_writes_the_key_with_a_problem_of_its_own(project: Project, cli) -> None:
    project.write("agent-config/anthropic-api-key", TEST_KEY + "\n")
    result = cli("apply", "--check", "--json", "-", input=f"^^^config.py\nKEY = '{TEST_KEY}'\n^^^end\n")
    assert result.exit_code == 7
    (problem,) = json.loads(result.stdout)["problems"]
    assert problem["kind"] == "secret" and problem["path"] == "config.py"
    assert TEST_KEY not in result.stdout


def test_a_file_that_already_holds_a_secret_can_still_be_edited_around_it(project: Project, cli) -> None:
    """Only a secret the answer brings in is refused: a fixture or config the user keeps with one in
    it stays editable (the diff and the logs censor it, test_secret_forms.py)."""
    project.write("agent-config/anthropic-api-key", TEST_KEY + "\n")
    project.write("fixture.py", f"KEY = '{TEST_KEY}'\nVERSION = 1\n")
    project.commit_all()
    edit = "^^^fixture.py\n^^^search\nVERSION = 1\n^^^replace\nVERSION = 2\n^^^end\n"
    result = cli("apply", "--json", "-", input=edit)
    assert result.exit_code == 0, result.stdout
    assert project.read("fixture.py") == f"KEY = '{TEST_KEY}'\nVERSION = 2\n"
    assert TEST_KEY not in result.stdout
