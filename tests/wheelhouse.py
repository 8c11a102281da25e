"""A folder of wheels (a "wheelhouse", as `pip --find-links` reads it) made offline from the
distributions this test run has installed: what `uv tool install` and `pipx install` fetch from PyPI,
so they can install code-commit here with the network off, as they would on a user's machine.

Each installed distribution is packed back into the wheel it came from: its files as its RECORD lists
them (not the scripts and data an installer wrote outside site-packages: installers write those from
`entry_points.txt` again), its dist-info but for what the installer added, and a new RECORD."""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
import zipfile
from collections.abc import Iterable
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

INSTALLERS_OWN = {"INSTALLER", "REQUESTED", "direct_url.json", "RECORD"}  # written at install, not in a wheel


def closure(names: Iterable[str]) -> list[importlib.metadata.Distribution]:
    """The installed distributions `names` need, what they require included (markers evaluated here,
    no extra), each once."""
    wanted, found = list(names), {}
    while wanted:
        dist = importlib.metadata.distribution(wanted.pop())
        key = canonicalize_name(dist.metadata["Name"])
        if key in found:
            continue
        found[key] = dist
        for text in dist.requires or ():
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                wanted.append(requirement.name)
    return list(found.values())


def _digest(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def repack(dist: importlib.metadata.Distribution, folder: Path) -> Path:
    """The wheel `dist` was installed from, rebuilt from its installed files into `folder`."""
    info = next(str(f).split("/")[0] for f in dist.files or () if str(f).split("/")[0].endswith(".dist-info"))
    wheel_file = Path(str(dist.locate_file(f"{info}/WHEEL"))).read_text()
    tags = [line.split(":", 1)[1].strip().split("-") for line in wheel_file.splitlines() if line.startswith("Tag:")]
    # The file name's compressed tag set: py2-none-any and py3-none-any make py2.py3-none-any.
    tag = "-".join(".".join(dict.fromkeys(parts)) for parts in zip(*tags, strict=True))
    name = canonicalize_name(dist.metadata["Name"]).replace("-", "_")
    target = folder / f"{name}-{dist.version}-{tag}.whl"
    record = []
    with zipfile.ZipFile(target, "w", zipfile.ZIP_STORED) as archive:
        for file in dist.files or ():
            path = str(file)
            if path.startswith("..") or "__pycache__" in file.parts:
                continue
            if path.startswith(f"{info}/") and file.name in INSTALLERS_OWN:
                continue
            data = Path(str(dist.locate_file(file))).read_bytes()
            archive.writestr(path, data)
            record.append(f"{path},{_digest(data)},{len(data)}")
        archive.writestr(f"{info}/RECORD", "\n".join([*record, f"{info}/RECORD,,"]) + "\n")
    return target


def wheelhouse(folder: Path, names: Iterable[str]) -> Path:
    """`folder` filled with a wheel of each distribution `names` need."""
    folder.mkdir(parents=True, exist_ok=True)
    for dist in closure(names):
        repack(dist, folder)
    return folder
