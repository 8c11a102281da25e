"""The project files a source file imports or includes, resolved against the files git tracks. Pure.

A failing build usually names the test, not the file to fix; the file to fix is what the test
imports. Resolved, per language, only where it is cheap and precise:

- Python: `import a.b`, `from a.b import c` (also relative, `from .x import y`): `a/b.py`,
  `a/b/__init__.py`, `a/b/c.py`, at the top, under `src/`, or beside the importing file;
- C and C++: `#include "x.h"` beside the including file, then from the top, then as the one tracked
  path ending so; with a header, its source file of the same stem (`x.h` -> `x.c`);
- JavaScript and TypeScript: relative `require()`, `import ... from`, `export ... from` and `import()`
  paths, with the usual extensions and `index` files;
- Java and Kotlin: `import a.b.C;` as the tracked path ending `a/b/C.java`, and the classes of the
  same folder the file names as words;
- Rust: `mod x;` and `use crate::x::...` within the crate, and a test's `use <crate>::` to the
  crate's `src/lib.rs`;
- Go: the other files of the same folder (one package);
- a Makefile, `*.mk`, `CMakeLists.txt`, `*.cmake`: the tracked files it names as words, from its folder
  (a make failure names the Makefile, whose rule names the sources and the test).

Bounded: at most MAX_IMPORT_BYTES of a file are read for its imports, and at most MAX_IMPORTS
paths come out of one file.
"""

# ruff: noqa: SIM905 - word lists read best as words
from __future__ import annotations

import posixpath
import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from functools import cached_property

MAX_IMPORT_BYTES = 256 * 1024
_MAX_IMPORTS = 32

_PY_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+\(?([^)#\n]*)", re.MULTILINE)
_PY_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w.]+(?:[ \t]*,[ \t]*[\w.]+)*)", re.MULTILINE)
_C_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.MULTILINE)
_JS_IMPORT = re.compile(
    r"""(?:\brequire\s*\(\s*|\bimport\s*\(\s*|\bfrom\s+|^\s*import\s+)(['"])(\.{1,2}(?:/[^'"\n]*)?)\1""", re.MULTILINE
)
_JVM_IMPORT = re.compile(r"^[ \t]*import[ \t]+(?:static[ \t]+)?([\w.]+)", re.MULTILINE)
_RUST_MOD = re.compile(r"^[ \t]*(?:pub(?:\([^)]*\))?[ \t]+)?mod[ \t]+(\w+)[ \t]*;", re.MULTILINE)
_RUST_USE = re.compile(r"\buse[ \t]+(?:crate|super|self)::(\w+)")
_RUST_CRATE_USE = re.compile(r"\buse[ \t]+(\w+)::")
_WORD = re.compile(r"[A-Za-z_$][\w$]*")
_BUILD_WORD = re.compile(r"[\w./+-]+\.\w+")  # a file name with an extension, as a Makefile or CMake names it
_BUILD_FILES = frozenset({"Makefile", "GNUmakefile", "makefile", "CMakeLists.txt"})

