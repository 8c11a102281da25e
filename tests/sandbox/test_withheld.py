"""The build gets no secret: no secret variable, no password of a URL, no credential store of the
home directory, in the sandbox and out of it where it can be withheld (the environment). Each
attack is a build.sh that looks for them and prints what it finds encoded, as an attacker would
(base64, reversed: no censoring recognises those), through the real loop, the real SDK and the
fake service."""

from __future__ import annotations

import base64
import json
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from code_commit.sandbox.withheld import CREDENTIAL_STORES, build_environment, hidden_stores

from fakeapi import FakeAPI
from support import TEST_KEY, Project

if shutil.which("bwrap") is None:
    if os.environ.get("CI") or os.environ.get("REQUIRE_SANDBOX_TESTS"):
        pytest.fail("bubblewrap (bwrap) is missing in CI: .ci/run installs it; these tests must run", pytrace=False)
    pytest.skip("bubblewrap (bwrap) is not installed here", allow_module_level=True)

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
WRONG = "^^^wrong.txt\nno\n^^^end\n"
# The audit's variables, each of which reached the build, and from its output the model.
SECRET_VARIABLES = {
    "GITHUB_TOKEN": "ghs_audit0123456789GITHUBtoken",
    "AWS_SECRET_ACCESS_KEY": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYAUDIT",
    "GH_PAT": "github_pat_11AUDIT0123456789abcdef",
    "NPM_AUTH": "bnBtOmF1ZGl0LXBhc3N3b3JkLTAxMjM0",
    "CI_JOB_JWT": "eyJhbGciOiJSUzI1NiJ9.audit.signature",
    "DATABASE_URL": "postgres://app:db-pass-AUDIT-0123@db.internal:5432/app",
    "SSH_AUTH_SOCK": "/run/user/0/ssh-agent.sock",
}


def encoded(value: str) -> list[str]:
    return [value, base64.b64encode(value.encode()).decode(), value[::-1]]


def everything(project: Project, api: FakeAPI, *outputs: str) -> str:
    logs = "".join(
        p.read_text(errors="replace") for run in project.run_dirs() for p in sorted(run.rglob("*")) if p.is_file()
    )
    return logs + "".join(json.dumps(r.json) for r in api.requests) + "".join(outputs)


LOOK_AT_THE_ENVIRONMENT = "env | base64 -w0; echo; env | rev\ntest -f fixed.txt\n"


@pytest.mark.parametrize("sandbox", ["require", "off"])
def test_no_secret_variable_nor_url_password_reaches_the_build(
    project: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch, sandbox: str
) -> None:
    for name, value in SECRET_VARIABLES.items():
        monkeypatch.setenv(name, value)
    gateway = api.url.replace("http://", "http://gw-user:gw-pass-0123@")  # a password in the base URL
    monkeypatch.setenv("ANTHROPIC_BASE_URL", gateway)
    project.build_script(LOOK_AT_THE_ENVIRONMENT)
    project.commit_all()
    api.reply(WRONG)
    api.reply(FIX)

    result = cli("--json", "--sandbox", sandbox)

    assert result.exit_code == 0, result.stderr
    assert len(api.requests) == 2, "the build's output went to the model"
    seen = everything(project, api, result.stdout, result.stderr)
    for value in [*SECRET_VARIABLES.values(), TEST_KEY, "gw-pass-0123", "db-pass-AUDIT-0123"]:
        for form in encoded(value):
            assert form not in seen, (value, form)
    build_log = (project.run_dirs()[0] / "01-build.txt").read_text()
    assert "NO_COLOR=1" in base64.b64decode(build_log.split("\n", 1)[0]).decode()  # the build did print env


