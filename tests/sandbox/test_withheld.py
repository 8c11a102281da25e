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
from collections.abc import Iterator
from pathlib import Path

import pytest

from code_commit.config.secrets import looks_secret
from code_commit.sandbox.allowlist import TABLE, allowed
from code_commit.sandbox.withheld import CREDENTIAL_STORES, build_environment, hidden_stores

from fakeapi import FakeAPI
from support import TEST_KEY, Project
from support.sandbox import outside_tmp, require_bwrap

require_bwrap()

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
    # Issue 31's: names no deny list knew, each a credential in a form of its own.
    "SENTRY_DSN": "https://0123456789abcdefSENTRYaudit0123@o1.ingest.sentry.io/42",
    "JDBC_URL": "jdbc:postgresql://db.internal:5432/app?user=app&password=jdbc-AUDIT-pass-0123",
    "CONNECTION_STRING": "Server=db.internal;Database=app;User Id=sa;Password=conn-AUDIT-pass-0123;",
    "SLACK_WEBHOOK_URL": "https://hooks.slack.com/services/T0AUDIT/B0AUDIT/slackAUDITwebhook0123",
    "GIT_CONFIG_PARAMETERS": "'http.https://github.com/.extraheader'='AUTHORIZATION: bearer ghs_extraAUDITheader0123'",
    "DOCKER_AUTH_CONFIG": '{"auths":{"registry.example.com":{"auth":"'
    + base64.b64encode(b"ci:docker-AUDIT-0123").decode()
    + '"}}}',
    "VAULT_LOGIN": "role_id=app-role secret_id=vault-AUDIT-secret-id-0123",
    # A toolchain's own variables that are its credentials, though the table allows the toolchain.
    "UV_PUBLISH_TOKEN": "pypi-uvAUDITpublish0123456789",
    "UV_INDEX_PRIVATE_PASSWORD": "uv-index-AUDIT-pass-0123",
    "npm_config__authToken": "npm_AUDITauthtoken0123456789",
    "npm_config_//registry.example/:_authToken": "npm_AUDITnerfdart0123456789",
    "YARN_NPM_AUTH_IDENT": "yarn-AUDIT-ident-0123",
    "CARGO_REGISTRY_TOKEN": "cio_AUDITcargo0123456789",
    "JAVA_TOOL_OPTIONS": "-Djavax.net.ssl.trustStorePassword=java-AUDIT-store-0123",
}
# The variables a build needs, which it gets as they are.
TOOLCHAIN_VARIABLES = {"CARGO_TERM_COLOR": "never", "npm_config_fund": "false", "UV_LINK_MODE": "copy", "TZ": "UTC"}


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
    for name, value in {**SECRET_VARIABLES, **TOOLCHAIN_VARIABLES}.items():
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
    printed = base64.b64decode(build_log.split("\n", 1)[0]).decode()
    assert "NO_COLOR=1" in printed  # the build did print env
    assert all(f"{name}={value}" in printed for name, value in TOOLCHAIN_VARIABLES.items()), printed


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


@pytest.mark.parametrize("as_json", [False, True])
def test_config_shows_what_a_build_would_get_its_secrets_censored(
    project: Project, cli, monkeypatch: pytest.MonkeyPatch, as_json: bool
) -> None:
    for name, value in {**SECRET_VARIABLES, **TOOLCHAIN_VARIABLES, "NPM_TOKEN": "npm_configAUDIT0123456"}.items():
        monkeypatch.setenv(name, value)
    project.write("agent-config/config.toml", 'build_env = ["NPM_TOKEN"]\n')

    result = cli("config", *(["--json"] if as_json else []))

    assert result.exit_code == 0, result.stderr
    for value in [*SECRET_VARIABLES.values(), "npm_configAUDIT0123456"]:
        assert value not in result.stdout
    if as_json:
        shown = json.loads(result.stdout)["build_environment"]
        given, withheld = shown["given"], shown["withheld"]
    else:
        lines = result.stdout.splitlines()
        given = dict(line[4:].split("=", 1) for line in lines if line.startswith("#   "))
        withheld = (
            next(line for line in lines if line.startswith("# Withheld from builds")).split(": ", 1)[1].split(", ")
        )
    assert given["NPM_TOKEN"] == "********56", "build_env's variable passes, censored"
    assert all(given[name] == value for name, value in TOOLCHAIN_VARIABLES.items())
    assert {"SENTRY_DSN", "JDBC_URL", "DOCKER_AUTH_CONFIG", "GIT_CONFIG_PARAMETERS"} <= set(withheld)
    assert not set(SECRET_VARIABLES) & set(given)


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
    folder = outside_tmp("code-commit-home-")
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
        # Issue 31's: stores no list knew, and the file KUBECONFIG names.
        ".config/rclone/rclone.conf": "RCLONE-SECRET-audit",
        ".s3cfg": "S3CFG-SECRET-audit",
        ".terraform.d/credentials.tfrc.json": "TERRAFORM-TOKEN-audit",
        ".password-store/bank.gpg": "PASSWORD-STORE-audit",
        "clusters/prod.yaml": "KUBECONFIG-TOKEN-audit",
        ".cargo/credentials": "CARGO-LEGACY-TOKEN-audit",
    }
    for name, text in stores.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text + "\n")
    (folder / ".cargo" / "config.toml").write_text("# not a credential\n")
    (folder / ".m2" / "repository").mkdir(parents=True)
    (folder / ".m2" / "repository" / "dep.jar").write_text("a dependency\n")
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.setenv("KUBECONFIG", str(folder / "clusters" / "prod.yaml"))
    yield folder
    shutil.rmtree(folder)


