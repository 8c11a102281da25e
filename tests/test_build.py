"""build.sh runs with interleaved output, a clean environment, redaction, time limits and no orphans."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from code_commit.build import output_for_prompt, run_build
from code_commit.logs import Redactor

KEY = "sk-ant-api03-VERYSECRETVALUE-xy"


def make_build(root: Path, script: str, executable: bool = True) -> None:
    path = root / "build.sh"
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(0o755 if executable else 0o644)


def build(root: Path, timeout: float = 30.0, redact: Redactor | None = None, env: dict[str, str] | None = None):
    return run_build(root, root / "build.txt", redact or Redactor(), timeout, env=env)


def test_exit_zero_passes_even_with_stderr_output(tmp_path: Path) -> None:
    make_build(tmp_path, "echo to-stderr >&2\nexit 0\n")
    result = build(tmp_path)
    assert result.passed and result.exit_code == 0
    log = (tmp_path / "build.txt").read_text()
    assert "to-stderr" in log and "exited with code 0" in log


def test_nonzero_exit_fails_and_is_logged(tmp_path: Path) -> None:
    make_build(tmp_path, "exit 3\n")
    result = build(tmp_path)
    assert not result.passed and result.exit_code == 3
    assert "exited with code 3" in (tmp_path / "build.txt").read_text()


def test_stdout_and_stderr_are_interleaved_in_write_order(tmp_path: Path) -> None:
    make_build(tmp_path, "".join(f"echo out{i}\necho err{i} >&2\n" for i in range(50)))
    build(tmp_path)
    lines = (tmp_path / "build.txt").read_text().splitlines()
    expected = [f"{kind}{i}" for i in range(50) for kind in ("out", "err")]
    assert lines[: len(expected)] == expected


def test_non_executable_build_sh_runs_with_sh(tmp_path: Path) -> None:
    make_build(tmp_path, "echo ran-by-sh\n", executable=False)
    assert build(tmp_path).passed
    assert "ran-by-sh" in (tmp_path / "build.txt").read_text()


def test_stdin_is_dev_null_and_keys_are_not_in_the_environment(tmp_path: Path) -> None:
    make_build(
        tmp_path, 'read line && echo "got:$line"; echo "key:${ANTHROPIC_API_KEY:-none}:${OPENAI_API_KEY:-none}"\n'
    )
    env = dict(os.environ, ANTHROPIC_API_KEY=KEY, OPENAI_API_KEY=KEY)
    build(tmp_path, env=env)
    log = (tmp_path / "build.txt").read_text()
    assert "got:" not in log and "key:none:none" in log


def test_secrets_in_build_output_are_censored_even_across_chunks(tmp_path: Path) -> None:
    # A 64 KiB filler puts the key across the boundary of the 64 KiB reads.
    make_build(tmp_path, f"head -c 65530 /dev/zero | tr '\\0' 'a'\nprintf '%s\\n' '{KEY}'\n")
    build(tmp_path, redact=Redactor.of([KEY]))
    log = (tmp_path / "build.txt").read_text()
    assert KEY not in log and "********xy" in log


def test_time_limit_kills_the_whole_group(tmp_path: Path) -> None:
    marker = tmp_path / "child-alive"
    make_build(tmp_path, f"(sleep 2; touch {marker}) &\nsleep 600\n")
    started = time.monotonic()
    result = build(tmp_path, timeout=0.5)
    assert result.timed_out and not result.passed and result.exit_code is None
    assert time.monotonic() - started < 10
    assert "time limit" in (tmp_path / "build.txt").read_text()
    time.sleep(max(0.0, started + 2.5 - time.monotonic()))
    assert not marker.exists(), "the background child survived the kill"


def test_lingering_child_holding_the_pipe_does_not_hang(tmp_path: Path) -> None:
    marker = tmp_path / "child-alive"
    make_build(tmp_path, f"(sleep 3; touch {marker}) &\necho done\nexit 0\n")
    started = time.monotonic()
    result = build(tmp_path, timeout=60)
    assert result.passed
    assert time.monotonic() - started < 3
    time.sleep(max(0.0, started + 3.5 - time.monotonic()))
    assert not marker.exists(), "an orphan survived the run"


@pytest.mark.parametrize("size", [100, 5000])
def test_prompt_output_is_whole_under_the_cap(tmp_path: Path, size: int) -> None:
    make_build(tmp_path, f"head -c {size} /dev/zero | tr '\\0' 'z'\nexit 1\n")
    result = build(tmp_path)
    text = output_for_prompt(result, cap=10_000)
    assert text.count("z") == size and "exited with code 1" in text


def test_prompt_output_over_the_cap_keeps_head_tail_and_error_lines(tmp_path: Path) -> None:
    script = (
        "echo FIRST-LINE\n"
        'i=0; while [ $i -lt 3000 ]; do echo "noise line $i"; i=$((i+1)); done\n'
        "echo 'src/app.py:3: error: something broke'\n"
        'i=0; while [ $i -lt 3000 ]; do echo "noise line $i"; i=$((i+1)); done\n'
        "echo LAST-LINE\nexit 1\n"
    )
    make_build(tmp_path, script)
    result = build(tmp_path)
    text = output_for_prompt(result, cap=4000)
    assert len(text) < 4000 + 400
    assert text.startswith("FIRST-LINE")
    assert "src/app.py:3: error: something broke" in text
    assert "LAST-LINE" in text and "exited with code 1" in text
    assert "left out" in text


def test_compaction_finds_error_lines_across_block_boundaries_and_counts_what_did_not_fit(tmp_path: Path) -> None:
    # Lines of 100 bytes; error lines every 10,007 lines land at every offset within the 1 MiB blocks.
    script = (
        "i=0; while [ $i -lt 60000 ]; do\n"
        '  if [ $((i % 10007)) -eq 5 ]; then echo "FAILED: case $i"; fi\n'
        "  printf '%099d\\n' $i; i=$((i+1)); done\nexit 1\n"
    )
    make_build(tmp_path, script)
    result = build(tmp_path)
    text = output_for_prompt(result, cap=4000)
    for i in range(5, 60000, 10007):
        assert f"FAILED: case {i}\n" in text
    small = output_for_prompt(result, cap=200)  # 100 bytes for error lines: the sixth does not fit
    assert "[... and 1 more error-looking lines ...]" in small


def test_output_without_newlines_still_compacts(tmp_path: Path) -> None:
    make_build(tmp_path, "head -c 3000000 /dev/zero | tr '\\0' 'z'\necho ' fatal: at the end'\nexit 1\n")
    result = build(tmp_path)
    text = output_for_prompt(result, cap=2000)
    assert len(text) < 4000
    assert "left out" in text and "exited with code 1" in text
