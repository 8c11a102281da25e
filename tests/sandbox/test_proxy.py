"""code-commit's network proxy (sandbox/proxy.py), spoken to on its Unix socket as the bridge in the
sandbox speaks to it: the hosts sandbox_network names pass, and nothing else does. Loopback only: a
host that is not 127.0.0.1 is refused before any lookup, or resolved by a resolver the test gives."""

from __future__ import annotations

import contextlib
import socket
import socketserver
import stat
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from code_commit.config.sandbox_network import network_access
from code_commit.sandbox.proxy import Proxy, Refusal
from code_commit.sandbox.proxy import serving as serving_proxy


class Echo(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        while data := self.request.recv(65536):
            self.request.sendall(data)


class Recorder(socketserver.StreamRequestHandler):
    """A plain-HTTP server that records each request's head and answers it."""

    heads: ClassVar[list[bytes]] = []

    def handle(self) -> None:
        head = b""
        while not head.endswith(b"\r\n\r\n"):
            head += self.rfile.readline()
        Recorder.heads.append(head)
        self.wfile.write(b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello")


@pytest.fixture
def echo() -> Iterator[int]:
    with socketserver.ThreadingTCPServer(("127.0.0.1", 0), Echo) as server:
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True).start()
        yield server.server_address[1]
        server.shutdown()


@pytest.fixture
def web() -> Iterator[int]:
    Recorder.heads = []
    with socketserver.ThreadingTCPServer(("127.0.0.1", 0), Recorder) as server:
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, args=(0.01,), daemon=True).start()
        yield server.server_address[1]
        server.shutdown()


def serving(tmp_path: Path, entries: list[str], **limits: object) -> Proxy:
    folder = tmp_path / "proxy"
    folder.mkdir(mode=0o700)
    proxy = Proxy(network_access(entries), folder, **limits)  # type: ignore[arg-type]
    proxy.start()
    return proxy


@pytest.fixture
def proxies(tmp_path: Path) -> Iterator[list[Proxy]]:
    started: list[Proxy] = []
    yield started
    for proxy in started:
        proxy.close()


def connect(proxy: Proxy) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.settimeout(30)
    sock.connect(str(proxy.socket_path))
    return sock


def ask(proxy: Proxy, request: bytes) -> tuple[socket.socket, bytes]:
    """Send `request`; the reply's head (and what came with it)."""
    sock = connect(proxy)
    sock.sendall(request)
    reply = b""
    while b"\r\n\r\n" not in reply and (chunk := sock.recv(65536)):
        reply += chunk
    return sock, reply


def whole_reply(sock: socket.socket, reply: bytes) -> bytes:
    """The rest of the reply, until the proxy closes (a reset where it left a request unread)."""
    with contextlib.suppress(ConnectionResetError):
        while chunk := sock.recv(65536):
            reply += chunk
    sock.close()
    return reply


def test_connect_to_a_named_host_and_port_opens_a_tunnel(tmp_path: Path, proxies: list[Proxy], echo: int) -> None:
    proxy = serving(tmp_path, [f"127.0.0.1:{echo}"])
    proxies.append(proxy)

    sock, reply = ask(proxy, f"CONNECT 127.0.0.1:{echo} HTTP/1.1\r\nHost: 127.0.0.1:{echo}\r\n\r\n".encode())
    sock.sendall(b"bytes both ways")
    echoed = sock.recv(100)
    sock.close()

    assert reply == b"HTTP/1.1 200 Connection Established\r\n\r\n"
    assert echoed == b"bytes both ways"
    assert proxy.refusals == []


def test_a_host_no_entry_names_is_refused_with_a_reason_and_recorded(tmp_path: Path, proxies: list[Proxy]) -> None:
    looked_up: list[str] = []
    proxy = serving(tmp_path, ["pypi", "*.example.com"], resolver=lambda host, port: looked_up.append(host) or [])
    proxies.append(proxy)

    sock, reply = ask(proxy, b"CONNECT evil.example.org:443 HTTP/1.1\r\n\r\n")
    body = whole_reply(sock, reply)

    assert body.startswith(b"HTTP/1.1 403 Forbidden\r\n")
    assert body.endswith(b"code-commit's proxy: evil.example.org:443 is not in sandbox_network: the proxy refuses "
                         b"every host it does not name\n")  # fmt: skip
    assert proxy.refusals == [Refusal("evil.example.org", 443, "not in sandbox_network")]
    assert looked_up == [], "a host no entry names is never even looked up"


