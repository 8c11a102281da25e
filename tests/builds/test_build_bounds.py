"""Build output, bounded and made for a model: the log keeps the head and the tail up to
build_log_cap, compaction keeps the diagnostics (even those the log cut), and terminal escape
sequences never reach a log or a prompt. Sizes counted in characters, never timed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from code_commit.builds import output as build_output
from code_commit.builds.output import output_for_prompt
from code_commit.builds.runner import run_build
from code_commit.config.redaction import Redactor

from fakeapi import FakeAPI
from support import Project

GCC = "gcc -O2 -Wall -Wextra -Werror -Iinclude -DNDEBUG -c src/module_$i.c -o build/module_$i.o"
ESCAPE = re.compile(r"[\x1b\x9b]")


def make_build(root: Path, script: str) -> None:
    (root / "build.sh").write_text("#!/bin/sh\n" + script)
    (root / "build.sh").chmod(0o755)


def run(root: Path, log_cap: int = build_output.LOG_CAP, secrets: list[str] | None = None):
    return run_build(root, root / "build.txt", Redactor.of(secrets or []), 60, log_cap=log_cap)


def _gcc_build(errors: int, noise_lines: int) -> str:
    """`noise_lines` compile lines that merely contain "error" (-Werror), with real diagnostics
    spread evenly through them, each a different one."""
    every = noise_lines // errors
    diagnostic = "src/module_$i.c:$((i % 97 + 1)):5: error: 'x$i' undeclared"
    return (
        f"i=0; while [ $i -lt {noise_lines} ]; do\n"
        f'  echo "{GCC}"\n'
        f'  if [ $((i % {every})) -eq {every // 2} ]; then echo "{diagnostic}"; fi\n'
        "  i=$((i+1)); done\nexit 1\n"
    )


def test_diagnostics_beat_lines_that_merely_say_error_even_where_the_log_was_cut(tmp_path: Path) -> None:
    """The audit's case, smaller: compile lines full of -Werror and 40 real diagnostics. Before, the
    first-come -Werror lines filled the room and 0 of the 40 reached the prompt. The log is capped
    at 1 MB here, so most diagnostics are in the part it left out: the sink noted them as they passed."""
    make_build(tmp_path, _gcc_build(40, 40_000))
    result = run(tmp_path, log_cap=1_000_000)
    assert result.output.chars > 3_000_000 and result.output.cut > 2_000_000
    text = output_for_prompt(result.output, 60_000)
    kept = [i for i in range(500, 40_000, 1000) if f"src/module_{i}.c:{i % 97 + 1}:5: error: 'x{i}' undeclared" in text]
    assert len(kept) >= 35, f"{len(kept)} of the 40 diagnostics reached the prompt"
    assert len(text) <= 60_000 + 300
    assert re.search(r"and [\d,]+ more error-looking lines, left out", text), "what was left out is counted"


def test_the_first_and_the_last_diagnostics_are_kept_and_the_rest_counted(tmp_path: Path) -> None:
    make_build(tmp_path, _gcc_build(400, 40_000))
    text = output_for_prompt(run(tmp_path).output, 20_000)
    numbers = [int(n) for n in re.findall(r"src/module_(\d+)\.c:\d+:5: error", text)]
    assert numbers[0] < 2000 and numbers[-1] > 38_000, "the first ones and the last ones"
    left = int(re.search(r"and ([\d,]+) more diagnostic lines", text).group(1).replace(",", ""))
    assert left + len(set(numbers)) >= 400 - 2, "the count of those left out adds up"


@pytest.mark.parametrize(
    "line",
    [
        "src/a.c:12: error: expected ';'",
        "src/a.rs:3:9: error[E0308]: mismatched types",
        "error[E0425]: cannot find value 'x' in this scope",
        "FAILED tests/test_a.py::test_b - assert 1 == 2",
        "Traceback (most recent call last):",
        "thread 'main' panicked at src/main.rs:2:5:",
        "E   AssertionError: assert 1 == 2",
        "--- FAIL: TestThing (0.00s)",
    ],
)
def test_diagnostic_shapes_are_kept_before_plain_mentions(tmp_path: Path, line: str) -> None:
    noise = 'i=0; while [ $i -lt 20000 ]; do echo "note: error handling in $i is fine"; i=$((i+1)); done\n'
    make_build(tmp_path, f"{noise}printf '%s\\n' \"{line}\"\n{noise}exit 1\n")
    text = output_for_prompt(run(tmp_path).output, 8_000)
    assert line + "\n" in text


def test_the_log_keeps_its_head_and_tail_up_to_the_cap_with_a_marker(tmp_path: Path) -> None:
    make_build(tmp_path, "echo FIRST\nyes 'compiling something' | head -c 5000000\necho\necho LAST\nexit 1\n")
    result = run(tmp_path, log_cap=200_000)
    log = (tmp_path / "build.txt").read_text()
    assert result.output.chars > 5_000_000, "every character was read and counted"
    assert len(log) < 200_000 + 500, "the log is capped"
    assert log.startswith("FIRST\ncompiling something\n")
    head, _, tail = log.partition("\n[... code-commit left ")
    assert len(head) == 100_000 and "(build_log_cap) ...]\n" in tail
    cut = int(tail.split(" characters", 1)[0].replace(",", ""))
    assert cut == result.output.chars - 200_000 == result.output.cut
    assert "LAST\n\n--- build.sh exited with code 1" in tail
    prompt = output_for_prompt(result.output, 10_000)
    assert prompt.startswith("FIRST\n") and "LAST\n" in prompt and len(prompt) < 10_500


def test_a_secret_across_the_head_and_tail_boundary_is_still_censored(tmp_path: Path) -> None:
    secret = "sk-ant-a-secret-of-some-length-0123456789"
    make_build(tmp_path, f"head -c 99990 /dev/zero | tr '\\0' 'a'\necho '{secret}'\nexit 1\n")
    run(tmp_path, log_cap=200_020, secrets=[secret])
    assert secret not in (tmp_path / "build.txt").read_text()


COLOURED = (
    r"printf '\033[1m\033[31mFAILED\033[0m tests/test_a.py::test_b\n'" + "\n"
    r"printf '\033]8;;http://example.com\033\\link\033]8;;\033\\ \033]0;title\007done\n'" + "\n"
    r"printf 'progress\033[2K\033[1Gcomplete \033(B\302\23332mok\302\2330m\n'" + "\n"
    'echo "NO_COLOR=$NO_COLOR"\nexit 1\n'
)


def test_escape_sequences_are_stripped_from_the_log_and_the_prompt(tmp_path: Path) -> None:
    make_build(tmp_path, COLOURED)
    shown: list[str] = []
    result = run_build(tmp_path, tmp_path / "build.txt", Redactor(), 60, on_output=shown.append)
    log = (tmp_path / "build.txt").read_text()
    assert not ESCAPE.search(log) and not ESCAPE.search("".join(shown))
    assert "FAILED tests/test_a.py::test_b\nlink title" not in log
    assert "FAILED tests/test_a.py::test_b\nlink donedone" not in log
    assert "FAILED tests/test_a.py::test_b\nlink done\nprogresscomplete ok\nNO_COLOR=1\n" in log
    assert "--- 11 terminal escape sequence(s) (colours, cursor moves) were removed" in log
    assert not ESCAPE.search(output_for_prompt(result.output, 1000))


def test_an_escape_split_across_reads_is_still_stripped(tmp_path: Path) -> None:
    """Output arrives in pieces of any size: fed one byte at a time, no escape survives."""
    data = b"\x1b[1;31merror\x1b[0m: \x1b]0;window title\x07x \xe2\x82\xac\x1b[K\n"
    sink = build_output.OutputLog(tmp_path / "log.txt", Redactor(), None)
    for i in range(len(data)):
        sink.write(data[i : i + 1])
    sink.close("")
    assert (tmp_path / "log.txt").read_text().startswith("error: x \u20ac\n")


def test_the_repair_prompt_gets_no_escapes(project: Project, api: FakeAPI, cli) -> None:
    project.build_script("test -f fixed.txt && exit 0\n" + COLOURED)
    project.commit_all()
    api.reply("^^^other.txt\nx\n^^^end\n")
    api.reply("^^^fixed.txt\nfixed\n^^^end\n")
    result = cli()
    assert result.exit_code == 0, result.stderr
    repair = "".join(b["text"] for m in api.requests[1].json["messages"] for b in m["content"])
    assert "FAILED tests/test_a.py::test_b" in repair and "NO_COLOR=1" in repair
    assert not ESCAPE.search(repair)


def test_letters_whose_lower_case_is_longer_do_not_shift_the_lines_kept(tmp_path: Path) -> None:
    """ "İ".lower() is two characters: the search for error words must not move the lines it keeps."""
    make_build(
        tmp_path,
        "i=0; while [ $i -lt 3000 ]; do echo \"İİİİ noise $i\"; i=$((i+1)); done\necho 'İİ fatal thing'\n"
        'i=0; while [ $i -lt 3000 ]; do echo "İİİİ noise $i"; i=$((i+1)); done\nexit 1\n',
    )
    text = output_for_prompt(run(tmp_path).output, 4000)
    assert "\nİİ fatal thing\n" in text