_JS_SUFFIXES = (".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".mts", ".cts")
_JS_RESOLVE = ("", *_JS_SUFFIXES, *(f"/index{suffix}" for suffix in _JS_SUFFIXES))
_C_SOURCES = (".c", ".cc", ".cpp", ".cxx", ".m", ".mm")
_RUST_NOT_CRATES = frozenset("std core alloc crate self super".split())
_TEST_AFFIX = re.compile(r"^test_|_test$|_tests$|\.(?:test|spec)$|Tests?$")
GENERIC_STEMS = frozenset("__init__ index mod lib main conftest setup utils util common types test tests".split())


@dataclass(frozen=True)
class Project:
    """The tracked files, and the indexes the resolvers need, built once."""

    tracked: frozenset[str]

    @cached_property
    def by_suffix(self) -> Mapping[str, tuple[str, ...]]:
        """'b/c.h' -> every tracked path that is or ends with '/b/c.h' (for the last three parts)."""
        index: dict[str, list[str]] = {}
        for path in self.tracked:
            parts = path.split("/")
            for start in range(max(0, len(parts) - 3), len(parts)):
                index.setdefault("/".join(parts[start:]), []).append(path)
        return {key: tuple(sorted(paths)) for key, paths in index.items()}

    @cached_property
    def by_stem(self) -> Mapping[str, tuple[str, ...]]:
        """'json_patch_tests' -> every tracked path whose file name is that, before its extension."""
        index: dict[str, list[str]] = {}
        for path in self.tracked:
            index.setdefault(posixpath.basename(path).rsplit(".", 1)[0], []).append(path)
        return {key: tuple(sorted(paths)) for key, paths in index.items()}

    def ending(self, suffix: str) -> tuple[str, ...]:
        """The tracked paths that are `suffix` or end with `/suffix`."""
        if suffix in self.tracked:
            return (suffix,)
        parts = suffix.split("/")
        found = self.by_suffix.get("/".join(parts[-3:]), ())
        return tuple(path for path in found if path == suffix or path.endswith("/" + suffix))


def subject(path: str) -> str:
    """What a test and the file it tests share, by name: `tests/test_lru.py`, `src/_lru.py`, `lru_test.go`,
    `lru.test.ts`, `LruTest.java` -> "lru"; "" for a name too generic to pair (`__init__`, `index`, `main`)."""
    stem = posixpath.basename(path).split(".", 1)[0]
    key = _TEST_AFFIX.sub("", stem).strip("_").lower()
    return "" if key in GENERIC_STEMS or stem.lower() in GENERIC_STEMS else key


def imported(path: str, data: bytes, project: Project) -> list[str]:
    """The tracked files `path` (holding `data`) imports or includes, in the order it names them."""
    text = data[:MAX_IMPORT_BYTES].decode("utf-8", "replace")
    suffix = posixpath.splitext(path)[1].lower()
    folder = posixpath.dirname(path)
    if suffix in (".py", ".pyi"):
        found = _python(text, folder, project)
    elif suffix in (".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".m", ".mm"):
        found = _c(text, folder, project)
    elif suffix in _JS_SUFFIXES or suffix in (".vue", ".svelte"):
        found = _javascript(text, folder, project)
    elif suffix in (".java", ".kt", ".kts", ".scala", ".groovy"):
        found = _jvm(text, folder, suffix, project)
    elif suffix == ".rs":
        found = _rust(path, text, project)
    elif posixpath.basename(path) in _BUILD_FILES or suffix in (".mk", ".cmake"):
        found = _build_file(text, folder, project)
    elif suffix == ".go":
        found = sorted(p for p in project.tracked if posixpath.dirname(p) == folder and p.endswith(".go"))
    else:
        found = []
    return list(dict.fromkeys(p for p in found if p != path))[:_MAX_IMPORTS]


def _python(text: str, folder: str, project: Project) -> list[str]:
    found: list[str] = []
    for match in _PY_FROM.finditer(text):
        dots, module, names = match.group(1), match.group(2), match.group(3)
        base = _relative_base(folder, len(dots)) if dots else None
        parts = [p for p in module.split(".") if p]
        found += _python_module(parts, base, project)
        for name in re.findall(r"\w+", names):
            found += _python_module([*parts, name], base, project, exact=True)
    for match in _PY_IMPORT.finditer(text):
        for module in match.group(1).split(","):
            found += _python_module(module.strip().split("."), None, project)
    return found


def _build_file(text: str, folder: str, project: Project) -> list[str]:
    found = []
    for word in _BUILD_WORD.findall(text):
        candidate = posixpath.normpath(posixpath.join(folder, word))
        if candidate in project.tracked:
            found.append(candidate)
    return found


def _relative_base(folder: str, dots: int) -> str | None:
    base = folder
    for _ in range(dots - 1):
        if not base:
            return None
        base = posixpath.dirname(base)
    return base


def _python_module(parts: list[str], base: str | None, project: Project, exact: bool = False) -> list[str]:
    """`a.b` as a tracked module or package; relative to `base` when given, else anywhere it is the one
    tracked path ending so (`a/b.py` at the top, under src/, lib/, ...)."""
    if not parts:
        if base is None:
            return []
        init = posixpath.join(base, "__init__.py")
        return [init] if init in project.tracked else []
    stem = "/".join(parts)
    for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
        if base is not None:
            joined = posixpath.join(base, candidate)
            if joined in project.tracked:
                return [joined]
            continue
        found = project.ending(candidate)
        if len(found) == 1 or (found and not exact and len(found) <= 2):
            return list(found)
    return []


def _c(text: str, folder: str, project: Project) -> list[str]:
    found: list[str] = []
    for name in _C_INCLUDE.findall(text):
        for candidate in (posixpath.normpath(posixpath.join(folder, name)), posixpath.normpath(name)):
            if candidate in project.tracked:
                found.append(candidate)
                break
        else:
            matches = project.ending(posixpath.normpath(name).lstrip("./"))
            if len(matches) == 1:
                found.append(matches[0])
    sources = []
    for header in found:  # a header's implementation: its source of the same stem, beside it or anywhere unique
        stem = posixpath.splitext(header)[0]
        if header.endswith(_C_SOURCES):
            continue
        for suffix in _C_SOURCES:
            if stem + suffix in project.tracked:
                sources.append(stem + suffix)
                break
        else:
            base = posixpath.basename(stem)
            elsewhere = [m for suffix in _C_SOURCES for m in project.ending(base + suffix)]
            if len(elsewhere) == 1:
                sources.append(elsewhere[0])
    return found + sources


def _javascript(text: str, folder: str, project: Project) -> list[str]:
    found = []
    for _, spec in _JS_IMPORT.findall(text):
        base = posixpath.normpath(posixpath.join(folder, spec))
        if base.startswith("../") or base == "..":
            continue
        base = "" if base == "." else base
        for ending in _JS_RESOLVE:
            candidate = (base + ending).lstrip("/") if base else ending.lstrip("/")
            if candidate in project.tracked:
                found.append(candidate)
                break
    return found


def _jvm(text: str, folder: str, suffix: str, project: Project) -> list[str]:
    found = []
    for name in _JVM_IMPORT.findall(text):
        parts = name.split(".")
        for end in range(len(parts), 1, -1):  # a.b.C.method (static) -> a/b/C.java
            matches = project.ending("/".join(parts[:end]) + suffix)
            if len(matches) == 1:
                found.append(matches[0])
                break
    words = set(_WORD.findall(text))
    for path in sorted(project.tracked):  # the same package: no import needed
        same_folder = posixpath.dirname(path) == folder and path.endswith(suffix)
        if same_folder and posixpath.splitext(posixpath.basename(path))[0] in words:
            found.append(path)
    return found


def _rust(path: str, text: str, project: Project) -> list[str]:
    found = []
    folder = posixpath.dirname(path)
    name = posixpath.basename(path)
    # `mod x;` in lib.rs, main.rs or mod.rs is beside it; in foo.rs, it is in foo/.
    mod_dir = folder if name in ("lib.rs", "main.rs", "mod.rs") else posixpath.join(folder, name[:-3])
    for module in _RUST_MOD.findall(text):
        for candidate in (posixpath.join(mod_dir, f"{module}.rs"), posixpath.join(mod_dir, module, "mod.rs")):
            if candidate in project.tracked:
                found.append(candidate)
                break
    crate_src = _crate_src(path, project.tracked)
    if crate_src is not None:
        for module in _RUST_USE.findall(text):
            for candidate in (posixpath.join(crate_src, f"{module}.rs"), posixpath.join(crate_src, module, "mod.rs")):
                if candidate in project.tracked:
                    found.append(candidate)
                    break
        lib = posixpath.join(crate_src, "lib.rs")
        outside = not path.startswith(crate_src + "/") and lib in project.tracked
        if outside and any(crate not in _RUST_NOT_CRATES for crate in _RUST_CRATE_USE.findall(text)):
            found.append(lib)  # a test or example using the crate by its name
    return found


def _crate_src(path: str, tracked: Collection[str]) -> str | None:
    """The `src` folder of the crate `path` belongs to: the nearest folder up with a Cargo.toml."""
    folder = posixpath.dirname(path)
    while True:
        manifest = posixpath.join(folder, "Cargo.toml") if folder else "Cargo.toml"
        if manifest in tracked:
            return posixpath.join(folder, "src") if folder else "src"
        if not folder:
            return None
        folder = posixpath.dirname(folder)
