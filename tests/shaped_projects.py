"""Projects shaped like the three open-source Python libraries code-commit was first tried on.

What made their rollups poor, reproduced at any scale (the tests use a small one, bench/ the full):

- "lock-file": a src-layout library whose uv.lock was 57% of the rollup;
- "translations": a data-heavy tree whose .po catalogs (one per language, with compiled .mo files
  beside them) were 62% of it;
- "tiny-test-data": a parser with about a thousand tiny test-vector files in nested folders, whose
  `--- FILE [...] ---` headers alone were 29% of it.

Each has its own source and tests (about 40 KB at any scale: that is what a model should read),
a README and a changelog, a pyproject.toml, and the bulk that made the trouble, which `scale`
multiplies. `make` returns the paths of the project's own source and tests, so the share is
measured against what the fixture knows, not against the rollup's own guess of each file's kind.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

SHAPES = ("lock-file", "translations", "tiny-test-data")
LANGUAGES = "de fr es it nl pt pt_BR ru pl cs sk sl hu ro bg uk el tr fi sv da nb is et lv lt ja ko zh_CN zh_TW".split()  # noqa: SIM905
_HEADER = re.compile(rb"^==> (.*) <==$")
_LEFT_OUT = b"--- LEFT OUT ---"


def _module(name: str, functions: int) -> str:
    parts = [f'"""{name}: helpers of the library."""\n\nfrom __future__ import annotations\n\nimport re\n\n']
    for i in range(functions):
        parts.append(
            f"def {name}_step_{i}(text: str, limit: int = {i + 3}) -> list[str]:\n"
            f'    """Split `text` into at most `limit` parts at the {i}th separator kind."""\n'
            f"    parts = re.split(r'[;,|]', text, maxsplit=limit)\n"
            f"    if len(parts) > limit:\n"
            f"        raise ValueError(f'too many parts: {{len(parts)}} > {{limit}}')\n"
            f"    return [part.strip() for part in parts if part.strip()]\n\n\n"
        )
    return "".join(parts)


def _test_module(name: str, functions: int) -> str:
    parts = [f"from pkg.{name} import *  # noqa: F403\n\n\n"]
    for i in range(functions):
        parts.append(
            f"def test_{name}_step_{i}_splits_and_strips() -> None:\n"
            f"    assert {name}_step_{i}('a; b,c') == ['a', 'b', 'c']  # noqa: F405\n\n\n"
        )
    return "".join(parts)


def _common(root: Path) -> set[str]:
    """Source, tests, docs and configuration every shape has; returns the source and test paths."""
    own: dict[str, str] = {"src/pkg/__init__.py": '"""The library."""\n\n__version__ = "1.4.2"\n'}
    for name in ("parser", "lexer", "render", "errors", "compat", "util"):
        own[f"src/pkg/{name}.py"] = _module(name, 14)
    for name in ("parser", "lexer", "render", "util"):
        own[f"tests/test_{name}.py"] = _test_module(name, 14)
    own["tests/conftest.py"] = "import pytest\n\n\n@pytest.fixture\ndef sample() -> str:\n    return 'a; b'\n"
    own["pyproject.toml"] = '[project]\nname = "pkg"\nversion = "1.4.2"\nrequires-python = ">=3.9"\n'
    for path, text in own.items():
        _write(root, path, text)
    _write(root, ".gitignore", "/agent-config\n__pycache__/\n")
    _write(root, "README.md", "# pkg\n\nA small library.\n\n" + "Usage: call `pkg.parse(text)`.\n" * 60)
    _write(root, "CHANGELOG.md", "".join(f"## 1.{i}.0\n\n- Fixed a bug in the parser.\n\n" for i in range(80)))
    return set(own)


def make(root: Path, shape: str, scale: float = 1.0) -> set[str]:
    """Write the project (no git) and return its own source and test paths."""
    own = _common(root)
    if shape == "lock-file":
        packages = max(1, int(300 * scale))
        _write(root, "uv.lock", 'version = 1\nrequires-python = ">=3.9"\n\n' + "".join(map(_locked, range(packages))))
    elif shape == "translations":
        for language in LANGUAGES[: max(1, int(len(LANGUAGES) * scale))]:
            folder = f"src/pkg/locale/{language}/LC_MESSAGES"
            catalog = "".join(
                f'#: src/pkg/render.py:{i * 7}\nmsgid "message number {i} of the interface"\n'
                f'msgstr "{language} translation of message {i} of the interface"\n\n'
                for i in range(int(120 * max(scale, 0.25)))
            )
            _write(root, f"{folder}/pkg.po", f'msgid ""\nmsgstr ""\n"Language: {language}\\n"\n\n{catalog}')
            (root / folder / "pkg.mo").write_bytes(b"\xde\x12\x04\x95\0\0\0\0" + catalog.encode()[:2000])
        _write(root, "docs/index.md", "# pkg\n\n" + "The library renders messages in many languages.\n" * 30)
    elif shape == "tiny-test-data":
        files = max(2, int(974 * scale))
        topics = ("array", "bool", "datetime", "float", "inline-table", "integer", "key", "string", "table")
        for i in range(files // 2):
            valid = "valid" if i % 3 else "invalid"
            folder = f"tests/data/{valid}/{topics[i % len(topics)]}"
            _write(root, f"{folder}/case-{i}.toml", f"key{i} = {i}\n")
            _write(root, f"{folder}/case-{i}.json", f'{{"key{i}": {{"type": "integer", "value": "{i}"}}}}\n')
    else:
        raise ValueError(f"unknown shape {shape!r}; known: {', '.join(SHAPES)}")
    return own


def _locked(i: int) -> str:
    digest = hashlib.sha256(str(i).encode()).hexdigest()
    url = f"https://files.pythonhosted.org/packages/{digest[:2]}/{digest[2:4]}/{digest[4:]}"
    return (
        f'[[package]]\nname = "dependency-{i}"\nversion = "{i % 7}.{i % 11}.{i % 5}"\n'
        f'source = {{ registry = "https://pypi.org/simple" }}\n'
        f'sdist = {{ url = "{url}/dependency_{i}.tar.gz", hash = "sha256:{digest}", size = {1000 + i} }}\n'
        f'wheels = [\n    {{ url = "{url}/dependency_{i}-py3-none-any.whl", hash = "sha256:{digest}", '
        f"size = {900 + i} }},\n]\n\n"
    )


def _write(root: Path, path: str, text: str) -> None:
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text, encoding="utf-8")


def own_share(rollup: bytes, own: set[str]) -> float:
    """The share of the rollup's bytes that are the content of the project's own source and tests."""
    counted = 0
    current: str | None = None
    for line in rollup.splitlines(keepends=True):
        header = _HEADER.match(line.rstrip(b"\n"))
        if header:
            current = header.group(1).decode()
        elif line.rstrip(b"\n") == _LEFT_OUT:
            current = None
        elif current in own:
            counted += len(line)
    return counted / len(rollup)


def everything_share(root: Path, own: set[str]) -> float:
    """The same share in the rollup code-commit wrote before: every text file under a
    `--- FILE [path] ---` header, every other file on a `--- FILE OMITTED [path] (reason) ---` line."""
    total = counted = 0
    for path in sorted(p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts):
        rel = path.relative_to(root).as_posix()
        if rel.startswith("agent-config/"):
            continue
        data = path.read_bytes()
        try:
            data.decode("utf-8")
            binary = b"\0" in data
        except UnicodeDecodeError:
            binary = True
        if binary:
            total += len(f"--- FILE OMITTED [{rel}] (binary) ---\n")
            continue
        total += len(f"--- FILE [{rel}] ---\n") + len(data)
        counted += len(data) if rel in own else 0
    return counted / total
