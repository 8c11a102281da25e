"""`code-commit apply FILE|-`: a saved answer through the same parser, guard and apply, no model call."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from code_commit.guard.policy import MAX_DEPTH
from code_commit.run.lock import ProjectLock

from fakeapi import FakeAPI
from support import TEST_KEY, Project, git

BIG = "".join(f"def f{n}():\n    return {n}\n\n" for n in range(1, 201))
EDIT = "^^^big.py\n^^^search\ndef f7():\n    return 7\n^^^replace\ndef f7():\n    return -7\n^^^end\n"


@pytest.fixture
def big(project: Project) -> Project:
    project.write("big.py", BIG)
    project.write("old.txt", "old\n")
    project.commit_all()
    return project


def status(project: Project) -> str:
    return git(project.root, "status", "--porcelain")


def only_run(project: Project) -> dict[str, str]:
    (run,) = project.run_dirs()
    return {p.name: p.read_text() for p in run.iterdir()}


def test_apply_a_saved_answer_file(big: Project, cli, tmp_path: Path) -> None:
    answer = tmp_path / "answer.txt"
    answer.write_text("Prose.\n" + EDIT + "^^^new.txt\nnew\n^^^end\n^^^old.txt\n^^^delete\n")
    result = cli("apply", str(answer))
    assert result.exit_code == 0, result.output
    assert big.read("big.py") == BIG.replace("return 7\n", "return -7\n")
    assert big.read("new.txt") == "new\n" and not (big.root / "old.txt").exists()
    assert result.stdout.splitlines() == [
        f"applied the answer from {answer}: 2 files written, 1 deleted",
        "  write big.py",
        "  write new.txt",
        "  delete old.txt",
    ]
    logged = only_run(big)
    assert "01-build.txt" not in logged, "no build ran without --build"
    assert logged["answer.txt"] == answer.read_text()
    assert "no model call" in logged["run.log"] and "wrote big.py, wrote new.txt, deleted old.txt" in logged["run.log"]


def test_applying_an_answer_twice_refuses_the_second_time_and_says_why(big: Project, cli) -> None:
    assert cli("apply", "-", input=EDIT).exit_code == 0
    result = cli("apply", "--json", "-", input=EDIT)
    assert result.exit_code == 7
    (problem,) = json.loads(result.stdout)["problems"]
    assert problem["kind"] == "no_match" and problem["already_there"] == {"first": 19, "last": 20}
    assert "if that change is already made, leave this pair out" in problem["message"]


def test_apply_reads_standard_input(big: Project, cli) -> None:
    result = cli("apply", "-", input=EDIT)
    assert result.exit_code == 0, result.output
    assert "applied the answer from standard input" in result.stdout
    assert "return -7" in big.read("big.py")


def test_check_validates_and_writes_nothing(big: Project, cli) -> None:
    before = status(big)
    result = cli("apply", "--check", "-", input=EDIT + "^^^old.txt\n^^^delete\n")
    assert result.exit_code == 0
    assert result.stdout == (
        "ok: the answer from standard input applies cleanly: it writes 1 file, deletes 1\n"
        "  would write big.py\n  would delete old.txt\n"
    )
    assert status(big) == before and big.run_dirs() == []


def test_check_reports_every_problem_as_structured_text_and_exits_7(big: Project, cli) -> None:
    answer = (
        "^^^big.py\n^^^search\ndef f7(x):\n    return 7\n^^^replace\nx\n^^^end\n"
        "^^^big.py\n^^^search\n\n^^^replace\n^^^end\n"
        "^^^build.sh\nexit 0\n^^^end\n"
    )
    before = status(big)
    result = cli("apply", "--check", "-", input=answer)
    assert result.exit_code == 7
    out = result.stdout
    assert out.startswith("refused: the answer from standard input would be refused (3 problems)\n")
    assert "problem 1 [no_match]: big.py, block 1, search 1, answer line 2\n" in out
    assert "      19| def f7():\n      20|     return 7\n" in out
    assert "problem 2 [blank_search]: big.py, block 2, search 1, answer line 9\n" in out
    assert "problem 3 [guard]: build.sh, block 3\n  'build.sh': build.sh is a protected file\n" in out
    assert status(big) == before and big.run_dirs() == []


def test_check_json_gives_the_problems_as_data(big: Project, cli) -> None:
    big.write("dup.py", "a = 1\nb = 2\na = 1\n")
    git(big.root, "add", "dup.py")  # an untracked file may not be changed: git diff could not show it
    result = cli("apply", "--check", "--json", "-", input="^^^dup.py\n^^^search\na = 1\n^^^replace\na = 2\n^^^end\n")
    assert result.exit_code == 7
    report = json.loads(result.stdout)
    assert (report["ok"], report["dry_run"], report["applied"], report["format"]) == (False, True, False, "caret")
    (problem,) = report["problems"]
    assert problem["kind"] == "ambiguous" and problem["path"] == "dup.py"
    assert (problem["block"], problem["search"], problem["answer_line"]) == (1, 1, 2)
    assert problem["locations"] == [{"first": 1, "last": 1}, {"first": 3, "last": 3}]
    assert problem["unique_around"] == [{"first": 1, "last": 2}, {"first": 2, "last": 3}]
    assert problem["min_context"] == 2


def test_a_refused_answer_writes_nothing_exits_7_and_is_logged(big: Project, cli) -> None:
    before = status(big)
    result = cli("apply", "-", input="^^^fine.txt\nok\n^^^end\n^^^.git/config\nx\n^^^end\n")
    assert result.exit_code == 7
    assert "was refused; nothing was written" in result.stdout
    assert status(big) == before
    logged = only_run(big)
    assert "inside a .git directory" in logged["01-refused.txt"] and "answer.txt" in logged


def test_a_path_that_is_not_utf8_is_refused_in_text_and_json(big: Project, cli) -> None:
    # JSON can spell lone surrogates; no such name may reach the disk, and the report still prints.
    before = status(big)
    entries = [
        {"file": name, "action": "create_file", "changes": [{"original_lines": [], "changed_lines": ["hi"]}]}
        for name in ("x\udcff.txt", "y\ud800.txt")
    ]
    for flags in ((), ("--json",)):
        result = cli("apply", *flags, "-", input=json.dumps(entries))
        assert result.exit_code == 7, result.output
        assert result.stdout.count("not valid UTF-8") == (2 if not flags else 3)  # JSON: `error` names the first
    record = json.loads(result.stdout)
    assert record["problems"][0]["path"] == "x\udcff.txt"
    assert record["error"].startswith("the answer was refused, nothing was applied: ")
    assert record["error"].endswith("(and 1 more problem)")
    assert status(big) == before and sorted(p.name for p in big.root.iterdir() if p.name.startswith(("x", "y"))) == []


def test_the_text_report_shows_escapes_in_paths_and_messages_as_symbols(big: Project, cli) -> None:
    """A refused path is quoted in the report: it must not drive the terminal the report is printed on."""
    evil = "\x1b[2J\x1b]52;c;ZWNobyBwd25lZA==\x07evil"
    result = cli("apply", "-", input=f"^^^{evil}\nx\n^^^end\n")
    assert result.exit_code == 7
    assert "\x1b" not in result.stdout and "\x07" not in result.stdout
    assert "problem 1 [guard]: ␛[2J␛]52;c;ZWNobyBwd25lZA==␇evil, block 1" in result.stdout


def test_build_runs_only_with_build_and_its_result_sets_the_exit_code(big: Project, cli) -> None:
    big.build_script("grep -q 'return -7$' big.py\n")
    result = cli("apply", "--build", "-", input=EDIT)
    assert result.exit_code == 0, result.output
    assert "build: passes" in result.stdout
    assert "exited with code 0" in only_run(big)["01-build.txt"]
    big.write("big.py", BIG)
    result = cli("apply", "--build", "--json", "-", input=EDIT.replace("return -7", "return -8"))
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    build = report["last_build"]
    assert report["applied"] is True and build["passed"] is False and build["exit_code"] == 1


def test_build_runs_a_build_sh_without_a_shebang_line_as_a_shell_would(big: Project, cli) -> None:
    big.write("build.sh", "grep -q 'return -7$' big.py\n", mode=0o755)
    result = cli("apply", "--build", "-", input=EDIT)
    assert result.exit_code == 0, result.output
    assert "build: passes" in result.stdout


def test_applydir_json_answers(big: Project, cli) -> None:
    answer = [
        {"file": "big.py", "changes": [{"original_lines": ["def f7():", "    return 7"], "changed_lines": ["pass"]}]},
        {"file": "pkg/new.py", "action": "create_file", "changes": [{"original_lines": [], "changed_lines": ["x"]}]},
        {"file": "old.txt", "action": "delete_file"},
    ]
    text = "```json\n" + json.dumps(answer) + "\n```\n"
    checked = json.loads(cli("apply", "--check", "--json", "-", input=text).stdout)
    assert [c["action"] for c in checked["changes"]] == ["write", "write", "delete"]
    assert checked["files_changed"] == checked["files_deleted"] == [], "--check writes nothing"
    result = cli("apply", "--json", "-", input=text)
    assert result.exit_code == 0, result.output
    assert "def f7():\n    return 7\n" not in big.read("big.py") and "\npass\n\ndef f8" in big.read("big.py")
    assert big.read("pkg/new.py") == "x\n" and not (big.root / "old.txt").exists()
    applied = json.loads(result.stdout)  # the keys a run's record names its change with
    assert (applied["files_changed"], applied["files_deleted"]) == (["big.py", "pkg/new.py"], ["old.txt"])


def test_applydir_json_in_a_fence_with_prose_around_it(big: Project, cli) -> None:
    answer = [{"file": "old.txt", "changes": [{"original_lines": ["old"], "changed_lines": ["new"]}]}]
    result = cli("apply", "-", input=f"Here is the change:\n```json\n{json.dumps(answer)}\n```\nDone.\n")
    assert result.exit_code == 0, result.output
    assert big.read("old.txt") == "new\n"


def test_applydir_create_file_on_an_existing_file_is_refused(big: Project, cli) -> None:
    answer = [{"file": "old.txt", "action": "create_file", "changes": [{"original_lines": [], "changed_lines": ["x"]}]}]
    result = cli("apply", "--check", "-", input=json.dumps(answer))
    assert result.exit_code == 7
    assert "problem 1 [exists]: old.txt, block 1\n" in result.stdout and "already exists" in result.stdout


CREATE = {"action": "create_file", "changes": [{"original_lines": [], "changed_lines": ["x"]}]}


@pytest.mark.parametrize("outside", ["../../../../../../../../etc/passwd", "/etc/passwd"])
def test_applydir_create_file_outside_the_project_is_refused_by_the_guard_without_a_look(
    big: Project, cli, monkeypatch, outside: str
) -> None:
    # "It already exists" would tell the model what is on the machine: the guard decides first,
    # and nothing looks at a path it refused.
    looked_at: list[str] = []
    for name in ("lstat", "stat"):
        real = getattr(os, name)
        monkeypatch.setattr(
            os, name, lambda path, *a, real=real, **k: looked_at.append(os.fspath(path)) or real(path, *a, **k)
        )
    reports = []
    for path in (outside, outside.replace("passwd", "no-such-file")):
        result = cli("apply", "--check", "--json", "-", input=json.dumps([{"file": path, **CREATE}]))
        assert result.exit_code == 7
        (problem,) = json.loads(result.stdout)["problems"]
        assert (problem["kind"], problem["path"], problem["block"]) == ("guard", path, 1)
        reports.append(problem["message"].replace(path, "PATH"))
    assert reports[0] == reports[1], "the same refusal whether the file exists or not"
    assert not [path for path in looked_at if "passwd" in path or "no-such-file" in path]


def test_applydir_create_file_of_an_existing_protected_file_gets_the_guards_refusal_alone(big: Project, cli) -> None:
    result = cli("apply", "--check", "-", input=json.dumps([{"file": "build.sh", **CREATE}]))
    assert result.exit_code == 7
    assert "(1 problem)" in result.stdout and "problem 1 [guard]: build.sh, block 1\n" in result.stdout


@pytest.mark.parametrize(
    ("entry", "fragment"),
    [
        ({"file": None, **CREATE}, "entry 1: 'file' must be a non-empty string"),
        (CREATE, "entry 1: 'file' must be a non-empty string"),
        ({"file": "n.txt", "action": "create_file"}, "entry 1 ('n.txt'): 'changes' must be a non-empty array"),
        (
            {"file": "n.txt", "action": "create_file", "changes": [{"original_lines": [], "changed_lines": None}]},
            "entry 1 ('n.txt'), change 1: 'changed_lines' must be an array of strings",
        ),
        ({"file": "n.txt", "action": None}, "entry 1 ('n.txt'): 'action' must be one of"),
    ],
)
def test_applydir_null_or_missing_fields_are_refused_by_entry(big: Project, cli, entry: dict, fragment: str) -> None:
    before = status(big)
    result = cli("apply", "-", input=json.dumps([entry]))
    assert result.exit_code == 7
    assert "problem 1 [malformed]\n" in result.stdout and fragment in result.stdout
    assert status(big) == before


@pytest.mark.parametrize("answer", ['[{"file": "ghost.txt", "action": "delete_file"}]', "^^^ghost.txt\n^^^delete\n"])
def test_deleting_a_missing_file_is_skipped_and_reported_in_both_formats(big: Project, cli, answer: str) -> None:
    before = status(big)
    result = cli("apply", "-", input=answer)
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "applied the answer from standard input: 0 files written, 0 deleted\n"
        "  skipped delete of ghost.txt: the file does not exist\n"
    )
    assert "apply: delete of ghost.txt skipped: the file does not exist" in only_run(big)["run.log"]
    report = json.loads(cli("apply", "--check", "--json", "-", input=answer).stdout)
    assert (report["ok"], report["changes"], report["missing_deletes"]) == (True, [], ["ghost.txt"])
    assert status(big) == before


def test_applydir_mistakes_are_refused_by_entry(big: Project, cli) -> None:
    result = cli("apply", "--check", "-", input='[{"file": "a", "action": "move"}]')
    assert result.exit_code == 7
    assert "problem 1 [malformed]\n  entry 1 ('a'): unknown action 'move'" in result.stdout


def test_the_format_can_be_forced(big: Project, cli) -> None:
    # A ^^^ answer whose prose starts with '[' would be taken for JSON.
    answer = "[note] the fix:\n" + EDIT
    assert cli("apply", "--check", "-", input=answer).exit_code == 7
    assert cli("apply", "--check", "--format", "caret", "-", input=answer).exit_code == 0


def test_an_answer_with_no_blocks_is_refused(big: Project, cli) -> None:
    result = cli("apply", "--check", "-", input="I think the build is fine.\n")
    assert result.exit_code == 7
    assert "the answer has no ^^^ blocks" in result.stdout


def test_allow_delete_false_applies_to_saved_answers(big: Project, cli) -> None:
    big.write("agent-config/config.toml", "allow_delete = false\n")
    result = cli("apply", "-", input="^^^old.txt\n^^^delete\n")
    assert result.exit_code == 7
    assert "problem 1 [delete_disabled]: old.txt, block 1" in result.stdout
    assert big.read("old.txt") == "old\n"


@pytest.mark.parametrize(
    ("args", "setup", "fragment"),
    [
        (["apply", "missing.txt"], None, "cannot read the answer missing.txt"),
        (["apply", "bin.txt"], lambda p: (p.root / "bin.txt").write_bytes(b"\xff\xfe"), "is not UTF-8 text"),
        (["apply", "--check", "--build", "-"], None, "cannot be combined with --build"),
        (["apply", "--format", "yaml", "-"], None, "--format must be one of auto, caret, json"),
        (["apply", "-"], lambda p: (p.root / ".gitignore").unlink(), ".gitignore is missing"),
        (["apply", "--build", "-"], lambda p: (p.root / "build.sh").unlink(), "build.sh is missing"),
    ],
)
def test_usage_and_setup_errors_exit_2(big: Project, cli, args: list[str], setup, fragment: str) -> None:
    if setup:
        setup(big)
    before = status(big)
    result = cli(*args, input=EDIT)
    assert result.exit_code == 2
    assert fragment in result.stderr
    assert status(big) == before and big.run_dirs() == []
    data = json.loads(cli(*args[:1], "--json", *args[1:], input=EDIT).stdout)
    assert (data["ok"], data["applied"], data["changes"]) == (False, False, [])
    assert fragment in data["error"], "a script reading --json gets a report whatever went wrong"


def test_the_key_is_censored_in_the_report_and_the_logs(big: Project, cli, monkeypatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", TEST_KEY)
    big.build_script(f"echo {TEST_KEY}\nexit 1\n")
    # The key reaches the logs through the answer's saved text and the build's output (an answer that
    # wrote it into a file would be refused: test_secrets.py).
    result = cli("apply", "--build", "-", input=f"The key is {TEST_KEY}.\n^^^k.txt\nk\n^^^end\n")
    assert result.exit_code == 1
    assert TEST_KEY not in result.stdout + result.stderr
    refused = cli("apply", "-", input=f"^^^k-{TEST_KEY}.txt\nk\n^^^end\n")
    assert refused.exit_code == 7 and f"k-********{TEST_KEY[-2:]}.txt" in refused.stdout
    assert TEST_KEY not in refused.stdout + refused.stderr
    logged = "".join(p.read_text() for run in big.run_dirs() for p in run.rglob("*") if p.is_file())
    assert "01-build.txt" in {p.name for run in big.run_dirs() for p in run.iterdir()}
    assert TEST_KEY not in logged


def test_replaying_a_logged_answer_reproduces_the_run(big: Project, api: FakeAPI, cli) -> None:
    api.reply(EDIT + "^^^fixed.txt\nfixed\n^^^end\n")
    assert cli().exit_code == 0
    after_run = big.read("big.py")
    (run,) = big.run_dirs()
    git(big.root, "checkout", "--", "big.py")
    (big.root / "fixed.txt").unlink()
    result = cli("apply", "--build", str(run / "01-response.txt"))
    assert result.exit_code == 0, result.output
    assert big.read("big.py") == after_run and big.read("fixed.txt") == "fixed\n"
    assert len(api.requests) == 1, "no model call"


def test_apply_does_not_import_the_sdk(big: Project) -> None:
    probe = (
        "import sys\n"
        "from code_commit.cli.app import main\n"
        "sys.argv = ['code-commit', 'apply', '-']\n"
        "try:\n    main()\nexcept SystemExit as exit:\n    code = exit.code\n"
        "print('EXIT', code, 'anthropic' in sys.modules, file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=big.root, input=EDIT, capture_output=True, text=True, check=False
    )
    assert "EXIT 0 False" in done.stderr
    assert "return -7" in big.read("big.py")


def test_applying_takes_the_projects_lock_but_check_needs_none(big: Project, cli) -> None:
    with ProjectLock.take(big.root / "agent-config"):
        result = cli("apply", "-", input=EDIT)
        assert result.exit_code == 4
        assert "another code-commit run holds this project's lock" in result.stderr
        assert big.read("big.py") == BIG
        data = json.loads(cli("apply", "--json", "-", input=EDIT).stdout)
        assert data["ok"] is False and "holds this project's lock" in data["error"]
        assert cli("apply", "--check", "-", input=EDIT).exit_code == 0


def test_the_protected_setting_guards_saved_answers_too(big: Project, cli) -> None:
    big.write("agent-config/config.toml", 'protected_patterns = ["secrets/**"]\n')
    result = cli("apply", "--check", "-", input="^^^secrets/token.txt\nx\n^^^end\n")
    assert result.exit_code == 7
    assert "problem 1 [guard]: secrets/token.txt" in result.stdout


def test_setting_flags_before_apply_take_effect(big: Project, cli) -> None:
    big.build_script("sleep 30\n")
    result = cli("--build-timeout", "0.2", "apply", "--build", "--json", "-", input=EDIT)
    assert result.exit_code == 1
    assert json.loads(result.stdout)["last_build"]["timed_out"] is True


def test_the_time_limit_ends_apply_with_exit_5(big: Project, cli) -> None:
    # The timer's SIGALRM, sent by the build to the in-process CLI: the limit strikes mid-build, at once.
    big.build_script("kill -ALRM $PPID\nsleep 30\n")
    result = cli("--timeout", "600", "--sandbox", "off", "apply", "--build", "-", input=EDIT)
    assert result.exit_code == 5
    assert "time limit" in result.stderr
    assert "return -7" in big.read("big.py"), "the apply itself was complete before the build began"


def test_the_time_limit_still_reports_what_was_applied_with_json(big: Project, cli) -> None:
    big.build_script("sleep 30\n")
    result = cli("--timeout", "3", "apply", "--build", "--json", "-", input=EDIT)
    assert result.exit_code == 5
    data = json.loads(result.stdout)
    assert data["applied"] is True and data["changes"] == [{"path": "big.py", "action": "write"}]
    assert data["ok"] is False and "time limit" in data["error"] and data["log_dir"]


def test_an_invalid_ignore_line_is_skipped_with_a_warning_as_in_a_run(big: Project, cli) -> None:
    big.write(".gitignore", "/agent-config\nfoo\\\n")
    big.commit_all()
    warning = ".gitignore:2: pattern 'foo\\\\' is skipped, as git skips it"
    checked = cli("apply", "--check", "--json", "-", input="^^^foo\nc\n^^^end\n")
    assert checked.exit_code == 0 and warning in checked.stderr
    assert json.loads(checked.stdout)["warnings"][0].startswith(warning)
    applied = cli("apply", "-", input="^^^foo\nc\n^^^end\n")
    assert applied.exit_code == 0 and warning in applied.stderr
    (run,) = big.run_dirs()
    assert warning in (run / "run.log").read_text()


def test_a_path_as_deep_as_the_guard_allows_is_applied_and_a_deeper_one_refused(big: Project, cli) -> None:
    """The guard accepts paths MAX_DEPTH folders deep: the apply walks them all. One deeper is refused
    before anything on disk is looked at (450 paths 2,041 folders deep took 90 s and 2 GB)."""
    deep = "d/" * MAX_DEPTH + "f.txt"
    try:
        result = cli("apply", "--json", "-", input=f"^^^{deep}\nx\n^^^end\n")
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["changes"] == [{"path": deep, "action": "write"}]
        assert (big.root / deep).read_text() == "x\n"
        deeper = "d/" * (MAX_DEPTH + 1) + "f.txt"
        refused = cli("apply", "--json", "-", input=f"^^^{deeper}\nx\n^^^end\n")
        assert refused.exit_code == 7
        (problem,) = json.loads(refused.stdout)["problems"]
        assert f"more than {MAX_DEPTH} folders deep" in problem["message"]
    finally:  # Python's rmtree (pytest's clean-up of old temp folders) recurses: rm does not
        subprocess.run(["rm", "-rf", "d"], cwd=big.root, check=True)


def test_hundreds_of_very_deep_paths_are_refused_before_anything_on_disk_is_looked_at(
    project: Project, cli, monkeypatch: pytest.MonkeyPatch
) -> None:
    from code_commit.guard import policy

    looked: list[str] = []
    real = policy.Guard._inspect_directory

    def inspect(self: policy.Guard, directory: str) -> object:
        looked.append(directory)
        return real(self, directory)

    monkeypatch.setattr(policy.Guard, "_inspect_directory", inspect)
    answer = "".join(f"^^^d{i % 10}/{'a/' * 2040}f.txt\nx\n^^^end\n" for i in range(450))
    result = cli("apply", "--check", "--json", "-", input=answer)
    assert result.exit_code == 7
    problems = json.loads(result.stdout)["problems"]
    assert problems and all("folders deep" in p["message"] for p in problems)
    assert looked == []
