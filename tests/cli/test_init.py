"""`code-commit init` scaffolds without overwriting, and `code-commit config` shows the effective
settings; the config template is generated from the settings and cannot drift from them."""

from __future__ import annotations

import dataclasses
import json
import os
import re
import stat
from pathlib import Path

import pytest

from code_commit.config.settings import Settings, load_settings

from support import TEST_KEY

REPO = Path(__file__).resolve().parents[2]


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_init_on_an_empty_directory(tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = cli("init")
    assert result.exit_code == 0
    assert (tmp_path / ".gitignore").read_text() == "/agent-config\n"
    query = (tmp_path / "agent-config" / "query.txt").read_text()
    assert "Replace this text with the change you want" in query
    assert (tmp_path / "agent-config" / "config.toml").read_text().startswith("# code-commit settings")
    build = (tmp_path / "build.sh").read_text()
    assert build.startswith("#!/bin/sh\n") and "exit 1" in build, "an unedited build.sh never passes"
    assert (tmp_path / "codeRollup.sh").read_text() == (REPO / "codeRollup.sh").read_text()
    assert mode(tmp_path / "build.sh") & 0o111 and mode(tmp_path / "codeRollup.sh") & 0o111
    for name in ("agent-config/query.txt", "agent-config/config.toml", ".gitignore", "build.sh", "codeRollup.sh"):
        assert f"created  {name}" in result.stderr
    assert "next steps:" in result.stderr and "1. git init" in result.stderr and "./codeRollup.sh" in result.stderr

    # The untouched template is never sent to a model.
    (tmp_path / "agent-config" / "codeRollup.txt").write_text("==> a <==\n")
    result = cli(env={"ANTHROPIC_API_KEY": TEST_KEY, "ANTHROPIC_BASE_URL": "http://127.0.0.1:9"})
    assert result.exit_code == 2 and "still the template from code-commit init" in result.stderr


def test_init_on_an_existing_project_keeps_everything(tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    existing = {
        ".gitignore": "*.pyc\nbuild/",  # no final newline
        "build.sh": "#!/bin/sh\nmake test\n",
        "agent-config/query.txt": "Add a --verbose flag.\n",
        "pyproject.toml": "[project]\nname = 'x'\n",
    }
    for name, text in existing.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    os.chmod(tmp_path / "build.sh", 0o700)

    result = cli("init")
    assert result.exit_code == 0
    assert (tmp_path / ".gitignore").read_text() == "*.pyc\nbuild/\n/agent-config\n"
    for name in ("build.sh", "agent-config/query.txt", "pyproject.toml"):
        assert (tmp_path / name).read_text() == existing[name], name
    assert mode(tmp_path / "build.sh") == 0o700
    assert "kept     build.sh" in result.stderr and "added    /agent-config to .gitignore" in result.stderr
    assert "edit build.sh" not in result.stderr
    assert "check: build fails: build.sh exited with code 2" in result.stderr, "the user's own build.sh, checked"

    # A second init changes nothing at all (without its check, which logs a run folder).
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    result = cli("init", "--no-check")
    assert result.exit_code == 0 and "created" not in result.stderr
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize("gitignore", ["/agent-config\n!/agent-config\n", "  /agent-config\n"])
def test_init_adds_the_line_when_git_would_not_ignore_agent_config(
    tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch, gitignore: str
) -> None:
    """A line that git reads differently, or that a later `!` line undoes, does not count."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".gitignore").write_text(gitignore)
    result = cli("init")
    assert result.exit_code == 0 and "added    /agent-config to .gitignore" in result.stderr
    assert (tmp_path / ".gitignore").read_text() == gitignore + "/agent-config\n", "last, so it wins"


def test_init_where_agent_config_is_a_file_is_a_setup_error(tmp_path: Path, cli, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "agent-config").write_text("mine\n")
    result = cli("init")
    assert result.exit_code == 2
    assert "agent-config exists and is not a directory" in result.stderr and "move it away" in result.stderr
    assert "Traceback" not in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agent-config"], "nothing else was created"


def test_init_guesses_the_build_from_the_project(tmp_path: Path, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "Cargo.toml").write_text("[package]\n")
    assert cli("init").exit_code == 0
    build = (tmp_path / "build.sh").read_text()
    assert "cargo test" in build and "exit 1" not in build


def test_the_config_template_documents_every_setting_at_its_default(tmp_path: Path) -> None:
    from code_commit.cli.config_report import template

    text = template()
    for f in dataclasses.fields(Settings):
        assert f"# {f.metadata['doc']}\n" in text, f.name
        assert re.search(rf"^# {f.name} = ", text, re.MULTILINE), f.name
    # Uncommented, every setting line is valid and gives the defaults (unset ones get their example).
    uncommented = re.sub(r"^# (\w+ = )", r"\1", text, flags=re.MULTILINE)
    (tmp_path / "agent-config").mkdir()
    (tmp_path / "agent-config" / "config.toml").write_text(uncommented)
    loaded = load_settings(tmp_path, env={})
    assert set(loaded.sources.values()) == {"config file"}
    for f in dataclasses.fields(Settings):
        value = getattr(loaded.settings, f.name)
        expected = getattr(Settings(), f.name)
        assert value == (f.metadata["example"] if expected is None else expected), f.name


def test_config_shows_values_sources_and_the_censored_key(project, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    project.write("agent-config/config.toml", "max_tokens = 1000\nbuild_timeout = 60\n")
    monkeypatch.setenv("CODE_COMMIT_BUILD_TIMEOUT", "90")
    monkeypatch.setenv("ANTHROPIC_API_KEY", TEST_KEY)
    result = cli("--model", "from-a-flag", "config")
    assert result.exit_code == 0
    out = result.stdout
    assert re.search(r'^model +\= "from-a-flag"  # flag$', out, re.MULTILINE)
    assert re.search(r"^max_tokens +\= 1000  # config file$", out, re.MULTILINE)
    assert re.search(r"^build_timeout +\= 90.0  # env CODE_COMMIT_BUILD_TIMEOUT$", out, re.MULTILINE)
    assert re.search(r"^keep_runs +\= 50  # default$", out, re.MULTILINE)
    assert f'"********{TEST_KEY[-2:]}"  # environment variable ANTHROPIC_API_KEY' in out
    assert TEST_KEY not in out + result.stderr

    data = json.loads(cli("config", "--json").stdout)
    assert data["settings"]["build_timeout"] == {"value": 90.0, "source": "env CODE_COMMIT_BUILD_TIMEOUT"}
    assert data["api_key"]["value"] == "********" + TEST_KEY[-2:]


def test_config_without_a_key_and_with_a_bad_setting(project, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    result = cli("config")
    assert result.exit_code == 0 and "api_key" in result.stdout and "no API key configured" in result.stdout
    monkeypatch.setenv("CODE_COMMIT_KEEP_RUNS", "-1")
    result = cli("config")
    assert result.exit_code == 2 and "keep_runs (from env CODE_COMMIT_KEEP_RUNS)" in result.stderr
