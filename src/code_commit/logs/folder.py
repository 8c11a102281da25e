"""The run folder's layout: the names of agent-config/logs/<run-id>/ and what is in it.

A leaf, so that the log (which makes and prunes run folders) and the journal (which lives in one
and is found there by recovery) share the names without importing each other.
"""

from __future__ import annotations

import re

LOGS_DIR = "logs"  # under agent-config/: one folder a run
RUN_ID = re.compile(r"\d{8}-\d{6}-\d{6}(-\d{1,2})?")  # logs.new_run_id(), plus RunLog.create's suffix
SUMMARY_FILE = "summary.json"  # the record of how the run (or apply) ended
TRACEBACK_FILE = "traceback.txt"  # an internal error's traceback, in the run folder
THINKING_FILE = "thinking.txt"  # NN-thinking.txt: a call's thinking, apart from its answer (NN-response.txt)
JOURNAL_SUFFIX = "-journal"  # the apply's journal folder is NN-journal, NN the model call
MANIFEST = "manifest.json"  # in a journal folder, present: an apply may be half done
CONFLICTS = "conflicts.json"  # the manifest of an undo that left changed files alone
