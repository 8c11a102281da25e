"""The names no answer may write and no build may change, declared once, spelled as they are on
disk. The guard (guard/policy.py) compares each path with them as the most permissive file system
would (case-folded, normalised); the build's integrity check (builds/integrity.py) watches the
files among them that the gate rests on.
"""

from __future__ import annotations

from code_commit.config.paths import CONFIG_DIR

BUILD_SCRIPT = "build.sh"  # the gate: a run's verdict is its exit code
ROLLUP_SCRIPT = "codeRollup.sh"  # what writes the model's view of the code
GIT_DIR = ".git"

# Files that decide what `git status` and `git diff` show and how git fetches: wherever they are.
GIT_FILES = (".gitignore", ".gitattributes", ".gitmodules")

# Protected wherever they appear: git's own state (git~1: the NTFS short name of .git), the git
# files, and the files the workflow reserves.
DIRS_ANYWHERE = (GIT_DIR, "git~1")
FILES_ANYWHERE = (*GIT_FILES, "UserSpecification.md", "Cargo.lock")
# Protected at the project root only.
ROOT_DIRS = (CONFIG_DIR, "target")
ROOT_FILES = (BUILD_SCRIPT, ROLLUP_SCRIPT, "LLMInstructions.md")
# Of those, what the build's integrity rests on: the gate and the model's view of the code.
GATE_FILES = (BUILD_SCRIPT, ROLLUP_SCRIPT)
