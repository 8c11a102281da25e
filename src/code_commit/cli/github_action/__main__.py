"""Entry point of the action's steps: `python3 -I <this file> STEP`.

`-I` (isolated) keeps the job's PYTHONPATH, PYTHONSTARTUP and user site, and the current folder (the
user's project), out of this interpreter: nothing of the project is imported in place of the action's
code. The action's own source tree is put on the path instead.
"""

import sys
from pathlib import Path

if sys.version_info < (3, 11):  # noqa: UP036  (a runner's python3 may be older than the package needs)
    sys.stderr.write(f"code-commit's action needs Python 3.11 or later as python3; this is {sys.version.split()[0]}\n")
    raise SystemExit(2)

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # src/, above code_commit/

from code_commit.cli.github_action.steps import main

raise SystemExit(main(sys.argv[1:]))
