"""The `sandbox_network` setting: which hosts a sandboxed build may reach, by name.

`false` (the default): none, the build has no network at all. `true`: every host, the whole network.
A list: registry presets (REGISTRIES) and host patterns, reached only through code-commit's proxy
(sandbox/proxy.py), which refuses every other host:

- `example.com`: that name, on ports 80 and 443; `example.com:8443`: on that port only;
- `*.example.com`: any name under example.com (not example.com itself);
- `127.0.0.1:8080`, `[::1]:8080`, `localhost:8080`: an address, or `localhost`, named explicitly. Only
  then may the proxy connect to a loopback, link-local or private address: a name that resolves to
  one is refused unless an entry names that address.

Pure: checked when the settings load (a bad entry is a setup error, exit 2), read again by the proxy.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass

_DEFAULT_PORTS = frozenset({80, 443})  # a host named without a port: http:// and https://
_HTTPS = frozenset({443})
LOCALHOST = "localhost"
_MAX_NAME = 253  # characters of a DNS name
_LABEL = re.compile(r"(?!-)[a-z0-9-]{1,63}(?<!-)")


@dataclass(frozen=True)
class _RegistryHost:
    host: str
    source: str  # where the registry says it serves from


# The hosts each registry's client reaches by default, each with where that is documented.
_REGISTRIES: dict[str, tuple[_RegistryHost, ...]] = {
    "pypi": (
        _RegistryHost("pypi.org", "https://pypi.org/simple/ (pip's and uv's default index)"),
        _RegistryHost(
            "files.pythonhosted.org", "https://docs.pypi.org/api/ (the files the index links to are served there)"
        ),
    ),
    "npm": (
        _RegistryHost("registry.npmjs.org", "https://docs.npmjs.com/cli/using-npm/config#registry (npm's and pnpm's)"),
        _RegistryHost("registry.yarnpkg.com", "https://yarnpkg.com/configuration/yarnrc#npmRegistryServer (yarn's)"),
    ),
    "crates": (
        _RegistryHost(
            "index.crates.io", "https://doc.rust-lang.org/cargo/reference/registry-index.html (sparse index)"
        ),
        _RegistryHost("static.crates.io", "https://index.crates.io/config.json (dl: the crate downloads)"),
        _RegistryHost("crates.io", "https://index.crates.io/config.json (api)"),
    ),
    "maven": (
        _RegistryHost(
            "repo.maven.apache.org", "https://maven.apache.org/ref/current/maven-model-builder/super-pom.html"
        ),
        _RegistryHost("repo1.maven.org", "https://repo1.maven.org/maven2/ (Maven Central's other name)"),
    ),
    "go": (
        _RegistryHost("proxy.golang.org", "https://go.dev/ref/mod#goproxy-protocol (GOPROXY's default)"),
        _RegistryHost("sum.golang.org", "https://go.dev/ref/mod#checksum-database (GOSUMDB's default)"),
        _RegistryHost(
            "storage.googleapis.com",
            "https://github.com/golang/go/issues/52908 (proxy.golang.org redirects some downloads there)",
        ),
    ),
}


@dataclass(frozen=True)
class _HostRule:
    """One host a build may reach: a name, a `*.` pattern or an address, on some ports."""

    pattern: str  # lower case; an address in its compressed form
    ports: frozenset[int]
    entry: str  # the setting's entry it came from: a preset's name or the pattern as written

    @property
    def address(self) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
        return _address(self.pattern)

    def matches(self, host: str, port: int) -> bool:
        """Whether `host` (lower case; an address compressed) on `port` is this rule's."""
        if port not in self.ports:
            return False
        if self.pattern.startswith("*."):
            return host.endswith(self.pattern[1:]) and _address(host) is None
        return host == self.pattern


