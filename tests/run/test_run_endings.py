"""How a run ends, through `code-commit` in-process: the JSON record for every ending, --dry-run,
--revert-on-failure, the time limits, SIGINT, a signal during an apply, and log retention."""

from __future__ import annotations

import json
import os
import signal
import stat
from pathlib import Path

import pytest

from code_commit.files import confined as tree

from fakeapi import FakeAPI
from support import TEST_KEY, Project, git
from support.record import valid_record

FIX = "^^^fixed.txt\nfixed\n^^^end\n"
FIELDS = {
    "outcome",
    "exit_code",
    "attempts",
    "files_changed",
    "files_deleted",
    "calls",
    "usage",
    "cost_usd",
    "duration_s",
    "log_dir",
}


def record(result) -> dict:
    """The one JSON object on stdout; json.loads fails if anything else is there."""
    data = json.loads(result.stdout)
    assert set(data) >= FIELDS
    return data


def summary_file(data: dict) -> dict:
    return valid_record((Path(data["log_dir"]) / "summary.json").read_text())


def test_json_on_success(project: Project, api: FakeAPI, cli) -> None:
    api.reply("^^^gone.txt\n^^^delete\n^^^wrong.txt\nno\n^^^end\n", usage={"input_tokens": 100, "output_tokens": 7})
    project.write("gone.txt", "bye\n")
    git(project.root, "add", "gone.txt")  # an untracked file may not be deleted: git status could not show it
    api.reply(FIX, usage={"input_tokens": 120, "output_tokens": 9, "cache_read_input_tokens": 50})
    result = cli("--json")
    assert result.exit_code == 0
    data = record(result)
    assert data["outcome"] == "passed" and data["exit_code"] == 0 and data["error"] is None
    assert data["attempts"] == 2
    assert data["files_changed"] == ["fixed.txt", "wrong.txt"] and data["files_deleted"] == ["gone.txt"]
    assert [c["call"] for c in data["calls"]] == [1, 2]
    assert data["calls"][1]["usage"]["input_tokens"] == 120 and data["calls"][1]["stop_reason"] == "end_turn"
    assert all(c["duration_s"] >= 0 for c in data["calls"])
    # The default model has a price: the cost is the sum of the calls', unrounded.
    assert data["cost_usd"] == pytest.approx(sum(c["cost_usd"] for c in data["calls"])) and 0 < data["cost_usd"] < 0.01
    assert data["usage"] == {
        "input_tokens": 220,
        "output_tokens": 16,
        "cache_write_tokens": 0,
        "cache_read_tokens": 50,
        "thinking_tokens": 15,  # of the output: the default model thinks before it answers (the fake's count)
        "estimated": False,  # every count is the service's own
    }
    assert data["duration_s"] > 0 and data["last_build"]["exit_code"] == 0
    assert Path(data["log_dir"]).parent == project.root / "agent-config" / "logs"
    assert summary_file(data) == data, "summary.json is the same object"
    assert "build passes" in result.stderr, "progress still goes to stderr"


def test_json_on_build_failure(project: Project, api: FakeAPI, cli) -> None:
    for n in range(4):
        api.reply(f"^^^attempt.txt\n{n}\n^^^end\n")
    result = cli("--json")
    assert result.exit_code == 1
    data = record(result)
    assert (data["outcome"], data["exit_code"], data["attempts"]) == ("build_failed", 1, 4)
    assert data["last_build"]["exit_code"] == 1 and data["files_changed"] == ["attempt.txt"]
    assert summary_file(data) == data


def test_json_on_a_service_error(project: Project, api: FakeAPI, cli) -> None:
    api.status(401)
    result = cli("--json")
    assert result.exit_code == 3
    data = record(result)
    assert data["outcome"] == "service_error" and data["attempts"] == 0
    assert "environment variable ANTHROPIC_API_KEY" in data["error"] and TEST_KEY not in result.stdout
    assert summary_file(data) == data


def test_json_on_a_setup_error(project: Project, cli, monkeypatch: pytest.MonkeyPatch) -> None:
    (project.root / "build.sh").unlink()
    result = cli("--json")
    assert result.exit_code == 2
    data = json.loads(result.stdout)
    assert data["outcome"] == "setup_error" and data["exit_code"] == 2 and data["log_dir"] is None
    assert "build.sh is missing" in data["error"] and data["attempts"] == 0
    assert project.run_dirs() == []


