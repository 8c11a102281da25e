"""The build.sh `code-commit init` guesses from the project's files, or why it cannot guess one.

The guess must run as written, offline, on the machine init runs on: a tool the project names but
that is not installed (uv, tox, nox, hatch, pnpm, yarn) is named in a note, not put in the script.

- Python (pyproject.toml, setup.py, setup.cfg): pytest (it runs unittest tests too), with the
  project's virtualenv (.venv/ or venv/) when there is one, else `uv run` when uv.lock is there and
  uv is installed, else python3; a src layout gets PYTHONPATH=src, since an uninstalled package
  under src/ cannot be imported otherwise.
- Node (package.json): its `test` script, else its `build` script, run by the package manager its
  lock file names (npm, pnpm, yarn, bun); the dependencies are installed first if node_modules/ is
  missing.
- Rust (Cargo.toml), Go (go.mod), Maven (pom.xml), Gradle (build.gradle, build.gradle.kts).
- A Makefile: `make test` when it has a test target, else `make`.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

Which = Callable[[str], str | None]

# Read at most this much of a file init guesses from: a manifest is kilobytes; a huge one (or a sparse
# file) must not fill the memory.
MAX_READ = 4 * 2**20
PYTHON_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg")
MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
# What `npm init` writes as the test script: a placeholder that always fails.
NPM_PLACEHOLDER_TEST = re.compile(r"no test specified")
_MAKE_TEST_TARGET = re.compile(r"^test\s*:", re.MULTILINE)
# (lock file, package manager, install when node_modules/ is missing)
NODE_MANAGERS = (
    ("pnpm-lock.yaml", "pnpm", "pnpm install --frozen-lockfile"),
    ("yarn.lock", "yarn", "yarn install --frozen-lockfile"),
    ("bun.lockb", "bun", "bun install --frozen-lockfile"),
    ("bun.lock", "bun", "bun install --frozen-lockfile"),
    ("package-lock.json", "npm", "npm ci"),
)


@dataclass(frozen=True)
class Guess:
    commands: str | None  # None: no guess; `why` says why
    why: str  # what the guess came from, or why there is none
    notes: list[str] = field(default_factory=list)  # what the user should know (a tool not installed, ...)


def guess_build(root: Path, which: Which = shutil.which) -> Guess:
    for guesser in (_python, _node, _simple, _make):
        guess = guesser(root, which)
        if guess is not None:
            return guess
    return Guess(
        None,
        "no file says how the project builds (looked for pyproject.toml, setup.py, setup.cfg, package.json, "
        "Cargo.toml, go.mod, pom.xml, build.gradle and a Makefile)",
    )


def _python(root: Path, which: Which) -> Guess | None:
    markers = [name for name in PYTHON_MARKERS if (root / name).is_file()]
    if not markers:
        return None
    found = [f"{markers[0]}"]
    notes: list[str] = []
    prefix = ""
    if _src_layout(root):
        prefix = "PYTHONPATH=src "
        found.append("a src layout (PYTHONPATH=src: the tests import the package without installing it)")
    venv = next((name for name in (".venv", "venv") if (root / name / "bin" / "python").exists()), None)
    if venv is not None:
        runner = f"{venv}/bin/python -m pytest -q"
        found.append(f"the project's virtualenv {venv}/")
    elif (root / "uv.lock").is_file() and which("uv"):
        runner = "uv run pytest -q"
        found.append("uv.lock (uv run creates .venv/ and installs the locked dependencies the first time)")
    else:
        runner = "python3 -m pytest -q"
        if (root / "uv.lock").is_file():
            notes.append("uv.lock is there but uv is not installed: the build runs python3 as it is")
    config = _text(root, "pyproject.toml") + _text(root, "setup.cfg") + _text(root, "tox.ini")
    for tool, marker, command in (
        ("tox", (root / "tox.ini").is_file() or "[tool.tox" in config, "tox"),
        ("nox", (root / "noxfile.py").is_file(), "nox"),
        ("hatch", "[tool.hatch" in config, "hatch test"),
    ):
        if marker:
            notes.append(
                f"the project uses {tool}: `{command}` runs its whole test matrix, but it installs "
                f"environments{'' if which(tool) else f' and {tool} is not installed'}; build.sh runs pytest directly"
            )
    if "pytest" not in config and not (root / "conftest.py").exists() and not (root / "tests" / "conftest.py").exists():
        notes.append("pytest is not named by the project; it runs unittest tests too, if it is installed")
    return Guess(f"{prefix}{runner}", "guessed from " + ", ".join(found), notes)


def _src_layout(root: Path) -> bool:
    """A package or module under src/, which Python does not find without installing the project."""
    src = root / "src"
    if not src.is_dir():
        return False
    return any((child / "__init__.py").is_file() or child.suffix == ".py" for child in src.iterdir())


def _node(root: Path, which: Which) -> Guess | None:
    path = root / "package.json"
    if not path.is_file():
        return None
    try:
        raw = _read(root, "package.json")
        if len(raw) > MAX_READ:
            return Guess(None, f"package.json is over {MAX_READ // 2**20} MiB, too large to be a manifest")
        data = json.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        return Guess(None, f"package.json cannot be read as JSON ({exc})")
    except RecursionError:
        return Guess(None, "package.json cannot be read as JSON (it is nested too deeply)")
    scripts = data.get("scripts") if isinstance(data, dict) else None
    scripts = scripts if isinstance(scripts, dict) else {}
    locked = [(manager, install) for lock, manager, install in NODE_MANAGERS if (root / lock).is_file()]
    manager, install = locked[0] if locked else ("npm", "npm install")
    test = scripts.get("test")
    if isinstance(test, str) and test.strip() and not NPM_PLACEHOLDER_TEST.search(test):
        run, which_script = (f"{manager} run test" if manager == "bun" else f"{manager} test"), "test"
    elif isinstance(scripts.get("build"), str) and scripts["build"].strip():
        run, which_script = f"{manager} run build", "build"
    else:
        placeholder = " (only npm init's placeholder that always fails)" if isinstance(test, str) else ""
        return Guess(None, f"package.json has no test script{placeholder} and no build script")
    notes = [] if which(manager) else [f"{manager} is not installed"]
    lines = [run]
    if (data.get("dependencies") or data.get("devDependencies")) and not (root / "node_modules").is_dir():
        lines.insert(0, f"[ -d node_modules ] || {install}")
        notes.append(f"node_modules/ is missing: the first build runs `{install}`, which needs the network")
    return Guess("\n".join(lines), f"guessed from package.json: its {which_script} script, run by {manager}", notes)


def _simple(root: Path, which: Which) -> Guess | None:
    gradle = "./gradlew build" if (root / "gradlew").is_file() else "gradle build"
    for marker, commands, tool in (
        ("Cargo.toml", "cargo build --quiet\ncargo test --quiet", "cargo"),
        ("go.mod", "go build ./...\ngo test ./...", "go"),
        ("pom.xml", "mvn -q -B verify", "mvn"),
        ("build.gradle", gradle, None),
        ("build.gradle.kts", gradle, None),
    ):
        if (root / marker).is_file():
            notes = [f"{tool} is not installed"] if tool and not which(tool) else []
            return Guess(commands, f"guessed from {marker}", notes)
    return None


def _make(root: Path, which: Which) -> Guess | None:
    makefile = next((name for name in MAKEFILES if (root / name).is_file()), None)
    if makefile is None:
        return None
    notes = [] if which("make") else ["make is not installed"]
    if _MAKE_TEST_TARGET.search(_text(root, makefile)):
        return Guess("make test", f"guessed from {makefile}: its test target", notes)
    return Guess("make", f"guessed from {makefile} (it has no test target: build.sh runs its default one)", notes)


def _text(root: Path, name: str) -> str:
    """The file's first MAX_READ bytes as text, or "" if it is not a regular file that can be read."""
    try:
        return _read(root, name)[:MAX_READ].decode("utf-8", errors="replace")
    except OSError:
        return ""


def _read(root: Path, name: str) -> bytes:
    """Up to MAX_READ + 1 bytes of a regular file (a symlink to one too). Never waits: a FIFO, socket or
    device in a project (`mkfifo tox.ini`) is an OSError, found on the open descriptor, which the open
    never blocks to get (O_NONBLOCK)."""
    fd = os.open(root / name, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{name} is not a regular file")
        with open(fd, "rb", closefd=False) as fh:
            return fh.read(MAX_READ + 1)
    finally:
        os.close(fd)
