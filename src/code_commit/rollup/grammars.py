"""The tree-sitter engine of the outline: one table of node types per language, and the walk it drives.

Per language, a `_Grammar` says which node types are definitions, which of those hold members that
are listed one level deeper (classes, interfaces, impls, namespaces), which nodes wrap one definition
and lend it their start (decorators, `export`, `template <...>`), and which are transparent groups
whose children stand at the same level (`#ifdef` include guards, `extern "C" {`, Go's `type (...)`,
and ERROR, so that the definitions inside a region that does not parse are still found). A table is
explicit and testable where the grammars' own tags queries are uneven (C's tags every declarator,
Python's every module-level assignment) and match nested definitions at any depth.

A definition's signature is its own text from its first byte (decorators and annotations included)
to the first byte of its body, on one line; its name is the grammar's `name` field.

tree-sitter and the grammars are imported only when a file of that language is outlined, so a
command that outlines nothing never loads them; a grammar that is not installed makes the caller
fall back to the plain engine.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING

from code_commit.rollup.definitions import MAX_DEPTH, MAX_ENTRIES, Entry, one_line

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

_MAX_GROUP_NESTING = 32  # #ifdef inside #ifdef inside ...: bounds the walk's recursion
# More than this share of the top level in ERROR: a dialect or a template the grammar does not know;
# the plain engine says more.
_MAX_ERROR_SHARE = 0.5


def _words(*texts: str) -> frozenset[str]:
    return frozenset(word for text in texts for word in text.split())


@dataclass(frozen=True)
class _Grammar:
    module: str  # the grammar package's module
    function: str  # its function that returns the language
    defs: frozenset[str]  # nodes shown as definitions
    containers: frozenset[str] = frozenset()  # definitions whose members are listed one level deeper
    wrappers: frozenset[str] = frozenset()  # a node that wraps ONE definition and lends it its start
    groups: frozenset[str] = frozenset({"ERROR"})  # transparent: their children stand at the same level
    bodies: frozenset[str] = frozenset()  # node types that start a body, where the grammar has no `body` field
    holders: frozenset[str] = frozenset()  # `const f = () => {}`: shown when the value is a function
    prefix: dict[str, str] = field(default_factory=dict)  # node type -> text put before its signature


_C_GROUPS = _words(
    "preproc_ifdef preproc_if preproc_else preproc_elif preproc_elifdef linkage_specification declaration_list ERROR"
)
_C_DEFS = _words(
    "function_definition struct_specifier union_specifier enum_specifier type_definition preproc_function_def"
)
_JS_DEFS = _words("function_declaration generator_function_declaration class_declaration method_definition")
_JS_HOLDERS = _words("lexical_declaration variable_declaration expression_statement")
_TS = _Grammar(
    "tree_sitter_typescript",
    "language_typescript",
    defs=_JS_DEFS
    | _words(
        "abstract_class_declaration interface_declaration type_alias_declaration enum_declaration function_signature",
        "internal_module module abstract_method_signature method_signature property_signature",
    ),
    containers=_words(
        "class_declaration abstract_class_declaration interface_declaration internal_module module class"
    ),
    wrappers=_words("export_statement ambient_declaration"),
    groups=_words("ERROR expression_statement"),  # `namespace X {}` parses as an expression statement
    bodies=_words("statement_block class_body interface_body enum_body object_type"),
    holders=_JS_HOLDERS,
)

GRAMMARS: dict[str, _Grammar] = {
    "python": _Grammar(
        "tree_sitter_python",
        "language",
        defs=_words("function_definition class_definition"),
        containers=_words("class_definition"),
        wrappers=_words("decorated_definition"),
        bodies=_words("block"),
    ),
    "javascript": _Grammar(
        "tree_sitter_javascript",
        "language",
        defs=_JS_DEFS,
        containers=_words("class_declaration class"),
        wrappers=_words("export_statement"),
        bodies=_words("statement_block class_body"),
        holders=_JS_HOLDERS,
    ),
    "typescript": _TS,
    "tsx": _Grammar(**{**_TS.__dict__, "function": "language_tsx"}),
    "java": _Grammar(
        "tree_sitter_java",
        "language",
        defs=_words(
            "class_declaration interface_declaration enum_declaration record_declaration annotation_type_declaration",
            "method_declaration constructor_declaration compact_constructor_declaration",
            "annotation_type_element_declaration",
        ),
        containers=_words(
            "class_declaration interface_declaration enum_declaration record_declaration annotation_type_declaration"
        ),
        groups=_words("ERROR enum_body_declarations"),
        bodies=_words("class_body interface_body enum_body annotation_type_body block constructor_body"),
    ),
    "c": _Grammar(
        "tree_sitter_c",
        "language",
        defs=_C_DEFS | _words("declaration"),  # a declaration only when it declares a function
        groups=_C_GROUPS,
        bodies=_words("compound_statement field_declaration_list enumerator_list"),
    ),
    "cpp": _Grammar(
        "tree_sitter_cpp",
        "language",
        defs=_C_DEFS
        | _words("class_specifier namespace_definition alias_declaration concept_definition")
        | _words("declaration field_declaration"),
        containers=_words("class_specifier struct_specifier union_specifier namespace_definition"),
        wrappers=_words("template_declaration"),
        groups=_C_GROUPS,
        bodies=_words("compound_statement field_declaration_list enumerator_list declaration_list"),
    ),
    "rust": _Grammar(
        "tree_sitter_rust",
        "language",
        defs=_words(
            "function_item function_signature_item struct_item enum_item union_item trait_item impl_item mod_item",
            "type_item const_item static_item macro_definition associated_type",
        ),
        containers=_words("trait_item impl_item mod_item"),
        bodies=_words("block declaration_list field_declaration_list enum_variant_list {"),  # {: macro_rules!
    ),
    "go": _Grammar(
        "tree_sitter_go",
        "language",
        defs=_words("function_declaration method_declaration type_spec type_alias method_elem"),
        containers=_words("type_spec"),  # an interface's methods
        groups=_words("ERROR type_declaration"),
        bodies=_words("block field_declaration_list {"),
        prefix={"type_spec": "type ", "type_alias": "type "},
    ),
}

# By the file's last extension, lower-cased. A .h may be C++: the C grammar still finds its functions.
LANGUAGES = {
    **dict.fromkeys((".py", ".pyi"), "python"),
    **dict.fromkeys((".js", ".mjs", ".cjs", ".jsx"), "javascript"),
    **dict.fromkeys((".ts", ".mts", ".cts"), "typescript"),
    ".tsx": "tsx",
    ".java": "java",
    **dict.fromkeys((".c", ".h"), "c"),
    **dict.fromkeys((".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx"), "cpp"),
    ".rs": "rust",
    ".go": "go",
}

_FUNCTION_VALUES = _words("arrow_function function_expression function generator_function class class_expression")
_PROTOTYPES = _words("declaration field_declaration")  # definitions only when they declare a function
_TAGGED = _words("struct_specifier union_specifier enum_specifier")  # `struct x;` is a use, not a definition


@cache
def parser_for(language: str) -> Parser | None:
    """A parser for `language`, or None when tree-sitter or the grammar is not installed (or does not
    load into this tree-sitter: a grammar built for a newer ABI)."""
    grammar = GRAMMARS[language]
    try:
        import tree_sitter

        module = importlib.import_module(grammar.module)
        return tree_sitter.Parser(tree_sitter.Language(getattr(module, grammar.function)()))
    except (ImportError, ValueError, AttributeError):
        return None


def tree_sitter_outline(language: str, data: bytes) -> list[Entry] | None:
    """The definitions, or None when the grammar is missing or most of the file does not parse."""
    parser = parser_for(language)
    if parser is None:
        return None
    root = parser.parse(data).root_node
    if root.has_error and _error_share(root) > _MAX_ERROR_SHARE:
        return None
    entries: list[Entry] = []
    for entry in _walk(root, GRAMMARS[language], data, 0, 0):
        entries.append(entry)
        if len(entries) >= MAX_ENTRIES:
            break
    return entries


def _walk(node: Node, grammar: _Grammar, data: bytes, depth: int, nesting: int) -> Iterator[Entry]:
    if depth > MAX_DEPTH or nesting > _MAX_GROUP_NESTING:
        return
    for child in node.named_children:
        kind = child.type
        if kind in grammar.groups:
            yield from _walk(child, grammar, data, depth, nesting + 1)
        elif kind in grammar.wrappers:
            inner = _wrapped_definition(child, grammar)
            held = _held_function(inner) if inner is not None and inner.type in grammar.holders else None
            if held is not None and inner is not None:  # export const f = () => ...
                yield _entry(child, held, grammar, data, depth, _held_name(inner))
            elif inner is not None and inner.type not in grammar.holders:
                yield from _definition(inner, grammar, data, depth, nesting, start=child)
            elif kind in ("template_declaration", "ambient_declaration"):
                yield from _walk(child, grammar, data, depth, nesting + 1)
        elif kind in grammar.defs:
            if kind in _PROTOTYPES and not _is_prototype(child):
                continue
            if kind == "type_definition" and not (_find_body(child, grammar) or _is_prototype(child)):
                continue  # typedef int size_t; is noise
            if kind in _TAGGED and _find_body(child, grammar) is None:
                continue
            yield from _definition(child, grammar, data, depth, nesting, start=child)
        elif kind in grammar.holders:
            held = _held_function(child)
            if held is not None:
                yield _entry(child, held, grammar, data, depth, _held_name(child))


def _definition(node: Node, grammar: _Grammar, data: bytes, depth: int, nesting: int, start: Node) -> Iterator[Entry]:
    yield _entry(start, node, grammar, data, depth, _name(node))
    if node.type in grammar.containers:
        body = _find_body(node, grammar)
        if node.type == "type_spec":  # Go: an interface's methods sit in its interface_type
            body = next((c for c in node.named_children if c.type == "interface_type"), None)
        if body is not None:
            yield from _walk(body, grammar, data, depth + 1, nesting)


def _entry(start: Node, node: Node, grammar: _Grammar, data: bytes, depth: int, name: str) -> Entry:
    body = _find_body(node, grammar)
    end = body.start_byte if body is not None else node.end_byte
    for child in node.children:  # `def f():  # why`: a comment before the body is not the signature
        if "comment" in child.type and start.start_byte < child.start_byte < end:
            end = child.start_byte
            break
    text = data[start.start_byte : end].decode("utf-8", "replace")
    if node.type == "type_definition" and body is not None:  # typedef struct x {...} name_t: keep the name
        text += "{…} " + data[body.end_byte : node.end_byte].decode("utf-8", "replace")
    return Entry(start.start_point[0] + 1, depth, one_line(grammar.prefix.get(node.type, "") + text), name)


def _name(node: Node) -> str:
    """The defined name: the `name` field, or the innermost declarator's (C functions, typedefs)."""
    found = node.child_by_field_name("name")
    if found is None:
        found = node.child_by_field_name("declarator")
        for _ in range(8):
            if found is None or found.type in ("identifier", "field_identifier", "type_identifier"):
                break
            inner = found.child_by_field_name("declarator") or found.child_by_field_name("name")
            found = inner
    if found is None or found.text is None:
        return ""
    return found.text.decode("utf-8", "replace")


