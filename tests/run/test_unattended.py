"""A CI job is unattended even when its runner gives it a pseudo-terminal (Buildkite does by default,
and so does `docker run -t`): it gets the default whole-run time limit, never none."""

from __future__ import annotations

import pytest

from code_commit.console import terminal


@pytest.mark.parametrize(("ci", "expected"), [("true", True), ("1", True), ("false", False), (None, False)])
def test_ci_with_a_pseudo_terminal_is_unattended(
    monkeypatch: pytest.MonkeyPatch, ci: str | None, expected: bool
) -> None:
    monkeypatch.setattr(terminal, "_isatty", lambda stream: True)
    if ci is None:
        monkeypatch.delenv("CI", raising=False)
    else:
        monkeypatch.setenv("CI", ci)
    assert terminal.unattended() is expected
