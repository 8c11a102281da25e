"""The tests settings: what a run may do to the tests (tests), and which files are tests
(test_patterns, test_patterns_mode)."""

from __future__ import annotations

from pathlib import Path

import pytest

from code_commit.config.settings import Flags, load_settings
from code_commit.errors import SetupError


def write_config(root: Path, text: str) -> None:
    (root / "agent-config").mkdir(exist_ok=True)
    (root / "agent-config" / "config.toml").write_text(text)


def test_the_tests_are_protected_by_default_with_the_built_in_patterns(tmp_path: Path) -> None:
    settings = load_settings(tmp_path, env={}).settings
    assert (settings.tests, settings.test_patterns, settings.test_patterns_mode) == ("protect", [], "extend")


def test_each_source_sets_them(tmp_path: Path) -> None:
    write_config(tmp_path, 'test_patterns = ["qa/**"]\ntest_patterns_mode = "replace"\ntests = "free"\n')
    env = {"CODE_COMMIT_TESTS": "report", "CODE_COMMIT_TEST_PATTERNS": "qa/**, Makefile"}
    loaded = load_settings(tmp_path, env=env)
    assert (loaded.settings.tests, loaded.settings.test_patterns) == ("report", ["qa/**", "Makefile"])
    assert loaded.sources["test_patterns_mode"] == "config file"
    flagged = load_settings(tmp_path, env=env, flags=Flags.of(tests="protect"))
    assert (flagged.settings.tests, flagged.sources["tests"]) == ("protect", "flag")


@pytest.mark.parametrize(
    ("config", "fragment"),
    [
        ('tests = "strict"\n', "setting tests (from config file): must be one of protect, report, free, not 'strict'"),
        ('test_patterns_mode = "merge"\n', "must be one of extend, replace, not 'merge'"),
        ('test_patterns_mode = "replace"\n', "replace needs test_patterns"),
        ('test_patterns = ["tests/[x"]\n', "the pattern 'tests/[x' can never match anything"),
        ("test_patterns = 'tests/'\n", "expected a list of strings"),
    ],
)
def test_bad_values_are_setup_errors_naming_the_setting(tmp_path: Path, config: str, fragment: str) -> None:
    write_config(tmp_path, config)
    with pytest.raises(SetupError) as caught:
        load_settings(tmp_path, env={})
    assert fragment in str(caught.value)
