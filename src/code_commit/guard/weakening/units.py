"""Where the tests are in a brace language's tokens: each test's name, body, annotations and cases.

Four finders, after how the languages declare tests:
- calls: a test is a call, `it("name", () => {...})`, inside `describe(...)` suites (JavaScript,
  TypeScript, PHP's Pest);
- members: a test is a method or function of a class, namespace or file, marked by an annotation
  or attribute (`@Test`, `[Fact]`, `#[Test]`) or named `test...`, or a test macro (`TEST(a, b) {`)
  (Java, Kotlin, C#, PHP, C and C++);
- go: `func TestX(t *testing.T)`, `FuzzX`, `ExampleX`, testify suite methods;
- rust: `#[test] fn`, inside `mod` blocks, `#[cfg(test)]` modules included.
Every finder walks the tokens once, jumping over bodies with the bracket partners.
"""

# ruff: noqa: SIM905 - word lists read best as words

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from code_commit.guard.weakening.chains import Chain, arguments
from code_commit.guard.weakening.facts import bounded
from code_commit.guard.weakening.languages import C_TEST_MACROS, JS_SUITES, JS_TESTS, Rules
from code_commit.guard.weakening.lexer import ID, PUNCT, STR, Token

MAX_SIGNATURE = 256  # tokens between a name and its body; past it, the thing is no function


@dataclass
class Annotation:
    name: str  # dotted: "Test", "org.junit.Test", "tokio::test", "cfg"
    args: tuple[int, int] | None  # the (open, close) group of its arguments, if any
    span: tuple[int, int] = (0, 0)  # its tokens, for messages


@dataclass
class Unit:
    name: str  # qualified
    simple: str
    test: bool  # a test, or another function (a helper, or a test renamed away)
    body: tuple[int, int]  # token range of the body, braces excluded
    suite: bool = False  # a JavaScript suite: its markers stand for all its tests
    annotations: list[Annotation] = field(default_factory=list)
    head: tuple[int, int] | None = None  # the declaration's arguments (a test call's, a C test macro's)
    rows: list[tuple[int, int]] = field(default_factory=list)  # token ranges of cases (a table's rows)
    text_rows: list[str] = field(default_factory=list)  # cases written as text: a tagged template's lines
    declaration: Chain | None = None  # the call that declares it (`it.skip(...)`)
    expands: tuple[int, int] | None = None  # Rust: the body of the test-making macro this invocation expands
    extra_markers: list[tuple[str, tuple[int, int]]] = field(default_factory=list)  # (kind, token range)


def call_units(tokens: Sequence[Token], partner: Sequence[int], chains: Sequence[Chain]) -> list[Unit]:
    """Tests and suites declared by calls: `it(...)`, `test.each(table)(...)`, `describe.skip(...)`."""
    units = []
    for chain in chains:
        head = chain.names[0]
        if head not in JS_TESTS | JS_SUITES or not chain.calls:
            continue
        args = _test_arguments(chain, tokens)
        if args is None:
            continue
        open_, close = args
        parts = arguments(tokens, partner, open_, close)
        if not parts:
            continue
        name = bounded(" ".join(_name_text(t) for t in tokens[parts[0][0] : min(parts[0][1], parts[0][0] + 64)]))
        body = _callback_body(tokens, partner, parts[1:], close)
        unit = Unit(name, name, head in JS_TESTS, body, suite=head in JS_SUITES, head=args, declaration=chain)
        table = chain.call_after("each") or chain.call_after("with")
        if table is not None and table[0] == table[1]:  # a tagged template: a header line, then a row a line
            lines = [" ".join(line.split()) for line in tokens[table[0]].text.strip("`").splitlines()]
            unit.text_rows = [line for line in lines if line][1:]
        elif table is not None:
            unit.rows = _table_rows(tokens, partner, table)
        for part in parts[1:]:  # an options object: { skip: true }, { only: true }, { todo: "..." }
            start, end = part
            if tokens[start].text == "{" and partner[start] < end + 1:
                unit.extra_markers += _option_markers(tokens, partner, start)
        units.append(unit)
    return units


