"""The run folder's layout: every name in agent-config/logs/<run-id>/, declared here once.

A leaf, so that the log (which makes and prunes run folders), the journal (which lives in one and
is found there by recovery) and every command that writes into one share the names without
importing each other. agent-config/logs/ itself is named in config/paths.py; docs/logs.md
describes each file.
"""

from __future__ import annotations

import re

RUN_ID = re.compile(r"\d{8}-\d{6}-\d{6}(-\d{1,2})?")  # run_log.new_run_id(), plus RunLog.create's suffix

# The run's own files.
RUN_LOG = "run.log"  # the events, one timestamped line each
SUMMARY_FILE = "summary.json"  # the record of how the command ended
TRACEBACK_FILE = "traceback.txt"  # an internal error's traceback
ANSWER_FILE = "answer.txt"  # `code-commit apply`: the saved answer it was given
DRY_RUN_PATCH = "dry-run.patch"  # --dry-run: what the answer would change
FINAL_PATCH = "final.patch"  # --revert-on-failure: the proposal the revert took back
BUILD_OUTPUTS = "build-outputs.json"  # the ignored files builds made, as they left them (builds/ignored_files.py)

# One of each a model call (or apply's one answer), as NN-name: RunLog.path(call, name).
QUERY = "query.txt"  # the prompt sent
RESPONSE = "response.txt"  # the answer received, every control character shown as a symbol
RAW_RESPONSE = "response.raw"  # the answer byte for byte, when it holds a control character
THINKING = "thinking.txt"  # the model's thinking before its answer, apart from it
USAGE = "usage.txt"  # the call's tokens, cost, requests
REVIEW = "review.txt"  # --review's decisions
CHANGES_DIFF = "changes.diff"  # --diff: what the answer changes
REFUSED = "refused.txt"  # every reason the answer was refused
BUILD_LOG = "build.txt"  # the build's output
JOURNAL = "journal"  # the apply's journal folder, NN-journal
HELD_JOURNAL = "held-journal"  # the new test files held aside while the judged build runs
NEW_TESTS_BUILD_LOG = "new-tests-build.txt"  # the build's output with the new test files back
BASELINE_BUILD = 0  # the call number of the baseline build: 00-build.txt

# In a journal folder.
JOURNAL_SUFFIX = "-" + JOURNAL
MANIFEST = "manifest.json"  # present: an apply may be half done
CONFLICTS = "conflicts.json"  # the manifest of an undo that left changed files alone
SAVED_ORIGINAL = "orig-{n}"  # an original, saved before the apply touched it
