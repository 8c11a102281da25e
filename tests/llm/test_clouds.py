"""provider = "bedrock" and "vertex": the SDK's own clients (AnthropicBedrock, AnthropicVertex) and the
clouds' own credential chains (boto3's, google-auth's), against the loopback fake: Bedrock's InvokeModel
with SigV4 and an AWS event-stream answer, Vertex's rawPredict paths with a token google-auth fetched
from the fake's token endpoint. The same retries, continuations, thinking, cost and censoring as the
Anthropic provider; no secret of the chains in a prompt, a log, the console or the build."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from fakeapi import PREFILL_MESSAGE, FakeAPI
from support import Project, logged

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
WRONG = "^^^wrong.txt\nnope\n^^^end\n"
ACCESS_KEY = "AKIAFAKEEXAMPLE7Q4ZZ"
SECRET_KEY = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYFAKESECRETKEY"
SESSION_TOKEN = "IQoJb3JpZ2luX2VjEFAKESESSIONTOKENabcdefghijklmnop"
BEDROCK_MODEL = "global.anthropic.claude-sonnet-5-5"


def everything_shown(project: Project, api: FakeAPI, result) -> str:
    """Every byte code-commit wrote or sent: the console, the run folder, every request."""
    files = "".join(logged(project).values()) if project.run_dirs() else ""
    sent = "".join(request.body.decode("utf-8", "replace") for request in api.requests)
    return result.stdout + result.stderr + files + sent


# --- Bedrock ---


@pytest.fixture
def bedrock(api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
    monkeypatch.setenv("AWS_SESSION_TOKEN", SESSION_TOKEN)
    monkeypatch.setenv("AWS_REGION", "eu-west-1")

    def run(*args: str, model: str = BEDROCK_MODEL, env=None):
        return cli("--provider", "bedrock", "--model", model, "--base-url", api.url, *args, env=env)

    return run


def test_a_bedrock_run_repairs_a_project(project: Project, api: FakeAPI, bedrock) -> None:
    api.reply(WRONG, usage={"input_tokens": 1000, "output_tokens": 100})
    api.reply(FIX, usage={"input_tokens": 1000, "output_tokens": 100}, thinking="Bedrock thinks too.")

    result = bedrock("--json")

    assert result.exit_code == 0, result.stderr
    assert api.refused == []
    assert project.read("fixed.txt") == "fixed\n"
    first, second = api.requests
    assert first.path == f"/model/{BEDROCK_MODEL}/invoke-with-response-stream"
    # Signed with SigV4 for the region's bedrock service, the session token alongside; no key of ours.
    assert first.headers["authorization"].startswith(f"AWS4-HMAC-SHA256 Credential={ACCESS_KEY}/")
    assert "/eu-west-1/bedrock/aws4_request, " in first.headers["authorization"]
    assert first.headers["x-amz-security-token"] == SESSION_TOKEN
    assert first.json["anthropic_version"] == "2026-10-21" and "model" not in first.json
    assert "REPAIR TASK" in second.prompt_text
    assert logged(project)["02-thinking.txt"] == "Bedrock thinks too."
    record = json.loads(result.stdout)
    assert record["provider"] == "bedrock" and record["model"] == BEDROCK_MODEL
    assert record["cost_usd"] == pytest.approx(2 * (1000 * 2 + 100 * 10) / 1e6)  # priced as claude-sonnet-5-5


def test_bedrock_continues_a_cut_off_answer_in_a_user_turn(project: Project, api: FakeAPI, bedrock) -> None:
    api.reply("Making it.\n^^^fixed.txt\nfix", stop_reason="max_tokens")
    api.reply("Making it.\n^^^fixed.txt\nfixed\n^^^end\n")

    result = bedrock(model="us.anthropic.claude-opus-5-5")

    assert result.exit_code == 0, result.stderr
    assert api.refused == []
    assert api.requests[1].json["messages"][-1]["role"] == "user"
    assert logged(project)["01-response.txt"] == "Making it.\n^^^fixed.txt\nfixed\n^^^end\n"


def test_the_bedrock_fake_refuses_prefill_in_bedrock_s_shape(api: FakeAPI, bedrock) -> None:
    import anthropic

    client = anthropic.AnthropicBedrock(aws_region="eu-west-1", base_url=api.url, max_retries=0)
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "half"}]
    with pytest.raises(anthropic.BadRequestError) as refused:
        client.messages.create(model=BEDROCK_MODEL, max_tokens=100, messages=messages)  # type: ignore[arg-type]
    assert refused.value.body == {"message": PREFILL_MESSAGE}
    assert refused.value.response.headers["x-amzn-errortype"].startswith("ValidationException:")


def test_an_older_model_on_bedrock_gets_bedrock_s_api_version(project: Project, api: FakeAPI, bedrock) -> None:
    # Anthropic: 2026-10-21 works on Bedrock only from Claude 4.7 on; the fake refuses it for Opus 4.6.
    api.reply(FIX)

    result = bedrock(model="global.anthropic.claude-opus-4-6-v1")

    assert result.exit_code == 0, result.stderr
    assert api.requests[0].json["anthropic_version"] == "bedrock-2023-05-31"
    assert api.refused == []


def test_a_throttling_frame_in_the_event_stream_is_retried(
    project: Project, api: FakeAPI, bedrock, retry_waits: list[float]
) -> None:
    api.stream_error("^^^partial.txt\nhalf", "rate_limit_error", "Too many requests, please wait before trying again.")
    api.reply(FIX)

    result = bedrock()

    assert result.exit_code == 0, result.stderr
    assert len(api.requests) == 2 and len(retry_waits) == 1
    assert "throttlingException event in the stream: Too many requests" in result.stderr
    assert not (project.root / "partial.txt").exists()


def test_bedrock_s_errors_say_what_the_service_said(project: Project, api: FakeAPI, bedrock) -> None:
    message = "You don't have access to the model with the specified model ID."
    api.status(403, body={"message": message}, headers={"x-amzn-ErrorType": "AccessDeniedException:http://x/"})

    result = bedrock()

    assert result.exit_code == 3
    assert f"may not use {BEDROCK_MODEL} (HTTP 403: {message})" in result.stderr
    assert "AWS temporary credentials ********ZZ from environment variables" in result.stderr


def test_no_secret_of_the_aws_chain_shows_or_reaches_the_build(project: Project, api: FakeAPI, bedrock) -> None:
    # The rollup holds the secrets (a leaked .env), and build.sh prints its environment, then fails.
    project.write("agent-config/codeRollup.txt", f"==> .env <==\nAWS_SECRET={SECRET_KEY}\nTOKEN={SESSION_TOKEN}\n")
    project.build_script("env; test -f fixed.txt\n")
    api.reply(WRONG)
    api.reply(FIX)

    result = bedrock()

    assert result.exit_code == 0, result.stderr
    shown = everything_shown(project, api, result)
    for secret in (SECRET_KEY, SESSION_TOKEN, ACCESS_KEY):
        assert secret not in shown
    build = logged(project)["01-build.txt"]
    assert "AWS_SECRET_ACCESS_KEY" not in build and "AWS_SESSION_TOKEN" not in build
    assert "AWS_ACCESS_KEY_ID" not in build
    assert "********" + SECRET_KEY[-2:] in api.requests[0].prompt_text


@pytest.mark.skipif(
    shutil.which("bwrap") is None and not (os.environ.get("CI") or os.environ.get("REQUIRE_SANDBOX_TESTS")),
    reason="bubblewrap is not installed (in CI this test runs, and fails)",
)
def test_a_sandboxed_build_sees_the_clouds_credential_folders_empty(
    project: Project, api: FakeAPI, bedrock, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not under /tmp, which the sandbox replaces anyway: in the project, which it binds (git ignores it).
    home = project.root / "home"
    (project.root / ".git" / "info" / "exclude").write_text("/home/\n")
    (home / ".aws").mkdir(parents=True)
    (home / ".aws" / "credentials").write_text("[default]\naws_secret_access_key = marker-aws-file-secret\n")
    (home / ".config" / "gcloud").mkdir(parents=True)
    (home / ".config" / "gcloud" / "application_default_credentials.json").write_text('{"marker-gcloud-file": 1}')
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("CLOUDSDK_CONFIG")
    project.build_script('cat "$HOME/.aws/credentials" "$HOME"/.config/gcloud/*; ls -A "$HOME/.aws"; exit 1\n')
    api.reply(WRONG)

    result = bedrock("--sandbox", "require", env={"CODE_COMMIT_MAX_REPAIRS": "0"})

    assert result.exit_code == 1, result.stderr
    build = logged(project)["01-build.txt"]
    assert "marker-aws-file-secret" not in build and "marker-gcloud-file" not in build
    assert "No such file or directory" in build


def test_credentials_from_a_profile_file_are_found_and_censored(
    project: Project, api: FakeAPI, cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    credentials = tmp_path / "credentials"
    credentials.write_text(
        f"[default]\naws_access_key_id = {ACCESS_KEY}\naws_secret_access_key = {SECRET_KEY}\n"
        "[ci]\naws_access_key_id = AKIAOTHERPROFILE0001\naws_secret_access_key = other-secret-0123456789\n"
    )
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(credentials))
    monkeypatch.setenv("AWS_PROFILE", "ci")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-west-2")
    project.write("agent-config/codeRollup.txt", "==> notes.txt <==\nother-secret-0123456789\n")
    args = ("--provider", "bedrock", "--model", BEDROCK_MODEL, "--base-url", api.url)

    shown = cli(*args, "config")

    assert shown.exit_code == 0
    line = next(line for line in shown.stdout.splitlines() if line.startswith("# credentials:"))
    assert line == "# credentials: AWS long-term credentials ********01 from the shared credentials file, profile ci"
    api.reply(FIX)
    result = cli(*args)
    assert result.exit_code == 0, result.stderr
    request = api.requests[0]
    assert request.headers["authorization"].startswith("AWS4-HMAC-SHA256 Credential=AKIAOTHERPROFILE0001/")
    assert "/us-west-2/bedrock/" in request.headers["authorization"]
    assert "other-secret-0123456789" not in request.body.decode()


def test_a_bedrock_api_key_is_sent_as_a_bearer_token_and_censored(
    project: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = "ABSKQmVkcm9ja0FQSUtleS1mYWtlLWtleS0wMTIzNDU2Nzg5"
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", key)
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    project.write("agent-config/codeRollup.txt", f"==> k.txt <==\n{key}\n")
    api.reply(FIX)

    result = cli("--provider", "bedrock", "--model", BEDROCK_MODEL, "--base-url", api.url)

    assert result.exit_code == 0, result.stderr
    assert api.requests[0].headers["authorization"] == f"Bearer {key}"
    assert key not in everything_shown(project, api, result).replace(f"Bearer {key}", "")


@pytest.mark.parametrize(
    ("env", "args", "message"),
    [
        ({"AWS_REGION": "us-east-1"}, ("--model", BEDROCK_MODEL), "no AWS credentials found for bedrock"),
        ({"AWS_ACCESS_KEY_ID": ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": SECRET_KEY}, ("--model", BEDROCK_MODEL),
         "bedrock needs a region: set cloud_region"),
        ({"AWS_REGION": "us-east-1"}, (), "bedrock needs a model: Bedrock's ids differ from Anthropic's"),
        ({"AWS_REGION": "us east", "AWS_ACCESS_KEY_ID": ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": SECRET_KEY},
         ("--model", BEDROCK_MODEL), "is not a region name"),
    ],
)  # fmt: skip
def test_a_bedrock_setup_problem_is_exit_2_with_the_fix(
    project: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch, env: dict, args: tuple, message: str
) -> None:
    for name, value in env.items():
        monkeypatch.setenv(name, value)

    result = cli("--provider", "bedrock", "--base-url", api.url, *args)

    assert result.exit_code == 2
    assert message in result.stderr
    assert api.requests == []


@pytest.mark.parametrize(("provider", "package"), [("bedrock", "boto3"), ("vertex", "google.auth")])
def test_a_missing_cloud_package_names_the_install_command(
    project: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch, provider: str, package: str
) -> None:
    monkeypatch.setitem(sys.modules, package, None)  # as if it were not installed
    monkeypatch.setenv("AWS_REGION", "us-east-1")

    result = cli("--provider", provider, "--model", BEDROCK_MODEL, "--base-url", api.url)

    assert result.exit_code == 2
    assert f"pip install 'code-commit[{provider}]'" in result.stderr
    assert api.requests == []


# --- Vertex ---


@pytest.fixture(scope="module")
def service_account_key() -> str:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


@pytest.fixture
def vertex(api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, service_account_key: str):
    """A service account's key file, as GOOGLE_APPLICATION_CREDENTIALS names it in CI; its token endpoint
    is the fake's, where google-auth exchanges a signed assertion for an access token."""
    info = {
        "type": "service_account",
        "project_id": "sa-project",
        "private_key_id": "0f1e2d3c4b5a69788796a5b4c3d2e1f0",
        "private_key": service_account_key,
        "client_email": "ci@sa-project.iam.gserviceaccount.com",
        "client_id": "1234567890",
        "token_uri": f"{api.url}/token",
    }
    path = tmp_path / "service-account.json"
    path.write_text(json.dumps(info))
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(path))
    monkeypatch.setenv("CLOUD_ML_REGION", "us-east5")

    def run(*args: str, model: str = "claude-sonnet-5-5", env=None):
        return cli("--provider", "vertex", "--model", model, "--base-url", api.url, *args, env=env)

    run.info = info  # type: ignore[attr-defined]
    return run


