"""Why a failed build failed, when the sandbox (or the machine's setup) kept it from running rather
than the code: a command the sandbox hides or that is on no PATH the build has, a dependency a fresh
clone lacks, a write it refuses in a tool's cache, the network it cuts, a file it keeps read-only, a
sandbox of the build's own that cannot nest. Found, the run stops before another paid call (no answer
can change the sandbox) and names the one fix.

`diagnose` is a pure function of the build's output, its exit code, the policy it ran under and
`Host`: the facts about the host it checks, looked up through the functions it carries (which
commands exist there and where, which paths exist, a probe run in the sandbox). It must never fire on
an ordinary failure: a failing test that mocks EROFS, a refused connection to a local database, npm's
and yarn's sandbox noise on every run. tests/builds/test_diagnosis.py runs it over a corpus of real
failing builds, look-alikes included.

The output is written by the model's code, so it can be forged, and a diagnosis that ends a run or
names a setting must not be the model's to choose. So a diagnosis only ever stops the run and
advises; it never changes a setting; it rests on facts it checked itself (build.sh, the user's file,
runs the tool; the path exists and is that tool's cache, from a table with each entry's source; a
probe it ran), never on a printed line alone; the only folders it proposes making writable are tool
caches from that table, and never one on PATH, a configuration or start-up file or folder, a
credential store, the home folder, or one holding a socket (caches.py); the network it proposes only
where build.sh itself downloads, never for a host name the build printed; and it quotes the line it
read, so the user can judge.

Modules: facts.py (what a diagnosis is, the host's facts), rules.py (`diagnose` and the output's
rules), commands.py (commands and files not found), caches.py (the tool caches), nested.py (a
sandbox inside the sandbox).
"""

from code_commit.builds.diagnosis.facts import (
    CAPABILITY,
    HIDDEN,
    MISSING,
    NAMESPACES,
    NETWORK,
    PROTECTED,
    READ_ONLY,
    TOOL_STATE,
    Diagnosis,
    Host,
)
from code_commit.builds.diagnosis.rules import MAX_LINE, MAX_LINES, diagnose

__all__ = [
    "CAPABILITY",
    "HIDDEN",
    "MAX_LINE",
    "MAX_LINES",
    "MISSING",
    "NAMESPACES",
    "NETWORK",
    "PROTECTED",
    "READ_ONLY",
    "TOOL_STATE",
    "Diagnosis",
    "Host",
    "diagnose",
]
