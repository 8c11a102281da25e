"""Edit blocks through the whole loop: `code-commit`, the real SDK and the loopback fake service."""

from __future__ import annotations

from fakeapi import FakeAPI
from support import Project, git

BIG = "".join(f"def f{n}():\n    return {n}\n\n" for n in range(1, 301))  # 900 lines


def user_text(request) -> str:
    return "".join(block["text"] for message in request.json["messages"] for block in message["content"])


def system_text(request) -> str:
    return "".join(block["text"] for block in request.json["system"])


def refused(project: Project) -> str:
    (run,) = project.run_dirs()
    return (run / "01-refused.txt").read_text()


def test_an_edit_block_changes_a_large_file_and_the_build_passes(project: Project, api: FakeAPI, cli) -> None:
    project.write("big.py", BIG)
    project.build_script("grep -q 'return 1234' big.py\n")
    project.commit_all()
    api.reply("^^^big.py\n^^^search\ndef f150():\n    return 150\n^^^replace\ndef f150():\n    return 1234\n^^^end\n")
    result = cli()
    assert result.exit_code == 0, result.stderr
    assert project.read("big.py") == BIG.replace("return 150\n", "return 1234\n")
    assert git(project.root, "diff", "--numstat") == "1\t1\tbig.py\n"


def test_the_repair_prompt_carries_the_whole_file_an_edit_block_produced(project: Project, api: FakeAPI, cli) -> None:
    project.write("big.py", BIG)
    project.commit_all()
    api.reply("^^^big.py\n^^^search\ndef f2():\n    return 2\n^^^replace\ndef f2():\n    return 22\n^^^end\n")
    api.reply("^^^fixed.txt\nfixed\n^^^end\n")
    assert cli().exit_code == 0
    repair = user_text(api.requests[1])
    expected = BIG.replace("return 2\n", "return 22\n")
    assert f"--- FILE REPLACEMENT [big.py] ---\n{expected}" in repair
    assert "^^^search" not in repair


def test_a_search_that_matches_nowhere_refuses_the_answer_and_shows_the_closest_lines(
    project: Project, api: FakeAPI, cli
) -> None:
    project.write("big.py", BIG)
    project.commit_all()
    api.reply(
        "^^^new.txt\nnew\n^^^end\n"
        "^^^big.py\n^^^search\ndef f7(x):\n    return 7\n^^^replace\ndef f7(x):\n    return x\n^^^end\n"
    )
    api.reply("^^^fixed.txt\nfixed\n^^^end\n")
    assert cli().exit_code == 0
    assert not (project.root / "new.txt").exists(), "nothing of the refused answer was written"
    assert project.read("big.py") == BIG
    reason = refused(project)
    assert "'big.py': block 2 (an edit block), search 1 of 1 (answer line 5)" in reason
    assert "    19| def f7():\n    20|     return 7\n" in reason
    repair = user_text(api.requests[1])
    assert "--- ANSWER REFUSED ---" in repair and "    19| def f7():" in repair
    assert "--- BUILD OUTPUT ---" not in repair


def test_an_ambiguous_search_refuses_the_answer_and_says_how_to_make_it_unique(
    project: Project, api: FakeAPI, cli
) -> None:
    project.write("config.py", "a = 1\nb = 2\na = 1\n")
    project.commit_all()
    api.reply("^^^config.py\n^^^search\na = 1\n^^^replace\na = 9\n^^^end\n")
    api.reply("^^^fixed.txt\nfixed\n^^^end\n")
    assert cli().exit_code == 0
    reason = refused(project)
    assert "matches 2 places in config.py (exact match): line 1 and line 3" in reason
    assert "for line 1, a search text of lines 1-2 would be unique" in reason
    assert "for line 3, a search text of lines 2-3 would be unique" in reason
    assert "Any 2 consecutive lines of config.py are unique" in reason
    assert "matches 2 places in config.py" in user_text(api.requests[1])
    assert project.read("config.py") == "a = 1\nb = 2\na = 1\n"


def test_allow_delete_false_refuses_deletes_and_tells_the_model(project: Project, api: FakeAPI, cli) -> None:
    project.write("agent-config/config.toml", "allow_delete = false\n")
    api.reply("^^^app.txt\n^^^delete\n^^^fixed.txt\nfixed\n^^^end\n")
    api.reply("^^^fixed.txt\nfixed\n^^^end\n")
    assert cli().exit_code == 0
    assert project.read("app.txt") == "hello\n"
    assert "deleting files is turned off in this project (allow_delete = false)" in refused(project)
    assert "Deleting files is turned off in this project" in system_text(api.requests[0])


def test_the_thresholds_in_the_prompt_come_from_the_config(project: Project, api: FakeAPI, cli) -> None:
    project.write("agent-config/config.toml", "edit_threshold_lines = 120\nedit_threshold_bytes = 4096\n")
    api.reply("^^^fixed.txt\nfixed\n^^^end\n")
    assert cli().exit_code == 0
    assert "more than 120 lines or more than 4096 bytes" in system_text(api.requests[0])
