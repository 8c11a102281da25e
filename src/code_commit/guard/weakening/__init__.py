"""The test guard: whether a change weakens the tests (issue: a pass that removed the test is no pass).

`paths.TestPaths` says which paths are tests (git matching the default and `test_patterns`
gitignore patterns); `detect.weakenings` judges a set of changes, each file's bytes before and
after, and returns what was done to the tests: a test file deleted, a test or a case removed or
renamed away, a skip or focus marker added, assertions removed or weakened, a hook that can change
outcomes added, the runner's collection narrowed. Pure but for `TestPaths`, which asks git.
"""

from code_commit.guard.weakening.detect import Change, file_weakenings, weakenings
from code_commit.guard.weakening.findings import Finding, What
from code_commit.guard.weakening.paths import DEFAULT_PATTERNS, TestPaths, holds_tests

__all__ = ["DEFAULT_PATTERNS", "Change", "Finding", "TestPaths", "What", "file_weakenings", "holds_tests", "weakenings"]
