"""The build.sh `code-commit init` guesses from the project's files, or why it cannot guess one.

The guess runs the project's real test runner, not a target that only builds or runs a demo, and
must run as written, offline, in the sandbox, on the machine init runs on: a tool the project names
but that is not installed (uv, tox, nox, hatch, pnpm, yarn) is named in a note, not put in the script.

- Python (pyproject.toml, setup.py, setup.cfg): `uv run` when uv.lock is there and uv is installed
  (uv keeps the environment in step with the lock); else the project's virtualenv (.venv/ or venv/);
  else python3. pytest when the environment has it or the project names it (it runs unittest tests
  too), else unittest. A src layout gets PYTHONPATH=src, since an uninstalled package under src/
  cannot be imported otherwise.
- Node (package.json): its `test` script, else its `build` script, run by the package manager its
  packageManager field (corepack) or lock file names (npm, pnpm, yarn, bun); the dependencies are
  installed first if node_modules/ is missing.
- Rust (Cargo.toml), Go (go.mod), Maven (pom.xml, offline: the sandbox has no network), Gradle.
- CMake with tests registered (enable_testing, add_test, a CTest module): configure, build, ctest;
  before a Makefile, whose `test` target may run a demo (cJSON's does).
- A Makefile: `make check` or `make test` when it has the target, else `make`.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import shutil
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from code_commit.config.paths import CONFIG_DIR, CONFIG_FILE

Which = Callable[[str], str | None]

# Read at most this much of a file init guesses from: a manifest is kilobytes; a huge one (or a sparse
# file) must not fill the memory.
MAX_READ = 4 * 2**20
_PYTHON_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg")
_MAKEFILES = ("GNUmakefile", "makefile", "Makefile")
_CMAKE_BUILD_DIR = "build"
_MAX_CMAKE_FILES = 200  # CMakeLists.txt files read to find registered tests, at most...
_MAX_CMAKE_FOLDERS = 2000  # ...and folders looked into for them (a node_modules/ has tens of thousands)
_SKIPPED_FOLDERS = frozenset({"node_modules", "target", _CMAKE_BUILD_DIR, "third_party", "vendor", "external"})
# What `npm init` writes as the test script: a placeholder that always fails.
_NPM_PLACEHOLDER_TEST = re.compile(r"no test specified")
_MAKE_TARGET = r"^{}\s*:(?!=)"
_CTEST = re.compile(r"^\s*(?:enable_testing|add_test|include\s*\(\s*CTest|gtest_discover_tests|catch_discover_tests)\b",
                    re.MULTILINE | re.IGNORECASE)  # fmt: skip
_PYTEST_NAMED = re.compile(r"\bpytest\b")
# setup.py's marks of a compiled extension: setuptools' Extension (pybind11's Pybind11Extension too),
# an ext_modules list, Cython's cythonize.
_SETUPTOOLS_EXTENSION = re.compile(r"\b(?:\w*Extension\s*\(|ext_modules\b|cythonize\s*\()")
_EXTENSION_NAME = re.compile(r"\bExtension\(\s*(?:name\s*=\s*)?[\"']([A-Za-z_][\w.]*)[\"']")
_BUILD_BACKEND = re.compile(r"^\s*build-backend\s*=\s*[\"']([\w.:-]+)[\"']", re.MULTILINE)
# pyproject.toml's build backends that compile an extension, and how it is rebuilt in place.
_NATIVE_BACKENDS = {
    "maturin": "`maturin develop` in the project's virtualenv, a Rust extension built by cargo",
    "mesonpy": "meson-python's editable install, or `meson compile` in its build folder",
    "scikit_build_core": "scikit-build-core's editable install, or `cmake --build` in its build folder",
}
# Without its cache: pytest would create .pytest_cache/.gitignore, a new ignore file, which stops the
# run (the tamper check) unless the project ignores .pytest_cache/; a gate has no use for the cache.
_PYTEST = "pytest -q -p no:cacheprovider"


@dataclass(frozen=True)
class _NodeManager:
    """A package manager, its lock files, and its install with and without one. The locked install
    fails rather than change the lock; without a lock file it fails at once (`npm ci`: "can only
    install with an existing package-lock.json"), so there the plain install is written: it resolves
    versions from the registry, and says so."""

    name: str
    locks: tuple[str, ...]
    locked: str
    unlocked: str


_NODE_MANAGERS = (
    _NodeManager("pnpm", ("pnpm-lock.yaml",), "pnpm install --frozen-lockfile", "pnpm install --no-frozen-lockfile"),
    _NodeManager("yarn", ("yarn.lock",), "yarn install --frozen-lockfile", "yarn install"),
    _NodeManager("bun", ("bun.lockb", "bun.lock"), "bun install --frozen-lockfile", "bun install"),
    _NodeManager("npm", ("package-lock.json", "npm-shrinkwrap.json"), "npm ci", "npm install"),
)
_NODE_INSTALLS = {manager.name: manager for manager in _NODE_MANAGERS}
_NODE_MODULES = "node_modules"
# What each toolchain needs so that its build runs in the sandbox (no network, the home folder
# read-only), for build.sh's comment.
_SANDBOX_NEEDS = {
    "uv": "uv: run `uv sync` once outside the sandbox; in it, uv gets a cache of the project's own (UV_CACHE_DIR) "
    "and runs offline",
    "venv": "the virtualenv is made outside the sandbox (a fresh clone needs `python3 -m venv` and a pip install "
    "first): the build has no network to install",
    "npm": "npm reads its cache (~/.npm) read-only: a package it lacks needs the network, so run the install once "
    "outside the sandbox",
    "pnpm": "pnpm must register the project in its store once: run `pnpm install` outside the sandbox first",
    "yarn": "yarn reads its cache read-only: run `yarn install` once outside the sandbox first",
    "bun": "bun reads its cache read-only: run `bun install` once outside the sandbox first",
    "cargo": "cargo runs offline (CARGO_NET_OFFLINE) from the crates ~/.cargo has: run `cargo fetch` once outside "
    "the sandbox after adding a dependency",
    "go": "Go gets a build cache of the project's own (GOCACHE) and no module proxy: run `go mod download` once "
    "outside the sandbox after adding a module",
    "mvn": "Maven runs offline (-o) from ~/.m2, read-only: run the build once outside the sandbox (`mvn -B test`) "
    "so ~/.m2 has every plugin and dependency",
    "gradle": "Gradle needs the network and a writable ~/.gradle: consider sandbox_network and sandbox_writable",
    "cmake": f"CMake builds in {_CMAKE_BUILD_DIR}/, inside the project, which the build may write",
}


@dataclass(frozen=True)
class Guess:
    commands: str | None  # None: no guess; `why` says why
    why: str  # what the guess came from, or why there is none
    notes: list[str] = field(default_factory=list)  # what the user should know (a tool not installed, ...)
    tools: tuple[str, ...] = ()  # the programs build.sh runs: init looks for one the sandbox would hide
    sandbox: str = ""  # what the toolchain needs to run in the sandbox, for build.sh's comment
    runner: str = ""  # the test runner it runs (pytest, ctest, ...), to say whether tests ran
    outputs: tuple[str, ...] = ()  # the folders build.sh creates in the project, which git must ignore
    needs_network: str = ""  # why build.sh, as written, cannot pass in the sandbox without the network, and the fix


def guess_build(root: Path, which: Which = shutil.which) -> Guess:
    for guesser in (_python, _node, _simple, _cmake, _make):
        guess = guesser(root, which)
        if guess is not None:
            return guess
    return Guess(
        None,
        "no file says how the project builds (looked for pyproject.toml, setup.py, setup.cfg, package.json, "
        "Cargo.toml, go.mod, pom.xml, build.gradle, CMakeLists.txt and a Makefile)",
    )


def _python(root: Path, which: Which) -> Guess | None:
    markers = [name for name in _PYTHON_MARKERS if (root / name).is_file()]
    if not markers:
        return None
    found = [f"{markers[0]}"]
    notes: list[str] = []
    prefix = ""
    if _src_layout(root):
        prefix = "PYTHONPATH=src "
        found.append("a src layout (PYTHONPATH=src: the tests import the package without installing it)")
    config = _text(root, "pyproject.toml") + _text(root, "setup.cfg") + _text(root, "tox.ini")
    named = bool(_PYTEST_NAMED.search(config + _requirements(root))) or any(
        (root / place / "conftest.py").exists() for place in (".", "tests")
    )
    venv = next((name for name in (".venv", "venv") if (root / name / "bin" / "python").exists()), None)
    if (root / "uv.lock").is_file() and which("uv"):
        pytest = named or (venv is not None and _has_module(root / venv, "pytest"))
        runner, tools, needs = f"uv run {_test_command('', pytest, root)}", ("uv",), _SANDBOX_NEEDS["uv"]
        found.append("uv.lock (uv run keeps the project's environment in step with the lock)")
    elif venv is not None:
        pytest = _has_module(root / venv, "pytest")
        runner = _test_command(f"{venv}/bin/python -m ", pytest, root)
        tools, needs = (f"{venv}/bin/python",), _SANDBOX_NEEDS["venv"]
        found.append(f"the project's virtualenv {venv}/" + ("" if pytest else ", which has no pytest: unittest runs"))
        if named and not pytest:
            notes.append(f"the project names pytest, but {venv}/ does not have it: install it there to use it")
    else:
        pytest, tools, needs = True, ("python3",), ""
        runner = _test_command("python3 -m ", True, root)
        if (root / "uv.lock").is_file():
            notes.append("uv.lock is there but uv is not installed: the build runs python3 as it is")
    for tool, marker, command in (
        ("tox", (root / "tox.ini").is_file() or "[tool.tox" in config, "tox"),
        ("nox", (root / "noxfile.py").is_file(), "nox"),
        ("hatch", "[tool.hatch" in config, "hatch test"),
    ):
        if marker:
            notes.append(
                f"the project uses {tool}: `{command}` runs its whole test matrix, but it installs "
                f"environments{'' if which(tool) else f' and {tool} is not installed'}; build.sh runs the tests "
                "directly"
            )
    if pytest and not named:
        notes.append("pytest is not named by the project; it runs unittest tests too, if it is installed")
    python = "uv run python" if tools == ("uv",) else f"{venv}/bin/python" if venv is not None else "python3"
    compiled = _compiled(root, python, venv, prefix)
    found += compiled.found
    notes += compiled.notes
    return Guess(
        "\n".join([*compiled.lines, f"{prefix}{runner}"]),
        "guessed from " + ", ".join(found),
        notes,
        tools,
        needs,
        "pytest" if pytest else "unittest",
        compiled.outputs,
    )


@dataclass(frozen=True)
class _Compiled:
    """How build.sh rebuilds the project's compiled extensions before the tests, and what it says."""

    lines: tuple[str, ...] = ()
    found: tuple[str, ...] = ()  # for the guess's why
    notes: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ()


def _compiled(root: Path, python: str, venv: str | None, prefix: str) -> _Compiled:
    """A setuptools extension (setup.py names Extension, ext_modules or cythonize) is rebuilt in place,
    every build (--force: a header its Extension does not list as a dependency changes too), with the
    environment's own setuptools: offline, into build/ and the package folder, which the sandbox lets
    it write. pip would need the `wheel` package or a newer setuptools, and an isolated build the network.
    Other compiled extensions are named in a note: build.sh does not rebuild them."""
    setup = _text(root, "setup.py")
    if _SETUPTOOLS_EXTENSION.search(setup):
        # The module built before goes first: a compile that fails in a setup.py that falls back to pure
        # Python (markupsafe's) would otherwise leave it loaded by the tests.
        stale = [f"rm -f {module}.*.so {module}.so" for module in _extension_modules(root, setup, prefix)]
        notes = []
        if venv is not None and not _has_module(root / venv, "setuptools"):
            fix = "uv add --dev setuptools" if python.startswith("uv ") else f"{venv}/bin/pip install setuptools"
            notes.append(
                f"{venv}/ has no setuptools, which builds the extension: install it there once (`{fix}`); the build "
                "has no network"
            )
        return _Compiled(
            (*stale, f"{python} setup.py -q build_ext --inplace --force"),
            ("setup.py's compiled extension (rebuilt in place before the tests: build_ext --inplace --force)",),
            tuple(notes),
            ("build",),
        )
    backend = _BUILD_BACKEND.search(_text(root, "pyproject.toml"))
    if backend is not None and backend.group(1).split(".")[0] in _NATIVE_BACKENDS:
        tool = backend.group(1)
        return _Compiled(
            notes=(
                f"pyproject.toml builds the project with {tool}, which compiles an extension, and build.sh does not "
                "rebuild it: after a change to its compiled sources the tests would load the extension built "
                f"before; put its rebuild ({_NATIVE_BACKENDS[tool.split('.')[0]]}) before the tests and try it "
                "offline with code-commit check",
            )
        )
    return _Compiled()


def _extension_modules(root: Path, setup: str, prefix: str) -> list[str]:
    """Where setuptools puts each extension setup.py names literally, in place: `src/pkg/_speedups` for
    Extension("pkg._speedups") in a src layout. Only names of the package folders there are."""
    base = root / "src" if prefix else root
    found = []
    for name in dict.fromkeys(_EXTENSION_NAME.findall(setup)):
        *package, module = name.split(".")
        if package and (base.joinpath(*package)).is_dir():
            found.append("/".join([*(["src"] if prefix else []), *package, module]))
    return found


def _test_command(python: str, pytest: bool, root: Path) -> str:
    """pytest, or unittest's discovery: of tests/ when there is one (from the root when it is a package)."""
    if pytest:
        return f"{python}{_PYTEST}" if python else _PYTEST
    python = python or "python -m "
    if not (root / "tests").is_dir():
        return f"{python}unittest"
    top = " -t ." if (root / "tests" / "__init__.py").is_file() else ""
    return f"{python}unittest discover -s tests{top}"


def _has_module(venv: Path, module: str) -> bool:
    """The package in the virtualenv's site-packages, or in a folder one of its .pth files adds."""
    for site in list(venv.glob("lib/python3*/site-packages"))[:4]:
        places = [site]
        for pth in sorted(site.glob("*.pth"))[:50]:
            places += [Path(line) for line in _text(pth.parent, pth.name).splitlines()[:20] if line.startswith("/")]
        if any((place / module / "__init__.py").is_file() for place in places):
            return True
    return False


_REQUIREMENTS = ("requirements-dev.txt", "requirements_dev.txt", "dev-requirements.txt", "requirements-test.txt",
                "test-requirements.txt")  # fmt: skip


def _requirements(root: Path) -> str:
    return "".join(_text(root, name) for name in _REQUIREMENTS)


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
    data = data if isinstance(data, dict) else {}
    scripts = data.get("scripts")
    scripts = scripts if isinstance(scripts, dict) else {}
    manager, source = _node_manager(root, data)
    locks = [lock for lock in manager.locks if (root / lock).is_file()]
    install, installed = (manager.locked if locks else manager.unlocked), _NODE_MODULES
    pinned = data.get("packageManager")
    if manager.name == "yarn" and ((root / ".yarnrc.yml").is_file() or re.match(r"yarn@[2-9]", str(pinned))):
        # yarn 2+: Plug'n'Play keeps no node_modules/ unless told to; without a lock file it must be
        # told it may write one (on CI it refuses to by default)
        install = "yarn install --immutable" if locks else "yarn install --no-immutable"
        if not re.search(r"^nodeLinker:\s*[\"']?node-modules", _text(root, ".yarnrc.yml"), re.MULTILINE):
            installed = ".pnp.cjs"
    name = manager.name
    test = scripts.get("test")
    if isinstance(test, str) and test.strip() and not _NPM_PLACEHOLDER_TEST.search(test):
        run, which_script = (f"{name} run test" if name == "bun" else f"{name} test"), "test"
    elif isinstance(scripts.get("build"), str) and scripts["build"].strip():
        run, which_script = f"{name} run build", "build"
    else:
        placeholder = " (only npm init's placeholder that always fails)" if isinstance(test, str) else ""
        return Guess(None, f"package.json has no test script{placeholder} and no build script")
    notes = [] if which(name) else [f"{name} is not installed"]
    lines, outputs, needs_network = [run], tuple[str, ...](), ""
    if (data.get("dependencies") or data.get("devDependencies")) and not (root / installed).exists():
        lines.insert(0, f"[ -e {installed} ] || {install}")
        outputs = (_NODE_MODULES,) if installed == _NODE_MODULES else ()
        if locks:
            notes.append(
                f"{installed} is missing: the first build runs `{install}`, which in the sandbox finds only what "
                f"your cache has (no network); run `{install}` once yourself first"
            )
        else:
            needs_network = (
                f"its `{install}` needs the network (there is no lock file), which the sandbox has not: run "
                f"`{install}` once yourself and commit the lock file it writes, or set sandbox_network = true in "
                f"{CONFIG_DIR}/{CONFIG_FILE}"
            )
            notes.append(
                f"{installed} is missing and there is no lock file ({' or '.join(manager.locks)}), so the first "
                f"build runs `{install}`, which resolves the versions from the registry: that needs the network, "
                f"which the sandbox has not (sandbox_network = true in {CONFIG_DIR}/{CONFIG_FILE} gives it). Run "
                f"`{install}` once yourself instead: it writes the lock file; commit it, and the build installs "
                f"exactly what it lists (`{manager.locked}`)"
            )
    notes += _native_addon(root, which_script)
    return Guess(
        "\n".join(lines),
        f"guessed from package.json: its {which_script} script, run by {name} ({source})",
        notes,
        (name,),
        _SANDBOX_NEEDS[name],
        which_script,
        outputs,
        needs_network,
    )


def _native_addon(root: Path, script: str) -> list[str]:
    """A node-gyp addon (binding.gyp) is compiled when it is installed, not by its test script."""
    if not (root / "binding.gyp").is_file():
        return []
    return [
        f"binding.gyp builds a native addon, which the {script} script does not rebuild: after a change to its "
        "C/C++ sources the tests would load the addon built before; put its rebuild (node-gyp rebuild, which "
        "needs node's headers where it finds them offline) before the tests and try it with code-commit check"
    ]


def _node_manager(root: Path, data: dict[str, object]) -> tuple[_NodeManager, str]:
    """The package manager: packageManager's name (corepack's pin) if it is a known one, else the lock
    file's, else npm. Only a known name ever reaches build.sh."""
    pinned = data.get("packageManager")
    if isinstance(pinned, str):
        name = pinned.split("@", 1)[0].strip()
        if name in _NODE_INSTALLS:
            return _NODE_INSTALLS[name], "its packageManager field"
    for manager in _NODE_MANAGERS:
        for lock in manager.locks:
            if (root / lock).is_file():
                return manager, lock
    return _NODE_INSTALLS["npm"], "no lock file"


def _simple(root: Path, which: Which) -> Guess | None:
    gradle = "./gradlew build" if (root / "gradlew").is_file() else "gradle build"
    for marker, commands, tool, runner, outputs in (
        ("Cargo.toml", "cargo build --quiet\ncargo test --quiet", "cargo", "cargo test", ("target",)),
        ("go.mod", "go build ./...\ngo test ./...", "go", "go test", ()),
        ("pom.xml", "mvn -o -B test", "mvn", "Maven", ("target",)),
        ("build.gradle", gradle, "gradle", "Gradle", ("build", ".gradle")),
        ("build.gradle.kts", gradle, "gradle", "Gradle", ("build", ".gradle")),
    ):
        if (root / marker).is_file():
            notes = [f"{tool} is not installed"] if tool != "gradle" and not which(tool) else []
            tools = (commands.split()[0],) if tool != "gradle" else ()
            return Guess(commands, f"guessed from {marker}", notes, tools, _SANDBOX_NEEDS[tool], runner, outputs)
    return None


def _cmake(root: Path, which: Which) -> Guess | None:
    """CMake when the project registers tests with CTest: configure, build and run them. Without
    registered tests, only when there is no Makefile (whose test target may run them)."""
    if not (root / "CMakeLists.txt").is_file():
        return None
    tested = _ctest_registered(root)
    if not tested and any((root / name).is_file() for name in _MAKEFILES):
        return None
    build = f"cmake -S . -B {_CMAKE_BUILD_DIR}\ncmake --build {_CMAKE_BUILD_DIR} --parallel"
    notes = [] if which("cmake") else ["cmake is not installed"]
    if not tested:
        notes.append("no CMakeLists.txt registers a test (enable_testing, add_test): build.sh only builds")
        return Guess(
            build, "guessed from CMakeLists.txt", notes, ("cmake",), _SANDBOX_NEEDS["cmake"], "", (_CMAKE_BUILD_DIR,)
        )
    return Guess(
        f"{build}\n(cd {_CMAKE_BUILD_DIR} && ctest --output-on-failure)",
        "guessed from CMakeLists.txt: it registers tests with CTest, which runs them",
        notes,
        ("cmake", "ctest"),
        _SANDBOX_NEEDS["cmake"],
        "ctest",
        (_CMAKE_BUILD_DIR,),
    )


def _ctest_registered(root: Path) -> bool:
    """Whether a CMakeLists.txt (the root's, or one up to three folders down) registers tests. Bounded:
    at most MAX_CMAKE_FOLDERS folders looked into (and as many entries of each), MAX_CMAKE_FILES files
    read; hidden folders, build
    outputs and vendored code are not looked into."""
    files: list[Path] = []
    level, seen = [root], 0
    for _ in range(4):
        below: list[Path] = []
        for folder in level:
            seen += 1
            if seen > _MAX_CMAKE_FOLDERS or len(files) >= _MAX_CMAKE_FILES:
                break
            try:
                with os.scandir(folder) as listing:
                    entries = list(itertools.islice(listing, _MAX_CMAKE_FOLDERS))
            except OSError:
                continue
            for entry in entries:
                if entry.name == "CMakeLists.txt" and entry.is_file(follow_symlinks=False):
                    files.append(Path(entry.path))
                elif (
                    entry.is_dir(follow_symlinks=False)
                    and not entry.name.startswith(".")
                    and (entry.name not in _SKIPPED_FOLDERS)
                ):
                    below.append(Path(entry.path))
        level = below
    return any(_CTEST.search(_text(path.parent, path.name)) for path in files[:_MAX_CMAKE_FILES])


def _make(root: Path, which: Which) -> Guess | None:
    makefile = next((name for name in _MAKEFILES if (root / name).is_file()), None)
    if makefile is None:
        return None
    notes = [] if which("make") else ["make is not installed"]
    text = _text(root, makefile)
    for target in ("check", "test"):
        if re.search(_MAKE_TARGET.format(target), text, re.MULTILINE):
            return Guess(f"make {target}", f"guessed from {makefile}: its {target} target", notes, ("make",), "", "")
    why = f"guessed from {makefile} (it has no check or test target: build.sh runs its default one)"
    return Guess("make", why, notes, ("make",), "", "")


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