def _test_arguments(chain: Chain, tokens: Sequence[Token]) -> tuple[int, int] | None:
    """The call that holds the test's name and function: the first call that is not the arguments
    of a modifier (`each`, `skipIf`, `runIf`, `for`) right after it."""
    seen: set[int] = set()
    for (open_, close), count in zip(chain.calls, chain.after, strict=True):
        first_after_name = count not in seen
        seen.add(count)
        if tokens[open_].text != "(":
            continue
        if first_after_name and count > 1 and chain.names[count - 1] in ("each", "skipIf", "runIf", "for"):
            continue
        return open_, close
    return None


def _name_text(token: Token) -> str:
    if token.kind == STR and len(token.text) >= 2 and token.text[0] in "'\"`":
        return token.text[1:-1]
    return token.text


def _callback_body(
    tokens: Sequence[Token], partner: Sequence[int], parts: Sequence[tuple[int, int]], close: int
) -> tuple[int, int]:
    """The body of the last function among a call's arguments: `() => {...}`, `function () {...}`,
    PHP's `fn () => ...`; an arrow with an expression body is its expression."""
    for start, end in reversed(parts):
        j = start
        while j < end:
            token = tokens[j]
            if token.text == "=>":
                k = j + 1
                if k < end and tokens[k].text == "{" and partner[k] > k:
                    return k + 1, min(partner[k], end)
                return k, end
            if token.kind == ID and token.text in ("function", "fn"):
                k = j + 1
                while k < end and tokens[k].text not in ("{", "=>"):
                    k = partner[k] + 1 if tokens[k].text in "([" and partner[k] > k else k + 1
                if k < end and tokens[k].text == "{" and partner[k] > k:
                    return k + 1, min(partner[k], end)
                j = k
                continue
            if token.kind == PUNCT and token.text in "([" and partner[j] > j:
                j = partner[j] + 1
                continue
            j += 1
    return close, close


def _table_rows(tokens: Sequence[Token], partner: Sequence[int], table: tuple[int, int]) -> list[tuple[int, int]]:
    """The rows of `test.each([...])` and Pest's `->with([...])`."""
    open_, close = table
    parts = arguments(tokens, partner, open_, close)
    if len(parts) == 1 and tokens[parts[0][0]].text == "[":
        start = parts[0][0]
        return arguments(tokens, partner, start, partner[start])
    return parts


def _option_markers(tokens: Sequence[Token], partner: Sequence[int], start: int) -> list[tuple[str, tuple[int, int]]]:
    found = []
    for key, _, value in _object_entries(tokens, partner, start):
        if key in ("skip", "todo", "only") and value[0] < value[1] and tokens[value[0]].text != "false":
            found.append(("focus" if key == "only" else "skip", (value[0] - 2, value[1])))
    return found


def _object_entries(
    tokens: Sequence[Token], partner: Sequence[int], start: int
) -> list[tuple[str, int, tuple[int, int]]]:
    """(key, key index, value range) of each `key: value` at the top level of the object at start."""
    entries = []
    for a, b in arguments(tokens, partner, start, partner[start]):
        if b - a >= 3 and tokens[a].kind in (ID, STR) and tokens[a + 1].text == ":":
            entries.append((_name_text(tokens[a]), a, (a + 2, b)))
    return entries