def test_a_build_sh_whose_interpreter_does_not_exist_ends_the_run_before_any_call(
    project: Project, api: FakeAPI, cli
) -> None:
    """No answer can change build.sh's #! line: once, the model was asked four times; the baseline
    build, before any answer, now finds it without one."""
    project.write("build.sh", "#!/nonexistent/sh\ntest -f fixed.txt\n", mode=0o755)
    project.commit_all()
    for _ in range(4):
        api.reply(FIX)
    result = cli("--json")
    assert result.exit_code == 11
    data = record(result)
    assert data["outcome"] == "build_blocked" and api.requests == [] and data["attempts"] == 0
    assert (Path(data["log_dir"]) / "00-build.txt").exists()
    assert data["error"].startswith("build.sh's #! line names /nonexistent/sh, which is not found here")
    assert data["diagnosis"]["kind"] == "missing" and "#!/bin/sh" in data["diagnosis"]["fix"]
    assert data["error"] in result.stderr
    assert summary_file(data) == data


def test_a_build_that_still_fails_says_how_in_the_records_error(project: Project, api: FakeAPI, cli) -> None:
    """`error` is never null when the run did not pass: the build's ending and its first error line."""
    project.build_script("echo 'FAILED tests/test_app.py::test_hello - assert 1 == 2'\nexit 1\n")
    project.commit_all()
    api.reply(FIX)
    result = cli("--json", env={"CODE_COMMIT_MAX_REPAIRS": "0"})
    assert result.exit_code == 1
    data = record(result)
    assert data["outcome"] == "build_failed" and data["diagnosis"] is None
    assert data["error"].startswith("the build still fails after 0 repairs: build.sh exited with code 1 after ")
    assert data["error"].endswith("01-build.txt; first error: FAILED tests/test_app.py::test_hello - assert 1 == 2")


def test_without_json_nothing_goes_to_stdout(project: Project, api: FakeAPI, cli) -> None:
    api.reply(FIX)
    result = cli()
    assert result.exit_code == 0 and result.stdout == ""
    (run,) = project.run_dirs()
    assert json.loads((run / "summary.json").read_text())["outcome"] == "passed", "summary.json is always written"


def test_dry_run_prints_the_diff_and_writes_nothing(project: Project, api: FakeAPI, cli) -> None:
    api.reply("^^^app.txt\nhello, world\n^^^end\n" + FIX)
    before = git(project.root, "status", "--porcelain")
    result = cli("--dry-run")
    assert result.exit_code == 0
    assert result.stdout.startswith("diff --git a/app.txt b/app.txt\n")
    assert "-hello\n+hello, world\n" in result.stdout and "new file mode 100644" in result.stdout
    assert git(project.root, "status", "--porcelain") == before, "nothing was written to the tree"
    assert len(api.requests) == 1
    (run,) = project.run_dirs()
    assert not list(run.glob("*build*")), "no build ran"
    assert (run / "dry-run.patch").read_text() == result.stdout
    # The diff is a patch git can apply.
    (project.root / "out.patch").write_text(result.stdout)
    git(project.root, "apply", "--check", "out.patch")


def test_a_piped_dry_run_diff_is_the_exact_patch_for_any_encoding(project: Project, api: FakeAPI, cli) -> None:
    latin = "caf\xe9\n".encode("latin-1")
    (project.root / "latin.txt").write_bytes(latin)
    (project.root / "img.bin").write_bytes(bytes(range(256)))
    project.commit_all()
    api.reply("^^^latin.txt\ncafe\n^^^end\n^^^img.bin\ntext now\n^^^end\n")
    result = cli("--dry-run")
    assert result.exit_code == 0, result.stderr
    assert result.stdout_bytes == (project.run_dirs()[0] / "dry-run.patch").read_bytes()
    assert b"GIT binary patch" in result.stdout_bytes
    (project.root / "out.patch").write_bytes(result.stdout_bytes)
    git(project.root, "apply", "out.patch")
    assert (project.root / "latin.txt").read_bytes() == b"cafe\n"
    assert (project.root / "img.bin").read_bytes() == b"text now\n"
    git(project.root, "apply", "-R", "out.patch")
    assert (project.root / "latin.txt").read_bytes() == latin


