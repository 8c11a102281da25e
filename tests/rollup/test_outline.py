"""Outlines: every grammar the rollup names loads into the installed tree-sitter, each language's
definitions come out with their signatures and lines, and the plain engine covers the rest."""

from __future__ import annotations

import pytest

from code_commit.rollup import outline as outline_module
from code_commit.rollup.definitions import MAX_ENTRIES, SIGNATURE_CAP
from code_commit.rollup.grammars import GRAMMARS, LANGUAGES, parser_for
from code_commit.rollup.outline import outline


@pytest.mark.parametrize("language", sorted(GRAMMARS))
def test_every_grammar_loads_into_the_installed_tree_sitter(language: str) -> None:
    """A core or grammar upgrade that breaks loading would otherwise silently turn outlines plain."""
    assert parser_for(language) is not None


SAMPLES = {
    "m.py": (
        b"import os\n\n@dataclass(frozen=True)\nclass Point(Base):\n    x: int\n\n"
        b"    @property\n    def norm(self) -> float:  # why\n        return 0.0\n\n"
        b"async def fetch(url: str,\n                timeout: float = 1.0) -> bytes:\n    return b''\n",
        "3: @dataclass(frozen=True) class Point(Base)\n  7: @property def norm(self) -> float\n"
        "11: async def fetch(url: str, timeout: float = 1.0) -> bytes\n",
    ),
    "m.js": (
        b"export default class Foo extends Bar {\n  constructor(a) { super(); }\n}\n"
        b"const arrow = async (x) => x;\nexports.helper = function (q) { return q; };\nlet n = 3;\n",
        "1: export default class Foo extends Bar\n  2: constructor(a)\n4: const arrow = async (x) =>\n"
        "5: exports.helper = function (q)\n",
    ),
    "m.ts": (
        b"export interface Shape {\n  area(): number;\n}\nexport function gen<T>(a: T): Promise<T> { return null!; }\n",
        "1: export interface Shape\n  2: area(): number\n4: export function gen<T>(a: T): Promise<T>\n",
    ),
    "M.java": (
        b"package a;\npublic final class M<T> {\n  public M(int a) {}\n"
        b"  public <U> java.util.List<U> map(int limit) throws Exception { return null; }\n}\n",
        "2: public final class M<T>\n  3: public M(int a)\n"
        "  4: public <U> java.util.List<U> map(int limit) throws Exception\n",
    ),
    "m.c": (
        b'#include "m.h"\n#define MAX(a, b) ((a) > (b) ? (a) : (b))\ntypedef struct node { int v; } node_t;\n'
        b"static int helper(int x);\nint\nmain(int argc, char **argv)\n{\n    return helper(argc);\n}\n",
        "2: #define MAX(a, b)\n3: typedef struct node {…} node_t\n4: static int helper(int x)\n"
        "5: int main(int argc, char **argv)\n",
    ),
    "m.cpp": (
        b"namespace outer {\ntemplate <typename T> class Box {\n public:\n"
        b"  T get() const { return v; }\n  T v;\n};\n}\n",
        "1: namespace outer\n  2: template <typename T> class Box\n    4: T get() const\n",
    ),
    "m.rs": (
        b"pub struct P;\nimpl P {\n    pub fn new() -> Self { P }\n}\npub trait T { fn f(&self); }\n",
        "1: pub struct P\n2: impl P\n  3: pub fn new() -> Self\n5: pub trait T\n  5: fn f(&self)\n",
    ),
    "m.go": (
        b"package m\n\ntype Shape interface {\n\tArea() float64\n}\n\nfunc (p *P) Move(dx int) error { return nil }\n",
        "3: type Shape interface\n  4: Area() float64\n7: func (p *P) Move(dx int) error\n",
    ),
}


@pytest.mark.parametrize("path", sorted(SAMPLES))
def test_each_common_language_is_outlined_by_its_grammar(path: str) -> None:
    data, expected = SAMPLES[path]
    shape = outline(path, data)
    assert shape.engine == "tree-sitter"
    assert shape.render() == expected


def test_names_come_from_the_grammar_for_the_query_ranking() -> None:
    shape = outline("m.c", SAMPLES["m.c"][0])
    assert {"MAX", "node_t", "helper", "main"} <= shape.names


@pytest.mark.parametrize(
    ("path", "data", "expected"),
    [
        (
            "m.lua",
            b"local function helper(a)\n  return a\nend\nfunction M.run(x, y)\nend\n",
            "1: local function helper(a)\n4: function M.run(x, y)\n",
        ),
        (
            "m.rb",
            b"module Outer\n  class Thing < Base\n    def go(a)\n    end\n  end\nend\n",
            "1: module Outer\n  2: class Thing < Base\n",
        ),
        (
            "m.sh",
            b"#!/bin/sh\nsetup() {\n  echo hi\n}\nfunction teardown {\n  :\n}\n",
            "2: setup()\n5: function teardown\n",
        ),
    ],
)
def test_other_languages_get_the_plain_engine(path: str, data: bytes, expected: str) -> None:
    shape = outline(path, data)
    assert shape.engine == "plain"
    assert shape.render() == expected


def test_a_file_the_grammar_cannot_mostly_parse_falls_back_to_the_plain_engine() -> None:
    data = b"<?php\n" + b'$x = array(1, 2); echo "$x"; ?>\n' * 40 + b"def real(a):\n    pass\n"
    shape = outline("template.py", data)
    assert shape.engine == "plain"
    assert shape.render() == "42: def real(a)\n"


def test_an_outline_is_bounded_in_entries_signature_length_and_bytes_read(monkeypatch: pytest.MonkeyPatch) -> None:
    many = b"".join(b"def f%d(x):\n    pass\n" % i for i in range(MAX_ENTRIES + 50))
    assert len(outline("many.py", many).entries) == MAX_ENTRIES
    long = b"def f(" + b", ".join(b"a%d" % i for i in range(500)) + b"):\n    pass\n"
    (entry,) = outline("long.py", long).entries
    assert len(entry.signature) == SIGNATURE_CAP and entry.signature.endswith("…")
    monkeypatch.setattr(outline_module, "MAX_OUTLINE_BYTES", 700)  # the bound, made small to test quickly
    past = b"x = 1\n" * 100 + b"def early():\n    pass\n" + b"x = 1\n" * 100 + b"def late():\n    pass\n"
    assert [e.name for e in outline("big.py", past).entries] == ["early"]


def test_every_extension_maps_to_a_grammar_the_table_has() -> None:
    assert set(LANGUAGES.values()) <= set(GRAMMARS)