def member_units(
    tokens: Sequence[Token], partner: Sequence[int], rules: Rules, lines: Sequence[int]
) -> tuple[list[Unit], list[tuple[str, Annotation]]]:
    """The methods and functions of classes, namespaces and the file, each with its annotations;
    and the annotations of the classes themselves (`@Disabled` on a class), as (class, annotation)."""
    units: list[Unit] = []
    class_annotations: list[tuple[str, Annotation]] = []
    containers: list[tuple[str, int]] = []  # (qualified name, index of its closing brace)
    n = len(tokens)
    segment = 0  # where the current member's declaration starts
    i = 0
    while i < n:
        token = tokens[i]
        if token.kind == PUNCT and token.text == "}":
            if containers and containers[-1][1] == i:
                containers.pop()
            segment = i + 1
            i += 1
            continue
        if token.kind == PUNCT and token.text == ";":
            unit = _expression_member(tokens, partner, segment, i, containers, rules)
            if unit is not None:
                units.append(unit)
            segment = i + 1
            i += 1
            continue
        if token.kind == PUNCT and token.text == "=" and rules.name == "Kotlin" and _declares_fun(tokens, segment, i):
            end = _kotlin_expression_end(tokens, partner, lines, i + 1, n)
            unit = _method(tokens, partner, segment, i, containers, rules)
            if unit is not None:
                unit.body = (i + 1, end)
                units.append(unit)
            i = segment = end
            continue
        if token.kind == PUNCT and token.text == "{":
            close = partner[i] if partner[i] > i else n
            container = _container_name(tokens, partner, segment, i, rules)
            if container is not None:
                outer = containers[-1][0] if containers else ""
                where = bounded(f"{outer}.{container}" if outer and container else container or outer)
                containers.append((where, close))
                class_annotations += [(where, a) for a in _annotations(tokens, partner, segment, i)[0]]
                segment = i + 1
                i += 1
                continue
            unit = _method(tokens, partner, segment, i, containers, rules)
            if unit is not None:
                units.append(unit)
            i = close + 1
            segment = i
            continue
        if token.kind == PUNCT and token.text in "([" and partner[i] > i:
            i = partner[i] + 1
            continue
        i += 1
    return units, class_annotations


_KOTLIN_DECLARATION_STARTS = frozenset(
    """@ fun val var class object interface init companion override private public internal protected suspend
    open abstract data enum sealed inner lateinit const annotation""".split()
)


def _declares_fun(tokens: Sequence[Token], start: int, end: int) -> bool:
    return any(tokens[j].kind == ID and tokens[j].text == "fun" for j in range(start, end))


def _kotlin_expression_end(
    tokens: Sequence[Token], partner: Sequence[int], lines: Sequence[int], start: int, n: int
) -> int:
    """Where a Kotlin expression body (`fun x() = expr`) ends: at the first token of a later line
    that starts a declaration, or at the container's closing brace."""
    j = start
    while j < n:
        token = tokens[j]
        if token.kind == PUNCT and token.text == "}":
            return j
        if j > start and lines[j] > lines[j - 1] and token.text in _KOTLIN_DECLARATION_STARTS:
            return j
        j = partner[j] + 1 if token.kind == PUNCT and token.text in "([{" and partner[j] > j else j + 1
    return n


def _container_name(tokens: Sequence[Token], partner: Sequence[int], start: int, end: int, rules: Rules) -> str | None:
    j = start
    while j < end:
        token = tokens[j]
        if token.kind == PUNCT and token.text in "([" and partner[j] > j:
            j = partner[j] + 1
            continue
        if token.kind == ID and token.text in rules.container_words and not (j and tokens[j - 1].text in (".", "::")):
            following = tokens[j + 1] if j + 1 < end else None
            return following.text if following is not None and following.kind == ID else ""
        j += 1
    return None


def _annotations(tokens: Sequence[Token], partner: Sequence[int], start: int, end: int) -> tuple[list[Annotation], int]:
    """The annotations or attributes at the start of a declaration (`@Test`, `@Disabled("x")`,
    `[Fact(Skip = "x")]`, `#[Test]`), and where the rest of it starts."""
    found = []
    j = start
    while j < end:
        token = tokens[j]
        if token.text == "@" and j + 1 < end and tokens[j + 1].kind == ID:
            k = j + 1
            name = [tokens[k].text]
            while k + 2 < end and tokens[k + 1].text == "." and tokens[k + 2].kind == ID:
                name.append(tokens[k + 2].text)
                k += 2
            args = None
            if k + 1 < end and tokens[k + 1].text == "(" and partner[k + 1] > k:
                args = (k + 1, partner[k + 1])
                k = partner[k + 1]
            found.append(Annotation(".".join(name), args, (j, k + 1)))
            j = k + 1
        elif (token.text == "[" and partner[j] > j) or (
            token.text == "#" and j + 1 < end and tokens[j + 1].text == "["
        ):
            open_ = j if token.text == "[" else j + 1
            close = partner[open_]
            if close <= open_:
                break
            found += _attribute_list(tokens, partner, open_, close)
            j = close + 1
        else:
            break
    return found, j


