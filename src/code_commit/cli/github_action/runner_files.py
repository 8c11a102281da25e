"""What the action says to the runner: step outputs in the GITHUB_OUTPUT file, and workflow commands
on standard output.

GitHub documents a multi-line output as `name<<DELIMITER`, the value's lines, then `DELIMITER` alone
on a line; the runner takes the first line equal to the delimiter as the end (its FileCommandManager).
A value that held the delimiter as a line would end early and the rest would be read as more
outputs, so the delimiter is random (as the toolkit's `ghadelimiter_<uuid>`) and never one the value
or the name contains.

Workflow commands (`::error::`, `::add-mask::`...) are read from every line a step prints. What
code-commit and the build print is not ours to let through: `commands_stopped` turns them off with
`::stop-commands::TOKEN` and on again with `::TOKEN::`, a random token the printed text cannot know.
"""

from __future__ import annotations

import secrets
import sys
import uuid
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO


def _new_delimiter() -> str:
    return f"ghadelimiter_{uuid.uuid4()}"


def encode_outputs(values: Mapping[str, str], delimiter: Callable[[], str] = _new_delimiter) -> str:
    """The GITHUB_OUTPUT text that sets each output to its value exactly."""
    parts = []
    for name, value in values.items():
        if not name or "<<" in name or "=" in name or "\n" in name:
            raise ValueError(f"not an output name: {name!r}")
        marker = delimiter()
        while marker in value or marker in name:  # never one the value could end early at
            marker = delimiter()
        parts.append(f"{name}<<{marker}\n{value}\n{marker}\n")
    return "".join(parts)


def write_outputs(path: str | Path, values: Mapping[str, str]) -> None:
    with open(path, "a", encoding="utf-8", errors="backslashreplace") as file:
        file.write(encode_outputs(values))


def _escape_data(text: str) -> str:
    """A workflow command's message as the toolkit escapes it: no line break can end the command."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def command(name: str, message: str, out: Callable[[str], object] | None = None) -> None:
    """`::name::message` on standard output (`error`, `warning`, `notice`, `add-mask`)."""
    (out or sys.stdout.write)(f"::{name}::{_escape_data(message)}\n")
    sys.stdout.flush()


@contextmanager
def commands_stopped(out: BinaryIO) -> Iterator[Callable[[bytes], None]]:
    """While the block runs, no line written through the function it yields is a workflow command.
    The resume token is written on a line of its own even if the text written last had no newline."""
    token = secrets.token_hex(16)
    out.write(f"::stop-commands::{token}\n".encode())
    out.flush()
    last = b"\n"

    def relay(chunk: bytes) -> None:
        nonlocal last
        if chunk:
            out.write(chunk)
            out.flush()
            last = chunk[-1:]

    try:
        yield relay
    finally:
        out.write((b"" if last == b"\n" else b"\n") + f"::{token}::\n".encode())
        out.flush()