@pytest.mark.parametrize(
    ("request_line", "refused"),
    [
        (b"CONNECT 93.184.216.34:443", Refusal("93.184.216.34", 443, "not in sandbox_network")),
        (b"CONNECT [2606:2800:220:1::]:443", Refusal("2606:2800:220:1::", 443, "not in sandbox_network")),
        (b"CONNECT 169.254.169.254:80", Refusal("169.254.169.254", 80, "not in sandbox_network")),
        (b"GET http://169.254.169.254/latest/meta-data/", Refusal("169.254.169.254", 80, "not in sandbox_network")),
        (b"CONNECT pypi.org:22", Refusal("pypi.org", 22, "not in sandbox_network")),  # a named host, another port
        (b"CONNECT example.com:443", Refusal("example.com", 443, "not in sandbox_network")),  # *. is below it only
    ],
)
def test_an_address_or_a_port_no_entry_names_is_refused(
    tmp_path: Path, proxies: list[Proxy], request_line: bytes, refused: Refusal
) -> None:
    proxy = serving(tmp_path, ["pypi", "*.example.com"], resolver=lambda host, port: ["93.184.216.34"])
    proxies.append(proxy)

    sock, reply = ask(proxy, request_line + b" HTTP/1.1\r\n\r\n")
    whole_reply(sock, reply)

    assert reply.startswith(b"HTTP/1.1 403 Forbidden\r\n")
    assert proxy.refusals == [refused]


@pytest.mark.parametrize("address", ["169.254.169.254", "127.0.0.1", "10.0.0.8", "192.168.1.1", "::1", "fd00::1"])
def test_a_named_host_that_resolves_to_a_private_address_is_refused(
    tmp_path: Path, proxies: list[Proxy], address: str, echo: int
) -> None:
    """DNS an attacker controls may point an allowed name at the cloud's metadata service or the host."""
    proxy = serving(tmp_path, [f"metadata.example.com:{echo}"], resolver=lambda host, port: [address])
    proxies.append(proxy)

    sock, reply = ask(proxy, f"CONNECT metadata.example.com:{echo} HTTP/1.1\r\n\r\n".encode())
    body = whole_reply(sock, reply)

    assert reply.startswith(b"HTTP/1.1 403 Forbidden\r\n"), body
    assert f"resolves to {address}".encode() in body
    assert [refusal.host for refusal in proxy.refusals] == ["metadata.example.com"]


def test_an_address_an_entry_names_is_reachable_by_a_name_that_resolves_to_it(
    tmp_path: Path, proxies: list[Proxy], echo: int
) -> None:
    proxy = serving(
        tmp_path, [f"registry.example.com:{echo}", "127.0.0.1:1"], resolver=lambda host, port: ["127.0.0.1"]
    )
    proxies.append(proxy)

    sock, reply = ask(proxy, f"CONNECT registry.example.com:{echo} HTTP/1.1\r\n\r\n".encode())
    sock.close()

    assert reply.startswith(b"HTTP/1.1 200 "), reply


def test_localhost_named_reaches_the_hosts_loopback(tmp_path: Path, proxies: list[Proxy], echo: int) -> None:
    proxy = serving(tmp_path, [f"localhost:{echo}"], resolver=lambda host, port: ["127.0.0.1"])
    proxies.append(proxy)

    sock, reply = ask(proxy, f"CONNECT localhost:{echo} HTTP/1.1\r\n\r\n".encode())
    sock.sendall(b"ping")
    echoed = sock.recv(10)
    sock.close()

    assert reply.startswith(b"HTTP/1.1 200 ") and echoed == b"ping"


def test_a_plain_http_get_is_sent_to_the_host_checked_without_the_proxy_headers(
    tmp_path: Path, proxies: list[Proxy], web: int
) -> None:
    proxy = serving(tmp_path, [f"127.0.0.1:{web}"])
    proxies.append(proxy)
    request = (
        f"GET http://127.0.0.1:{web}/simple/demo/?x=1 HTTP/1.1\r\nHost: evil.example.org\r\n"
        "Proxy-Authorization: Basic c2VjcmV0\r\nProxy-Connection: keep-alive\r\nAccept: text/html\r\n\r\n"
    )

    sock, reply = ask(proxy, request.encode())
    body = whole_reply(sock, reply)

    assert body.startswith(b"HTTP/1.1 200 OK") and body.endswith(b"hello")
    (head,) = Recorder.heads
    assert head.startswith(b"GET /simple/demo/?x=1 HTTP/1.1\r\n")
    assert b"Proxy-" not in head and b"Accept: text/html\r\n" in head and b"Connection: close\r\n" in head
    assert f"Host: 127.0.0.1:{web}\r\n".encode() in head and b"evil" not in head, "the host it checked, only"