def _attribute_list(tokens: Sequence[Token], partner: Sequence[int], open_: int, close: int) -> list[Annotation]:
    """`[Fact, Trait("a", "b")]` or `#[Test]`: one annotation per comma-separated item."""
    found = []
    for a, b in arguments(tokens, partner, open_, close):
        name = []
        k = a
        while k < b and (tokens[k].kind == ID or tokens[k].text in (".", "::", "\\")):
            if tokens[k].kind == ID:
                name.append(tokens[k].text)
            k += 1
        if name:
            args = (k, partner[k]) if k < b and tokens[k].text == "(" and partner[k] > k else None
            found.append(Annotation(".".join(name), args, (a, b)))
    return found


def _method(
    tokens: Sequence[Token],
    partner: Sequence[int],
    start: int,
    brace: int,
    containers: list[tuple[str, int]],
    rules: Rules,
) -> Unit | None:
    """The method or function whose body opens at `brace`, if the declaration before it is one."""
    annotations, j = _annotations(tokens, partner, start, brace)
    if brace - j > MAX_SIGNATURE:
        return None
    name_at = None
    while j < brace:
        token = tokens[j]
        if token.kind == PUNCT and token.text == "(" and partner[j] > j:
            before = tokens[j - 1] if j > start else None
            if before is not None and before.kind == ID and before.text not in rules.keywords and name_at is None:
                name_at = j - 1
            j = partner[j] + 1
            continue
        if token.kind == PUNCT and token.text in ("=>", "=") and name_at is None:
            return None  # a field's initializer: `Runnable r = () -> { }`
        j += 1
    if name_at is None:
        return None
    name = tokens[name_at].text.strip("`")
    head = None
    if name in C_TEST_MACROS and rules.name == "C/C++":
        head = (name_at + 1, partner[name_at + 1])
        name = bounded(name + "(" + " ".join(t.text for t in tokens[head[0] + 1 : min(head[1], head[0] + 64)]) + ")")
    outer = containers[-1][0] if containers else ""
    close = partner[brace] if partner[brace] > brace else len(tokens)
    return Unit(
        bounded(f"{outer}.{name}" if outer else name),
        name,
        False,
        (brace + 1, close),
        annotations=annotations,
        head=head,
    )


def _expression_member(
    tokens: Sequence[Token],
    partner: Sequence[int],
    start: int,
    end: int,
    containers: list[tuple[str, int]],
    rules: Rules,
) -> Unit | None:
    """A C# method with an expression body: `[Fact] public void X() => Assert.True(y);`."""
    arrow = next((j for j in range(start, end) if tokens[j].text == "=>"), None)
    if arrow is None or arrow - start > MAX_SIGNATURE:
        return None
    unit = _method(tokens, partner, start, arrow, containers, rules)
    if unit is None:
        return None
    unit.body = (arrow + 1, end)
    return unit


