"""Run every benchmark scenario and print one table.

    .venv/bin/python -m bench [--repeat N] [--only startup,apply,hostile,rollup,build,gate,tokens,recall]
    .venv/bin/python -m bench repair --mode scripted|live|local   (bench/repair/run.py)

Each comparison is measured side by side in the same run (alternating runs, best of N), on data
the scenario generates itself in a temporary directory.
"""

from __future__ import annotations

import argparse
import compileall
import os
import platform
import sys
import time
import traceback
from collections.abc import Mapping, Sequence
from pathlib import Path

from .checks import some_rows
from .harness import error_row, format_header, format_row
from .scenarios import SCENARIOS, Scenario


def main(argv: Sequence[str] | None = None, scenarios: Mapping[str, Scenario] = SCENARIOS) -> int:
    """Print the table row by row as each completes; a failing scenario's row shows its error (one that
    measured nothing, or printed no row, fails: checks.py), and the rest still run. Returns 1 if any
    scenario failed."""
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["repair"]:  # the repair corpus has its own flags (mode, provider, model)
        from .repair.run import main as repair

        return repair(argv[1:])
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of each command (best kept)")
    parser.add_argument("--only", default=",".join(scenarios), help="comma-separated scenarios to run")
    args = parser.parse_args(argv)
    names = args.only.split(",")
    if unknown := [name for name in names if name not in scenarios]:
        parser.error(f"no such scenario: {', '.join(unknown)} (there are {', '.join(scenarios)})")
    # As `pip install` leaves it: code-commit's bytecode compiled, so no run pays for compiling its
    # modules (which a session with PYTHONDONTWRITEBYTECODE=1 would otherwise do every time).
    import code_commit

    compileall.compile_dir(Path(code_commit.__file__).parent, quiet=1)
    print(
        f"{time.strftime('%Y-%m-%d')}, {platform.python_implementation()} {platform.python_version()}, "
        f"{platform.machine()}, {os.cpu_count()} cores\n"
    )
    print(format_header(), flush=True)
    failed = 0
    for name in names:
        started = time.perf_counter()
        try:
            for row in some_rows(name, scenarios[name].run(args.repeat)):
                print(format_row(row), flush=True)
        except Exception as error:  # the table goes on: one broken scenario must not cost the others
            failed += 1
            traceback.print_exc(file=sys.stderr)
            print(format_row(error_row(name, error)), flush=True)
        print(f"# {name}: done in {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
