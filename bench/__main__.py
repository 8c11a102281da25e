"""Run every benchmark scenario and print one table.

    .venv/bin/python -m bench [--repeat N] [--only startup,apply,hostile,rollup,build,tokens]

Each comparison is measured side by side in the same run (alternating runs, best of N), on data
the scenario generates itself in a temporary directory.
"""

from __future__ import annotations

import argparse
import compileall
import platform
import time
from collections.abc import Callable
from pathlib import Path

from . import apply, build_output, hostile_answers, rollup, startup, tokens
from .harness import Row, format_table

SCENARIOS: dict[str, Callable[[int], list[Row]]] = {
    "startup": startup.run,
    "apply": apply.run,
    "hostile": hostile_answers.run,
    "rollup": rollup.run,
    "build": build_output.run,
    "tokens": tokens.run,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs of each command (best kept)")
    parser.add_argument("--only", default=",".join(SCENARIOS), help="comma-separated scenarios to run")
    args = parser.parse_args()
    # As `pip install` leaves it: code-commit's bytecode compiled, so no run pays for compiling its
    # modules (which a session with PYTHONDONTWRITEBYTECODE=1 would otherwise do every time).
    import code_commit

    compileall.compile_dir(Path(code_commit.__file__).parent, quiet=1)
    rows: list[Row] = []
    for name in args.only.split(","):
        started = time.perf_counter()
        rows += SCENARIOS[name](args.repeat)
        print(f"# {name}: done in {time.perf_counter() - started:.0f} s", flush=True)
    print(
        f"\n{time.strftime('%Y-%m-%d')}, {platform.python_implementation()} {platform.python_version()}, "
        f"{platform.machine()}, {__import__('os').cpu_count()} cores"
    )
    print(format_table(rows))


if __name__ == "__main__":
    main()