def _held_name(node: Node) -> str:
    for child in node.named_children:
        target = child.child_by_field_name("name") or child.child_by_field_name("left")
        if target is not None and target.text is not None:
            return target.text.decode("utf-8", "replace").rsplit(".", 1)[-1]
    return ""


def _find_body(node: Node, grammar: _Grammar) -> Node | None:
    """Where the definition's body starts: the `body` field, else the first node of a body type found
    breadth-first, at most three levels down (`typedef struct {...} x`, Go's `type T struct {...}`)."""
    body = node.child_by_field_name("body")
    if body is None and node.type == "preproc_function_def":
        body = node.child_by_field_name("value")  # #define F(a, b) <value>
    if body is not None:
        return body
    if node.type in _FUNCTION_VALUES:
        return None
    level = [node]
    for _ in range(3):
        below = []
        for parent in level:
            for child in parent.children:
                if child.type in grammar.bodies:
                    return child
                below.append(child)
        level = below
    return None


def _wrapped_definition(node: Node, grammar: _Grammar) -> Node | None:
    found = node.child_by_field_name("definition") or node.child_by_field_name("declaration")
    if found is not None:
        return found if found.type in grammar.defs or found.type in grammar.holders else None
    return next((child for child in node.named_children if child.type in grammar.defs), None)


def _held_function(node: Node) -> Node | None:
    """`const f = (x) => ...`, `exports.f = function ...`: the function (or class) value, or None."""
    for child in node.named_children:
        if child.type in ("variable_declarator", "assignment_expression"):
            value = child.child_by_field_name("value") or child.child_by_field_name("right")
            if value is not None and value.type in _FUNCTION_VALUES:
                return value
    return None


def _is_prototype(node: Node) -> bool:
    """A C/C++ declaration of a function: its declarator chain reaches a function_declarator."""
    declarator = node.child_by_field_name("declarator")
    for _ in range(8):
        if declarator is None:
            return False
        if declarator.type == "function_declarator":
            return True
        declarator = declarator.child_by_field_name("declarator")
    return False


def _error_share(root: Node) -> float:
    bad = sum(child.end_byte - child.start_byte for child in root.children if child.type == "ERROR" or child.is_missing)
    return bad / max(1, root.end_byte - root.start_byte)
