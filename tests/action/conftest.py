"""The action's steps run by the simulated runner (simulated_runner.py) in a temporary project: the
workspace, RUNNER_TEMP, and the job's environment with this checkout's code-commit on PATH (the
tests give `install: false`: the install step then takes it from PATH instead of pip-installing
this checkout, which needs the network)."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from simulated_runner import SANDBOX_STEP, RunAction, bwrap_works, run_action, runner_env

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> RunAction:
    """`run(inputs, env=...)`: the action's steps in the current folder (the project) as the workspace.
    The bubblewrap step runs for real where bubblewrap works already (it then only probes); elsewhere
    it would install packages (apt-get, network) or load an AppArmor profile, and is skipped: its
    decisions are tested against a fake host in test_action_steps.py."""
    runner_temp = tmp_path / "runner-temp"
    runner_temp.mkdir()

    def invoke(inputs: Mapping[str, str], env: Mapping[str, str] | None = None) -> Any:
        skip = [] if bwrap_works() else [SANDBOX_STEP]
        base = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
        job_env = runner_env({**base, **(env or {})}, str(Path(sys.executable).parent))
        return run_action(
            ROOT,
            {"install": "false", **inputs},
            workspace=Path.cwd(),
            runner_temp=runner_temp,
            env=job_env,
            skip=skip,
        )

    return invoke
