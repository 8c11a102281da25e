"""build.sh runs with interleaved output, a clean environment, redaction, time limits and no orphans."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from code_commit.builds import runner
from code_commit.builds.output import LOG_CAP, output_for_prompt
from code_commit.builds.runner import run_build
from code_commit.config.redaction import Redactor
from code_commit.errors import Interrupted
from code_commit.run import signals

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


def test_an_executable_build_sh_without_a_shebang_line_runs_with_sh_as_a_shell_runs_it(tmp_path: Path) -> None:
    """exec fails with ENOEXEC for a script with no #! line; every shell then runs it with sh."""
    (tmp_path / "build.sh").write_text("echo ran-without-shebang\nexit 4\n")
    (tmp_path / "build.sh").chmod(0o755)
    result = build(tmp_path)
    assert result.exit_code == 4 and result.start_error is None
    assert "ran-without-shebang" in (tmp_path / "build.txt").read_text()


@pytest.mark.parametrize(
    ("first_line", "mode", "code", "why"),
    [
        (
            "#!/nonexistent/interpreter",
            0o755,
            127,
            "its interpreter '/nonexistent/interpreter' (its #! line) was not found",
        ),
        ("#!/", 0o755, 126, "its interpreter '/' (its #! line) cannot be executed"),  # a directory
        (
            "#!/bin/sh\r",  # saved on Windows: the kernel looks for "/bin/sh\r"
            0o755,
            127,
            "its #! line ends with a carriage return (the file has Windows CRLF line endings), so the "
            "interpreter it names does not exist; save build.sh with LF line endings",
        ),
    ],
)
def test_a_build_that_cannot_start_is_a_failed_build_whose_log_says_why(
    tmp_path: Path, first_line: str, mode: int, code: int, why: str
) -> None:
    (tmp_path / "build.sh").write_text(f"{first_line}\nexit 0\n")
    (tmp_path / "build.sh").chmod(mode)
    result = build(tmp_path)
    assert not result.passed and result.exit_code == code, "the exit code a shell gives it"
    assert result.start_error == why
    log = (tmp_path / "build.txt").read_text()
    assert f"code-commit could not start build.sh: {why}\n" in log
    assert result.describe() in log and f"exit code {code}" in result.describe()
    assert why in output_for_prompt(result.output, 10_000), "the repair prompt says why"


def test_a_build_sh_run_with_sh_blames_sh_not_its_interpreter_line(tmp_path: Path) -> None:
    (tmp_path / "build.sh").write_text("#!/nonexistent/interpreter\nexit 0\n")
    (tmp_path / "build.sh").chmod(0o644)  # not executable: run as `sh build.sh`, so the #! line plays no part
    result = build(tmp_path, env={"PATH": str(tmp_path / "no-such-dir")})
    assert result.exit_code == 127 and result.start_error is not None
    assert result.start_error.startswith("sh: ") and "interpreter" not in result.start_error


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


def wait_for(path: Path) -> None:
    """Wait until a build's helper process has written `path` (a generous liveness bound, not a timing claim)."""
    deadline = time.monotonic() + 60
    while not (path.exists() and path.read_text().strip()):
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.01)


def is_dead(pid: int) -> bool:
    """Gone, or a zombie waiting for init to reap it: either way it runs nothing any more.
    SIGKILL is delivered asynchronously, so give the kernel a (generous) moment to finish it."""
    deadline = time.monotonic() + 10
    while True:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):  # gone: the read of a process that just ended fails so
            return True
        if state in ("Z", "X"):
            return True
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)


def finishes(action, seconds: float = 60.0):
    """Run `action` in a thread; fail (instead of hanging the suite) if it has not returned in `seconds`."""
    box: dict[str, object] = {}
    thread = threading.Thread(target=lambda: box.setdefault("result", action()), daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds} s: it hangs"
    return box["result"]


# A background child that records its pid, then sleeps "forever" holding build.sh's output pipe.
CHILD = "sh -c 'echo $$ > {pid}; exec sleep 600' &\nwhile [ ! -s {pid} ]; do sleep 0.01; done\n"


def test_a_build_that_sleeps_forever_is_killed_at_its_limit_with_its_whole_group(tmp_path: Path) -> None:
    pid = tmp_path / "child.pid"
    make_build(tmp_path, CHILD.format(pid=pid) + "echo started\nsleep 600\n")
    result = finishes(lambda: build(tmp_path, timeout=0.5))
    assert result.timed_out and not result.passed and result.exit_code is None
    log = (tmp_path / "build.txt").read_text()
    assert "started" in log
    assert log.endswith("--- build.sh was killed at its time limit of 0.5 s (--build-timeout) ---\n")
    assert is_dead(int(pid.read_text())), "the background child survived the kill"


