"""agent-config/ and the names of what code-commit keeps in it, declared here once: the code
derives every other spelling from these (a test scans the source for a second one).

A pure leaf. The key files' names are the providers' (credentials.KEY_FILES); the run folders'
inner names are logs/run_folder.py's.
"""

from __future__ import annotations

CONFIG_DIR = "agent-config"  # at the project root: the tool's inputs, keys, settings, lock and logs
QUERY_NAME = "query.txt"  # the change the user asks for
ROLLUP_NAME = "codeRollup.txt"  # the codebase as the model sees it (`code-commit rollup` writes it)
CONFIG_FILE = "config.toml"  # the settings
LOCK_FILE = "code-commit.lock"  # the project's lock (run/lock.py)
LOGS_DIR = "logs"  # one folder a run

QUERY_FILE = f"{CONFIG_DIR}/{QUERY_NAME}"  # as a path from the root, for messages and the rollup
ROLLUP_FILE = f"{CONFIG_DIR}/{ROLLUP_NAME}"
# The .gitignore lines that make git ignore agent-config/ (the setup check wants one of them).
IGNORE_LINES = (f"/{CONFIG_DIR}", f"/{CONFIG_DIR}/")