def test_dry_run_with_json_and_a_refused_answer(project: Project, api: FakeAPI, cli) -> None:
    api.reply(FIX)
    data = record(cli("--dry-run", "--json"))
    assert data["outcome"] == "acceptable" and data["dry_run"] is True and "+fixed" in data["diff"]
    api.reply("^^^build.sh\nexit 0\n^^^end\n")
    result = cli("--dry-run", "--json")
    assert result.exit_code == 1
    data = record(result)
    assert data["outcome"] == "refused" and data["diff"] is None
    assert "build.sh is a protected file" in result.stderr
    assert data["error"] == "the answer would be refused: 'build.sh': build.sh is a protected file"
    assert summary_file(data) == data


def test_a_dry_run_answer_with_no_blocks_is_refused(project: Project, api: FakeAPI, cli) -> None:
    api.reply("I cannot help with that.")
    result = cli("--dry-run", "--json")
    assert result.exit_code == 1
    data = record(result)
    assert data["outcome"] == "refused" and data["diff"] is None
    assert data["error"] == "the answer would be refused: the answer has no ^^^ blocks, so there is nothing to apply"
    assert "the answer is acceptable" not in result.stderr


def test_when_every_answer_is_refused_the_record_says_so(project: Project, api: FakeAPI, cli) -> None:
    for _ in range(4):
        api.reply("^^^.gitignore\nx\n^^^end\n")
    result = cli("--json")
    assert result.exit_code == 1, "no passing build"
    data = record(result)
    assert (data["outcome"], data["attempts"], data["last_build"]) == ("refused", 4, None)
    assert data["error"] == (
        "no answer could be applied: all 4 were refused, so no build ran; "
        "the last one because: '.gitignore': .gitignore is a protected file"
    )
    assert "no answer could be applied: all 4 were refused, so no build ran" in result.stderr
    assert "still fails" not in result.stderr
    assert summary_file(data) == data


def test_revert_on_failure_restores_the_tree_exactly_and_keeps_the_proposal(
    project: Project, api: FakeAPI, cli
) -> None:
    project.write("tool.sh", "#!/bin/sh\necho v1\n", mode=0o755)
    project.write("old.txt", "old\n")
    project.commit_all()
    project.write("wip.txt", "the supervisor's own uncommitted work\n")
    status = git(project.root, "status", "--porcelain")
    api.reply("^^^tool.sh\n#!/bin/sh\necho v2\n^^^end\n^^^new/deep/file.txt\nnew\n^^^end\n^^^old.txt\n^^^delete\n")
    for n in range(3):
        api.reply(f"^^^app.txt\nattempt {n}\n^^^end\n")
    result = cli("--revert-on-failure", "--json")
    assert result.exit_code == 1
    data = record(result)
    assert data["reverted"] is True
    assert git(project.root, "status", "--porcelain") == status
    assert project.read("tool.sh") == "#!/bin/sh\necho v1\n" and project.read("app.txt") == "hello\n"
    assert stat.S_IMODE((project.root / "tool.sh").stat().st_mode) == 0o755
    assert not (project.root / "new").exists(), "directories the run created are gone"
    assert project.read("wip.txt") == "the supervisor's own uncommitted work\n"
    # The final proposal replays with git apply.
    patch = Path(data["patch"])
    assert patch == Path(data["log_dir"]) / "final.patch"
    git(project.root, "apply", str(patch))
    assert project.read("tool.sh") == "#!/bin/sh\necho v2\n" and project.read("app.txt") == "attempt 2\n"
    assert project.read("new/deep/file.txt") == "new\n" and not (project.root / "old.txt").exists()