def go_units(tokens: Sequence[Token], partner: Sequence[int]) -> list[Unit]:
    """Every top-level `func`: its name (`Recv.Name` for a method) and body."""
    units = []
    n = len(tokens)
    i = 0
    while i < n:
        token = tokens[i]
        if token.kind == PUNCT and token.text in "([{" and partner[i] > i:
            i = partner[i] + 1
            continue
        if not (token.kind == ID and token.text == "func"):
            i += 1
            continue
        j = i + 1
        receiver = ""
        if j < n and tokens[j].text == "(" and partner[j] > j:
            receiver = next((t.text for t in reversed(tokens[j + 1 : partner[j]]) if t.kind == ID), "")
            j = partner[j] + 1
        if j >= n or tokens[j].kind != ID:
            i = j
            continue
        name = tokens[j].text
        j += 1
        limit = min(n, j + MAX_SIGNATURE)
        while j < limit and tokens[j].text != "{":
            if tokens[j].text in ("interface", "struct") and j + 1 < n and tokens[j + 1].text == "{":
                j = partner[j + 1] + 1
                continue
            j = partner[j] + 1 if tokens[j].text in "([" and partner[j] > j else j + 1
        if j >= limit:
            i = j
            continue
        close = partner[j] if partner[j] > j else n
        qualified = bounded(f"{receiver}.{name}" if receiver else name)
        unit = Unit(qualified, name, False, (j + 1, close), head=(i, j))
        units.append(unit)
        i = close + 1
    return units


def rust_units(tokens: Sequence[Token], partner: Sequence[int]) -> tuple[list[Unit], list[tuple[str, Annotation]]]:
    """Every `fn` with its attributes and module path, and the attributes that stand on modules and
    on the file (`#[cfg(...)] mod tests`, `#![cfg(...)]`), as (module, attribute)."""
    units: list[Unit] = []
    module_attributes: list[tuple[str, Annotation]] = []
    containers: list[tuple[str, int, str]] = []  # (module path, index of its closing brace, "mod", "impl" or "macro")
    pending: list[Annotation] = []
    test_macros: dict[str, tuple[int, int]] = {}  # macro_rules! that make a #[test] fn: name -> body
    n = len(tokens)
    i = 0
    while i < n:
        token = tokens[i]
        text = token.text
        if token.kind == ID and text == "macro_rules" and i + 3 < n and tokens[i + 1].text == "!":
            open_ = i + 3
            if tokens[i + 2].kind == ID and tokens[open_].text in "({[" and partner[open_] > open_:
                body = (open_ + 1, partner[open_])
                if _makes_tests(tokens, *body):
                    test_macros[tokens[i + 2].text] = body
                i = partner[open_] + 1
                pending = []
                continue
        if token.kind == ID and text in test_macros and i + 2 < n and tokens[i + 1].text == "!":
            open_ = i + 2
            if tokens[open_].text in "({[" and partner[open_] > open_:
                close = partner[open_]
                label = next((t.text for t in tokens[open_ + 1 : close] if t.kind == ID), text)
                module = containers[-1][0] if containers else ""
                unit = Unit(bounded(f"{module}::{label}" if module else label), label, True, (open_ + 1, close))
                unit.annotations, unit.expands, unit.rows = list(pending), test_macros[text], [(open_ + 1, close)]
                units.append(unit)
                pending = []
                i = close + 1
                continue
        if token.kind == PUNCT and text == "#" and i + 1 < n:
            inner = tokens[i + 1].text == "!"
            open_ = i + 2 if inner else i + 1
            if open_ < n and tokens[open_].text == "[" and partner[open_] > open_:
                attributes = _rust_attribute(tokens, partner, open_)
                where = containers[-1][0] if containers else ""
                if inner:
                    module_attributes += [(where, a) for a in attributes]
                else:
                    pending += attributes
                i = partner[open_] + 1
                continue
        if token.kind == PUNCT and text == "}":
            if containers and containers[-1][1] == i:
                containers.pop()
            pending = []
            i += 1
            continue
        if token.kind == PUNCT and text == ";":
            pending = []
            i += 1
            continue
        if token.kind == ID and text == "mod" and i + 2 < n and tokens[i + 1].kind == ID and tokens[i + 2].text == "{":
            name = tokens[i + 1].text
            outer = containers[-1][0] if containers else ""
            where = bounded(f"{outer}::{name}" if outer else name)
            module_attributes += [(where, a) for a in pending]
            containers.append((where, partner[i + 2], "mod"))
            pending = []
            i += 3
            continue
        if token.kind == ID and text in ("impl", "trait"):
            j = i + 1
            while j < n and tokens[j].text not in ("{", ";"):
                j = partner[j] + 1 if tokens[j].text in "([" and partner[j] > j else j + 1
            if j < n and tokens[j].text == "{":
                containers.append((containers[-1][0] if containers else "", partner[j], "impl"))
            pending = []
            i = j + 1
            continue
        if token.kind == ID and i + 2 < n and tokens[i + 1].text == "!" and tokens[i + 2].text == "{":
            containers.append((containers[-1][0] if containers else "", partner[i + 2], "macro"))  # proptest! {...}
            i += 3
            continue
        if token.kind == ID and text == "fn" and i + 1 < n and tokens[i + 1].kind == ID:
            function, i = _rust_fn(tokens, partner, i, containers, pending)
            if function is not None:
                units.append(function)
            pending = []
            continue
        if token.kind == PUNCT and text in "([{" and partner[i] > i:
            i = partner[i] + 1
            pending = [] if text == "{" else pending
            continue
        i += 1
    return units, module_attributes


