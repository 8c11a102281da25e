"""A run's own bounds: a refused answer's reasons are capped in the repair prompt (the first in full,
the rest counted), and a run without a terminal has a time limit by default."""

from __future__ import annotations

import json

import pytest

from code_commit.run import signals

from fakeapi import FakeAPI
from support import Project

FIX = "^^^fixed.txt\nfixed\n^^^end\n"


def _repair(request) -> str:
    return "".join(b["text"] for m in request.json["messages"] for b in m["content"])


def test_refusal_feedback_is_capped_with_the_first_reasons_in_full(project: Project, api: FakeAPI, cli) -> None:
    """Before, 3,000 refused pairs sent 1.75 MB of reasons into the next prompt."""
    api.reply("".join(f"^^^.git/hooks/hook-{i}\nx\n^^^end\n" for i in range(3000)))
    api.reply(FIX)
    result = cli(env={"CODE_COMMIT_BUILD_OUTPUT_CAP": "5000"})
    assert result.exit_code == 0, result.stderr
    repair = _repair(api.requests[1])
    section = repair.split("Your previous answer was refused", 1)[1]
    shown = section.count("- '.git/hooks/hook-")
    assert 10 < shown < 100 and "'.git/hooks/hook-0'" in section
    assert f"[... and {3000 - shown:,} more reason(s), left out here" in section
    assert len(section) < 5000 + 2000, "the rest of the prompt is not the reasons"
    (run,) = project.run_dirs()
    assert (run / "01-refused.txt").read_text().count("- '.git/hooks/hook-") == 3000, "the log has them all"
    assert len(result.stderr) < 20_000, "the console gets the capped list too"


def test_one_reason_longer_than_the_cap_is_cut(project: Project, api: FakeAPI, cli) -> None:
    api.reply("^^^" + "d/" * 2100 + "f\nx\n^^^end\n")  # a path over 4096 bytes: the refusal quotes it
    api.reply(FIX)
    assert cli(env={"CODE_COMMIT_BUILD_OUTPUT_CAP": "1000"}).exit_code == 0
    section = _repair(api.requests[1]).split("Your previous answer was refused", 1)[1]
    assert " [...]\n" in section and len(section) < 1000 + 500


@pytest.fixture
def limits(monkeypatch: pytest.MonkeyPatch) -> list[tuple[float | None, str]]:
    """The time limit and its source each run starts its watch with."""
    seen: list[tuple[float | None, str]] = []
    real = signals.watch

    def watch(limit: signals.TimeLimit):
        seen.append((limit.seconds, limit.source))
        return real(limit)

    monkeypatch.setattr(signals, "watch", watch)
    return seen


def test_a_run_without_a_terminal_has_a_default_time_limit(project: Project, api: FakeAPI, cli, limits) -> None:
    api.reply(FIX)
    assert cli().exit_code == 0  # the test runner's stdin and stdout are not terminals
    assert set(limits) == {(7200.0, "unattended_timeout: no terminal; --timeout 0 turns it off")}
    (run,) = project.run_dirs()
    assert "no terminal (cron, CI): the run's time limit is 7200 s" in (run / "run.log").read_text()


@pytest.mark.parametrize(
    ("args", "env", "expected"),
    [
        (("--timeout", "0"), {}, None),
        (("--timeout", "30"), {}, 30.0),
        ((), {"CODE_COMMIT_UNATTENDED_TIMEOUT": "0"}, None),
        ((), {"CODE_COMMIT_UNATTENDED_TIMEOUT": "60"}, 60.0),
        ((), {"CODE_COMMIT_TIMEOUT": "0"}, None),
    ],
)
def test_the_time_limit_can_be_set_or_turned_off(
    project: Project, api: FakeAPI, cli, limits, args: tuple[str, ...], env: dict[str, str], expected: float | None
) -> None:
    api.reply(FIX)
    assert cli(*args, env=env).exit_code == 0
    assert {limit for limit, _ in limits} == {expected}
    (run,) = project.run_dirs()
    assert ("no terminal" in (run / "run.log").read_text()) == bool(expected and not args and "TIMEOUT" not in env)


def test_the_default_limit_stops_a_run_and_names_its_setting(project: Project, api: FakeAPI, cli) -> None:
    project.build_script("sleep 30\n")
    project.commit_all()
    api.reply(FIX)
    result = cli("--json", env={"CODE_COMMIT_UNATTENDED_TIMEOUT": "0.5"})
    assert result.exit_code == 5
    assert "unattended_timeout" in json.loads(result.stdout)["error"]


def test_a_negative_time_limit_is_a_setup_error(project: Project, cli) -> None:
    result = cli("--timeout", "-1")
    assert result.exit_code != 0 and "timeout" in result.stderr


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("build_log_cap", "99999"),
        ("max_answer_bytes", "999"),
        ("max_failed_pairs", "0"),
        ("match_work", "999"),
        ("unattended_timeout", "-1"),
        ("unattended_timeout", "inf"),
        ("timeout", "-0.5"),
    ],
)
def test_every_new_bound_is_validated(tmp_path, name: str, value: str) -> None:
    from code_commit.config.settings import load_settings
    from code_commit.errors import SetupError

    with pytest.raises(SetupError, match=f"setting {name} "):
        load_settings(tmp_path, env={f"CODE_COMMIT_{name.upper()}": value})