def test_a_vertex_run_repairs_a_project_with_application_default_credentials(
    project: Project, api: FakeAPI, vertex
) -> None:
    api.reply(WRONG)
    api.reply(FIX)

    result = vertex("--json")

    assert result.exit_code == 0, result.stderr
    assert api.refused == []
    token, first, second = api.requests
    assert token.path == "/token" and b"assertion=" in token.body
    path = "/projects/sa-project/locations/us-east5/publishers/anthropic/models/claude-sonnet-5-5:streamRawPredict"
    assert first.path == second.path == path
    assert first.headers["authorization"] == "Bearer ya29.fake-token-0001"
    assert first.json["anthropic_version"] == "2026-10-21" and first.json["stream"] is True
    assert "model" not in first.json
    assert json.loads(result.stdout)["provider"] == "vertex"
    assert project.read("fixed.txt") == "fixed\n"


def test_vertex_project_and_region_from_the_settings(project: Project, api: FakeAPI, vertex) -> None:
    project.write("agent-config/config.toml", 'cloud_region = "europe-west1"\nvertex_project = "my-project"\n')
    api.reply(FIX)

    assert vertex(model="claude-opus-4-6").exit_code == 0
    request = api.requests[-1]
    assert request.path.startswith("/projects/my-project/locations/europe-west1/")
    assert request.json["anthropic_version"] == "vertex-2023-10-16", "older models keep Vertex's version"


