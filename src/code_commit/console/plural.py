"""Counts in words: "1 file", "2 files", never "1 files" or "file(s)"."""

from __future__ import annotations


def count(n: int, noun: str, plural: str | None = None) -> str:
    return f"{n:,} {noun if n == 1 else plural or noun + 's'}"
