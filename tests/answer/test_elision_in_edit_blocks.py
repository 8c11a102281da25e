"""The edit-block form of a lazy answer: a replacement with a line standing for code left out
(`# ... rest unchanged ...`) deletes that code as surely as a whole-file block would, and is refused
the same way; a placeholder the file already holds may stay."""

from __future__ import annotations

from support import Project, count_file_reads


def test_an_edit_whose_replacement_leaves_code_out_is_refused(project: Project, cli) -> None:
    """The edit-block form of a lazy answer: 60 lines replaced by two and `# ... rest unchanged ...`."""
    import json

    original = "".join(f"def f{n}():\n    return {n}\n" for n in range(30))
    project.write("module.py", original)
    project.commit_all()
    answer = (
        f"^^^module.py\n^^^search\n{original}^^^replace\ndef f0():\n    return -1\n# ... rest unchanged ...\n^^^end\n"
    )
    result = cli("apply", "--json", "-", input=answer)
    assert result.exit_code == 7, result.stdout
    (problem,) = json.loads(result.stdout)["problems"]
    assert problem["kind"] == "elided" and "# ... rest unchanged ..." in problem["message"]
    assert project.read("module.py") == original


def test_an_edit_may_keep_a_placeholder_the_file_already_has_and_add_code_with_ellipses(project: Project, cli) -> None:
    project.write("stub.py", "def g():\n    # ...\n    pass\n")
    project.commit_all()
    answer = "^^^stub.py\n^^^search\n    pass\n^^^replace\n    # ...\n    x = y[..., 0]\n    return f(...)\n^^^end\n"
    result = cli("apply", "-", input=answer)
    assert result.exit_code == 0, result.stdout


def test_many_whole_file_blocks_with_a_placeholder_read_the_file_once(project: Project, cli, monkeypatch) -> None:
    """2,000 blocks `^^^big.txt / # ... / ^^^end` (44 KB of answer) read a 10 MB file 2,000 times: 65 s."""
    project.write("big.txt", "line\n" * 1000)
    project.commit_all()
    reads = count_file_reads(monkeypatch)
    result = cli("apply", "--check", "-", input="^^^big.txt\n# ...\n^^^end\n" * 2000)
    assert result.exit_code == 7, result.stdout
    assert "[elided]" in result.stdout
    assert reads.count("big.txt") == 1


def test_elided_blocks_count_as_failures_and_stop_at_the_limit(project: Project, cli) -> None:
    """An answer at the size cap of `^^^big.txt / # ... / ^^^end` blocks was a report of 93,000 problems
    (29 MB): elided blocks count toward max_failed_pairs like failing pairs, and the answer is refused."""
    import json

    project.write("big.txt", "line\n" * 100)
    project.commit_all()
    result = cli("apply", "--check", "--json", "-", input="^^^big.txt\n# ...\n^^^end\n" * 500)
    assert result.exit_code == 7, result.stdout
    problems = json.loads(result.stdout)["problems"]
    assert [p["kind"] for p in problems] == ["elided"] * 10
    assert project.read("big.txt") == "line\n" * 100
