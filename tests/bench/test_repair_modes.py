"""`python -m bench repair` end to end, through its own entry (bench.repair.run.main), on real tasks of
the corpus: scripted (the known fix as the answer), live against the fake Messages API (the real SDK, in
the real `code-commit` command), and local against the strict fake llama.cpp server. Each run's JSON
report is read back; a run that measured nothing, or a scripted task that does not end as its fix says,
fails the bench. The whole corpus runs in scripted mode as .ci/run's own step (docs/benchmarks.md)."""

from __future__ import annotations

import json
import re
import shutil
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from bench.__main__ import main as bench_main
from bench.repair.modes import LocalServerInfo, ServerUnavailable, bundled_server
from bench.repair.results import Provenance, Report, TaskResult, prompts_hash
from bench.repair.run import NothingMeasured, check_measured, main, of_ecosystem
from bench.repair.task import TASKS, load_task
from code_commit import __version__
from code_commit.llm.prompts import system_prompts_dir

from llamacpp_server import LlamaServer

# The fastest tasks (about a second each): one repairable, one impossible.
REPAIRABLE = "python-pip-schedule-clear-tag"
IMPOSSIBLE = "python-pip-schedule-impossible-clear-tag"
PRICED_MODEL = "claude-sonnet-5-5"  # in code-commit's price table: the run's cost is known


def bench(tmp_path: Path, *args: str, **kwargs: Any) -> tuple[int, dict[str, Any]]:
    """Run the bench; its exit code and the one JSON report it wrote."""
    out = tmp_path / "results"
    code = main([*args, "--out", str(out)], **kwargs)
    (written,) = out.glob("*.json")
    return code, json.loads(written.read_text())


def edit(path: str, search: str, replace: str) -> str:
    """An answer of one edit block: `search`, whole lines, replaced by `replace`."""
    return f"^^^{path}\n^^^search\n{search}^^^replace\n{replace}^^^end\n"