def test_no_secret_of_the_google_credentials_shows(project: Project, api: FakeAPI, vertex) -> None:
    private_line = vertex.info["private_key"].splitlines()[5]
    project.write(
        "agent-config/codeRollup.txt",
        f"==> leaked.json <==\n{vertex.info['private_key_id']}\n{private_line}\n",
    )
    project.build_script("env; test -f fixed.txt\n")
    api.reply(WRONG)
    api.reply(FIX)

    result = vertex()

    assert result.exit_code == 0, result.stderr
    shown = everything_shown(project, api, result)
    assert vertex.info["private_key_id"] not in shown
    assert private_line not in shown
    assert "GOOGLE_APPLICATION_CREDENTIALS" not in logged(project)["01-build.txt"]


def test_config_says_which_google_credentials_and_project(project: Project, api: FakeAPI, vertex) -> None:
    result = vertex("config", "--json")

    assert result.exit_code == 0
    api_key = json.loads(result.stdout)["api_key"]
    assert api_key["value"] is None and api_key["needed"] is False
    assert api_key["credentials"].startswith(
        "Google application default credentials: service account ci@sa-project.iam.gserviceaccount.com, from "
    )
    assert "(environment variable GOOGLE_APPLICATION_CREDENTIALS); project sa-project" in api_key["credentials"]


