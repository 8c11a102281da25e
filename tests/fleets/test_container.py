"""container/Containerfile, linted offline (no Docker here): it parses with BuildKit's own parser (the
`dockerfile` package wraps it), its base image is pinned, the bubblewrap minimum it states is the newest
of the options the sandbox passes, and what it copies into the image is enough to build the wheel."""

from __future__ import annotations

import ast
import re
import shutil
import zipfile
from pathlib import Path

import dockerfile
from hatchling.builders.wheel import WheelBuilder

from code_commit.sandbox import bubblewrap

ROOT = Path(__file__).resolve().parents[2]
CONTAINERFILE = ROOT / "container" / "Containerfile"

# The bubblewrap release that first had each option the sandbox passes: the first tag of
# containers/bubblewrap holding the commit that added the option to bubblewrap.c (`git log -S`).
FIRST_RELEASE = {
    **dict.fromkeys(
        (
            "--bind",
            "--chdir",
            "--dev",
            "--proc",
            "--ro-bind",
            "--setenv",
            "--symlink",
            "--tmpfs",
            "--unshare-ipc",
            "--unshare-net",
            "--unshare-pid",
            "--unshare-uts",
        ),
        (0, 1, 0),
    ),
    "--ro-bind-data": (0, 1, 2),
    "--new-session": (0, 1, 7),
    "--die-with-parent": (0, 1, 8),
    "--cap-drop": (0, 2, 0),
    "--bind-try": (0, 3, 1),
    "--ro-bind-try": (0, 3, 1),
}


def commands() -> tuple[dockerfile.Command, ...]:
    return dockerfile.parse_file(str(CONTAINERFILE))


def the_sandbox_s_options() -> set[str]:
    """Every bwrap option sandbox/bubblewrap.py can pass: its string literals that are options."""
    tree = ast.parse(Path(bubblewrap.__file__).read_text())
    return {
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and re.fullmatch(r"--[a-z-]+", node.value)
    }


def test_the_containerfile_parses_and_its_base_image_is_pinned() -> None:
    parsed = commands()
    assert {command.cmd for command in parsed} <= {"FROM", "ARG", "RUN", "COPY", "USER", "WORKDIR", "ENV", "ENTRYPOINT"}
    (base,) = [command.value[0] for command in parsed if command.cmd == "FROM"]
    # An exact release (13.2-slim) or a digest: never a moving name such as latest, stable or trixie.
    assert re.fullmatch(r"[\w./-]+:\d+\.\d+(-slim)?(@sha256:[0-9a-f]{64})?|[\w./-]+@sha256:[0-9a-f]{64}", base), base


def test_the_stated_bubblewrap_minimum_is_the_newest_option_the_sandbox_passes() -> None:
    options = the_sandbox_s_options()
    assert "--unshare-net" in options and "--ro-bind-try" in options, "the scan finds the options"
    unknown = options - set(FIRST_RELEASE)
    assert not unknown, f"find the first bubblewrap release with {unknown}, and add them to the table"
    newest = max(FIRST_RELEASE[option] for option in options)
    (minimum,) = [command.value[0] for command in commands() if command.cmd == "ARG"]
    assert minimum == f"BWRAP_MINIMUM={'.'.join(map(str, newest))}"
    (install,) = [command.value[0] for command in commands() if command.cmd == "RUN" and "apt-get" in command.value[0]]
    assert re.search(r"\bbubblewrap\b.*\bgit\b", install)
    assert 'dpkg --compare-versions "$(dpkg-query -W -f=\'${Version}\' bubblewrap)" ge "$BWRAP_MINIMUM"' in install


def test_the_image_runs_code_commit_as_an_ordinary_user_with_the_sandbox_required() -> None:
    parsed = commands()
    (user,) = [command.value[0] for command in parsed if command.cmd == "USER"]
    assert user != "0" and user != "root"
    env = [value for command in parsed if command.cmd == "ENV" for value in command.value]
    assert env == ["CODE_COMMIT_SANDBOX", "require"]


def test_what_the_image_copies_builds_the_same_wheel(tmp_path: Path, wheel: Path) -> None:
    """The image builds code-commit from its COPY lines alone: those files, and only those, in a folder
    of their own make the wheel this checkout makes."""
    source = tmp_path / "src" / "code-commit"
    for command in commands():
        if command.cmd != "COPY":
            continue
        *paths, target = command.value
        assert target.startswith("/src/code-commit")
        for path in paths:
            to = source / target.removeprefix("/src/code-commit").strip("/")
            if (ROOT / path).is_dir():
                shutil.copytree(ROOT / path, to / Path(path).name if target.endswith("/") else to)
            else:
                to.mkdir(parents=True, exist_ok=True)
                shutil.copy2(ROOT / path, to / path)
    # The build backend pyproject.toml names, in this process: what pip would run, without pip's start.
    (made,) = map(Path, WheelBuilder(str(source)).build(directory=str(tmp_path / "wheel"), versions=["standard"]))

    def contents(path: Path) -> set[str]:
        with zipfile.ZipFile(path) as archive:
            return {name for name in archive.namelist() if "__pycache__" not in name}

    assert contents(made) == contents(wheel)
