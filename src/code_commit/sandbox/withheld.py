"""What a build is never given: the variables of code-commit's environment no table allows, and
the credential stores of the home directory. One declaration each: the runner reads the first, the
sandbox the second.

The build runs the model's code, and everything it prints goes to the model in the next repair
prompt; censoring recognises a secret only as the exact string (and a few encodings), never a
reversed or base64-encoded one. So a secret must not reach the build at all:

- its environment is an allowlist (`sandbox.allowlist`: the basics and each toolchain's own
  variables, from tables with their sources), and of those, none whose name looks secret
  (`config.secrets.looks_secret`) or whose value holds a credential (`value_secrets`: a URL's
  password, `password=`, a bearer token...), and never an agent socket (`SSH_AUTH_SOCK`), a provider
  key or a `CODE_COMMIT_*` setting. `build_env` passes a variable on purpose (a registry's token:
  never a provider key or a setting); `redact_env` withholds one the tables allow;
- in the sandbox, the home is an empty tmpfs but for the toolchains' folders (`allowlist`), and each
  credential store below that a build could still see (in a toolchain's folder, a `sandbox_visible`
  one, a writable one, or outside the home) is hidden: a folder becomes an empty tmpfs, a file an
  empty file, or, where a tool refuses an empty one (Maven's settings.xml), the least it parses.
  `sandbox_hidden` adds more, `sandbox_visible` names one of these the build sees after all (a
  registry's settings a build cannot do without).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from code_commit.config.secrets import looks_secret, value_secrets
from code_commit.credentials import CHILD_SCRUBBED_ENV, CLOUD_FILE_ENV, cloud_credential_folders
from code_commit.sandbox.allowlist import allowed
from code_commit.sandbox.home import EVERYTHING_READ_ONLY, HomeView

_SETTINGS_PREFIX = "CODE_COMMIT_"
# Variables that hand the build a credential without holding one: an agent that signs or decrypts
# with the user's keys for whoever asks.
_CREDENTIAL_CHANNELS = ("SSH_AUTH_SOCK", "GPG_AGENT_INFO")


# Variables that name a credential store elsewhere than its default place (KUBECONFIG: a list).
_STORE_VARIABLES = ("KUBECONFIG", "DOCKER_CONFIG", "NPM_CONFIG_USERCONFIG", "npm_config_userconfig", *CLOUD_FILE_ENV)


@dataclass(frozen=True)
class Store:
    """A credential store, as a path under the home directory (a glob: `~/.cargo/credentials*`)."""

    pattern: str
    stand_in: str = ""  # what a hidden file reads as: empty, or the least its tool parses


# The home directory's credential stores, hidden from every sandboxed build. The first pattern that
# names a path decides its stand-in.
CREDENTIAL_STORES = (
    Store("~/.ssh"),
    Store("~/.gnupg"),
    Store("~/.aws"),
    Store("~/.azure"),
    Store("~/.config/gcloud"),
    Store("~/.config/gh"),
    Store("~/.config/hub"),
    Store("~/.kube"),
    Store("~/.docker"),
    Store("~/.netrc"),
    Store("~/.git-credentials"),
    Store("~/.config/git/credentials"),
    Store("~/.pypirc"),
    Store("~/.npmrc"),
    Store("~/.yarnrc.yml"),
    Store("~/.gem/credentials"),
    Store("~/.cargo/credentials*"),
    Store("~/.m2/settings-security.xml", "<settingsSecurity/>\n"),
    Store("~/.m2/settings*.xml", "<settings/>\n"),
    Store("~/.gradle/gradle.properties"),
    Store("~/.vault-token"),
    Store("~/.config/rclone"),
    Store("~/.s3cfg"),
    Store("~/.terraform.d/credentials.tfrc.json"),
    Store("~/.password-store"),
    Store("~/.config/helm"),
)


@dataclass(frozen=True)
class _Hidden:
    """What a sandboxed build sees in place of the credential stores that exist (real paths)."""

    folders: tuple[Path, ...] = ()  # each an empty tmpfs
    files: tuple[tuple[Path, str], ...] = ()  # each an empty file (or its stand-in), read-only


def build_environment(env: Mapping[str, str], passed: Iterable[str] = (), named: Iterable[str] = ()) -> dict[str, str]:
    """The build's environment: the variables of `env` the tables allow, without a secret, and those
    `passed` (build_env) names; `named` (redact_env): more variables to withhold. NO_COLOR=1: a
    model reads the output."""
    passed, named = frozenset(passed), frozenset(named)
    kept = {name: value for name, value in env.items() if given(name, value, passed, named)}
    return {**kept, "NO_COLOR": "1"}


def given(name: str, value: str, passed: frozenset[str] = frozenset(), named: frozenset[str] = frozenset()) -> bool:
    """Whether the build gets the variable."""
    if name in CHILD_SCRUBBED_ENV or name.startswith(_SETTINGS_PREFIX):
        return False  # never, whatever build_env says (settings refuses such a build_env)
    if name in passed:
        return True
    if name in named or name in _CREDENTIAL_CHANNELS or looks_secret(name) or value_secrets(value):
        return False
    return allowed(name)


def hidden_stores(
    extra: Sequence[str] = (),
    visible: Sequence[str] = (),
    home: str | None = None,
    keep: Sequence[Path] = (),
    view: HomeView = EVERYTHING_READ_ONLY,
) -> _Hidden:
    """The credential stores that exist, and the `extra` paths (sandbox_hidden), by their real paths,
    but those a `visible` path (sandbox_visible) names, and those holding a `keep` path (the project,
    a writable path: a tmpfs there would hide it from the build). A symlinked store is hidden where
    it leads, which is what reading the link reaches. `view`: what the build sees of the homes; a
    store the empty homes hide already (not in a folder bound back, nor in a `keep` path) is left
    out, and the stores of each home are looked for."""
    home = os.path.expanduser("~") if home is None else home
    shown = [_real(path, home) for path in visible]
    kept = [Path(os.path.realpath(path)) for path in keep]
    seen = HomeView(view.homes, (*view.shown, *kept), also_empty=view.also_empty)  # what the build sees there
    folders: dict[Path, None] = {}
    files: dict[Path, str] = {}
    clouds = (Store(glob.escape(str(folder))) for folder in cloud_credential_folders({**os.environ, "HOME": home}))
    named = (Store(glob.escape(path)) for path in _named_stores(os.environ))
    stores = (*CREDENTIAL_STORES, *clouds, *named, *(Store(path) for path in extra))
    for store, each in ((store, each) for store in stores for each in dict.fromkeys([home, *map(str, view.homes)])):
        for match in sorted(glob.glob(_expand(store.pattern, glob.escape(each)))):
            real = Path(os.path.realpath(match))
            if real in shown or any(k == real or real in k.parents for k in kept) or seen.hides(real):
                continue
            if real.is_dir():
                folders.setdefault(real)
            elif real.is_file():
                files.setdefault(real, store.stand_in)

    def outside_folders(path: Path) -> bool:  # what a hidden folder holds is hidden with it
        return not any(folder in path.parents for folder in folders)

    return _Hidden(
        tuple(f for f in folders if outside_folders(f)),
        tuple((path, stand_in) for path, stand_in in files.items() if outside_folders(path)),
    )


def _named_stores(env: Mapping[str, str]) -> list[str]:
    """The credential files and folders `_STORE_VARIABLES` name, wherever they are (absolute paths)."""
    values = (env.get(name, "") for name in _STORE_VARIABLES)
    return [path for value in values for path in value.split(os.pathsep) if path.startswith("/")]


def _expand(path: str, home: str) -> str:
    return home + path[1:] if path == "~" or path.startswith("~/") else path


def _real(path: str, home: str) -> Path:
    return Path(os.path.realpath(_expand(path, home)))