def test_vertex_needs_a_project(project: Project, api: FakeAPI, vertex, tmp_path: Path, monkeypatch) -> None:
    info = {key: value for key, value in vertex.info.items() if key != "project_id"}
    (tmp_path / "no-project.json").write_text(json.dumps(info))
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "no-project.json"))

    result = vertex()

    assert result.exit_code == 2
    assert "vertex needs a Google Cloud project: set vertex_project" in result.stderr
    assert api.requests == []


def test_an_unreachable_token_endpoint_is_a_connection_fault(
    project: Project, api: FakeAPI, vertex, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    info = {**vertex.info, "token_uri": "http://127.0.0.1:9/token"}  # nothing listens on the discard port
    (tmp_path / "unreachable.json").write_text(json.dumps(info))
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "unreachable.json"))

    result = vertex()

    assert result.exit_code == 3
    assert "cannot get a Google access token" in result.stderr
    assert "internal error" not in result.stderr
    assert api.requests == []


def test_vertex_needs_a_region(project: Project, api: FakeAPI, vertex, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CLOUD_ML_REGION")

    result = vertex()

    assert result.exit_code == 2
    assert "vertex needs a region: set cloud_region in agent-config/config.toml, or CLOUD_ML_REGION" in result.stderr


def test_config_says_when_no_aws_credentials_would_be_found(project: Project, api: FakeAPI, cli, monkeypatch) -> None:
    monkeypatch.setenv("AWS_REGION", "us-east-1")

    result = cli("--provider", "bedrock", "--model", BEDROCK_MODEL, "config")

    assert result.exit_code == 0
    assert "# credentials: no AWS credentials found for bedrock: set AWS_ACCESS_KEY_ID" in result.stdout
