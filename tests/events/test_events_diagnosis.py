"""A build the sandbox keeps from running (exit 11): the stream carries the diagnosis's facts and fix,
as the record has them, and not the build's output line it was read from. Through bubblewrap."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from code_commit.exits import EXIT

from event_lines import of_type, read, types
from support import Project
from support.sandbox import require_bwrap

require_bwrap()


def test_a_build_kept_from_running_streams_the_diagnosis_then_the_end(project: Project, cli, tmp_path: Path) -> None:
    venv = tmp_path / "outside" / "venv"  # a virtualenv kept under the host's /tmp, which builds cannot see
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(os.path.realpath(sys.executable))
    project.build_script(f"set -e\n{venv}/bin/python -c 'print(1)'\n")
    project.commit_all()
    stream = tmp_path / "events.jsonl"

    result = cli("--sandbox", "require", "check", "--json", "--events", str(stream))

    assert result.exit_code == EXIT.BUILD_BLOCKED
    record = json.loads(result.stdout)
    events = read(stream)
    assert types(events) == ["run_start", "build_start", "build_end", "diagnosis", "end"]
    (diagnosis,) = of_type(events, "diagnosis")
    facts = {key: record["diagnosis"][key] for key in ("kind", "subject", "cause", "fix")}
    assert {key: diagnosis[key] for key in facts} == facts and "evidence" not in diagnosis
    assert "not found" not in json.dumps(events), "the output line it was read from stays out"
    assert (events[-1]["outcome"], events[-1]["exit_code"]) == ("build_blocked", 11)