def test_a_child_holding_the_pipe_does_not_hang_the_run_and_is_killed(tmp_path: Path) -> None:
    pid = tmp_path / "child.pid"
    make_build(tmp_path, CHILD.format(pid=pid) + "echo done\nexit 0\n")
    result = finishes(lambda: run_build(tmp_path, tmp_path / "build.txt", Redactor(), 600, linger=0.2))
    assert result.passed and result.lingered
    log = (tmp_path / "build.txt").read_text()
    assert "still held build.sh's output 0.2 s after it exited; they were killed" in log
    assert log.endswith("exited with code 0 after " + log.rsplit("after ", 1)[1])
    assert is_dead(int(pid.read_text())), "an orphan survived the run"


def test_output_a_child_writes_during_the_grace_period_is_kept(tmp_path: Path) -> None:
    # The child waits for build.sh to exit, then writes: the linger grace exists for this output.
    parent_gone = "while kill -0 $PARENT 2>/dev/null; do sleep 0.01; done"
    make_build(tmp_path, f"PARENT=$$ sh -c '{parent_gone}; echo late line; exec sleep 600' &\nexit 0\n")
    result = finishes(lambda: run_build(tmp_path, tmp_path / "build.txt", Redactor(), 30, linger=1.0))
    assert result.passed
    assert "late line" in (tmp_path / "build.txt").read_text()


def test_no_background_child_outlives_the_build_even_without_the_pipe(tmp_path: Path) -> None:
    pid = tmp_path / "child.pid"
    make_build(tmp_path, CHILD.replace("&", ">/dev/null 2>&1 &").format(pid=pid) + "exit 1\n")
    result = finishes(lambda: build(tmp_path))
    assert result.exit_code == 1 and not result.lingered
    assert is_dead(int(pid.read_text()))


@pytest.mark.parametrize("size", [100, 5000])
def test_prompt_output_is_whole_under_the_cap(tmp_path: Path, size: int) -> None:
    make_build(tmp_path, f"head -c {size} /dev/zero | tr '\\0' 'z'\nexit 1\n")
    result = build(tmp_path)
    text = output_for_prompt(result.output, cap=10_000)
    assert text.count("z") == size and "exited with code 1" in text


def test_prompt_output_over_the_cap_keeps_head_tail_and_error_lines(tmp_path: Path) -> None:
    script = (
        "echo FIRST-LINE\n"
        'i=0; while [ $i -lt 3000 ]; do echo "noise line $i"; i=$((i+1)); done\n'
        "echo 'src/app.py:3: error: something broke'\n"
        "echo 'Traceback (most recent call last):'\n"
        'i=0; while [ $i -lt 3000 ]; do echo "noise line $i"; i=$((i+1)); done\n'
        "echo 'E   assert 1 == 2'\n"
        'i=0; while [ $i -lt 3000 ]; do echo "noise line $i"; i=$((i+1)); done\n'
        "echo LAST-LINE\nexit 1\n"
    )
    make_build(tmp_path, script)
    result = build(tmp_path)
    text = output_for_prompt(result.output, cap=4000)
    assert len(text) <= 4000 + 200  # the cap, plus the marker lines
    assert text.startswith("FIRST-LINE\nnoise line 0\n")
    error_lines = [
        "src/app.py:3: error: something broke\n",
        "Traceback (most recent call last):\n",
        "E   assert 1 == 2\n",
    ]
    positions = [text.index(line) for line in error_lines]
    assert positions == sorted(positions), "error lines keep their order"
    assert "noise line 1500\n" not in text, "the middle is left out"
    assert text.endswith("LAST-LINE\n\n--- build.sh exited with code 1 after " + text.rsplit("after ", 1)[1])
    log = (tmp_path / "build.txt").read_text()
    head, tail = text.split("\n[... ", 1)[0], text.rsplit("...]\n", 1)[1]
    assert log.startswith(head) and log.endswith(tail)
    left_out = int(text.split("[... ", 1)[1].split(" characters", 1)[0].replace(",", ""))
    assert left_out == len(log) - len(head) - len(tail) - sum(map(len, error_lines)), "the marker is exact"
    assert "the diagnostics and error-looking lines among them follow" in text


@pytest.mark.parametrize(
    "last",
    [
        pytest.param("printf 'progress %02000d\\r' 0; printf 'FINAL SUMMARY: 3 tests broke\\n'", id="a long last line"),
        pytest.param("head -c 9000 /dev/zero | tr '\\0' 'a'; printf 'FINAL SUMMARY: 3 tests broke'", id="no newline"),
    ],
)
def test_prompt_output_over_the_cap_keeps_the_end_of_a_long_last_line(tmp_path: Path, last: str) -> None:
    make_build(tmp_path, f'i=0; while [ $i -lt 3000 ]; do echo "noise line $i"; i=$((i+1)); done\n{last}\nexit 1\n')
    text = output_for_prompt(build(tmp_path).output, cap=4000)
    assert text.startswith("noise line 0\n")
    assert "FINAL SUMMARY: 3 tests broke" in text and "exited with code 1" in text
    assert len(text) <= 4000 + 200


