"""The rollup as the model's reading: what it leaves out by default, the rollup_* settings, the
token budget's priorities, the list of left-out files, and the share of it that is the project's
own source and tests on projects shaped like the libraries code-commit was first tried on.

Through `code-commit rollup` (in-process) in a temporary git repository, or `write_rollup` where
only the selection is under test.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from typer.testing import Result

from code_commit.config.settings import Settings
from code_commit.rollup import selection as rollup_module
from code_commit.rollup.rules import Kind, kind_of
from code_commit.rollup.selection import listing, outlined_paths, write_rollup

from shaped_projects import SHAPES, everything_share, make, own_share
from support import git

OUTPUT = "agent-config/codeRollup.txt"
Cli = Callable[..., Result]


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    write(root, ".gitignore", "/agent-config\n")
    monkeypatch.chdir(root)
    return root


def write(root: Path, path: str, content: str | bytes) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(content.encode() if isinstance(content, str) else content)


def rollup_text(root: Path) -> str:
    return (root / OUTPUT).read_text(encoding="utf-8")


def included(root: Path) -> list[str]:
    return [line[4:-4] for line in rollup_text(root).splitlines() if line.startswith("==> ") and line.endswith(" <==")]


def left_out(root: Path) -> list[str]:
    text = rollup_text(root)
    return text.split("--- LEFT OUT ---\n", 1)[1].splitlines() if "--- LEFT OUT ---\n" in text else []


def code(lines: int, name: str = "f") -> str:
    return "".join(f"def {name}_{i}(x):\n    return x + {i}\n\n" for i in range(lines))


# The share of the rollup that is the project's own source and tests


@pytest.mark.parametrize("shape", SHAPES)
def test_source_and_tests_are_most_of_the_rollup_on_projects_shaped_like_real_libraries(
    repo: Path, cli: Cli, shape: str
) -> None:
    own = make(repo, shape, scale=0.6)
    assert everything_share(repo, own) < 0.5, "the fixture has the bulk that made the real rollups poor"

    result = cli("rollup")

    assert result.exit_code == 0, result.output
    rollup = (repo / OUTPUT).read_bytes()
    assert own_share(rollup, own) >= 0.80
    assert own <= set(included(repo)), "none of the project's own source and tests is left out"
    bulk = {
        "lock-file": "uv.lock (lock file, ",
        "translations": "src/pkg/locale/ (",
        "tiny-test-data": "tests/data/ (",
    }[shape]
    assert any(line.startswith(bulk) for line in left_out(repo)), left_out(repo)


def test_the_paths_the_headers_show_are_read_back_as_written() -> None:
    paths = ["a.py", "dir with space/b [1].py", "ünï/c.txt"]
    text = "".join((rollup_module.HEADER % p.encode()).decode() + "==> not a header\nbody\n" for p in paths)

    assert rollup_module.shown_paths(text + "--- LEFT OUT ---\nd.png (image, 1 byte)\n") == paths


def test_the_framing_costs_less_than_the_content_of_many_tiny_files(repo: Path) -> None:
    for i in range(200):
        write(repo, f"src/pkg/m{i:03d}.py", f"X{i} = {i}\n")  # tiny source files: all included

    result = write_rollup(repo)

    text = rollup_text(repo)
    headers = sum(len(line) + 1 for line in text.splitlines() if line.startswith("==> "))
    assert result.included == 201
    assert headers - 9 * 201 == sum(len(p) for p in included(repo)), "9 bytes a file besides its path"


# Left out by default, and listed


def test_lock_files_of_every_common_ecosystem_are_left_out_and_listed(repo: Path) -> None:
    locks = [
        "uv.lock",
        "poetry.lock",
        "Pipfile.lock",
        "pdm.lock",
        "package-lock.json",
        "yarn.lock",
        "pnpm-lock.yaml",
        "Cargo.lock",
        "go.sum",
        "Gemfile.lock",
        "composer.lock",
        "mix.lock",
        "flake.lock",
        "web/bun.lock",
    ]
    for name in locks:
        write(repo, name, "locked = true\n" * 10)
    write(repo, "web/bun.lockb", b"\0binary lock")
    write(repo, "main.py", "print('hi')\n")

    write_rollup(repo)

    assert included(repo) == [".gitignore", "main.py"]
    assert left_out(repo) == sorted(
        [*(f"{name} (lock file, 140 bytes)" for name in locks), "web/bun.lockb (lock file, 12 bytes)"]
    )


def test_images_translations_minified_generated_and_binary_files_are_left_out_with_their_reason(repo: Path) -> None:
    write(repo, "assets/logo.png", b"\x89PNG\r\n\x1a\n\0\0")
    write(repo, "assets/icon.svg", '<svg xmlns="http://www.w3.org/2000/svg"><path d="M0 0h1"/></svg>\n')
    write(repo, "locale/de.po", 'msgid "Hello"\nmsgstr "Hallo"\n')
    write(repo, "static/app.min.js", "var a=1;\n")
    write(repo, "static/app.js.map", '{"version":3}\n')
    write(repo, "api_pb2.py", "# -*- coding: utf-8 -*-\n# @generated by the protocol buffer compiler.\nX = 1\n")
    write(repo, "api.pb.go", "// Code generated by protoc-gen-go. DO NOT EDIT.\npackage api\n")
    write(repo, "static/bundle.js", "var x=" + "1+" * 2000 + "1;\n")  # one 4 KB line
    write(repo, "data.bin", b"\0\1\2")
    # Kept: a README written one paragraph a line, and code that merely names the markers.
    write(repo, "README.md", ("A paragraph on one long line. " * 20 + "\n\n") * 10)
    write(repo, "gen.py", 'MARKERS = ("@generated", "DO NOT EDIT")\n')
    write(repo, "setup.cfg", "[metadata]\n# DO NOT EDIT THIS LINE MANUALLY\nversion = 1.0\n")

    write_rollup(repo)

    assert included(repo) == [".gitignore", "README.md", "gen.py", "setup.cfg"]
    assert left_out(repo) == [
        "api.pb.go (generated, 61 bytes)",
        "api_pb2.py (generated, 76 bytes)",
        "assets/icon.svg (image, 65 bytes)",
        "assets/logo.png (image, 10 bytes)",
        "data.bin (binary, 3 bytes)",
        "locale/de.po (translation catalog, 29 bytes)",
        "static/app.js.map (minified or source map, 14 bytes)",
        "static/app.min.js (minified or source map, 9 bytes)",
        "static/bundle.js (minified or machine-written (very long lines), 4 KiB)",
    ]


# rollup_exclude and rollup_include


def test_rollup_include_brings_back_what_a_default_rule_leaves_out_and_rollup_exclude_wins(
    repo: Path, cli: Cli
) -> None:
    write(repo, "uv.lock", "version = 1\n")
    write(repo, "vendor/lib.min.js", "var a=1;\n")
    write(repo, "notes/todo.md", "todo\n")
    write(repo, "notes/keep.md", "keep\n")
    write(repo, "main.py", "print('hi')\n")
    write(
        repo,
        "agent-config/config.toml",
        'rollup_include = ["uv.lock", "vendor/"]\n'
        'rollup_exclude = ["notes/*", "!notes/keep.md", "vendor/lib.min.js"]\n',
    )

    result = cli("rollup")

    assert result.exit_code == 0, result.output
    assert included(repo) == [".gitignore", "main.py", "notes/keep.md", "uv.lock"]
    assert left_out(repo) == ["notes/todo.md (rollup_exclude, 5 bytes)", "vendor/lib.min.js (rollup_exclude, 9 bytes)"]


def test_the_patterns_also_come_from_the_environment(repo: Path, cli: Cli) -> None:
    write(repo, "a.py", "A = 1\n")
    write(repo, "b.py", "B = 2\n")

    result = cli("rollup", env={"CODE_COMMIT_ROLLUP_EXCLUDE": "a.py, .gitignore"})

    assert result.exit_code == 0, result.output
    assert included(repo) == ["b.py"]


@pytest.mark.parametrize(
    ("setting", "value", "message"),
    [
        ("rollup_budget", "500", "setting rollup_budget (from config file): must be 0 (no limit) or at least 1,000"),
        ("rollup_budget", "-1", "rollup_budget (from config file): must be 0 (no limit) or at least 1,000 tokens"),
        ("rollup_exclude", '["a[b"]', "setting rollup_exclude (from config file): the pattern 'a[b' can never match"),
        ("rollup_include", '"uv.lock"', "bad value 'uv.lock' for rollup_include: expected a list of strings"),
    ],
)
def test_bad_rollup_settings_are_setup_errors_that_write_nothing(
    repo: Path, cli: Cli, setting: str, value: str, message: str
) -> None:
    write(repo, "agent-config/config.toml", f"{setting} = {value}\n")

    result = cli("rollup")

    assert result.exit_code == 2
    assert message in result.output
    assert not (repo / OUTPUT).exists()


# The budget


def test_under_a_tight_budget_source_comes_first_then_tests_then_docs_and_the_rest_is_listed(
    repo: Path, cli: Cli
) -> None:
    write(repo, "src/pkg/core.py", code(120, "core"))  # about 4 KB
    write(repo, "tests/test_core.py", code(60, "test"))  # about 2 KB
    write(repo, "README.md", "# pkg\n" + "words " * 400 + "\n")  # about 2.4 KB

    result = cli("rollup", "--budget", "2400")  # 7,200 bytes at 3 characters a token

    assert result.exit_code == 0, result.output
    assert included(repo) == [".gitignore", "src/pkg/core.py"]
    outlines = rollup_text(repo).split("--- OUTLINES ---\n")[1].split("--- LEFT OUT ---\n")[0]
    assert outlines.startswith(
        "::: tests/test_core.py (outline: 60 definitions of 180 lines, 3 KiB; over the token budget) :::\n"
        "1: def test_0(x)\n"
    ), "the test that does not fit whole is shown by its outline, in the share of the budget kept for outlines"
    assert left_out(repo) == ["README.md (over the token budget, 3 KiB)"]
    files = rollup_text(repo).split("--- LEFT OUT ---\n")[0]
    assert len(files.encode()) <= 2400 * 3, "the files and outlines stay within the budget; the list comes on top"
    assert "1 outlined, 1 left out (1 over the token budget)" in result.output

    unlimited = cli("rollup", "--budget", "0")
    assert unlimited.exit_code == 0 and "README.md" in included(repo) and left_out(repo) == []


def test_under_the_budget_smaller_and_shallower_files_of_a_kind_come_first(repo: Path) -> None:
    write(repo, "big.py", code(200, "big"))  # 6.6 KB at the top
    write(repo, "small.py", code(10, "small"))
    write(repo, "a/b/c/low.py", code(60, "low"))  # 2 KB, but four levels down
    write(repo, "mid.py", code(60, "mid"))  # the same size, at the top

    write_rollup(repo, settings=Settings(rollup_budget=1000))  # 3,000 bytes

    assert included(repo) == ["mid.py", "small.py"]
    assert outlined_paths(rollup_text(repo)) == ["a/b/c/low.py", "big.py"]
    assert [line.split(" (")[0] for line in left_out(repo)] == [".gitignore"]


def test_a_file_that_changes_between_choosing_and_writing_is_judged_again(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(repo, "a.py", "A = 1\n")
    write(repo, "b.py", "B = 1\n")
    monkeypatch.setattr(rollup_module, "KEEP_IN_MEMORY", 0)  # nothing kept: every file is read again
    choose = rollup_module._choose

    def then_change(*args: object) -> object:
        chosen = choose(*args)  # type: ignore[arg-type]
        write(repo, "a.py", b"\0now binary")
        (repo / "b.py").unlink()
        return chosen

    monkeypatch.setattr(rollup_module, "_choose", then_change)
    result = write_rollup(repo)

    assert included(repo) == [".gitignore"]
    assert left_out(repo) == ["a.py (binary, 11 bytes)"]
    assert result.included == 1


# The list of left-out files and the summary


def test_a_folder_of_many_left_out_files_is_summed_up_on_one_line(repo: Path) -> None:
    for i in range(12):
        write(repo, f"img/icons/i{i:02d}.png", b"\0" * 100)
    for i in range(3):
        write(repo, f"img/photo{i}.jpg", b"\0" * 2000)
    write(repo, "img/raw.bin", b"\0")

    write_rollup(repo)

    assert left_out(repo) == [
        "img/icons/ (12 files, 2 KiB: 12 image)",
        "img/photo0.jpg (image, 2 KiB)",
        "img/photo1.jpg (image, 2 KiB)",
        "img/photo2.jpg (image, 2 KiB)",
        "img/raw.bin (binary, 1 byte)",
    ]
    for i in range(4):
        write(repo, f"img/more{i}.gif", b"GIF89a")
    write_rollup(repo)
    assert left_out(repo) == ["img/ (20 files, 8 KiB: 19 image, 1 binary)"], "now 9 lines for img/: one"


def test_a_very_deep_tree_is_listed_without_recursion() -> None:
    deep = "/".join(["d"] * 1500)  # deeper than Python's recursion limit
    items = [rollup_module.LeftOut(f"{deep}/f{i}.png", "image", 1) for i in range(3)]
    items.append(rollup_module.LeftOut("top.png", "image", 1))

    assert listing(items) == [f"{deep}/f{i}.png (image, 1 byte)" for i in range(3)] + ["top.png (image, 1 byte)"]


def test_the_list_stops_at_its_limit_with_a_count_of_the_rest() -> None:
    items = [rollup_module.LeftOut(f"f{i:03d}.png", "image", 10) for i in range(120)]

    lines = listing(items)

    assert len(lines) == rollup_module.MAX_LISTED
    assert lines[0] == "f000.png (image, 10 bytes)"
    assert lines[-1] == f"... and {120 - rollup_module.MAX_LISTED + 1} more files"


def test_the_summary_counts_with_correct_plurals(repo: Path, cli: Cli) -> None:
    (repo / ".gitignore").unlink()
    write(repo, "a", "x")
    write(repo, "b.bin", b"\0")

    result = cli("rollup")

    assert result.exit_code == 0
    size = (repo / OUTPUT).stat().st_size
    summary = (
        f"rollup: 1 file included, 1 left out (1 binary); {size} bytes, {-(-size // 3)} tokens at most (estimated)"
    )
    assert summary in result.output
    assert rollup_text(repo) == "==> a <==\nx\n--- LEFT OUT ---\nb.bin (binary, 1 byte)\n"


# The kind of a file, from its path


@pytest.mark.parametrize(
    ("path", "kind"),
    [
        ("src/pkg/parser.py", Kind.SOURCE),
        ("pkg/history.py", Kind.SOURCE),
        ("Makefile", Kind.SOURCE),
        ("pyproject.toml", Kind.SOURCE),
        ("package.json", Kind.SOURCE),
        (".github/workflows/ci.yml", Kind.CONFIG),
        (".flake8", Kind.CONFIG),
        (".pre-commit-config.yaml", Kind.CONFIG),
        ("mkdocs.yml", Kind.CONFIG),
        ("requirements.txt", Kind.SOURCE),
        ("lib/thing.unknownlang", Kind.SOURCE),
        ("tests/test_parser.py", Kind.TEST),
        ("pkg/parser_test.go", Kind.TEST),
        ("web/src/app.test.ts", Kind.TEST),
        ("conftest.py", Kind.TEST),
        ("README.md", Kind.DOCS),
        ("LICENSE", Kind.DOCS),
        ("docs/conf.py", Kind.DOCS),
        ("tests/README.md", Kind.DOCS),
        ("tests/data/valid/array/case-1.toml", Kind.DATA),
        ("tests/fixtures/input.txt", Kind.DATA),
        ("src/pkg/data/table.json", Kind.DATA),
        # Licence variants are no source (they were 28% of a Rust crate's rollup).
        ("LICENSE-APACHE", Kind.DOCS),
        ("LICENSE-MIT", Kind.DOCS),
        ("COPYING.LESSER", Kind.DOCS),
        ("license_check.py", Kind.SOURCE),
        # Fuzz inputs and test inputs without an extension are data; fuzz targets are tests.
        ("fuzz/corpus/3f2a9c0d", Kind.DATA),
        ("fuzz/inputs/crash-1", Kind.DATA),
        ("tests/inputs/test1", Kind.DATA),
        ("tests/corpus/case.c", Kind.DATA),
        ("fuzz/fuzz_targets/parse.rs", Kind.TEST),
        # Build-system files rank with source, wherever they are, whatever their suffix.
        ("CMakeLists.txt", Kind.SOURCE),
        ("tests/CMakeLists.txt", Kind.SOURCE),
        ("build.gradle", Kind.SOURCE),
        ("crates/core/Cargo.toml", Kind.SOURCE),
        ("web/package.json", Kind.SOURCE),
    ],
)
def test_the_kind_of_a_file_comes_from_its_path(path: str, kind: Kind) -> None:
    assert kind_of(path) is kind
