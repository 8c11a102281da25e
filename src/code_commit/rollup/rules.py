"""What the rollup leaves out by default, and how it ranks the rest. Pure: paths and bytes in, verdicts out.

Every file the rollup considers gets a kind, which ranks it when the token budget is tight (source
first, then tests, then configuration, docs and data), and may get a default reason to be left out:

- by name, before it is read: lock files of the common ecosystems, images, translation catalogs,
  minified bundles and source maps;
- by content: a generated-file marker in a comment near the top (`@generated`, or "generated"
  with "DO NOT EDIT"), or lines so long that the file is minified or machine-written.

The kinds are guessed from the path alone, so they are cheap and predictable:

- test: a code file in a test folder (`tests/`, `test/`, `__tests__/`, `spec/`, ...) or named like
  a test (`test_x.py`, `x_test.go`, `x.test.ts`, `conftest.py`);
- config: the tools' configuration, not the build's: dotfiles and everything in dot-folders
  (`.flake8`, `.pre-commit-config.yaml`, `.github/workflows/ci.yml`), and data formats at the
  top folder that are not a build manifest;
- docs: Markdown, reStructuredText and plain text outside test folders, anything under `docs/`,
  README, LICENSE and the like, with their variants (`LICENSE-MIT`, `LICENSE-APACHE`, `COPYING.LESSER`);
- data: data formats (JSON, YAML, TOML, CSV, XML, ...) below the top folder, every file in a test or
  fuzzing folder that is not code (test vectors, fixtures, samples, fuzz inputs), and every file in a
  corpus folder;
- source: everything else, including unknown extensions (a language missing from the lists below
  must not be pushed out as data) and the build's files (`pyproject.toml`, `package.json`,
  `Cargo.toml`, `requirements.txt`, a Makefile, `CMakeLists.txt`, `build.gradle`), wherever they are:
  the model needs them to change how the project builds.
"""

# ruff: noqa: SIM905 - word lists read best as words
from __future__ import annotations

import enum
import re

_LOCK_FILES = frozenset(
    """uv.lock poetry.lock Pipfile.lock pdm.lock pixi.lock conda-lock.yml package-lock.json npm-shrinkwrap.json
    yarn.lock pnpm-lock.yaml bun.lockb bun.lock deno.lock Cargo.lock go.sum go.work.sum Gemfile.lock
    composer.lock mix.lock flake.lock Package.resolved Podfile.lock pubspec.lock gradle.lockfile
    packages.lock.json paket.lock cabal.project.freeze stack.yaml.lock MODULE.bazel.lock""".split()
)
_IMAGE_SUFFIXES = frozenset(
    ".png .jpg .jpeg .gif .bmp .ico .icns .webp .avif .heic .tif .tiff .psd .xcf .svg .eps".split()
)
_TRANSLATION_SUFFIXES = frozenset(".po .pot .mo .xlf .xliff".split())
_MINIFIED_SUFFIXES = frozenset(".min.js .min.mjs .min.css .js.map .css.map".split())

CODE_SUFFIXES = frozenset(
    """.py .pyi .pyx .pxd .js .mjs .cjs .jsx .ts .mts .cts .tsx .vue .svelte .rs .go .c .h .cc .cpp .cxx
    .hh .hpp .hxx .m .mm .java .kt .kts .scala .groovy .gradle .cs .fs .vb .swift .rb .php .pl .pm .lua
    .r .jl .ex .exs .erl .hrl .hs .ml .mli .clj .cljs .dart .zig .nim .sh .bash .zsh .fish .ps1 .bat
    .sql .proto .graphql .css .scss .sass .less .html .htm .cmake .mk .tf .nix .el .vim""".split()
)
_DOC_SUFFIXES = frozenset(".md .markdown .rst .txt .adoc .asciidoc .org .tex".split())
_DOC_NAMES = frozenset(
    "readme license licence copying notice authors contributors changelog changes history news".split()
)
_DATA_SUFFIXES = frozenset(
    """.json .jsonl .ndjson .json5 .yaml .yml .toml .csv .tsv .xml .ini .cfg .conf .dat .txt .ics .vcf
    .eml .parquet .arrow .npy .pkl .pickle .db .sqlite""".split()
)
# Files that say how the project builds: source, whatever their format.
_MANIFESTS = frozenset(
    """pyproject.toml setup.cfg tox.ini pytest.ini Pipfile package.json tsconfig.json deno.json Cargo.toml
    go.mod go.work Gemfile composer.json pom.xml build.gradle build.gradle.kts settings.gradle
    CMakeLists.txt meson.build meson_options.txt meson.options Makefile GNUmakefile makefile Makefile.am
    configure.ac Dockerfile pubspec.yaml mix.exs BUILD BUILD.bazel WORKSPACE MODULE.bazel""".split()
)
_TEST_DIRS = frozenset(
    "test tests testing __tests__ spec specs testdata test_data test-data e2e fixtures fuzz fuzzing".split()
)
# Inputs to a fuzzer or a test, whatever their names: never source, even code-looking files.
_CORPUS_DIRS = frozenset("corpus corpora fuzz_corpus fuzz-corpus".split())
_DOC_DIRS = frozenset({"docs", "doc", "documentation"})
# LICENSE, LICENSE-MIT, license_apache, COPYING-LGPL, README-dev: the name, then a variant after - or _.
_DOC_NAME = re.compile(r"(?:" + "|".join(sorted(_DOC_NAMES)) + r")(?:[-_].*)?$")
_TEST_NAME = re.compile(r"(^test_.*|.*_test\.[^.]+|.*\.(test|spec)\.[^.]+|^conftest\.py)$")