STORES = (
    ".ssh/id_ed25519 .aws/credentials .config/gh/hosts.yml .kube/config .docker/config.json .netrc .npmrc "
    ".cargo/credentials.toml .cargo/credentials .m2/settings.xml .m2/settings-security.xml .gradle/gradle.properties "
    ".config/rclone/rclone.conf .s3cfg .terraform.d/credentials.tfrc.json .password-store/bank.gpg "
    "notes/plain-secret.txt"
)
READ_THE_HOME = (
    'cd "$HOME" && find . -type f | sort | while read -r f; do printf "%s " "$f"; base64 -w0 "$f"; echo; done\n'
    f'for f in {STORES}; do printf "%s " "$f"; base64 -w0 "$f"; echo; done\n'
    'printf "kube "; base64 -w0 "${KUBECONFIG:-$HOME/clusters/prod.yaml}"; echo\n'
    'cd "$OLDPWD"\n'
    'echo "cargo:$(cat "$HOME/.cargo/config.toml")" "m2:$(cat "$HOME/.m2/repository/dep.jar")"\n'
    '(: > "$HOME/.cargo/planted") 2>/dev/null || echo CARGO-READ-ONLY\n'
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
    assert "cargo:# not a credential" in build_log, "the rest of a toolchain's folder is there"
    assert "m2:a dependency" in build_log, "Maven's repository is there"
    assert "CARGO-READ-ONLY" in build_log and not (home / ".cargo" / "planted").exists()


def test_sandbox_visible_shows_a_store_the_build_cannot_do_without(
    project: Project, api: FakeAPI, cli, home: Path
) -> None:
    project.write("agent-config/config.toml", 'sandbox_visible = ["~/.npmrc", "~/.config"]\n')
    project.build_script(
        'grep -c NPMRC "$HOME/.npmrc"; grep -c NETRC "$HOME/.netrc" || echo no-netrc\n'
        'ls "$HOME/.config"; cat "$HOME/.config/gh/hosts.yml" "$HOME/.config/rclone/rclone.conf" 2>/dev/null | wc -c\n'
        "test -f fixed.txt\n"
    )
    project.commit_all()
    api.reply(FIX)

    result = cli("--json", "--sandbox", "require")

    assert result.exit_code == 0, result.stderr
    log = (project.run_dirs()[0] / "01-build.txt").read_text()
    assert log.startswith("1\n"), log
    assert "no-netrc" in log, "what sandbox_visible does not name stays out of the empty home"
    assert "gcloud\ngh\nrclone\n0\n" in log, "a visible folder shows, the credential stores in it stay hidden"


def test_the_hidden_stores_are_one_declaration_expanded_where_they_exist(home: Path, tmp_path: Path) -> None:
    (home / ".ssh-link-target").mkdir()
    hidden = hidden_stores(extra=[f"{home}/notes/*.txt"], visible=["~/.pypirc"], home=str(home))
    folders = {p.relative_to(home).as_posix() for p in hidden.folders}
    files = {p.relative_to(home).as_posix(): text for p, text in hidden.files}
    assert folders == {
        *(".ssh", ".aws", ".azure", ".config/gcloud", ".config/gh", ".kube", ".docker", ".gnupg"),
        *(".config/rclone", ".password-store"),
    }
    assert files == {
        ".netrc": "",
        ".git-credentials": "",
        ".npmrc": "",
        ".cargo/credentials.toml": "",
        ".cargo/credentials": "",
        ".m2/settings.xml": "<settings/>\n",
        ".m2/settings-security.xml": "<settingsSecurity/>\n",
        ".gradle/gradle.properties": "",
        "notes/plain-secret.txt": "",
        ".s3cfg": "",
        ".terraform.d/credentials.tfrc.json": "",
        "clusters/prod.yaml": "",  # KUBECONFIG names it
    }  # .pypirc is visible; .cargo/config.toml is no credential
    assert all(store.pattern.startswith("~/") for store in CREDENTIAL_STORES)
    # A store a variable names is hidden wherever it is.
    elsewhere = tmp_path / "kube" / "prod.yaml"
    elsewhere.parent.mkdir()
    elsewhere.write_text("token")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("KUBECONFIG", f"{tmp_path}/missing.yaml{os.pathsep}{elsewhere}")
        assert (elsewhere, "") in hidden_stores(home=str(home)).files
    # A store that holds the project (or a writable path) is not hidden: the build would lose it.
    inside = home / ".config" / "gh" / "project"
    inside.mkdir()
    assert home / ".config" / "gh" not in hidden_stores(home=str(home), keep=[inside]).folders


def test_the_build_environment_is_what_the_tables_allow_and_build_env_names() -> None:
    env = {
        **SECRET_VARIABLES,
        **TOOLCHAIN_VARIABLES,
        "ANTHROPIC_API_KEY": TEST_KEY,
        "CODE_COMMIT_MODEL": "m",
        "CODE_COMMIT_SHORT_TOKEN": "1",
        "SHORT_TOKEN": "1",  # too short to censor, still withheld
        "GOOGLE_APPLICATION_CREDENTIALS": "/etc/hostname",  # a path to a credential: withheld, not censored
        "ANTHROPIC_BASE_URL": "https://u:p@gateway.example/",
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "LC_ALL": "C.UTF-8",
        "SSH_AUTH_SOCKET_DIR": "/x",  # no table names these: dropped, whatever they hold
        "TOKENIZERS_PARALLELISM": "false",
        "MY_DB": "postgres://app@db/app",
        "npm_config_registry": "https://npm:npm-pass-0123@registry.example/",  # allowed, but its value holds one
        "CARGO_TERM_VERBOSE": "true",
        "DEPLOY_HOST": "deploy.example",
        "CARGO_HOME": "/home/u/.cargo",
        "NPM_CONFIG__AUTH": "bnBtOnBhc3N3b3Jk",  # npm's in either case
    }
    built = build_environment(env, passed=["GH_PAT", "ANTHROPIC_API_KEY", "MY_DB"], named=["CARGO_TERM_VERBOSE"])
    assert built == {
        **TOOLCHAIN_VARIABLES,
        "GH_PAT": SECRET_VARIABLES["GH_PAT"],  # build_env passes any variable, secret or not
        "MY_DB": "postgres://app@db/app",
        "PATH": "/usr/bin",
        "HOME": "/home/u",
        "LC_ALL": "C.UTF-8",
        "CARGO_HOME": "/home/u/.cargo",
        "NO_COLOR": "1",
    }


def test_every_table_entry_has_its_source_and_allows_no_credential_by_name() -> None:
    for entry in TABLE:
        assert entry.source.startswith("https://"), entry
        assert all(folder.startswith("~/") for folder in entry.folders), entry
        for pattern in entry.variables:
            assert not looks_secret(pattern.rstrip("*")), pattern
    for name in (
        "npm_config__authToken",
        "npm_config_//r.example/:_authToken",
        "npm_config_//r/:-authtoken",
        "UV_INDEX_CORP_PASSWORD",
        "UV_PUBLISH_TOKEN",
        "YARN_NPM_AUTH_IDENT",
        "GOAUTH",
        "CARGO_REGISTRIES_CORP_TOKEN",
        "POETRY_HTTP_BASIC_CORP_PASSWORD",
        "PIP_CLIENT_CERT",
        "GIT_CONFIG_PARAMETERS",
        "XDG_RUNTIME_DIR",
        "LD_PRELOAD",
        "ORG_GRADLE_PROJECT_repoPassword",
    ):
        assert not allowed(name), name
    for name in (
        "PATH",
        "LC_CTYPE",
        "CARGO_TARGET_DIR",
        "RUSTUP_TOOLCHAIN",
        "GOFLAGS",
        "JAVA_HOME",
        "VIRTUAL_ENV",
        "UV_INDEX_URL",
        "npm_config_registry",
        "NPM_CONFIG_CACHE",
        "PYENV_VERSION",
        "NVM_DIR",
        "CI",
    ):
        assert allowed(name), name
