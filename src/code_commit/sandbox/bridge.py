"""The bridge inside the sandbox: the build's only way to code-commit's proxy (sandbox/proxy.py).

The sandbox has no network but its own loopback. The bridge listens on 127.0.0.1:PORT there, where
the build's HTTP_PROXY points, and carries each connection to the proxy's Unix socket, bound into
the sandbox. Then it execs build.sh, so that build.sh keeps the process bwrap watches: when
build.sh ends, bwrap ends the sandbox's PID namespace, and the bridge with it.

Run by the host's own Python, isolated (`-I -S -c`: this file's text, no site, no environment, no
project file on sys.path): standard library only, nothing of code-commit, and its C socket module
rather than `socket`, whose import alone took 45 ms of an 80 ms start. It is no boundary: the build
may talk to the socket itself. The proxy outside decides; the bridge only carries bytes.

    python -I -S -c "<this file>" SOCKET PORT COMMAND...
"""

import _socket
import errno
import os
import sys
import threading

_CHUNK = 65536
_BACKLOG = 128


def main(argv: list[str]) -> None:
    path, port, command = argv[0], int(argv[1]), argv[2:]
    listener = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM)
    listener.setsockopt(_socket.SOL_SOCKET, _socket.SO_REUSEADDR, 1)
    listener.bind(("127.0.0.1", port))  # before build.sh starts: its first request finds it listening
    listener.listen(_BACKLOG)
    child = os.fork()
    if child == 0:  # the bridge: forked again, so that it is no child of build.sh's shell (a `wait` there)
        if os.fork() == 0:
            _detach()
            _serve(listener, path)
        os._exit(0)
    os.waitpid(child, 0)
    listener.close()
    _exec(command)


def _detach() -> None:
    """No descriptor of the build's: its output pipe stays the build's own."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)


def _serve(listener: _socket.socket, path: str) -> None:
    while True:
        fd, _ = listener._accept()  # type: ignore[attr-defined]  # what socket.accept calls
        client = _socket.socket(_socket.AF_INET, _socket.SOCK_STREAM, 0, fd)
        threading.Thread(target=_carry, args=(client, path), daemon=True).start()


def _carry(client: _socket.socket, path: str) -> None:
    upstream = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        upstream.connect(path)
    except OSError:
        client.close()
        upstream.close()
        return
    back = threading.Thread(target=_pump, args=(upstream, client), daemon=True)
    back.start()
    _pump(client, upstream)
    back.join()
    client.close()
    upstream.close()


def _pump(source: _socket.socket, target: _socket.socket) -> None:
    """One direction, until its end: then the other side learns of it (a half close)."""
    try:
        while data := source.recv(_CHUNK):
            target.sendall(data)
    except OSError:
        pass
    for sock, how in ((target, _socket.SHUT_WR), (source, _socket.SHUT_RD)):
        try:  # noqa: SIM105 (contextlib's import costs the bridge's start 9 ms)
            sock.shutdown(how)
        except OSError:
            pass


def _exec(command: list[str]) -> None:
    """exec as bwrap does (execvp, and sh for a script without a #! line), and on failure say it as
    bwrap says it, which builds/runner.py tells from a build's output."""
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        if exc.errno == errno.ENOEXEC:
            try:
                os.execv("/bin/sh", ["/bin/sh", *command])
            except OSError as again:
                exc = again
        sys.stderr.write(f"bwrap: execvp {command[0]}: {os.strerror(exc.errno or errno.EACCES)}\n")
        sys.stderr.flush()
        os._exit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
