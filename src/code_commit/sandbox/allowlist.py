"""What a build is given, by name: the environment variables it keeps and the folders of the home
it sees. Everything else is dropped (a variable) or hidden (the rest of the home, an empty tmpfs).

The tables are data, each entry with the documentation it comes from. An entry names:

- `variables`: names, or a prefix ending in `*` (`UV_*`), matched as written (case matters);
- `credentials`: the names among those that carry a credential (the tool's own documentation says
  so), matched in any case: never passed. A name that looks secret (`config.secrets.looks_secret`)
  or a value that holds a credential (`config.secrets.value_secrets`) is dropped whatever the table
  says: a second line, for the credential no table foresaw;
- `folders`: under the home (`~/...`, globs), shown read-only to a sandboxed build: a toolchain, its
  packages and its caches. Credential files inside them stay hidden (`withheld.CREDENTIAL_STORES`);
- `folder_variables`: variables whose value is such a folder wherever the user put it (CARGO_HOME),
  a cache among them (UV_CACHE_DIR): read-only as the rest, which the diagnosis then names.

What a build needs beyond these, `build_env` (a variable) and `sandbox_visible` (a home path) name.
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase


@dataclass(frozen=True)
class _Toolchain:
    name: str
    source: str  # the documentation the entries come from
    variables: tuple[str, ...] = ()
    credentials: tuple[str, ...] = ()
    folders: tuple[str, ...] = ()
    folder_variables: tuple[str, ...] = ()


# What any build needs, whatever its toolchain. Not DISPLAY, DBUS_SESSION_BUS_ADDRESS, SSH_AUTH_SOCK,
# XDG_RUNTIME_DIR (channels to the user's session and agents), nor XDG_CONFIG_HOME (the user's
# configuration, credentials included), nor GIT_* (GIT_CONFIG_PARAMETERS carries extra headers).
_BASICS = (
    _Toolchain(
        "the system",
        "https://pubs.opengroup.org/onlinepubs/9799919799/basedefs/V1_chap08.html",
        ("PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "LANGUAGE", "LC_*", "TERM", "TZ", "TMPDIR"),
    ),
    _Toolchain(
        "CI systems (GitHub Actions, GitLab CI: CI=true)",
        "https://docs.github.com/en/actions/reference/workflows-and-actions/variables",
        ("CI",),
    ),
    _Toolchain(
        "reproducible builds",
        "https://reproducible-builds.org/specs/source-date-epoch/",
        ("SOURCE_DATE_EPOCH",),
    ),
    _Toolchain(
        "the dynamic linker",
        "https://man7.org/linux/man-pages/man8/ld.so.8.html",
        ("LD_LIBRARY_PATH",),  # never LD_PRELOAD, LD_AUDIT: code injected into every program
    ),
    _Toolchain(
        "TLS certificate authorities (a company's own CA)",
        "https://docs.openssl.org/3.0/man7/openssl-env/",
        ("SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS"),
    ),
    _Toolchain(
        "git's certificate authorities (no other GIT_*: GIT_CONFIG_PARAMETERS carries http.extraheader)",
        "https://git-scm.com/docs/git-config#Documentation/git-config.txt-httpsslCAInfo",
        ("GIT_SSL_CAINFO", "GIT_SSL_CAPATH"),
    ),
    _Toolchain(
        "proxies (a proxy's URL with a password is dropped)",
        "https://everything.curl.dev/usingcurl/proxies/env.html",
        ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "no_proxy", "all_proxy"),
    ),
)

_TOOLCHAINS = (
    _Toolchain(
        "C and C++ compilers",
        "https://gcc.gnu.org/onlinedocs/gcc/Environment-Variables.html",
        (
            "CC",
            "CXX",
            "CPP",
            "AR",
            "CFLAGS",
            "CXXFLAGS",
            "CPPFLAGS",
            "LDFLAGS",
            "CPATH",
            "C_INCLUDE_PATH",
            "CPLUS_INCLUDE_PATH",
            "LIBRARY_PATH",
            "PKG_CONFIG_PATH",
            "CCACHE_DIR",
        ),
    ),
    _Toolchain("make", "https://www.gnu.org/software/make/manual/html_node/Options_002fRecursion.html", ("MAKEFLAGS",)),
    _Toolchain(
        "CMake",
        "https://cmake.org/cmake/help/latest/manual/cmake-env-variables.7.html",
        ("CMAKE_*",),
    ),
    _Toolchain(
        "Rust: cargo",
        "https://doc.rust-lang.org/cargo/reference/environment-variables.html",
        ("CARGO_*", "RUSTC", "RUSTC_WRAPPER", "RUSTDOC", "RUSTFLAGS", "RUSTDOCFLAGS", "RUST_BACKTRACE"),
        (
            "CARGO_REGISTRY_TOKEN",
            "CARGO_REGISTRIES_*_TOKEN",
            "CARGO_REGISTRY_CREDENTIAL_PROVIDER",
            "CARGO_REGISTRIES_*_CREDENTIAL_PROVIDER",
            "CARGO_REGISTRY_GLOBAL_CREDENTIAL_PROVIDERS",
        ),
        ("~/.cargo",),
        ("CARGO_HOME",),
    ),
    _Toolchain(
        "Rust: rustup",
        "https://rust-lang.github.io/rustup/environment-variables.html",
        ("RUSTUP_*",),
        (),
        ("~/.rustup",),
        ("RUSTUP_HOME",),
    ),
    _Toolchain(
        "Go",
        "https://pkg.go.dev/cmd/go#hdr-Environment_variables",
        (
            "GOPATH",
            "GOROOT",
            "GOBIN",
            "GOCACHE",
            "GOMODCACHE",
            "GOENV",
            "GOFLAGS",
            "GOOS",
            "GOARCH",
            "GOTOOLCHAIN",
            "GOPROXY",
            "GOPRIVATE",
            "GONOPROXY",
            "GONOSUMDB",
            "GOSUMDB",
            "GOINSECURE",
            "GOEXPERIMENT",
            "GO111MODULE",
            "GOWORK",
            "GOTMPDIR",
            "CGO_ENABLED",
            "CGO_CFLAGS",
            "CGO_CPPFLAGS",
            "CGO_CXXFLAGS",
            "CGO_LDFLAGS",
        ),
        ("GOAUTH",),  # Go 1.24: a command that prints credentials, or the credentials themselves
        ("~/go", "~/sdk"),  # GOPATH's default; `go install golang.org/dl/...` toolchains
        ("GOPATH", "GOROOT", "GOMODCACHE", "GOCACHE"),
    ),
    _Toolchain(
        "Java",
        "https://docs.oracle.com/en/java/javase/21/troubleshoot/environment-variables-and-system-properties.html",
        ("JAVA_HOME", "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS"),
        (),
        (),
        ("JAVA_HOME",),
    ),
    _Toolchain(
        "Maven (settings*.xml in ~/.m2 stays hidden: it holds the servers' passwords)",
        "https://maven.apache.org/configure.html",
        ("MAVEN_OPTS", "MAVEN_ARGS", "MAVEN_HOME", "M2_HOME"),
        (),
        ("~/.m2/repository",),
        ("MAVEN_HOME", "M2_HOME"),
    ),
    _Toolchain(
        "Gradle (never ORG_GRADLE_PROJECT_*: the project's properties, credentials among them)",
        "https://docs.gradle.org/current/userguide/build_environment.html",
        ("GRADLE_USER_HOME", "GRADLE_OPTS", "GRADLE_HOME"),
        (),
        ("~/.gradle/caches", "~/.gradle/wrapper"),
        ("GRADLE_HOME",),
    ),
    _Toolchain(
        "Python",
        "https://docs.python.org/3/using/cmdline.html#environment-variables",
        ("PYTHON*", "VIRTUAL_ENV"),
        (),
        ("~/.local/bin", "~/.local/lib/python*", "~/.cache/pip"),  # user installs (site.USER_BASE) and pip's cache
        ("VIRTUAL_ENV",),
    ),
    _Toolchain(
        "pip",
        "https://pip.pypa.io/en/stable/topics/configuration/#environment-variables",
        ("PIP_*",),
        ("PIP_CLIENT_CERT",),  # a certificate with its private key
        (),
        ("PIP_CACHE_DIR",),
    ),
    _Toolchain(
        "uv",
        "https://docs.astral.sh/uv/reference/environment/",
        ("UV_*",),
        ("UV_INDEX_*_PASSWORD", "UV_PUBLISH_TOKEN", "UV_PUBLISH_PASSWORD", "UV_GITHUB_TOKEN"),
        ("~/.local/share/uv",),  # its managed Pythons and tools (the cache is the project's own)
        ("UV_PYTHON_INSTALL_DIR", "UV_TOOL_DIR", "UV_CACHE_DIR"),
    ),
    _Toolchain(
        "Poetry",
        "https://python-poetry.org/docs/configuration/#using-environment-variables",
        ("POETRY_*",),
        ("POETRY_HTTP_BASIC_*", "POETRY_PYPI_TOKEN_*", "POETRY_CERTIFICATES_*_CLIENT_CERT"),
    ),
    _Toolchain(
        "pyenv",
        "https://github.com/pyenv/pyenv#environment-variables",
        ("PYENV_*",),
        (),
        ("~/.pyenv",),
        ("PYENV_ROOT",),
    ),
    _Toolchain(
        "pytest",
        "https://docs.pytest.org/en/stable/reference/reference.html#environment-variables",
        ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_DISABLE_PLUGIN_AUTOLOAD"),
    ),
    _Toolchain(
        "Node.js",
        "https://nodejs.org/api/cli.html#environment-variables",
        ("NODE_OPTIONS", "NODE_PATH", "NODE_ENV"),
        ("NODE_AUTH_TOKEN",),
    ),
    _Toolchain(
        "npm (npm_config_* in either case; the nerf-darted registry keys are its credentials)",
        "https://docs.npmjs.com/cli/v10/using-npm/config#environment-variables",
        ("npm_config_*", "NPM_CONFIG_*"),
        (
            "npm_config_*:*",
            "npm_config__*",
            "npm_config_-*",
            "npm_config_*auth*",
            "npm_config_*password*",
            "npm_config_*token*",
            "npm_config_key",
            "npm_config_otp",
            "npm_config_email",
            "npm_config_username",
        ),
        ("~/.npm",),  # its cache (read-only: npm reads it offline; the network on, the project's own)
        ("npm_config_cache", "NPM_CONFIG_CACHE"),
    ),
    _Toolchain(
        "nvm", "https://github.com/nvm-sh/nvm#install--update-script", ("NVM_*",), (), ("~/.nvm",), ("NVM_DIR",)
    ),
    _Toolchain(
        "corepack (pnpm and yarn's own versions)",
        "https://github.com/nodejs/corepack#environment-variables",
        ("COREPACK_*",),
        ("COREPACK_NPM_TOKEN", "COREPACK_NPM_PASSWORD", "COREPACK_NPM_USERNAME"),
        ("~/.cache/node/corepack",),
        ("COREPACK_HOME",),
    ),
    _Toolchain("pnpm", "https://pnpm.io/installation", ("PNPM_HOME",), (), ("~/.local/share/pnpm",), ("PNPM_HOME",)),
    _Toolchain(
        "yarn",
        "https://yarnpkg.com/configuration/yarnrc",
        ("YARN_*",),
        ("YARN_NPM_AUTH_*", "YARN_NPM_SCOPES_*", "YARN_NPM_REGISTRIES_*"),
        ("~/.yarn/berry/cache",),
    ),
)

TABLE = (*_BASICS, *_TOOLCHAINS)


def allowed(name: str) -> bool:
    """Whether a table names the variable and calls it no credential."""
    named = any(_named(name, entry.variables) for entry in TABLE)
    return named and not any(_named(name.lower(), [c.lower() for c in e.credentials]) for e in TABLE)


def home_folders() -> tuple[str, ...]:
    """Every toolchain folder under the home (`~/...`, globs), in the table's order."""
    return tuple(dict.fromkeys(folder for entry in TABLE for folder in entry.folders))


def folder_variables() -> tuple[str, ...]:
    return tuple(dict.fromkeys(name for entry in TABLE for name in entry.folder_variables))


def _named(name: str, patterns: tuple[str, ...] | list[str]) -> bool:
    return any(fnmatchcase(name, pattern) if "*" in pattern else name == pattern for pattern in patterns)
