"""code-commit's network proxy for a sandboxed build whose `sandbox_network` names hosts.

The build's sandbox has no network (bwrap --unshare-net). While the build runs, this proxy listens
on a Unix socket in a private (0700) folder on the host, bound into the sandbox, where the bridge
(sandbox/bridge.py) carries the build's connections to it from 127.0.0.1:PROXY_PORT. As Anthropic's
sandbox-runtime does on Linux, but with no socat: the bridge is a few lines of the host's Python.

It allows, to the hosts and ports `sandbox_network` names (config/sandbox_network.py), and nothing
else: CONNECT (a tunnel: https, whose bytes it never sees), and GET or HEAD of an http:// URL (a
plain-HTTP registry). It resolves the name itself and connects only to the addresses it checked: never
a loopback, link-local (169.254.169.254, a cloud's metadata) or private address, unless an entry
names that address, or `localhost`. Everything else is refused with a 403 and a one-line reason, and
recorded (`refusals`): the diagnosis of a failed build names the host from there, not from its output.

Bounded: MAX_CONNECTIONS at once (one more is answered 503), MAX_HEADER_BYTES of a request's head
(431), and IDLE_SECONDS without a byte either way ends a connection.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import selectors
import shutil
import socket
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from code_commit.config.sandbox_network import LOCALHOST, NetworkAccess, canonical_host, registry_of

_PROXY_PORT = 3128  # inside the sandbox, on its own loopback: below the ephemeral ports a build's sockets get
SANDBOX_SOCKET = Path("/tmp/.code-commit-proxy.sock")  # where the proxy's socket is bound in the sandbox
_MAX_CONNECTIONS = 128  # npm opens up to 15 an origin (maxsockets), pip and cargo a few
_MAX_HEADER_BYTES = 32 << 10  # a request's line and headers: a registry client's are under 1 KiB
_IDLE_SECONDS = 120.0  # without a byte either way (pip gives up after 15 s, cargo after 30 s)
_CONNECT_SECONDS = 30.0
_MAX_REFUSALS = 100  # distinct host:port refusals remembered; the rest are counted
_CHUNK = 64 << 10
_SOCKET_PATH_MAX = 100  # a Unix socket's path is at most 107 bytes
_HOST = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]_")

_Address = ipaddress.IPv4Address | ipaddress.IPv6Address
_Resolver = Callable[[str, int], Sequence[str]]


@dataclass(frozen=True)
class Refusal:
    """A connection the proxy refused: to a host no entry names, or to an address none does."""

    host: str
    port: int
    reason: str

    def entry(self) -> str:
        """What to add to sandbox_network to allow it: the host's registry, or the host (with its port
        unless it is 80 or 443)."""
        registry = registry_of(self.host)
        if registry is not None:
            return registry
        shown = f"[{self.host}]" if ":" in self.host else self.host
        return shown if self.port in (80, 443) else f"{shown}:{self.port}"


class _Answer(Exception):
    """A reply the proxy gives instead of a connection."""

    def __init__(self, status: int, reason: str, refusal: Refusal | None = None) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason
        self.refusal = refusal


_PHRASES = {
    400: "Bad Request",
    403: "Forbidden",
    405: "Method Not Allowed",
    431: "Request Header Fields Too Large",
    502: "Bad Gateway",
    503: "Service Unavailable",
}


def resolve(host: str, port: int) -> list[str]:
    return [str(info[4][0]) for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)]


class Proxy:
    """The proxy of one build: `start`, then `close` once the build has ended."""

    def __init__(
        self,
        access: NetworkAccess,
        folder: Path,
        *,
        max_connections: int = _MAX_CONNECTIONS,
        max_header_bytes: int = _MAX_HEADER_BYTES,
        idle_seconds: float = _IDLE_SECONDS,
        resolver: _Resolver = resolve,
    ) -> None:
        self.access = access
        self.socket_path = folder / "proxy.sock"
        self.max_connections = max_connections
        self.max_header_bytes = max_header_bytes
        self.idle_seconds = idle_seconds
        self.resolver = resolver
        self.refusals: list[Refusal] = []
        self.refused = 0  # every refusal, those beyond _MAX_REFUSALS included
        self.turned_away = 0  # connections answered 503: _MAX_CONNECTIONS were open
        self._lock = threading.Lock()
        self._open: set[socket.socket] = set()  # every socket a connection holds, to end them at close
        self._active = 0
        self._listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._wake_read, self._wake_write = os.pipe()
        self._thread = threading.Thread(target=self._accept_loop, name="code-commit proxy", daemon=True)

    def start(self) -> None:
        self._listener.bind(str(self.socket_path))
        self._listener.listen(self.max_connections)
        self._thread.start()

    def close(self) -> None:
        """Stop listening and end every connection still open."""
        os.write(self._wake_write, b"x")
        if self._thread.is_alive():
            self._thread.join()
        self._listener.close()
        os.close(self._wake_read)
        os.close(self._wake_write)
        with self._lock:
            for sock in self._open:
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)

    def _accept_loop(self) -> None:
        with selectors.DefaultSelector() as selector:
            selector.register(self._listener, selectors.EVENT_READ)
            selector.register(self._wake_read, selectors.EVENT_READ)
            while True:
                events = selector.select()
                if any(key.fileobj == self._wake_read for key, _ in events):
                    return
                try:
                    client, _ = self._listener.accept()
                except OSError:
                    continue
                with self._lock:
                    full = self._active >= self.max_connections
                    if not full:
                        self._active += 1
                        self._open.add(client)
                if full:
                    self.turned_away += 1
                    with contextlib.suppress(OSError):
                        client.setblocking(False)  # a fresh socket's buffer takes the reply whole
                        client.send(_reply(503, f"code-commit's proxy has {self.max_connections} connections open"))
                    client.close()
                    continue
                threading.Thread(target=self._serve, args=(client,), daemon=True).start()

    def _serve(self, client: socket.socket) -> None:
        upstream: socket.socket | None = None
        try:
            client.settimeout(self.idle_seconds)
            head, rest = self._read_head(client)
            upstream, first = self._open_upstream(head)
            self._hold(upstream)
            if first is None:  # CONNECT: the tunnel is open; what the client sent early goes through
                client.sendall(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            upstream.sendall((first or b"") + rest)
            _relay(client, upstream, self.idle_seconds)
        except _Answer as answer:
            if answer.refusal is not None:
                self._refuse(answer.refusal)
            with contextlib.suppress(OSError):
                client.sendall(_reply(answer.status, answer.reason))
        except OSError:
            pass
        finally:
            with self._lock:
                self._active -= 1
                self._open.discard(client)
                if upstream is not None:
                    self._open.discard(upstream)
            for sock in (client, upstream):
                if sock is not None:
                    sock.close()

    def _hold(self, sock: socket.socket) -> None:
        with self._lock:
            self._open.add(sock)

    def _refuse(self, refusal: Refusal) -> None:
        with self._lock:
            self.refused += 1
            known = any((r.host, r.port) == (refusal.host, refusal.port) for r in self.refusals)
            if not known and len(self.refusals) < _MAX_REFUSALS:
                self.refusals.append(refusal)

    def _read_head(self, client: socket.socket) -> tuple[bytes, bytes]:
        """The request's line and headers, and the bytes read after them; at most max_header_bytes."""
        data = b""
        while (end := data.find(b"\r\n\r\n")) < 0:
            if len(data) > self.max_header_bytes:
                raise _Answer(431, f"the request's head is over {self.max_header_bytes:,} bytes")
            chunk = client.recv(self.max_header_bytes + 1 - len(data) if len(data) < self.max_header_bytes else 4)
            if not chunk:
                raise OSError("the client closed the connection before its request's end")
            data += chunk
        if end > self.max_header_bytes:
            raise _Answer(431, f"the request's head is over {self.max_header_bytes:,} bytes")
        return data[: end + 4], data[end + 4 :]

    def _open_upstream(self, head: bytes) -> tuple[socket.socket, bytes | None]:
        """The connection to the host the request names, if allowed; and for a GET, the request to
        send it (None for CONNECT)."""
        lines = head.decode("latin-1").split("\r\n")
        parts = lines[0].split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
            raise _Answer(400, "not an HTTP/1 request")
        method, target, version = parts
        if method == "CONNECT":
            host, port = _authority(target)
            return self._connect(host, port), None
        url = urlsplit(target)
        if url.scheme != "http" or not url.hostname:
            raise _Answer(400, "a proxy request is CONNECT host:port, or GET of an http:// URL")
        if method not in ("GET", "HEAD"):
            raise _Answer(405, f"{method} is not allowed: code-commit's proxy passes GET and HEAD of http:// URLs")
        try:
            port = url.port or 80
        except ValueError as exc:
            raise _Answer(400, "the URL's port is no number") from exc
        upstream = self._connect(_checked_host(url.hostname), port)
        path = url.path or "/"
        kept = [line for line in lines[1:] if line and not _dropped(line)]
        authority = f"Host: {url.netloc.rpartition('@')[2]}"  # the host checked, whatever Host the client sent
        request = [f"{method} {path}{'?' + url.query if url.query else ''} {version}", authority, *kept]
        request.append("Connection: close")
        return upstream, ("\r\n".join(request) + "\r\n\r\n").encode("latin-1")

    def _connect(self, host: str, port: int) -> socket.socket:
        rule = self.access.rule_for(host, port)
        if rule is None:
            raise _Answer(
                403,
                f"{_shown(host, port)} is not in sandbox_network: the proxy refuses every host it does not name",
                Refusal(host, port, "not in sandbox_network"),
            )
        try:
            found = [ipaddress.ip_address(a.split("%", 1)[0]) for a in self.resolver(host, port)]
        except (OSError, ValueError) as exc:
            raise _Answer(502, f"{host} could not be resolved: {exc}") from exc
        allowed = [a for a in found if self._reachable(a, rule.pattern)]
        if not allowed:
            shown = found[0] if found else "no address"
            raise _Answer(
                403,
                f"{host} resolves to {shown}, a loopback, link-local or private address no sandbox_network entry names",
                Refusal(host, port, f"resolves to {shown}, an address no entry names"),
            )
        error: OSError | None = None
        for address in allowed:
            try:
                return socket.create_connection((str(address), port), timeout=_CONNECT_SECONDS)
            except OSError as exc:
                error = exc
        raise _Answer(502, f"{_shown(host, port)} could not be reached: {error}")

    def _reachable(self, address: _Address, pattern: str) -> bool:
        """A public address; else one an entry names, or loopback for an entry of `localhost`."""
        if address.is_global and not address.is_multicast:
            return True
        return address in self.access.named_addresses() or (pattern == LOCALHOST and address.is_loopback)