@pytest.mark.parametrize("method", [b"POST", b"PUT", b"DELETE"])
def test_a_plain_http_request_other_than_get_or_head_is_refused(
    tmp_path: Path, proxies: list[Proxy], web: int, method: bytes
) -> None:
    proxy = serving(tmp_path, [f"127.0.0.1:{web}"])
    proxies.append(proxy)

    sock, reply = ask(proxy, method + f" http://127.0.0.1:{web}/upload HTTP/1.1\r\n\r\n".encode())
    whole_reply(sock, reply)

    assert reply.startswith(b"HTTP/1.1 405 ") and Recorder.heads == []


def test_a_request_head_over_the_limit_is_answered_431_after_that_many_bytes(
    tmp_path: Path, proxies: list[Proxy]
) -> None:
    proxy = serving(tmp_path, ["pypi"], max_header_bytes=1024)
    proxies.append(proxy)
    sock = connect(proxy)
    sock.sendall(b"CONNECT pypi.org:443 HTTP/1.1\r\nX-Padding: " + b"a" * 4000)  # never ends its head

    body = whole_reply(sock, b"")

    assert body.startswith(b"HTTP/1.1 431 ") and b"over 1,024 bytes" in body
    assert proxy.refusals == []


def test_clients_that_never_send_anything_hold_no_more_than_the_connection_limit(
    tmp_path: Path, proxies: list[Proxy], echo: int
) -> None:
    proxy = serving(tmp_path, [f"127.0.0.1:{echo}"], max_connections=3)
    proxies.append(proxy)
    silent = [connect(proxy) for _ in range(3)]

    body = whole_reply(connect(proxy), b"")  # one more, silent too: turned away at once, unread

    assert body.startswith(b"HTTP/1.1 503 ") and b"3 connections open" in body
    assert proxy.turned_away == 1
    for sock in silent:
        sock.close()


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET /relative HTTP/1.1\r\n\r\n",  # a server's request, no proxy's
        b"CONNECT pypi.org HTTP/1.1\r\n\r\n",  # no port
        b"CONNECT pypi.org:443\r\n\r\n",  # no version
        b"GET https://pypi.org/ HTTP/1.1\r\n\r\n",  # https goes through CONNECT
        b"CONNECT pypi.org%0a:443 HTTP/1.1\r\n\r\n",  # no host name
    ],
)
def test_a_malformed_request_is_a_400_and_no_refusal(
    tmp_path: Path, proxies: list[Proxy], request_bytes: bytes
) -> None:
    proxy = serving(tmp_path, ["pypi"])
    proxies.append(proxy)

    sock, reply = ask(proxy, request_bytes)
    whole_reply(sock, reply)

    assert reply.startswith(b"HTTP/1.1 400 ") and proxy.refusals == []


def test_a_refusal_suggests_the_entry_to_add_never_the_whole_network() -> None:
    assert Refusal("files.pythonhosted.org", 443, "").entry() == "pypi"
    assert Refusal("api.example.com", 443, "").entry() == "api.example.com"
    assert Refusal("127.0.0.1", 8080, "").entry() == "127.0.0.1:8080"
    assert Refusal("::1", 8080, "").entry() == "[::1]:8080"


def test_the_proxy_listens_only_in_a_private_folder_and_only_while_it_serves() -> None:
    with serving_proxy(network_access(["pypi"])) as proxy:
        folder = proxy.socket_path.parent
        mode = stat.S_IMODE(folder.stat().st_mode)
        kind = stat.S_ISSOCK(proxy.socket_path.stat().st_mode)
        sock, reply = ask(proxy, b"CONNECT evil.example.org:443 HTTP/1.1\r\n\r\n")
        whole_reply(sock, reply)

    assert mode == 0o700 and kind
    assert reply.startswith(b"HTTP/1.1 403 ")
    assert not folder.exists(), "the socket and its folder are gone once the build has ended"