def test_50_mb_of_output_streams_to_the_log_in_bounded_memory(tmp_path: Path) -> None:
    """The build writes 25 MB of lines and a single 25 MB line; the runner's peak RSS grows by less
    than half of that (the log's tail it keeps is 10 MB of it: half of the 20 MB build_log_cap)."""
    make_build(
        tmp_path,
        "yes 'compiling module with a long and noisy progress line' | head -c 25000000\n"
        "head -c 25000000 /dev/zero | tr '\\0' 'a'\necho\necho 'error: the last line'\nexit 1\n",
    )
    probe = textwrap.dedent(f"""
        import sys
        from pathlib import Path
        from code_commit.builds.output import output_for_prompt
        from code_commit.builds.runner import run_build
        from code_commit.config.redaction import Redactor
        # VmHWM: this process's peak RSS. (ru_maxrss would include the forking parent's: Linux keeps it across exec.)
        def peak():
            status = Path("/proc/self/status").read_text()
            return int(next(l.split()[1] for l in status.splitlines() if l.startswith("VmHWM:")))
        before = peak()
        root = Path({str(tmp_path)!r})
        result = run_build(root, root / "build.txt", Redactor.of(["sk-ant-some-secret-key"]), 600)
        text = output_for_prompt(result.output, 60000)
        assert len(text) < 61000 and "error: the last line" in text, text[-300:]
        print(result.output.chars, peak() - before)
    """)
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    chars, growth_kib = map(int, done.stdout.split())
    log = tmp_path / "build.txt"
    assert chars > 50_000_000 and log.stat().st_size < LOG_CAP + 1000, "the log keeps its head and tail only"
    with open(log, "rb") as fh:
        fh.seek(LOG_CAP // 2)
        assert b"characters of build output out of this log here (build_log_cap)" in fh.read(1000)
    assert LOG_CAP <= 20_000_000, "a bigger tail kept in memory needs more output here to tell it from all of it"
    assert growth_kib < 25 * 1024, f"peak RSS grew by {growth_kib} KiB: the output was held in memory"


def test_compaction_finds_error_lines_across_block_boundaries_and_counts_what_did_not_fit(tmp_path: Path) -> None:
    # Lines of 100 bytes; error lines every 10,007 lines land at every offset within the 1 MiB blocks.
    script = (
        "i=0; while [ $i -lt 60000 ]; do\n"
        '  if [ $((i % 10007)) -eq 5 ]; then echo "FAILED: case $i"; fi\n'
        "  printf '%099d\\n' $i; i=$((i+1)); done\nexit 1\n"
    )
    make_build(tmp_path, script)
    result = build(tmp_path)
    text = output_for_prompt(result.output, cap=4000)
    for i in range(5, 60000, 10007):
        assert f"FAILED: case {i}\n" in text
    small = output_for_prompt(result.output, cap=200)  # 100 bytes for error lines: the sixth does not fit
    assert "[... and 1 more diagnostic lines, left out ...]" in small


def test_output_without_newlines_still_compacts(tmp_path: Path) -> None:
    make_build(tmp_path, "head -c 3000000 /dev/zero | tr '\\0' 'z'\necho ' fatal: at the end'\nexit 1\n")
    result = build(tmp_path)
    text = output_for_prompt(result.output, cap=2000)
    assert len(text) < 4000
    assert "left out" in text and "exited with code 1" in text


def test_a_stop_that_comes_as_the_build_starts_still_kills_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The signal lands in the instant between build.sh's start and the runner taking charge of its
    # process group (here: as _start returns); the build must die with the run all the same.
    make_build(tmp_path, "sleep 600\n")
    started: list[subprocess.Popen[bytes]] = []
    real_start = runner._start

    def start_then_signal(*args, **kwargs):
        process = real_start(*args, **kwargs)
        started.append(process)
        os.kill(os.getpid(), signal.SIGTERM)  # delivered at once, before the return
        return process

    monkeypatch.setattr(runner, "_start", start_then_signal)
    with pytest.raises(Interrupted), signals.watch(signals.TimeLimit(None, "--timeout")):
        build(tmp_path)
    (process,) = started
    assert process.returncode is not None and is_dead(process.pid), "the build outlived the stop"
    assert "build.sh was stopped: interrupted by SIGTERM" in (tmp_path / "build.txt").read_text()