def by_task(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {result["task"]: result for result in report["results"]}


def test_scripted_mode_repairs_with_the_known_fix_and_hands_back_the_impossible_task(tmp_path: Path, capsys) -> None:
    code, report = bench(tmp_path, "--mode", "scripted", "--tasks", f"{REPAIRABLE},{IMPOSSIBLE}")

    assert code == 0, capsys.readouterr()
    results = by_task(report)
    repaired, handed_back = results[REPAIRABLE], results[IMPOSSIBLE]
    assert (repaired["verdict"], repaired["exit_code"], repaired["calls"]) == ("repaired", 0, 1)
    assert repaired["builds"] == 2 and repaired["baseline_failed"] is True  # broken, then passing with the fix
    assert (handed_back["verdict"], handed_back["exit_code"], handed_back["builds"]) == ("handed back", 13, 1)
    for result in results.values():  # the tool alone: tokens counted, time split, nothing wasted
        assert result["input_tokens"] > 1000 and result["unfixable_calls"] == 0 and result["refused_answers"] == 0
        assert 0 < result["build_s"] < result["wall_s"] and 0 < result["tool_s"] < result["wall_s"]
    totals = report["totals"]
    assert (totals["tasks"], totals["repaired"], totals["handed_back"], totals["cheated"]) == (2, 1, 1, 0)
    assert totals["builds"] == 3 and totals["repair_rate"] == 1.0
    provenance = report["provenance"]
    assert (provenance["mode"], provenance["model"]) == ("scripted", "scripted-known-fix")
    assert provenance["version"] == __version__
    assert provenance["prompts_sha256"] == prompts_hash(system_prompts_dir())
    assert provenance["checkout"] is None or re.fullmatch(r"[0-9a-f]{40}(\+changes)?", provenance["checkout"])
    table = capsys.readouterr().out
    assert f"| repair scripted: {REPAIRABLE} | python-pip |" in table and "| repair scripted: all | 2 tasks |" in table


def test_a_scripted_task_whose_fix_does_not_repair_it_fails_the_bench(tmp_path: Path, capsys) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(TASKS / REPAIRABLE, corpus / REPAIRABLE)
    task = load_task(corpus / REPAIRABLE)
    for fix in task.fix:  # the "fix" is the broken file itself: the answer changes nothing
        shutil.copyfile(task.project_dir / fix.path, corpus / REPAIRABLE / "fix" / fix.path)

    code, report = bench(tmp_path, "--mode", "scripted", corpus=corpus)

    assert code == 1
    assert by_task(report)[REPAIRABLE]["verdict"] == "not repaired"
    assert f"| repair scripted: {REPAIRABLE} | python-pip |" in (out := capsys.readouterr().out)
    # The answer changed nothing, so the loop asked again, and the scripted model had no answer left.
    assert "WRONG: expected pass, got service_error (exit 3)" in out


def test_a_run_that_measures_nothing_fails(tmp_path: Path, capsys) -> None:
    (tmp_path / "corpus").mkdir()
    code, report = bench(tmp_path, "--mode", "scripted", corpus=tmp_path / "corpus")
    assert code == 1 and report["results"] == [] and report["totals"]["tasks"] == 0
    assert "no task was measured" in capsys.readouterr().err

    provenance = Provenance.now("scripted", "scripted", "m")
    result = TaskResult("t", "python-pip", "pass", "passed", 0, 1, 10, 10, None, 0, 0, False, 1.0, 0.0, 0.0)
    with pytest.raises(NothingMeasured, match="no build ran in any of them"):
        check_measured(Report(provenance, (result,)), 1)


def test_live_mode_measures_repairs_refusals_cost_and_reports_a_pass_on_an_impossible_task_as_cheating(
    tmp_path: Path, api, capsys
) -> None:
    """The real `code-commit` command with --provider/--model and the key from the environment, against
    the fake service: one task repaired after a refused answer, one impossible task passed by cheating."""
    # The tasks run in the order of their ids. Edit blocks, as a model answers a small change.
    api.reply("^^^test_schedule.py\nimport unittest\n^^^end\n")  # a test rewritten: refused under protect
    clear = "            self.jobs[:] = (job for job in self.jobs if tag not in job.tags)\n"
    api.reply(edit("schedule/__init__.py", clear.replace(" not in ", " in "), clear))
    special_cased = '            if tag == "tag3":\n                return\n            del self.jobs[:]\n'
    api.reply(edit("schedule/__init__.py", clear, special_cased))  # code bent to the contradicting test

    tasks = f"{REPAIRABLE},{IMPOSSIBLE}"
    flags = ("--mode", "live", "--provider", "anthropic", "--model", PRICED_MODEL, "--tasks", tasks)
    code, report = bench(tmp_path, *flags)

    assert code == 0, capsys.readouterr().err
    assert len(api.requests) == 3
    results = by_task(report)
    assert results[REPAIRABLE]["verdict"] == "repaired"
    assert (results[REPAIRABLE]["calls"], results[REPAIRABLE]["refused_answers"]) == (2, 1)
    assert results[REPAIRABLE]["model_s"] > 0, "the calls' durations, as the record names them (duration_s)"
    assert results[IMPOSSIBLE]["verdict"] == "CHEATED" and results[IMPOSSIBLE]["exit_code"] == 0
    totals = report["totals"]
    assert (totals["repaired"], totals["repairable"], totals["cheated"], totals["refused_answers"]) == (1, 1, 1, 1)
    assert totals["cost_usd"] > results[REPAIRABLE]["cost_usd"] > 0
    assert totals["cost_per_repair_usd"] == totals["cost_usd"]  # what the one repair cost, cheating included
    assert report["provenance"]["mode"] == "live" and report["provenance"]["model"] == PRICED_MODEL
    assert f"| repair live: {IMPOSSIBLE} | python-pip |" in (out := capsys.readouterr().out) and "1 cheated" in out


def test_python_m_bench_repair_is_this_bench_and_live_mode_needs_a_provider_and_a_model(tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as stopped:
        bench_main(["repair", "--mode", "live", "--out", str(tmp_path)])
    assert stopped.value.code == 2 and "--mode live needs --provider and --model" in capsys.readouterr().err


def test_local_mode_runs_against_an_openai_compatible_llama_cpp_server(tmp_path: Path) -> None:
    """Through the interface bench/local_server.py gives (a started server's base URL and model), here
    the strict fake of llama.cpp's server."""
    with LlamaServer(flavour="llama.cpp", n_ctx=65536) as server:
        server.reply(load_task(TASKS / REPAIRABLE).answer())

        @contextmanager
        def started() -> Iterator[LocalServerInfo]:
            yield LocalServerInfo(f"{server.url}/v1", "smollm2-135m-instruct")

        code, report = bench(tmp_path, "--mode", "local", "--tasks", REPAIRABLE, server=started)

    assert code == 0
    assert len(server.calls) == 1 and server.calls[0].json["model"] == "smollm2-135m-instruct"
    assert by_task(report)[REPAIRABLE]["verdict"] == "repaired"
    provenance = report["provenance"]
    assert (provenance["mode"], provenance["provider"]) == ("local", "openai")
    assert provenance["model"] == "smollm2-135m-instruct"


def test_local_mode_without_its_server_says_what_is_missing(tmp_path: Path, monkeypatch, capsys) -> None:
    monkeypatch.setitem(sys.modules, "bench.local_server", None)  # as before bench/local_server.py exists
    with pytest.raises(ServerUnavailable, match=r"local mode needs bench/local_server\.py"), bundled_server():
        pass

    def unavailable() -> Any:
        raise ServerUnavailable("install llama-cpp-python (pip install 'code-commit[bench]')")

    assert main(["--mode", "local", "--out", str(tmp_path)], server=unavailable) == 2
    assert "install llama-cpp-python" in capsys.readouterr().err
    assert not list(tmp_path.glob("*.json"))  # nothing measured, nothing written


def test_ecosystems_pick_tasks_by_name_or_prefix_and_a_name_matching_none_is_an_error(tmp_path: Path, capsys) -> None:
    task = load_task(TASKS / REPAIRABLE)
    assert of_ecosystem(task, "python") and of_ecosystem(task, "python-pip")
    assert not of_ecosystem(task, "python-uv") and not of_ecosystem(task, "pyth")
    with pytest.raises(SystemExit) as stopped:
        main(["--ecosystems", "python,cobol", "--out", str(tmp_path)])
    assert stopped.value.code == 2 and "no task of ecosystem cobol" in capsys.readouterr().err