def _makes_tests(tokens: Sequence[Token], start: int, end: int) -> bool:
    return any(
        tokens[j].text == "#" and tokens[j + 1].text == "[" and tokens[j + 2].text == "test"
        for j in range(start, end - 2)
    )


def _rust_attribute(tokens: Sequence[Token], partner: Sequence[int], open_: int) -> list[Annotation]:
    close = partner[open_]
    name = []
    k = open_ + 1
    while k < close and (tokens[k].kind == ID or tokens[k].text == "::"):
        if tokens[k].kind == ID:
            name.append(tokens[k].text)
        k += 1
    if k < close and tokens[k].text == "(" and partner[k] > k:
        args: tuple[int, int] | None = (k, partner[k])
    else:
        args = (k - 1, close) if k < close else None  # #[ignore = "why"]: the rest is its argument
    return [Annotation("::".join(name), args, (open_ - 1, close + 1))] if name else []


def _rust_fn(
    tokens: Sequence[Token],
    partner: Sequence[int],
    i: int,
    containers: list[tuple[str, int, str]],
    attributes: list[Annotation],
) -> tuple[Unit | None, int]:
    n = len(tokens)
    name = tokens[i + 1].text
    j = i + 2
    angle = 0
    limit = min(n, j + MAX_SIGNATURE)
    while j < limit:
        text = tokens[j].text
        if text == "<":
            angle += 1
        elif text == ">":
            angle -= 1
        elif text in ("{", ";") and angle <= 0:
            break
        if text in "([" and partner[j] > j:
            j = partner[j] + 1
            continue
        j += 1
    if j >= limit or tokens[j].text == ";":
        return None, j + 1
    close = partner[j] if partner[j] > j else n
    module = containers[-1][0] if containers else ""
    inside_impl = any(kind == "impl" for _, _, kind in containers)
    qualified = bounded(f"{module}::{name}" if module else name)
    unit = Unit(qualified, name, False, (j + 1, close), annotations=list(attributes))
    if inside_impl:
        unit.annotations = []  # a method: never a test
    return unit, close + 1


def generic_units(tokens: Sequence[Token]) -> list[Unit]:
    """Test declarations in a language without a reader of its own: `it "does x"`, `test("x")`,
    `def test_x`, `func testX`: names only, no bodies."""
    units = []
    for j, token in enumerate(tokens[:-1]):
        following = tokens[j + 1]
        if token.kind != ID:
            continue
        if token.text in ("it", "test", "specify", "scenario", "example") and (
            following.kind == STR or (following.text == "(" and j + 2 < len(tokens) and tokens[j + 2].kind == STR)
        ):
            label = following.text if following.kind == STR else tokens[j + 2].text
            name = f"{token.text} {_name_text(Token(STR, label, 0))}"
            units.append(Unit(name, name, True, (j, j)))
        elif (
            token.text in ("def", "func", "fun", "fn")
            and following.kind == ID
            and following.text.lower().startswith("test")
        ):
            units.append(Unit(following.text, following.text, True, (j, j)))
    return units