def test_build_env_passes_a_named_variable_on_purpose_and_it_is_still_censored(
    project: Project, api: FakeAPI, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = SECRET_VARIABLES["GITHUB_TOKEN"]
    monkeypatch.setenv("GITHUB_TOKEN", token)
    monkeypatch.setenv("GH_PAT", SECRET_VARIABLES["GH_PAT"])
    project.write("agent-config/config.toml", 'build_env = ["GITHUB_TOKEN"]\n')
    project.build_script('echo "token:$GITHUB_TOKEN pat:${GH_PAT:-withheld}"\ntest -f fixed.txt\n')
    project.commit_all()
    api.reply(WRONG)
    api.reply(FIX)

    result = cli("--json")

    assert result.exit_code == 0, result.stderr
    assert f"token:********{token[-2:]} pat:withheld" in api.requests[1].prompt_text
    assert token not in everything(project, api, result.stdout, result.stderr)


@pytest.mark.parametrize(
    ("setting", "message"),
    [
        ('build_env = ["ANTHROPIC_API_KEY"]', "never given to the build"),
        ('build_env = ["CODE_COMMIT_MODEL"]', "never given to the build"),
        ('build_env = ["not a name"]', "is not an environment variable name"),
        ('sandbox_hidden = ["relative/path"]', "is not an absolute path"),
        ('sandbox_hidden = ["/"]', "holds the project"),
        ('sandbox_visible = ["relative"]', "is not an absolute path"),
    ],
)
def test_bad_withholding_settings_are_setup_errors(project: Project, cli, setting: str, message: str) -> None:
    project.write("agent-config/config.toml", setting + "\n")
    result = cli("config")
    assert result.exit_code == 2
    assert message in result.stderr


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A home directory outside /tmp (which the sandbox replaces, so a home there proves nothing),
    with a credential in each store the audit planted, and more."""
    folder = Path(tempfile.mkdtemp(prefix="code-commit-home-", dir="/var/tmp"))
    stores = {
        ".ssh/id_ed25519": "SSH-PRIVATE-KEY-audit",
        ".aws/credentials": "AWS-CREDENTIALS-audit",
        ".azure/accessTokens.json": "AZURE-TOKEN-audit",
        ".config/gcloud/credentials.db": "GCLOUD-CREDENTIALS-audit",
        ".config/gh/hosts.yml": "GH-HOSTS-TOKEN-audit",
        ".kube/config": "KUBE-CONFIG-audit",
        ".docker/config.json": "DOCKER-AUTH-audit",
        ".gnupg/private-keys-v1.d/key": "GPG-PRIVATE-audit",
        ".netrc": "NETRC-PASSWORD-audit",
        ".git-credentials": "GIT-CREDENTIALS-audit",
        ".pypirc": "PYPIRC-PASSWORD-audit",
        ".npmrc": "NPMRC-AUTH-TOKEN-audit",
        ".cargo/credentials.toml": "CARGO-TOKEN-audit",
        ".m2/settings.xml": "<settings><servers>M2-PASSWORD-audit</servers></settings>",
        ".m2/settings-security.xml": "M2-MASTER-audit",
        ".gradle/gradle.properties": "GRADLE-PASSWORD-audit",
        "notes/plain-secret.txt": "PLAIN-FILE-SECRET-audit",  # sandbox_hidden's
    }
    for name, text in stores.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text + "\n")
    (folder / ".cargo" / "config.toml").write_text("# not a credential\n")
    monkeypatch.setenv("HOME", str(folder))
    yield folder
    shutil.rmtree(folder)


READ_THE_HOME = (
    'cd "$HOME" && find . -type f | sort | while read -r f; do printf "%s " "$f"; base64 -w0 "$f"; echo; done\n'
    'cd "$OLDPWD"\n'
    'echo "m2:$(cat "$HOME/.m2/settings.xml")" "cargo:$(cat "$HOME/.cargo/config.toml")"\n'
    'ls -d "$HOME/.ssh" && echo ssh-is-a-folder\n'
    "test -f fixed.txt\n"
)


def test_no_credential_store_in_the_home_reaches_a_sandboxed_build(
    project: Project, api: FakeAPI, cli, home: Path
) -> None:
    project.write("agent-config/config.toml", f'sandbox_hidden = ["{home}/notes"]\n')
    project.build_script(READ_THE_HOME)
    project.commit_all()
    api.reply(WRONG)
    api.reply(FIX)

    result = cli("--json", "--sandbox", "require")

    assert result.exit_code == 0, result.stderr
    seen = everything(project, api, result.stdout, result.stderr)
    for path in home.rglob("*"):
        if path.is_file() and "audit" in path.read_text():
            for form in encoded(path.read_text()):
                assert form not in seen, path
    build_log = (project.run_dirs()[0] / "01-build.txt").read_text()
    assert "m2:<settings/>" in build_log, "Maven's settings read as the least it parses, not as a failure"
    assert "cargo:# not a credential" in build_log, "the rest of a tool's folder is there"
    assert "ssh-is-a-folder" in build_log, "a hidden folder is an empty folder"


def test_sandbox_visible_shows_a_store_the_build_cannot_do_without(
    project: Project, api: FakeAPI, cli, home: Path
) -> None:
    project.write("agent-config/config.toml", 'sandbox_visible = ["~/.npmrc"]\n')
    project.build_script('grep -c NPMRC "$HOME/.npmrc"; grep -c NETRC "$HOME/.netrc"\ntest -f fixed.txt\n')
    project.commit_all()
    api.reply(FIX)

    result = cli("--json", "--sandbox", "require")

    assert result.exit_code == 0, result.stderr
    assert (project.run_dirs()[0] / "01-build.txt").read_text().startswith("1\n0\n")


def test_the_hidden_stores_are_one_declaration_expanded_where_they_exist(home: Path, tmp_path: Path) -> None:
    (home / ".ssh-link-target").mkdir()
    hidden = hidden_stores(extra=[f"{home}/notes/*.txt"], visible=["~/.pypirc"], home=str(home))
    folders = {p.relative_to(home).as_posix() for p in hidden.folders}
    files = {p.relative_to(home).as_posix(): text for p, text in hidden.files}
    assert folders == {".ssh", ".aws", ".azure", ".config/gcloud", ".config/gh", ".kube", ".docker", ".gnupg"}
    assert files == {
        ".netrc": "",
        ".git-credentials": "",
        ".npmrc": "",
        ".cargo/credentials.toml": "",
        ".m2/settings.xml": "<settings/>\n",
        ".m2/settings-security.xml": "<settingsSecurity/>\n",
        ".gradle/gradle.properties": "",
        "notes/plain-secret.txt": "",
    }  # .pypirc is visible; .cargo/config.toml is no credential
    assert all(store.pattern.startswith("~/") for store in CREDENTIAL_STORES)
    # A store that holds the project (or a writable path) is not hidden: the build would lose it.
    inside = home / ".config" / "gh" / "project"
    inside.mkdir()
    assert home / ".config" / "gh" not in hidden_stores(home=str(home), keep=[inside]).folders


def test_the_build_environment_withholds_what_the_collector_recognises() -> None:
    env = {
        **SECRET_VARIABLES,
        "ANTHROPIC_API_KEY": TEST_KEY,
        "CODE_COMMIT_MODEL": "m",
        "SHORT_TOKEN": "1",  # too short to censor, still withheld
        "GOOGLE_APPLICATION_CREDENTIALS": "/etc/hostname",  # a path to a credential: withheld, not censored
        "ANTHROPIC_BASE_URL": "https://u:p@gateway.example/",
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "SSH_AUTH_SOCKET_DIR": "/x",
        "TOKENIZERS_PARALLELISM": "false",
        "MY_DB": "postgres://app@db/app",  # a user name alone is no secret
        "DEPLOY_HOST": "deploy.example",
    }
    built = build_environment(env, passed=["GH_PAT", "ANTHROPIC_API_KEY"], named=["DEPLOY_HOST"])
    assert built == {
        "GH_PAT": SECRET_VARIABLES["GH_PAT"],
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "SSH_AUTH_SOCKET_DIR": "/x",
        "TOKENIZERS_PARALLELISM": "false",
        "MY_DB": "postgres://app@db/app",
        "NO_COLOR": "1",
    }