def _authority(target: str) -> tuple[str, int]:
    host, colon, port = target.rpartition(":")
    if not colon or not port.isdigit() or not 0 < int(port) < 65536:
        raise _Answer(400, "CONNECT names host:port")
    return _checked_host(host), int(port)


def _checked_host(host: str) -> str:
    """A host as the request names it, canonical, if it could be a name or an address at all: what
    is logged of it is bounded and printable."""
    if not host or len(host) > 255 or not set(host) <= _HOST:
        raise _Answer(400, "the request names no host")
    return canonical_host(host)


def _shown(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _dropped(header: str) -> bool:
    """Hop-by-hop headers of the proxy's own leg, the client's connection wishes (one request a
    connection, the server closes it after the response), and its Host: the URL's host is sent."""
    name = header.split(":", 1)[0].strip().lower()
    return name.startswith("proxy-") or name in ("connection", "keep-alive", "host")


def _reply(status: int, reason: str) -> bytes:
    body = f"code-commit's proxy: {reason}\n".encode()
    return (
        f"HTTP/1.1 {status} {_PHRASES[status]}\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\n"
        "Connection: close\r\n\r\n"
    ).encode() + body


def _relay(client: socket.socket, upstream: socket.socket, idle: float) -> None:
    """Bytes both ways until both ends have closed, or `idle` seconds pass without one."""
    for sock in (client, upstream):
        sock.settimeout(idle)  # a send that cannot go on for as long fails too
    with selectors.DefaultSelector() as selector:
        selector.register(client, selectors.EVENT_READ, upstream)
        selector.register(upstream, selectors.EVENT_READ, client)
        while selector.get_map():
            events = selector.select(idle)
            if not events:
                return
            for key, _ in events:
                source, target = key.fileobj, key.data
                assert isinstance(source, socket.socket)
                data = source.recv(_CHUNK)
                if data:
                    target.sendall(data)
                    continue
                selector.unregister(source)
                with contextlib.suppress(OSError):
                    target.shutdown(socket.SHUT_WR)


@contextlib.contextmanager
def serving(access: NetworkAccess) -> Iterator[Proxy]:
    """The proxy for one build, in a private folder made for it; gone when the block ends."""
    base = tempfile.gettempdir()
    if len(base) > _SOCKET_PATH_MAX - 40:
        base = "/tmp"
    folder = Path(tempfile.mkdtemp(prefix="code-commit-proxy-", dir=base))  # 0700
    try:
        proxy = Proxy(access, folder)
        proxy.start()
        try:
            yield proxy
        finally:
            proxy.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


# The variables that point the build's tools at the bridge. pip, uv, cargo, go, curl and git read the
# standard ones; npm, pnpm and yarn 1 read npm_config_* first (a user's .npmrc may name its own
# proxy, unreachable from the sandbox); Node's own fetch reads the standard ones with
# NODE_USE_ENV_PROXY (Node 24); Maven reads none of them: its transport takes Java's proxy
# properties once aether.connector.http.useSystemProperties says so, which MAVEN_OPTS gives it.
def proxy_env(access: NetworkAccess, maven_opts: str = "") -> list[tuple[str, str]]:
    url = f"http://127.0.0.1:{_PROXY_PORT}"
    own = [name for name in (LOCALHOST, "127.0.0.1", "::1") if not access.names_loopback(name)]
    no_proxy = ",".join(own)
    java_no_proxy = "|".join(own)
    java = (
        f"-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort={_PROXY_PORT} -Dhttps.proxyHost=127.0.0.1 "
        f"-Dhttps.proxyPort={_PROXY_PORT} -Dhttp.nonProxyHosts={java_no_proxy} "
        "-Daether.connector.http.useSystemProperties=true"
    )
    return [
        *((name, url) for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy")),
        ("NO_PROXY", no_proxy),
        ("no_proxy", no_proxy),
        ("npm_config_proxy", url),
        ("npm_config_https_proxy", url),
        ("npm_config_noproxy", no_proxy),
        ("YARN_HTTP_PROXY", url),
        ("YARN_HTTPS_PROXY", url),
        ("NODE_USE_ENV_PROXY", "1"),
        ("MAVEN_OPTS", f"{maven_opts} {java}".strip()),
    ]


def bridge_command(command: Sequence[str]) -> list[str]:
    """`command` run behind the bridge, by this interpreter itself (not a virtualenv's link to it)."""
    source = Path(__file__).with_name("bridge.py").read_text(encoding="utf-8")
    return [interpreter(), "-I", "-S", "-c", source, str(SANDBOX_SOCKET), str(_PROXY_PORT), *command]


def interpreter() -> str:
    return os.path.realpath(sys.executable)


def interpreter_home() -> Path:
    """The folder that holds the interpreter and its standard library: the bridge needs it in the sandbox."""
    return Path(os.path.realpath(sys.base_prefix))
