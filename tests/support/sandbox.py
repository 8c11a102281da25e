"""What the sandbox tests need: bubblewrap (or, in CI, a failure without it), and folders outside the
host's /tmp."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest

OUTSIDE_TMP = Path(__file__).resolve().parents[2] / ".outside-tmp"  # ignored: see .gitignore


def outside_tmp(prefix: str) -> Path:
    """A new folder outside the host's /tmp (which the sandbox replaces with its own): in /var/tmp,
    or, where that is read-only (these tests running inside code-commit's own sandbox, as its own
    build does), in the checkout's ignored .outside-tmp/."""
    for base in (Path("/var/tmp"), OUTSIDE_TMP):
        try:
            base.mkdir(exist_ok=True)
            return Path(tempfile.mkdtemp(prefix=prefix, dir=base))
        except OSError:
            continue
    raise OSError("no writable folder outside /tmp for the test")


def require_bwrap() -> None:
    """At a sandbox test module's top: bubblewrap must be here. In CI, and wherever
    REQUIRE_SANDBOX_TESTS is set, its absence fails the module (a security test that skips in CI is
    a missing test); elsewhere the module is skipped."""
    if shutil.which("bwrap") is not None:
        return
    if os.environ.get("CI") or os.environ.get("REQUIRE_SANDBOX_TESTS"):
        pytest.fail("bubblewrap (bwrap) is missing in CI: .ci/run installs it; these tests must run", pytrace=False)
    pytest.skip("bubblewrap (bwrap) is not installed here", allow_module_level=True)
