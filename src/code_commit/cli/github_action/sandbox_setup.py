"""The action's sandbox step: bubblewrap installed and able to make its namespaces on the runner.

On Ubuntu 24.04 (GitHub's `ubuntu-24.04` and `ubuntu-latest`) AppArmor lets an unprivileged program
create a user namespace only when a profile grants it `userns`; bwrap has none by default, and fails
with `setting up uid map: Permission denied`. The fix chosen is Ubuntu's documented per-program one:
a profile attached to the bwrap executable alone, `flags=(unconfined)` with the `userns` rule, loaded
with apparmor_parser. The alternatives were weighed:

- `sysctl kernel.apparmor_restrict_unprivileged_userns=0` turns the restriction off for every
  program on the runner for the rest of the job; the profile lifts it for bwrap only.
- The `bwrap-userns-restrict` profile from apparmor's extra profiles also takes every capability
  from what bwrap starts; Ubuntu shipped it in noble and reverted it (it broke Flatpak), and it is
  not what code-commit's sandbox was tried under.

The profile is added only when the probe (the one a run makes, `bubblewrap.probe`) fails, the
restriction is on, and no profile in /etc/apparmor.d attaches to that bwrap already (two profiles
attached to one path conflict, and bwrap then fails for both); afterwards the probe is run again,
since a profile that parsed is not yet one that works. This step never fails the job: whatever it
could not fix, code-commit itself reports (with `sandbox: require`, exit 2 and its record).
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from code_commit.sandbox.bubblewrap import find_bwrap, probe

PROFILE_NAME = "code-commit-bwrap"
PROFILES = Path("/etc/apparmor.d")
_RESTRICTION = Path("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")
_APT_ENV = {"DEBIAN_FRONTEND": "noninteractive"}


def profile_text(bwrap: str) -> str:
    return (
        "# Written by code-commit's GitHub Action: bubblewrap may create user namespaces (Ubuntu 24.04+).\n"
        "abi <abi/4.0>,\n"
        "include <tunables/global>\n"
        "\n"
        f"profile {PROFILE_NAME} {bwrap} flags=(unconfined) {{\n"
        "  userns,\n"
        "\n"
        f"  include if exists <local/{PROFILE_NAME}>\n"
        "}\n"
    )


class Host(Protocol):
    """The runner, as this step sees it (tests give a fake one)."""

    def bwrap(self) -> str | None: ...
    def probe(self) -> tuple[str | None, str]: ...
    def restricted(self) -> bool: ...
    def attached_profiles(self, bwrap: str) -> list[str]: ...
    def run(self, argv: list[str], env: dict[str, str] | None = None) -> int: ...
    def write_root_file(self, path: Path, text: str) -> int: ...


@dataclass(frozen=True)
class _Result:
    works: bool
    lines: tuple[str, ...]  # what was done and found, for the log


def set_up(mode: str, host: Host) -> _Result:
    if mode == "off":
        return _Result(False, ('sandbox = "off": builds run unsandboxed, bubblewrap is not needed',))
    done: list[str] = []
    if host.bwrap() is None:
        done.append("installing bubblewrap (apt-get)")
        if host.run(["apt-get", "update", "-q"], _APT_ENV) or host.run(
            ["apt-get", "install", "-y", "-q", "bubblewrap"], _APT_ENV
        ):
            return _Result(False, (*done, "apt-get could not install bubblewrap"))
    bwrap, problem = host.probe()
    if bwrap is not None:
        return _Result(True, (*done, f"bubblewrap works here ({bwrap})"))
    path = host.bwrap()
    if path is None:
        return _Result(False, (*done, problem))
    if not host.restricted():
        return _Result(
            False, (*done, problem, "AppArmor does not restrict user namespaces here: no profile would help")
        )
    attached = host.attached_profiles(path)
    if attached:
        return _Result(False, (*done, problem, f"left alone: {', '.join(attached)} already attaches to {path}"))
    target = PROFILES / PROFILE_NAME
    done.append(f"adding the AppArmor profile {target}: {path} may create user namespaces")
    if host.write_root_file(target, profile_text(path)) or host.run(["apparmor_parser", "-r", str(target)]):
        return _Result(False, (*done, "the profile could not be installed and loaded"))
    bwrap, problem = host.probe()
    if bwrap is None:
        return _Result(False, (*done, f"the profile is loaded, but bubblewrap still fails: {problem}"))
    return _Result(True, (*done, f"bubblewrap works here ({bwrap})"))


class Runner:
    """The real host: root's commands through `sudo -n` unless this is root already."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]

    def bwrap(self) -> str | None:
        return find_bwrap(self.env)

    def probe(self) -> tuple[str | None, str]:
        return probe(self.env)

    def restricted(self) -> bool:
        try:
            return _RESTRICTION.read_text().strip() == "1"
        except OSError:
            return False

    def attached_profiles(self, bwrap: str) -> list[str]:
        names = [bwrap, os.path.realpath(bwrap)]
        found = []
        for profile in sorted(PROFILES.glob("*")) if PROFILES.is_dir() else []:
            try:
                text = profile.read_text(errors="replace") if profile.is_file() else ""
            except OSError:
                continue
            if any(f" {name} " in text or f" {name}{{" in text for name in names):
                found.append(profile.name)
        return found

    def run(self, argv: list[str], env: dict[str, str] | None = None) -> int:
        extra = [f"{k}={v}" for k, v in (env or {}).items()]
        command = [*self.sudo, *(["env", *extra] if extra else []), *argv]
        try:
            return subprocess.run(command, stdin=subprocess.DEVNULL, check=False).returncode
        except OSError:
            return 127

    def write_root_file(self, path: Path, text: str) -> int:
        try:
            return subprocess.run(
                [*self.sudo, "tee", str(path)], input=text.encode(), stdout=subprocess.DEVNULL, check=False
            ).returncode
        except OSError:
            return 127
