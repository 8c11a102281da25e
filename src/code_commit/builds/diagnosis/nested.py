"""A build that starts a sandbox or a container of its own (bwrap, unshare, podman): the namespaces
it asks for cannot always be made inside code-commit's sandbox, and no answer can change that.

The line is only a lead: the diagnosis runs a probe of its own, a bwrap with a build's namespaces
inside the same sandbox, and names the cause only when that fails too. Why it fails decides the fix:

- run as root, the sandbox drops every capability (it must: root could unmount what it hides), and
  a process without them can neither make namespaces as root does nor map root into a user
  namespace of its own (the kernel asks CAP_SETFCAP for that, since Linux 5.12); a mapped uid that
  is not root would get its namespaces, but bwrap, run by root, covers parts of /proc, and the
  kernel then refuses the nested sandbox its own /proc. No bwrap option gets past both: the build
  runs unsandboxed, or code-commit runs as an ordinary user;
- run as an ordinary user, bwrap makes a user namespace, and a nested one works unless the host
  limits them (user.max_user_namespaces, an AppArmor or seccomp profile).
"""

from __future__ import annotations

import dataclasses
import re
import subprocess
from collections.abc import Iterator

from code_commit.builds.diagnosis.facts import CONFIG, NAMESPACES, Diagnosis, View, evidence
from code_commit.sandbox.bubblewrap import BASE_ARGS, PROBE_TIMEOUT, SandboxPolicy, wrap

# What a sandbox or container tool says when the kernel refuses it the namespaces it needs.
_REFUSED = re.compile(
    r"bwrap: (?:Creating new namespace failed|setting up uid map|Can't mount proc on /newroot/proc|"
    r"No permissions to creat(?:e|ing) new namespace)[^\n]*"
    r"|unshare: (?:unshare failed|cannot change root filesystem propagation|write failed /proc/self/uid_map)[^\n]*"
    r"|(?:podman|buildah)[^\n]*(?:cannot clone|newuidmap|user namespaces? (?:are|is) not enabled)[^\n]*"
)
_SANDBOX_OFF = 'sandbox = "off"'


def nested(lines: list[str], view: View) -> Iterator[tuple[int, Diagnosis]]:
    policy = view.policy
    if policy is None:
        return
    for index, line in enumerate(lines):
        match = _REFUSED.search(line)
        if match is None:
            continue
        refused = view.host.nested_sandbox(policy)
        if refused is None:
            return  # a sandbox does start in this one: the line is not the sandbox's doing
        yield index, _diagnosis(refused, view.host.as_root, line)
        return


def _diagnosis(refused: str, as_root: bool, line: str) -> Diagnosis:
    cause = (
        "the build starts a sandbox or container of its own, which needs new namespaces, and inside code-commit's "
        f"sandbox none can be made (code-commit's own probe there: {refused})"
    )
    off = (
        f"set {_SANDBOX_OFF} in {CONFIG} to run this project's builds unsandboxed, with your full rights: "
        "the model's code then runs as you, so only where you review each change (--review)"
    )
    if as_root:
        return Diagnosis(
            NAMESPACES,
            "nested sandbox",
            cause + ": code-commit runs as root, and the sandbox drops root's capabilities",
            "run code-commit as an ordinary user, not root: there the sandbox makes a user namespace of its own, "
            f"and one nests inside it; or {off}",
            evidence(line),
        )
    return Diagnosis(
        NAMESPACES,
        "nested sandbox",
        cause + ": this host limits user namespaces",
        "allow nested user namespaces (sysctl user.max_user_namespaces above 1; an AppArmor profile or a "
        f"container's seccomp policy may refuse them too); or {off}",
        evidence(line),
    )


def probe(policy: SandboxPolicy) -> str | None:
    """Why a sandbox as code-commit makes one does not start inside `policy`'s, or None if it does:
    bwrap inside bwrap, running `true`."""
    inner = dataclasses.replace(policy, stand_ins=(), env=())
    command = wrap(inner, [policy.bwrap, *BASE_ARGS, "--unshare-net", "--", "true"])
    try:
        done = subprocess.run(
            command,
            env={"PATH": "/usr/bin:/bin"},
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=PROBE_TIMEOUT,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap could not be run: {exc}"
    if done.returncode == 0:
        return None
    said = done.stderr.decode("utf-8", "replace").strip().splitlines()
    return said[-1][:200] if said else f"exit code {done.returncode}"