@dataclass(frozen=True)
class NetworkAccess:
    """What `sandbox_network` allows: everything, nothing, or the hosts of `rules`."""

    everything: bool
    rules: tuple[_HostRule, ...] = ()

    @property
    def proxied(self) -> bool:
        """The build reaches the named hosts through the proxy, and nothing else."""
        return not self.everything and bool(self.rules)

    def rule_for(self, host: str, port: int) -> _HostRule | None:
        return next((rule for rule in self.rules if rule.matches(host, port)), None)

    def named_addresses(self) -> frozenset[ipaddress.IPv4Address | ipaddress.IPv6Address]:
        """The addresses entries name: the only loopback, link-local or private ones reachable."""
        return frozenset(address for rule in self.rules if (address := rule.address) is not None)

    def names_loopback(self, host: str) -> bool:
        """Whether the build reaches `host`, a name for the sandbox's own loopback, through the proxy:
        only where an entry names it (the host's loopback, then: a test's fake registry)."""
        return any(rule.pattern == canonical_host(host) for rule in self.rules)


NO_NETWORK = NetworkAccess(False)
_WHOLE_NETWORK = NetworkAccess(True)


def network_access(value: bool | list[str]) -> NetworkAccess:
    """The setting's value, parsed; ValueError says what is wrong with the first bad entry."""
    if isinstance(value, bool):
        return _WHOLE_NETWORK if value else NO_NETWORK
    rules: list[_HostRule] = []
    for entry in value:
        rules += _rules(entry.strip())
    return NetworkAccess(False, tuple(rules))


def network_problem(value: bool | list[str]) -> str | None:
    try:
        network_access(value)
    except ValueError as exc:
        return str(exc)
    return None


def canonical_host(host: str) -> str:
    """A host as rules hold it: lower case, without a trailing dot or IPv6 brackets, an address compressed."""
    host = host.lower().removesuffix(".")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    address = _address(host)
    return host if address is None else str(address)


def registry_of(host: str) -> str | None:
    """The preset `host` belongs to, if any: the entry to suggest for it."""
    host = canonical_host(host)
    return next((name for name, hosts in _REGISTRIES.items() if any(h.host == host for h in hosts)), None)


def _rules(entry: str) -> list[_HostRule]:
    if entry.lower() in _REGISTRIES:
        return [_HostRule(h.host, _HTTPS, entry.lower()) for h in _REGISTRIES[entry.lower()]]
    if "/" in entry:
        raise ValueError(f"{entry!r} is a URL: name its host alone (example.com)")
    host, ports = _split_port(entry)
    problem = _host_problem(host)
    if problem is not None:
        raise ValueError(
            f"{entry!r} is {problem}; an entry is a registry ({', '.join(_REGISTRIES)}), a host name "
            "(example.com, *.example.com), an address (127.0.0.1) or localhost, with :PORT if need be"
        )
    return [_HostRule(canonical_host(host), ports, entry)]


def _split_port(entry: str) -> tuple[str, frozenset[int]]:
    """`host:port` -> (host, {port}); a bare host -> (host, _DEFAULT_PORTS). `[v6]:port` and a bare IPv6."""
    if entry.startswith("["):
        host, _, rest = entry.partition("]")
        host += "]"
        if rest and not rest.startswith(":"):
            raise ValueError(f"{entry!r} is not an address: after ] comes :PORT or nothing")
        port = rest[1:] if rest else None
    elif entry.count(":") == 1:
        host, _, port = entry.partition(":")
    else:
        host, port = entry, None
    if port is None:
        return host, _DEFAULT_PORTS
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"{entry!r} has no port number from 1 to 65535 after its colon")
    return host, frozenset({int(port)})


def _host_problem(host: str) -> str | None:
    if not host:
        return "empty"
    if host.startswith("[") and host.endswith("]"):
        return None if isinstance(_address(host[1:-1]), ipaddress.IPv6Address) else "not an IPv6 address"
    if _address(host) is not None:
        return None
    name = host.lower().removesuffix(".")
    if name in ("*", "*.") or name.startswith("*.*"):
        return "a pattern of every host: sandbox_network = true says so, knowingly"
    labels = name.removeprefix("*.").split(".")
    if len(name) > _MAX_NAME or not all(_LABEL.fullmatch(label) for label in labels):
        return "not a host name"
    if name.startswith("*.") and len(labels) < 2:
        return "a pattern of a whole top-level domain"
    if len(labels) < 2 and name != LOCALHOST:
        return "no registry code-commit knows, nor a host's full name (a name without a dot)"
    return None


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None
