"""A loopback npm registry for tests: the packages in tests/fixtures/packages/*.tgz, served as the
npm registry serves them, to npm, pnpm and yarn on 127.0.0.1. Standard library only.

    with NpmRegistry([FIXTURES / "packages" / "ms-2.1.3.tgz"]) as registry:
        env["npm_config_registry"] = registry.url

Strict as the real one is where the clients depend on it: a packument (GET /<name>, with the
abbreviated-metadata Accept header or without) lists each version's manifest from its tarball's own
package.json, with `dist.tarball`, `dist.integrity` (sha512) and `dist.shasum` (sha1) computed from
the bytes served; GET /<name>/-/<file>.tgz serves the tarball. Any other path is a 404 and any
other method a 405, both recorded, so a test can assert a client asked for nothing else.
"""

from __future__ import annotations

import base64
import hashlib
import http.server
import json
import socketserver
import tarfile
import threading
from pathlib import Path
from types import TracebackType
from typing import Any

# When the fixtures' packages were published, as the registry's `time` says: yarn 4 quarantines a
# version without a publication date older than its age gate.
PUBLISHED = "2020-12-08T00:00:00.000Z"


class NpmRegistry:
    def __init__(self, tarballs: list[Path]) -> None:
        self.requests: list[tuple[str, str]] = []  # (method, path), in order
        self._packages: dict[str, dict[str, tuple[dict[str, Any], bytes]]] = {}
        for path in tarballs:
            data = path.read_bytes()
            with tarfile.open(path) as archive:
                member = archive.extractfile("package/package.json")
                assert member is not None, f"{path}: no package/package.json"
                manifest = json.loads(member.read())
            self._packages.setdefault(manifest["name"], {})[manifest["version"]] = (manifest, data)
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
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def _answer(self, path: str) -> tuple[int, bytes, str]:
        name = path.strip("/").replace("%2f", "/").replace("%2F", "/")
        if "/-/" in name:
            package, _, file = name.partition("/-/")
            for manifest, data in self._packages.get(package, {}).values():
                if file == _tarball_name(manifest):
                    return 200, data, "application/octet-stream"
            return 404, b'{"error":"not found"}', "application/json"
        versions = self._packages.get(name)
        if versions is None:
            return 404, b'{"error":"not found"}', "application/json"
        latest = max(versions, key=lambda v: tuple(int(part) for part in v.split(".")))
        packument = {
            "name": name,
            "dist-tags": {"latest": latest},
            "time": {"created": PUBLISHED, "modified": PUBLISHED, **dict.fromkeys(versions, PUBLISHED)},
            "versions": {version: self._version(manifest, data) for version, (manifest, data) in versions.items()},
        }
        return 200, json.dumps(packument).encode(), "application/json"

    def _version(self, manifest: dict[str, Any], data: bytes) -> dict[str, Any]:
        dist = {
            "tarball": f"{self.url}{manifest['name']}/-/{_tarball_name(manifest)}",
            "integrity": "sha512-" + base64.b64encode(hashlib.sha512(data).digest()).decode(),
            "shasum": hashlib.sha1(data).hexdigest(),
        }
        return {**manifest, "_id": f"{manifest['name']}@{manifest['version']}", "dist": dist}

    def __enter__(self) -> NpmRegistry:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._server.shutdown()
        self._server.server_close()


def _tarball_name(manifest: dict[str, Any]) -> str:
    return f"{manifest['name'].rsplit('/', 1)[-1]}-{manifest['version']}.tgz"
