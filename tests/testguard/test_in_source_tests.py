"""A source's own tests are the items its test attributes apply to (Rust's `#[cfg(test)]` and
`#[test]`: a `use`, a `const`, a `fn`, a `mod tests { ... }` to its matching brace) and in-source
Vitest's `if (import.meta.vitest) { ... }`, as tree-sitter parses them: through `code-commit apply
--check`, an answer that changes code around them is accepted, and one that changes an item, takes
its attribute away, moves code into or out of one, or adds a test item is refused. The Rust file
has shlex's layout (src/bytes.rs before the fix of GHSA-r7qv-8r2h-pg27: a `#[cfg(test)] use` near
the top, tests after the code), with a raw string, a character and a comment holding braces."""

from __future__ import annotations

import json

import pytest

from code_commit.testguard.files import MAX_NODES, in_source_tests

from support import Project

RUST = """extern crate alloc;
use alloc::vec::Vec;
#[cfg(test)]
use alloc::vec;

pub fn quote(in_bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(in_bytes); // a '{' in a comment
    out
}

#[cfg(test)]
const INVALID_UTF8: &[u8] = b"\\xa1";

#[test]
#[allow(invalid_from_utf8)]
fn test_invalid_utf8() {
    assert!(core::str::from_utf8(INVALID_UTF8).is_err());
}

pub fn unquote(x: u8) -> u8 {
    x
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes() {
        let brace = '}';
        let raw = r#"} }"#; /* } */
        assert_eq!(quote(b"a"), vec![b'a']);
        assert!(brace != ' ' && !raw.is_empty());
    }
}
"""
VITEST = """export function add(a, b) {
  return a - b
}

if (import.meta.vitest) {
  const { it, expect } = import.meta.vitest
  it('adds', () => {
    expect(add(2, 3)).toBe(5) // }
  })
}

export const after = '}'
"""


def edit(path: str, search: str, replace: str) -> str:
    return f"^^^{path}\n^^^search\n{search}^^^replace\n{replace}^^^end\n"


ACCEPTED = {
    "the code between the test use and the tests": edit(
        "src/bytes.rs",
        "    out.extend_from_slice(in_bytes); // a '{' in a comment\n",
        "    out.push(b'\\'');\n    out.extend_from_slice(in_bytes);\n",
    ),
    "the code between two test items": edit("src/bytes.rs", "    x\n}\n", "    x + 1\n}\n"),
    "the code after the Vitest block": edit("src/calc.js", "export const after = '}'\n", "export const after = 1\n"),
    "the code before the Vitest block": edit("src/calc.js", "  return a - b\n", "  return a + b\n"),
}
ASSERT = "        assert_eq!(quote(b\"a\"), vec![b'a']);\n"
RAW = '        let raw = r#"} }"#; /* } */\n'
REFUSED = {
    "the test use": edit("src/bytes.rs", "use alloc::vec;\n", "use alloc::vec::Vec as vec;\n"),
    "inside the tests module": edit("src/bytes.rs", ASSERT, ASSERT.replace("assert_eq", "assert_ne")),
    "inside a raw string of the tests": edit("src/bytes.rs", RAW, RAW.replace("} }", "}")),
    "a top-level test fn": edit(
        "src/bytes.rs",
        "    assert!(core::str::from_utf8(INVALID_UTF8).is_err());\n",
        "    assert!(core::str::from_utf8(INVALID_UTF8).is_ok());\n",
    ),
    "the attribute taken away": edit(
        "src/bytes.rs",
        '#[cfg(test)]\nconst INVALID_UTF8: &[u8] = b"\\xa1";\n',
        'const INVALID_UTF8: &[u8] = b"\\xa1";\n',
    ),
    "an attribute added before a test item": edit(
        "src/bytes.rs",
        "#[test]\n#[allow(invalid_from_utf8)]\n",
        "#[cfg(any())]\n#[test]\n#[allow(invalid_from_utf8)]\n",
    ),
    "code moved into the tests module": edit(
        "src/bytes.rs", "mod tests {\n", "mod tests {\n    fn quote(_: &[u8]) -> Vec<u8> { vec![b'a'] }\n"
    ),
    "code moved out of the tests module": edit("src/bytes.rs", "    use super::*;\n\n    #[test]\n", "    #[test]\n"),
    "a second test item that shadows": edit(
        "src/bytes.rs",
        "pub fn unquote(x: u8) -> u8 {\n",
        "#[cfg(test)]\nfn quote(_: &[u8]) -> Vec<u8> { vec![b'a'] }\n\npub fn unquote(x: u8) -> u8 {\n",
    ),
    "the tests module removed": edit("src/bytes.rs", "#[cfg(test)]\nmod tests {\n", "mod tests {\n"),
    "inside the Vitest block": edit(
        "src/calc.js", "    expect(add(2, 3)).toBe(5) // }\n", "    expect(add(2, 3)).toBe(-1) // }\n"
    ),
    "the Vitest condition": edit("src/calc.js", "if (import.meta.vitest) {\n", "if (import.meta.vitest && false) {\n"),
}


@pytest.fixture
def sources(project: Project) -> Project:
    project.write("src/bytes.rs", RUST)
    project.write("src/calc.js", VITEST)
    project.commit_all()
    return project


def check(project: Project, cli, answer: str) -> tuple[int, list[dict]]:
    path = project.root.parent / "answer.txt"
    path.write_text(answer)
    result = cli("apply", "--check", "--json", str(path))
    return result.exit_code, json.loads(result.stdout).get("problems", [])


@pytest.mark.parametrize("where", sorted(ACCEPTED))
def test_an_answer_changing_code_around_the_tests_is_accepted(sources: Project, cli, where: str) -> None:
    assert check(sources, cli, ACCEPTED[where]) == (0, [])


@pytest.mark.parametrize("where", sorted(REFUSED))
def test_an_answer_changing_a_test_item_is_refused(sources: Project, cli, where: str) -> None:
    code, problems = check(sources, cli, REFUSED[where])

    assert code == 7
    assert [problem["kind"] for problem in problems] == ["tests_changed"]


def test_the_items_are_those_the_attributes_apply_to() -> None:
    found = in_source_tests("src/bytes.rs", RUST.encode())

    assert found is not None and found.line == 3
    assert [item.split(b" {")[0].split(b";")[0] for item in found.items] == [
        b"#[cfg(test)] use alloc::vec",
        b'#[cfg(test)] const INVALID_UTF8: &[u8] = b"\\xa1"',
        b"#[test] #[allow(invalid_from_utf8)] fn test_invalid_utf8()",
        b"#[cfg(test)] mod tests",
    ]
    assert found.items[-1].endswith(b"); } }")


def test_a_file_that_does_not_parse_or_is_past_the_budget_is_tests_from_the_first_attribute_on() -> None:
    broken = RUST.replace("pub fn unquote(x: u8) -> u8 {", "pub fn unquote(x: u8) -> u8 {{")
    many = "#[cfg(test)]\nuse a;\n" + "fn f() {}\n" * MAX_NODES

    for text in (broken, many):
        found = in_source_tests("src/bytes.rs", text.encode())
        assert found is not None and found.line == 3 - (text is many) * 2
        assert found.items == (b" ".join(text[text.index("#[cfg(test)]") :].encode().split()),)
