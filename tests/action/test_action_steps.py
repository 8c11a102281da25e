"""The action's steps one by one, in this process: the record read defensively (whatever is missing
or wrong, the exit code the action saw stands and the summary names the gap), the install step's
commands, and the sandbox step's decisions on an Ubuntu 24.04 runner (a fake host: AppArmor cannot
be loaded here)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from simulated_runner import parse_output_file

from code_commit.cli.github_action import steps
from code_commit.cli.github_action.facts import NOT_RUN, RECORD_FILE, Ran, read_facts
from code_commit.cli.github_action.sandbox_setup import PROFILE_NAME, PROFILES, profile_text, set_up
from code_commit.schemas import SCHEMA_VERSION

from support import git

GOOD = {
    "schema_version": SCHEMA_VERSION,
    "outcome": "build_failed",
    "exit_code": 1,
    "error": "the build still fails",
    "cost_usd": 0.25,
    "files_changed": ["b.txt", "a.txt"],
    "files_deleted": ["old.txt"],
    "log_dir": None,
    "calls": [{}, {}],
    "usage": {"input_tokens": 100, "output_tokens": 20, "estimated": False},
    "duration_s": 3.5,
    "last_build": {"passed": False, "exit_code": 1},
    "model": "m",
}


def _folder(tmp_path: Path, record: object, exit_code: int = 1, raw: bytes | None = None) -> Path:
    folder = tmp_path / "action"
    folder.mkdir()
    Ran(exit_code, str(tmp_path)).save(folder)
    (folder / RECORD_FILE).write_bytes(raw if raw is not None else json.dumps(record).encode())
    return folder


def _steps_after(folder: Path | None, tmp_path: Path) -> tuple[dict[str, str], str, int]:
    """The report, summary and exit steps on `folder`: the outputs, the summary, the exit code."""
    env = {"GITHUB_OUTPUT": str(tmp_path / "out"), "GITHUB_STEP_SUMMARY": str(tmp_path / "summary")}
    if folder is not None:
        env["ACTION_FOLDER"] = str(folder)
    for name in ("out", "summary"):
        (tmp_path / name).write_text("")
    assert steps.report(env) == 0 and steps.summary(env) == 0
    outputs = parse_output_file((tmp_path / "out").read_text())
    return outputs, (tmp_path / "summary").read_text(), steps.exit_step(env)


def test_a_whole_record_reads_into_every_output(tmp_path: Path) -> None:
    for name, text in (("a.txt", "one\ntwo\n"), ("old.txt", "gone\n")):
        (tmp_path / name).write_text(text)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "a.txt", "old.txt")
    git(tmp_path, "commit", "-qm", "before")
    (tmp_path / "a.txt").write_text("one\n2\nthree\n")
    (tmp_path / "b.txt").write_text("new\n")
    (tmp_path / "old.txt").unlink()

    outputs, summary, code = _steps_after(_folder(tmp_path, GOOD), tmp_path)
    assert code == 1
    assert outputs["outcome"] == "build_failed" and outputs["cost"] == "0.25"
    assert outputs["changed-files"] == "a.txt\nb.txt\nold.txt"
    assert "| model calls | 2 |" in summary and "100 in, 20 out" in summary and "| duration | 3.5 s |" in summary
    assert "| a&#46;txt | +2 -1 |" in summary
    assert "| b&#46;txt | +1 -0 (created) |" in summary
    assert "| old&#46;txt | +0 -1 (deleted) |" in summary
    assert "Problems the action found" not in summary


@pytest.mark.parametrize(
    ("damage", "named"),
    [
        ({"usage": "lots"}, "the record's `usage` is not an object"),
        ({"cost_usd": "a lot"}, "the record's `cost_usd` is not a number"),
        ({"files_changed": [1, "a.txt"]}, "holds something other than paths"),
        ({"calls": "many"}, "the record's `calls` is not a list"),
        ({"outcome": "pwned"}, "not one code-commit names"),
        ({"exit_code": 0}, "the record says exit code 0, but code-commit exited 1"),
        ({"schema_version": SCHEMA_VERSION + 1}, f"schema version {SCHEMA_VERSION + 1}"),
        ({"log_dir": "/etc"}, "not a run folder"),
        ({"exit_code": True}, "the record's `exit_code` is not a whole number"),
    ],
)
def test_a_damaged_record_is_named_and_the_exit_code_stands(tmp_path: Path, damage: dict, named: str) -> None:
    outputs, summary, code = _steps_after(_folder(tmp_path, {**GOOD, **damage}), tmp_path)
    assert code == 1 and outputs["exit-code"] == "1" and outputs["outcome"] == "build_failed"
    assert named in (read_facts(tmp_path / "action").problems or ("",))[0]
    assert "Problems the action found" in summary


@pytest.mark.parametrize("key", sorted(GOOD))
def test_a_missing_key_is_named_never_a_crash(tmp_path: Path, key: str) -> None:
    record = {k: v for k, v in GOOD.items() if k != key}
    outputs, summary, code = _steps_after(_folder(tmp_path, record), tmp_path)
    assert code == 1 and outputs["outcome"] == "build_failed"
    nullable = key in ("error", "log_dir", "model", "last_build", "usage")
    assert (f"the record has no &#96;{key.replace('_', '&#95;')}&#96;" in summary) is True or nullable


@pytest.mark.parametrize("raw", [b"", b"not json", b"[1, 2]", b'{"outcome": ', b"\xff\xfe"])
def test_no_record_at_all_reports_the_exit_code(tmp_path: Path, raw: bytes) -> None:
    outputs, summary, code = _steps_after(_folder(tmp_path, None, exit_code=3, raw=raw), tmp_path)
    assert code == 3 and outputs == {
        "outcome": "service_error",
        "exit-code": "3",
        "record": "",
        "cost": "",
        "changed-files": "",
        "artifact-path": str(tmp_path / "action"),
        "artifact-name": outputs["artifact-name"],
    }
    assert "printed no JSON record" in summary and "## code-commit: service&#95;error (exit 3)" in summary


def test_when_the_install_failed_the_report_says_so_and_the_action_exits_2(tmp_path: Path) -> None:
    outputs, summary, code = _steps_after(None, tmp_path)
    assert code == 2 and outputs["outcome"] == "setup_error" and outputs["artifact-path"] == ""
    assert NOT_RUN.split(":")[0].replace(" ", " ") in summary.replace("&#58;", ":").replace("&#45;", "-")


def test_the_install_step_installs_the_action_s_checkout_with_the_cloud_s_extra(tmp_path: Path, monkeypatch) -> None:
    ran: list[list[str]] = []

    def fake_run(argv: list[str], **kwargs: object) -> subprocess.CompletedProcess[bytes]:
        ran.append(list(argv))
        return subprocess.CompletedProcess(argv, 0)

    monkeypatch.setattr(steps.subprocess, "run", fake_run)
    (tmp_path / "out").write_text("")
    env = {
        "GITHUB_OUTPUT": str(tmp_path / "out"),
        "RUNNER_TEMP": str(tmp_path),
        "GITHUB_ACTION_PATH": "/actions/code-commit",
        "INPUT_PROVIDER": "vertex",
        "INPUT_INSTALL": "true",
    }

    assert steps.install(env) == 0

    outputs = parse_output_file((tmp_path / "out").read_text())
    venv = Path(outputs["folder"]).parent / "venv"
    assert not (Path(outputs["folder"]) / "venv").exists(), "what is uploaded when there is no run folder"
    assert ran[0][1:] == ["-m", "venv", str(venv)]
    assert ran[1][-1] == "/actions/code-commit[vertex]" and ran[1][:4] == [
        str(venv / "bin" / "python"),
        "-m",
        "pip",
        "install",
    ]
    assert ran[2] == [str(venv / "bin" / "code-commit"), "--version"]
    assert outputs["program"] == str(venv / "bin" / "code-commit")


class Host:
    """An Ubuntu 24.04 runner: bwrap installed, AppArmor restricting user namespaces."""

    def __init__(self, works_after_profile: bool = True, attached: list[str] | None = None) -> None:
        self.loaded = False
        self.works_after_profile = works_after_profile
        self.attached = attached or []
        self.done: list[list[str]] = []
        self.written: dict[Path, str] = {}

    def bwrap(self) -> str | None:
        return "/usr/bin/bwrap"

    def probe(self) -> tuple[str | None, str]:
        if self.loaded and self.works_after_profile:
            return "/usr/bin/bwrap", ""
        return None, "bwrap: setting up uid map: Permission denied"

    def restricted(self) -> bool:
        return True

    def attached_profiles(self, bwrap: str) -> list[str]:
        return self.attached

    def run(self, argv: list[str], env: dict[str, str] | None = None) -> int:
        self.done.append(argv)
        if argv[0] == "apparmor_parser":
            self.loaded = True
        return 0

    def write_root_file(self, path: Path, text: str) -> int:
        self.written[path] = text
        return 0


def test_on_ubuntu_24_04_a_profile_for_bwrap_alone_is_loaded_and_checked() -> None:
    host = Host()
    result = set_up("require", host)
    assert result.works, result.lines
    target = PROFILES / PROFILE_NAME
    assert host.written == {target: profile_text("/usr/bin/bwrap")}
    assert host.done == [["apparmor_parser", "-r", str(target)]]
    text = host.written[target]
    assert "profile code-commit-bwrap /usr/bin/bwrap flags=(unconfined) {" in text and "  userns,\n" in text


def test_a_profile_that_loads_but_does_not_help_is_reported() -> None:
    result = set_up("require", Host(works_after_profile=False))
    assert not result.works and "still fails" in result.lines[-1]


def test_a_profile_another_vendor_attached_to_bwrap_is_left_alone() -> None:
    host = Host(attached=["bwrap-userns-restrict"])
    result = set_up("require", host)
    assert not result.works and host.written == {} and host.done == []
    assert "bwrap-userns-restrict already attaches" in result.lines[-1]


def test_sandbox_off_installs_nothing() -> None:
    host = Host()
    assert set_up("off", host).lines[0].startswith('sandbox = "off"') and host.done == [] and host.written == {}
