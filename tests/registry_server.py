"""A loopback registry's HTTP side, for the fake registries (npm_registry.py, pypi_index.py): GET
answered by the registry's `_answer(path)`, every request recorded as (method, path), any other
method a 405, so a test can assert a client asked for nothing else. Standard library only."""

from __future__ import annotations

import http.server
import socketserver
import threading
from types import TracebackType
from typing import Any, Self


class RegistryServer:
    def __init__(self) -> None:
        self.requests: list[tuple[str, str]] = []  # (method, path), in order
        registry = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                registry.requests.append(("GET", self.path))
                status, body, kind = registry._answer(self.path.split("?", 1)[0])
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _refuse(self) -> None:
                registry.requests.append((self.command, self.path))
                self.send_response(405)
                self.send_header("Content-Length", "0")
                self.end_headers()

            do_POST = do_PUT = do_DELETE = do_HEAD = _refuse

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.port: int = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.05,), daemon=True)

    def _answer(self, path: str) -> tuple[int, bytes, str]:
        """(status, body, content type) for a GET of `path`."""
        raise NotImplementedError

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
