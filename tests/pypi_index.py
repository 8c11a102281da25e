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
import http.server
import re
import socketserver
import threading
import zipfile
from pathlib import Path
from types import TracebackType
from typing import Any


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


class PypiIndex:
    def __init__(self, wheels: list[Path]) -> None:
        self.requests: list[tuple[str, str]] = []  # (method, path), in order
        self._files = {path.name: path.read_bytes() for path in wheels}
        index = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                index.requests.append(("GET", self.path))
                status, body, kind = index._answer(self.path.split("?", 1)[0])
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _refuse(self) -> None:
                index.requests.append((self.command, self.path))
                self.send_response(405)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_POST = do_PUT = do_DELETE = do_HEAD = _refuse

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}/simple/"
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

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

    def __enter__(self) -> PypiIndex:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