def test_revert_on_failure_never_follows_a_symlink_the_build_made(
    project: Project, api: FakeAPI, cli, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("VICTIM keep\n")
    (outside / "new.txt").write_text("VICTIM new\n")
    project.write("lib/keep.txt", "original keep\n")
    project.write("lib/other.txt", "other\n")
    project.commit_all()
    # Model-written code runs in the build: it swaps lib/ for a symlink to a folder outside the root.
    project.build_script(
        f"if [ -f app2.txt ] && [ ! -L lib ]; then mv lib lib.bak && ln -s {outside} lib; fi\nexit 1\n"
    )
    api.reply(
        "^^^lib/keep.txt\nmodel keep\n^^^end\n^^^lib/new.txt\nmodel new\n^^^end\n^^^app.txt\nchanged\n^^^end\n"
        "^^^app2.txt\nthe model's code runs now\n^^^end\n"
    )
    result = cli("--revert-on-failure", "--json", env={"CODE_COMMIT_MAX_REPAIRS": "0"})
    assert result.exit_code == 1
    data = record(result)
    assert {p.name: p.read_text() for p in outside.iterdir()} == {
        "keep.txt": "VICTIM keep\n",
        "new.txt": "VICTIM new\n",
    }
    assert data["reverted"] is False, "two files could not be reverted"
    # The answers' two files, and lib/other.txt, which the build moved away with lib/.
    assert result.stderr.count("lib is a symlink now; left as it is") == 3
    assert "lib.bak/other.txt: the builds created them; left in place" in result.stderr
    assert (project.root / "lib.bak" / "other.txt").read_text() == "other\n", "nothing is lost"
    assert project.read("app.txt") == "hello\n", "the rest is still reverted"
    patch = Path(data["patch"]).read_text()
    assert "VICTIM" not in patch, "nothing outside the root is read into the patch"
    assert "# code-commit: lib/keep.txt is left out of this patch: lib is a symlink now" in patch
    assert "-hello\n+changed\n" in patch


def test_revert_on_failure_removes_every_folder_the_run_created(project: Project, api: FakeAPI, cli) -> None:
    project.write("kept/mine.txt", "the supervisor's\n")
    project.commit_all()
    api.reply("^^^a/x.txt\nx\n^^^end\n^^^kept/new/n.txt\nn\n^^^end\n")
    api.reply("^^^a/b/y.txt\ny\n^^^end\n^^^a/b/c/d/z.txt\nz\n^^^end\n")
    result = cli("--revert-on-failure", "--json", env={"CODE_COMMIT_MAX_REPAIRS": "1"})
    assert result.exit_code == 1 and record(result)["reverted"] is True
    assert not (project.root / "a").exists(), "a/ is removed once a/b/ is, whatever order the files came in"
    assert not (project.root / "kept" / "new").exists() and project.read("kept/mine.txt") == "the supervisor's\n"
    assert git(project.root, "status", "--porcelain") == ""


def test_logged_patches_are_byte_exact_for_latin1_and_binary_files(project: Project, api: FakeAPI, cli) -> None:
    latin, blob = "caf\xe9\n".encode("latin-1"), b"\x89PNG\r\n\x1a\n\x00\xff\xfe" * 10
    (project.root / "latin.txt").write_bytes(latin)
    (project.root / "blob.bin").write_bytes(blob)
    (project.root / "img.bin").write_bytes(bytes(range(256)))
    project.commit_all()
    api.reply("^^^latin.txt\ncafe\n^^^end\n^^^blob.bin\n^^^delete\n^^^img.bin\ntext now\n^^^end\n")
    data = record(cli("--revert-on-failure", "--json", env={"CODE_COMMIT_MAX_REPAIRS": "0"}))
    assert data["reverted"] is True and git(project.root, "status", "--porcelain") == ""
    # final.patch replays the proposal exactly ...
    git(project.root, "apply", data["patch"])
    assert (project.root / "latin.txt").read_bytes() == b"cafe\n" and not (project.root / "blob.bin").exists()
    assert (project.root / "img.bin").read_bytes() == b"text now\n"
    # ... and the attempt's NN-changes.diff undoes it exactly: every byte of the originals is back.
    git(project.root, "apply", "-R", str(Path(data["log_dir"]) / "01-changes.diff"))
    assert git(project.root, "status", "--porcelain") == ""
    assert (project.root / "latin.txt").read_bytes() == latin and (project.root / "blob.bin").read_bytes() == blob


def test_revert_on_failure_keeps_a_passing_result(project: Project, api: FakeAPI, cli) -> None:
    api.reply(FIX)
    data = record(cli("--revert-on-failure", "--json"))
    assert data["outcome"] == "passed" and data["reverted"] is False and data["patch"] is None
    assert project.read("fixed.txt") == "fixed\n"


def test_build_timeout_is_a_failed_build_the_model_is_told_about(project: Project, api: FakeAPI, cli) -> None:
    project.build_script("test -f fixed.txt && exit 0\necho still building\nsleep 600\n")
    api.reply("^^^slow.txt\nnot yet\n^^^end\n")
    api.reply(FIX)
    result = cli("--build-timeout", "0.5")
    assert result.exit_code == 0
    repair = api.requests[1].prompt_text
    assert "still building" in repair and "killed at its time limit of 0.5 s" in repair
    (run,) = project.run_dirs()
    assert "killed at its time limit of 0.5 s" in (run / "01-build.txt").read_text()


def test_the_whole_run_time_limit_exits_5_and_kills_the_build(project: Project, api: FakeAPI, cli, tmp_path) -> None:
    pid_file = tmp_path / "build.pid"
    # The limit's timer strikes while the build runs: the build sends the run (its parent: the CLI runs
    # in-process) the timer's own SIGALRM once it is under way, so the test waits for no clock (the
    # timer's arming is what test_the_time_limit_also_ends_a_wait_for_the_model waits out).
    project.build_script(f"test -f fixed.txt || exit 1\necho $$ > {pid_file}\nkill -ALRM $PPID\nsleep 600\n")
    api.reply(FIX)
    # Unsandboxed: the build writes its pid outside the project (tests/test_sandbox.py has the sandboxed case).
    result = cli("--timeout", "600", "--json", "--revert-on-failure", "--sandbox", "off")
    assert result.exit_code == 5
    data = record(result)
    assert data["outcome"] == "timeout" and "time limit of 600 s" in data["error"]
    assert data["reverted"] is True and not (project.root / "fixed.txt").exists()
    with pytest.raises(ProcessLookupError):
        os.kill(int(pid_file.read_text()), 0)
    assert "build.sh was stopped" in (Path(data["log_dir"]) / "01-build.txt").read_text()


def test_the_time_limit_also_ends_a_wait_for_the_model(project: Project, api: FakeAPI, cli) -> None:
    import anthropic  # noqa: F401 - imported beforehand, so the limit strikes inside the request, not the import

    api.reply(FIX, delay=30)
    result = cli("--timeout", "3", "--json")
    assert len(api.requests) == 1, "the request was in flight"
    assert result.exit_code == 5, result.stderr
    assert record(result)["outcome"] == "timeout", "not reported as a service error"


def test_sigint_during_the_build_exits_130_with_a_record(project: Project, api: FakeAPI, cli) -> None:
    # build.sh's parent is this very process (the CLI runs in-process): it interrupts the run.
    project.build_script("test -f fixed.txt || exit 1\nkill -INT $PPID\nsleep 600\n")
    api.reply(FIX)
    result = cli("--json", "--sandbox", "off")  # in the sandbox, no process of the run is in reach
    assert result.exit_code == 130
    data = record(result)
    assert data["outcome"] == "interrupted" and data["files_changed"] == ["fixed.txt"]
    assert "interrupted by SIGINT" in result.stderr


def test_a_signal_during_an_apply_lets_it_finish(project: Project, api: FakeAPI, cli, monkeypatch) -> None:
    """SIGTERM arrives while the first of five files is being written: all five are written, the
    run records them and stops before the build."""
    real_rename = tree.Syscalls.rename
    sent = []

    def rename_and_signal(src, dst, **kwargs):
        if not sent and str(dst).startswith("part") and str(dst).endswith(".txt"):
            sent.append(dst)
            os.kill(os.getpid(), signal.SIGTERM)
        return real_rename(src, dst, **kwargs)

    monkeypatch.setattr(tree.SYSCALLS, "rename", rename_and_signal)
    api.reply("".join(f"^^^part{n}.txt\npart {n}\n^^^end\n" for n in range(5)))
    result = cli("--json")
    assert sent, "the signal was sent during the apply"
    assert result.exit_code == 130
    for n in range(5):
        assert project.read(f"part{n}.txt") == f"part {n}\n"
    data = record(result)
    assert data["files_changed"] == [f"part{n}.txt" for n in range(5)]
    assert not list(Path(data["log_dir"]).glob("01-*build*")), "the run stopped before the build"


def test_log_retention_keeps_the_newest_runs(project: Project, api: FakeAPI, cli, monkeypatch) -> None:
    logs = project.root / "agent-config" / "logs"
    (logs / "my-notes").mkdir(parents=True)
    monkeypatch.setenv("CODE_COMMIT_KEEP_RUNS", "2")
    for n in range(3):
        api.reply(f"^^^fixed.txt\nfixed {n}\n^^^end\n")  # each run changes it: an unchanged tree is not built
        assert cli().exit_code == 0
        git(project.root, "add", "-A")  # the supervisor keeps the result: the next run may write fixed.txt again
    assert (logs / "my-notes").is_dir(), "only run folders are pruned"
    runs = [p for p in project.run_dirs() if p.name != "my-notes"]
    assert len(runs) == 2
    assert "deleted the old run folder" in (runs[1] / "run.log").read_text()


def test_log_retention_never_deletes_the_current_run(project: Project, api: FakeAPI, cli, monkeypatch) -> None:
    future = project.root / "agent-config" / "logs" / "29991231-235959-000000"  # a clock that went back
    future.mkdir(parents=True)
    monkeypatch.setenv("CODE_COMMIT_KEEP_RUNS", "1")
    api.reply(FIX)
    data = record(cli("--json"))
    assert [p.name for p in project.run_dirs()] == [Path(data["log_dir"]).name]


def test_log_retention_keeps_folders_whose_journal_still_matters(
    project: Project, api: FakeAPI, cli, monkeypatch
) -> None:
    """Recovery left the originals of files edited since a crash in a journal: they must outlive retention."""
    logs = project.root / "agent-config" / "logs"
    kept = logs / "20200101-000000-000001"
    (kept / "01-journal").mkdir(parents=True)
    (kept / "01-journal" / "conflicts.json").write_text("{}")
    (logs / "20200101-000000-000002" / "01-journal").mkdir(parents=True)  # finished: nothing left in it
    monkeypatch.setenv("CODE_COMMIT_KEEP_RUNS", "1")
    api.reply(FIX)
    assert cli().exit_code == 0
    names = [p.name for p in project.run_dirs()]
    assert kept.name in names and "20200101-000000-000002" not in names and len(names) == 2


def test_log_retention_default_is_50(project: Project, api: FakeAPI, cli) -> None:
    logs = project.root / "agent-config" / "logs"
    for n in range(55):
        (logs / f"20200101-000000-{n:06d}").mkdir(parents=True)
    api.reply(FIX)
    assert cli().exit_code == 0
    runs = project.run_dirs()
    assert len(runs) == 50 and runs[0].name == "20200101-000000-000006"


def test_extra_protected_patterns_from_the_config_file(project: Project, api: FakeAPI, cli) -> None:
    project.write("agent-config/config.toml", 'protected_patterns = [".github/workflows/**"]\n')
    api.reply("^^^.github/workflows/ci.yml\non: push\n^^^end\n")
    api.reply(FIX)
    assert cli().exit_code == 0
    assert not (project.root / ".github").exists()
    assert "matches the protected pattern '.github/workflows/**'" in api.requests[1].prompt_text


def test_the_build_gets_no_key_and_no_stdin_through_the_cli(project: Project, api: FakeAPI, cli) -> None:
    project.build_script('echo "key=${ANTHROPIC_API_KEY:-none}"; read x && echo "stdin=$x"; test -f fixed.txt\n')
    api.reply(FIX)
    assert cli().exit_code == 0
    (run,) = project.run_dirs()
    log = (run / "01-build.txt").read_text()
    assert "key=none" in log and "stdin=" not in log


def test_an_answer_with_a_lone_surrogate_is_logged_with_the_bytes_visible(project: Project, api: FakeAPI, cli) -> None:
    """JSON can carry a lone surrogate (\\ud800) that UTF-8 cannot encode: the log shows it escaped."""
    api.reply("prose \ud800 here\n" + FIX)
    result = cli("--json", "-v")
    assert result.exit_code == 0, result.stderr
    data = record(result)
    assert data["outcome"] == "passed" and summary_file(data) == data
    run = Path(data["log_dir"])
    assert (run / "01-response.txt").read_text() == "prose <U+D800> here\n" + FIX  # shown, as on the console
    assert (run / "01-response.raw").read_text() == "prose \\ud800 here\n" + FIX  # escaped: not UTF-8
    assert "prose <U+D800> here" in result.stderr
