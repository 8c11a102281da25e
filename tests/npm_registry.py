"""A loopback npm registry for tests: the packages in tests/fixtures/packages/*.tgz, served as the
npm registry serves them, to npm, pnpm and yarn on 127.0.0.1. Standard library only.

    with NpmRegistry([FIXTURES / "packages" / "ms-2.1.3.tgz"]) as registry:
        env["npm_config_registry"] = registry.url

Strict as the real one is where the clients depend on it: a packument (GET /<name>, with the
abbreviated-metadata Accept header or without) lists each version's manifest from its tarball's own
package.json, with `dist.tarball`, `dist.integrity` (sha512) and `dist.shasum` (sha1) computed from
the bytes served; GET /<name>/-/<file>.tgz serves the tarball. Any other path is a 404 and any
other method a 405, both recorded (registry_server.py), so a test can assert a client asked for nothing else.
"""

from __future__ import annotations

import base64
import hashlib
import json
import tarfile
from pathlib import Path
from typing import Any

from registry_server import RegistryServer

# When the fixtures' packages were published, as the registry's `time` says: yarn 4 quarantines a
# version without a publication date older than its age gate.
PUBLISHED = "2020-12-08T00:00:00.000Z"


class NpmRegistry(RegistryServer):
    def __init__(self, tarballs: list[Path]) -> None:
        self._packages: dict[str, dict[str, tuple[dict[str, Any], bytes]]] = {}
        for path in tarballs:
            data = path.read_bytes()
            with tarfile.open(path) as archive:
                member = archive.extractfile("package/package.json")
                assert member is not None, f"{path}: no package/package.json"
                manifest = json.loads(member.read())
            self._packages.setdefault(manifest["name"], {})[manifest["version"]] = (manifest, data)
        super().__init__()
        self.url = f"http://127.0.0.1:{self.port}/"

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


def _tarball_name(manifest: dict[str, Any]) -> str:
    return f"{manifest['name'].rsplit('/', 1)[-1]}-{manifest['version']}.tgz"