# A generated file says so near its top; only the first bytes are searched.
# The marker must stand in a comment line, so code or prose that merely names it is not caught, and
# "do not edit" counts only beside "generated" ("# DO NOT EDIT THIS LINE MANUALLY" is a hand-kept file).
_GENERATED_MARKERS = re.compile(
    rb"^[ \t]*(?:#|//|/\*|\*|<!--|--|;|%).*"
    rb"(?:@generated\b|(?i:generated).*(?i:do not edit)|(?i:do not edit).*(?i:generated))",
    re.MULTILINE,
)
_GENERATED_WINDOW = 1024
# Minified or machine-written: lines this long on average in a file of at least _MIN_LONG_LINES_FILE bytes.
_LONG_LINE_MEAN = 300
_MIN_LONG_LINES_FILE = 2048


class Kind(enum.IntEnum):
    """The rank of a file when not everything fits: lower comes first."""

    SOURCE = 0
    TEST = 1
    CONFIG = 2
    DOCS = 3
    DATA = 4

    @property
    def label(self) -> str:
        return self.name.lower()


def _suffixes(name: str) -> tuple[str, str]:
    """The last extension and the last two, lower-cased: ("x.min.js") -> (".js", ".min.js")."""
    lower = name.lower()
    parts = lower.rsplit(".", 2)
    last = "." + parts[-1] if len(parts) > 1 and parts[-2] else ""
    double = "." + ".".join(parts[-2:]) if len(parts) > 2 and parts[0] else last
    return last, double


def kind_of(path: str) -> Kind:
    parts = path.split("/")
    name = parts[-1]
    folders = [p.lower() for p in parts[:-1]]
    suffix, _ = _suffixes(name)
    if name in _MANIFESTS:
        return Kind.SOURCE
    if any(f in _CORPUS_DIRS for f in folders):
        return Kind.DATA
    in_tests = any(f in _TEST_DIRS for f in folders)
    if in_tests or _TEST_NAME.match(name):
        if suffix in CODE_SUFFIXES:
            return Kind.TEST
        if in_tests:
            return Kind.DOCS if suffix in (".md", ".rst") else Kind.DATA
    if any(f in _DOC_DIRS for f in folders):
        return Kind.DOCS
    if suffix in CODE_SUFFIXES:
        return Kind.SOURCE
    stem = name.lower().split(".", 1)[0]
    if _DOC_NAME.match(stem) or (suffix in _DOC_SUFFIXES and not stem.startswith("requirements")):
        return Kind.DOCS
    if stem.startswith("requirements"):
        return Kind.SOURCE
    if name.startswith(".") or any(f.startswith(".") for f in folders):
        return Kind.CONFIG
    if suffix in _DATA_SUFFIXES:
        return Kind.CONFIG if len(parts) == 1 else Kind.DATA
    return Kind.SOURCE


def excluded_by_name(path: str) -> str | None:
    """Why a file is left out by default from its path alone, or None."""
    name = path.rsplit("/", 1)[-1]
    if name in _LOCK_FILES:
        return "lock file"
    suffix, double = _suffixes(name)
    if suffix in _IMAGE_SUFFIXES:
        return "image"
    if suffix in _TRANSLATION_SUFFIXES:
        return "translation catalog"
    if double in _MINIFIED_SUFFIXES or suffix == ".map":
        return "minified or source map"
    return None


def excluded_by_content(data: bytes, kind: Kind) -> str | None:
    """Why a file is left out by default from its bytes, or None. Docs are never judged by line
    length: a Markdown paragraph may be written on one line."""
    if _GENERATED_MARKERS.search(data, 0, _GENERATED_WINDOW):
        return "generated"
    if kind is not Kind.DOCS and len(data) >= _MIN_LONG_LINES_FILE:
        lines = data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
        if len(data) / lines > _LONG_LINE_MEAN:
            return "minified or machine-written (very long lines)"
    return None
