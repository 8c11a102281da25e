"""A loopback Python package index for tests: PEP 503's simple repository API on 127.0.0.1, serving
wheels built here. Standard library only.

    with PypiIndex([wheel(tmp_path, "demo-pkg", "1.0", {"demo_pkg/__init__.py": "VALUE = 1\\n"})]) as index:
        pip install --index-url {index.url} demo-pkg

Strict as PyPI is where pip depends on it: GET /simple/<normalized name>/ lists each file as an
anchor whose URL ends in #sha256=<its digest> (pip checks the download against it), and
/files/<name> serves it; the project's name is normalized as PEP 503 says. Any other path is a 404,
any other method a 405, both recorded.
"""

from __future__ import annotations

import base64
import hashlib
import re
import zipfile
from pathlib import Path

from registry_server import RegistryServer


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def wheel(folder: Path, name: str, version: str, files: dict[str, str]) -> Path:
    """A pure-Python wheel of `files` (path -> text), with its METADATA, WHEEL and RECORD."""
    stem = f"{normalized(name).replace('-', '_')}-{version}"
    info = f"{stem}.dist-info"
    contents = {
        **files,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: code-commit-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = []
    for path, text in contents.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(text.encode())}")
    record.append(f"{info}/RECORD,,")
    target = folder / f"{stem}-py3-none-any.whl"
    with zipfile.ZipFile(target, "w") as archive:
        for path, text in {**contents, f"{info}/RECORD": "\n".join(record) + "\n"}.items():
            archive.writestr(path, text)
    return target


class PypiIndex(RegistryServer):
    def __init__(self, wheels: list[Path]) -> None:
        self._files = {path.name: path.read_bytes() for path in wheels}
        super().__init__()
        self.url = f"http://127.0.0.1:{self.port}/simple/"

    def _answer(self, path: str) -> tuple[int, bytes, str]:
        if path.startswith("/files/") and path[len("/files/") :] in self._files:
            return 200, self._files[path[len("/files/") :]], "application/octet-stream"
        match = re.fullmatch(r"/simple/([^/]+)/", path)
        if match is None:
            return 404, b"not found", "text/plain"
        listed = [name for name in self._files if normalized(name.split("-", 1)[0]) == match.group(1)]
        if not listed or normalized(match.group(1)) != match.group(1):
            return 404, b"not found", "text/plain"
        anchors = "".join(
            f'<a href="/files/{name}#sha256={hashlib.sha256(self._files[name]).hexdigest()}">{name}</a>\n'
            for name in listed
        )
        return 200, f"<!DOCTYPE html>\n<html><body>\n{anchors}</body></html>\n".encode(), "text/html"
