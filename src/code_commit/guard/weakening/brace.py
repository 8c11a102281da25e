"""What a test file in a brace language declares: its tests with their checks, markers and cases,
the functions that are not tests, and the file-level markers, exits and filters.

Built from the tokens (`lexer.py`), the call chains (`chains.py`), the units (`units.py`) and
the language's rules (`languages.py`). A file where no test is found (a test program with a
`main`, a custom harness) is judged as one test holding every check of the file.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

from code_commit.guard.weakening.chains import (
    Chain,
    Ranges,
    arguments,
    chains,
    dead_ranges,
    form,
    local_names,
    messages,
    operands_constant,
)
from code_commit.guard.weakening.facts import SKIP, Check, FileFacts, Marker, TestUnit, bounded
from code_commit.guard.weakening.languages import C_REGISTRATIONS, C_TEST_MACROS, FAIL, Rules
from code_commit.guard.weakening.lexer import COMMENT, ID, PUNCT, STR, Token, brackets, code, lex
from code_commit.guard.weakening.units import (
    Annotation,
    Unit,
    call_units,
    generic_units,
    go_units,
    member_units,
    rust_units,
)

WHOLE_FILE = "(the whole file)"
MAX_LINE_TOKENS = 256  # tokens of a line read around an infix check, each way
# Tokens of a check or marker compared at most, and characters of one shown: a check that holds a
# whole nested body (`expect(() => {...}).toThrow()`) must not make nested checks cost its size each.
MAX_FORM = 512
MAX_SHOWN = 200
_CONDITIONS = frozenset({"skipIf", "runIf", "If", "IfNot", "When", "Unless"})  # a marker's condition follows
_GO_TEST = re.compile(r"(Test|Fuzz|Example)([^a-z]|$)")
_RUST_TEST_ATTRIBUTES = frozenset({"test", "rstest", "test_case", "quickcheck", "wasm_bindgen_test"})
_GO_OUTPUT = re.compile(r"^//\s*(Unordered output|Output):", re.IGNORECASE)
_LITERALS = re.compile(r"\d+(?:\.\d+)?|'[^']*'|\"[^\"]*\"|\b(?:true|false|null|undefined)\b")
_HIDDEN_CATCH_TAG = re.compile(r"\[(\.|!mayfail|!shouldfail|hide)")


def brace_facts(text: str, rules: Rules) -> FileFacts:
    return _Reader(text, rules).facts()


class _Reader:
    def __init__(self, text: str, rules: Rules) -> None:
        self.text = text
        self.rules = rules
        every = lex(text, rules.lexis)
        self.comments = [t for t in every if t.kind == COMMENT]
        self.comment_starts = [c.pos for c in self.comments]
        self.tokens = code(every)
        self.partner = brackets(self.tokens)
        starts = [0, *(m.end() for m in re.finditer("\n", text))]
        self.lines = [bisect.bisect_right(starts, t.pos) for t in self.tokens]
        self.chains = chains(self.tokens, self.partner, rust=rules.finder == "rust")
        self.chain_starts = [c.start for c in self.chains]
        self.out = FileFacts()
        self.helpers: dict[str, int] = {}

    def facts(self) -> FileFacts:
        rules = self.rules
        units, outer = self._units()
        tests = [u for u in units if u.test]
        for unit in units:
            if not unit.test and not unit.suite:
                self.helpers[unit.simple] = sum(1 for c in self._body_chains(unit, []) if rules.check(c))
        in_tests = Ranges(u.body for u in tests)
        declarations = {id(u.declaration) for u in tests if u.declaration is not None}
        for unit in tests:
            self._add_test(unit, [t for t in tests if t is not unit and unit.body[0] <= t.body[0] < unit.body[1]])
        for unit in units:
            if not unit.test and not unit.suite:
                names = local_names(self.tokens, self.partner, *unit.body, php=rules.name == "PHP")
                self.out.others[form(self.tokens, *unit.body, names)] = unit.name
        outside = [c for c in self.chains if c.start not in in_tests and id(c) not in declarations]
        marking = [(c, kind) for c in outside if (kind := rules.marker(c)) is not None]
        suites = _suites_of([c for c, _ in marking], [u for u in units if u.suite])
        for chain, kind in marking:
            where = suites.get(id(chain), "")
            self.out.markers.append(self._marker(kind, chain, where))
        for where, annotation in outer:
            marker = self._annotation_marker(annotation, where)
            if marker is not None:
                self.out.markers.append(marker)
        self.out.exits = sum(1 for c in self.chains if c.calls and self._is_exit(c))
        if rules.finder == "go":
            self.out.narrowing += [
                " ".join(c.text.split()) for c in self.comments if c.text.startswith(("//go:build", "// +build"))
            ]
        if rules.name == "C/C++":
            self.out.registrations += [
                self.tokens[c.calls[0][1] - 1].text for c in self.chains if c.names[0] in C_REGISTRATIONS and c.calls
            ]
        if not tests and rules.finder != "generic":
            self._whole_file()
        if rules.finder == "generic":
            self._whole_file()
            for unit in units:
                self.out.tests.setdefault(unit.name, TestUnit(unit.name, unit.simple, ()))
        return self.out

    # -- finding the units ---------------------------------------------------------------------------

    def _units(self) -> tuple[list[Unit], list[tuple[str, Annotation]]]:
        rules, tokens, partner = self.rules, self.tokens, self.partner
        if rules.finder == "calls":
            units = _outermost_tests(call_units(tokens, partner, self.chains))
            self._qualify(units)
            return units + self._js_functions(), []
        if rules.finder == "go":
            units = go_units(tokens, partner)
            for unit in units:
                if unit.simple == "TestMain":
                    self.out.hooks["TestMain"] = form(tokens, *unit.body, {})
                unit.test = bool(_GO_TEST.match(unit.simple)) and unit.simple != "TestMain"
                if unit.test:
                    unit.rows = _go_tables(tokens, partner, *unit.body)
            return units, []
        if rules.finder == "rust":
            units, module_attributes = rust_units(tokens, partner)
            for unit in units:
                if unit.expands is not None:
                    continue  # made by a test macro: a test, its rows set by the finder
                unit.test = any(a.name.split("::")[-1] in _RUST_TEST_ATTRIBUTES for a in unit.annotations)
                unit.rows = [
                    a.args for a in unit.annotations if a.name.split("::")[-1] in rules.row_annotations and a.args
                ]
            plain = [(w, a) for w, a in module_attributes if not (a.name == "cfg" and self._args_text(a) == "test")]
            return units, plain
        if rules.finder == "members":
            units, class_annotations = member_units(tokens, partner, rules, self.lines)
            self._decide_members(units)
            if rules.name == "PHP":  # Pest: test('...', function () {...}), as in JavaScript
                calls = _outermost_tests(call_units(tokens, partner, self.chains))
                self._qualify(calls)
                units += calls
            return units, class_annotations
        return generic_units(tokens), []

    def _qualify(self, units: list[Unit]) -> None:
        """Name each test after its suites (`outer > inner > test`); a repeated name gets `#2`."""
        ordered = sorted(units, key=lambda u: u.head[0] if u.head else 0)
        stack: list[Unit] = []
        seen: dict[str, int] = {}
        for unit in ordered:
            start = unit.head[0] if unit.head else 0
            while stack and not (stack[-1].head and start < stack[-1].head[1]):
                stack.pop()
            name = bounded(f"{stack[-1].name} > {unit.name}" if stack else unit.name)
            seen[name] = seen.get(name, 0) + 1
            unit.name = name if seen[name] == 1 else f"{name} #{seen[name]}"
            if unit.suite:
                stack.append(unit)

    def _js_functions(self) -> list[Unit]:
        """Top-level helper functions: `function name(...) {`, `const name = (...) => {`."""
        tokens, partner = self.tokens, self.partner
        found = []
        for j, token in enumerate(tokens[:-2]):
            if token.kind != ID:
                continue
            if token.text == "function" and tokens[j + 1].kind == ID and tokens[j + 2].text == "(":
                name = tokens[j + 1].text
                k = partner[j + 2] + 1 if partner[j + 2] > j else len(tokens)
            elif token.text in ("const", "let", "var") and tokens[j + 1].kind == ID and tokens[j + 2].text == "=":
                name = tokens[j + 1].text
                k = j + 3
                while k < len(tokens) and tokens[k].text not in ("=>", "{", ";") and k < j + 16:
                    k = partner[k] + 1 if tokens[k].text in "([" and partner[k] > k else k + 1
                if k >= len(tokens) or tokens[k].text != "=>":
                    continue
                k += 1
            else:
                continue
            if k < len(tokens) and tokens[k].text == "{" and partner[k] > k:
                found.append(Unit(name, name, False, (k + 1, partner[k])))
        return found

    def _decide_members(self, units: list[Unit]) -> None:
        rules = self.rules
        annotated = any(a.name.rsplit(".", 1)[-1] in rules.test_annotations for u in units for a in u.annotations)
        for unit in units:
            names = {a.name.rsplit(".", 1)[-1] for a in unit.annotations}
            if names & rules.test_annotations:
                unit.test = True
            elif rules.name == "C/C++":
                macro = unit.simple.split("(", 1)[0]
                unit.test = macro in C_TEST_MACROS or unit.simple.lower().startswith("test")
            elif rules.name == "PHP":
                unit.test = unit.simple.lower().startswith("test") or self._docblock_says_test(unit)
            elif rules.name in ("Java", "Kotlin"):
                unit.test = not annotated and unit.simple.startswith("test")  # JUnit 3: no annotations at all
            unit.rows = [
                a.args for a in unit.annotations if a.name.rsplit(".", 1)[-1] in rules.row_annotations and a.args
            ]
            unit.rows = [row for args in unit.rows for row in self._annotation_rows(args)]

    def _docblock_says_test(self, unit: Unit) -> bool:
        """A PHPUnit `/** @test */` docblock right before the method."""
        start = self.tokens[unit.body[0] - 1].pos
        k = bisect.bisect_left(self.comment_starts, start) - 1
        return k >= 0 and "@test" in self.comments[k].text and start - self.comments[k].pos < 4096

    def _annotation_rows(self, args: tuple[int, int]) -> list[tuple[int, int]]:
        """The cases of one row annotation. JUnit and PHPUnit: each element of an array in it
        (`@ValueSource(ints = {1, 2})`, `#[TestWith([[1], [2]])]`), else each argument (Kotlin's
        `@CsvSource("1, 2", "3, 4")`). C# and Rust: the annotation itself (`[InlineData(1, 2)]`)."""
        open_, close = args
        if self.rules.name not in ("Java", "Kotlin", "PHP"):
            return [(open_ + 1, close)]
        for j in range(open_ + 1, close):
            if self.tokens[j].text in ("{", "[") and self.partner[j] > j:
                return arguments(self.tokens, self.partner, j, self.partner[j])
        return arguments(self.tokens, self.partner, open_, close)

    # -- one test ------------------------------------------------------------------------------------

    def _body_chains(self, unit: Unit, nested: Sequence[Unit]) -> list[Chain]:
        start, end = unit.body
        lo = bisect.bisect_left(self.chain_starts, start)
        hi = bisect.bisect_left(self.chain_starts, end)
        inner = Ranges(u.body for u in nested)
        return [c for c in self.chains[lo:hi] if c.start not in inner]

    def _add_test(self, unit: Unit, nested: Sequence[Unit]) -> None:
        rules, tokens, partner = self.rules, self.tokens, self.partner
        start, end = unit.body
        names = local_names(tokens, partner, start, end, php=rules.name == "PHP")
        dead = Ranges(dead_ranges(tokens, partner, start, end, self.lines))
        markers = [m for a in unit.annotations if (m := self._annotation_marker(a, "")) is not None]
        markers += [Marker(kind, form(tokens, *span, {}), "", self._shown(*span)) for kind, span in unit.extra_markers]
        markers += self._head_markers(unit)
        if unit.declaration is not None and (kind := rules.marker(unit.declaration)) is not None:
            decl = unit.declaration
            end_of_names = decl.name_at[-1] + 1
            markers.append(Marker(kind, ".".join(decl.names), "", self._shown(decl.start, end_of_names)))
        checks: list[Check] = []
        unreachable = 0
        runs = 0
        enclosing = self._enclosing_braces(unit)
        for chain in self._body_chains(unit, nested):
            kind = rules.marker(chain)
            if kind is not None:
                markers.append(self._marker(kind, chain))
                continue
            if rules.finder == "go" and chain.names[-1] == "Run" and chain.calls and len(chain.names) == 2:
                runs += 1
            found = self._checks_of(chain, names, enclosing.get(chain.start))
            if chain.start in dead:
                unreachable += len(found)
            else:
                checks += found
        checks += self._annotation_checks(unit, names)
        if unit.expands is not None:  # a test made by a macro: the macro's checks are its checks
            lo, hi = (bisect.bisect_left(self.chain_starts, edge) for edge in unit.expands)
            checks += [
                c for chain in self.chains[lo:hi] if rules.check(chain) for c in self._checks_of(chain, {}, None)
            ]
        if rules.finder == "go" and unit.simple.startswith("Example"):
            checks += self._example_outputs(unit)
        if rules.extra.get("infix_checks"):
            checks += self._infix_checks(unit, names, dead)
        rows = [self._row(span, names) for span in unit.rows]
        rows += [Check(f"case {row}", "case " + _LITERALS.sub("?", row), row, row=True) for row in unit.text_rows]
        self.out.tests[unit.name] = TestUnit(
            name=unit.name,
            simple=unit.simple,
            checks=tuple(checks + rows),
            unreachable=unreachable,
            markers=tuple(markers),
            cases=max(1, len(rows) + runs),
            body=form(tokens, start, end, names),
            empty=_empty(tokens, start, end),
        )

    def _checks_of(self, chain: Chain, names: dict[str, str], brace: int | None) -> list[Check]:
        kind = self.rules.check(chain)
        tokens = self.tokens
        if kind is None:
            helper = self._helper_weight(chain)
            if not helper:
                return []
            key = form(tokens, chain.start, chain.end, names, limit=MAX_FORM)
            return [
                Check(
                    key,
                    form(tokens, chain.start, chain.end, names, blank=True, limit=MAX_FORM),
                    self._shown(chain.start, chain.end),
                )
            ] * helper
        if kind == FAIL:
            condition = self._condition_of(brace)
            label = ".".join(chain.names)
            if condition is None:
                return [Check(f"fail {label}", f"fail {label}", self._shown(chain.start, chain.end))]
            key = f"if {form(tokens, *condition, names)} -> {label}"
            shape = f"if {form(tokens, *condition, names, blank=True)} -> {label}"
            return [Check(key, shape, f"if {self._shown(*condition)}: {label}")]
        message = messages(tokens, self.partner, chain, least=4 if self.rules.finder == "go" else 3)
        return [
            Check(
                form(tokens, chain.start, chain.end, names, leave_out=message, limit=MAX_FORM),
                form(tokens, chain.start, chain.end, names, blank=True, leave_out=message, limit=MAX_FORM),
                self._shown(chain.start, chain.end),
                operands_constant(tokens, chain),
            )
        ]

    def _helper_weight(self, chain: Chain) -> int:
        """A call of a helper of this file counts as the checks it holds; in Go, a call handing over
        the test's `t` counts as one (helpers take `t` to fail the test)."""
        if not chain.calls:
            return 0
        names = chain.names
        name = names[-1] if len(names) == 2 and names[0] in ("this", "self", "$this", "static") else names[0]
        if len(names) <= 2 and self.helpers.get(name):
            return self.helpers[name]
        open_, close = chain.calls[0]
        if self.rules.finder == "go" and len(names) == 1 and open_ + 1 < close and self.tokens[open_ + 1].text == "t":
            return 1
        return 0

    def _enclosing_braces(self, unit: Unit) -> dict[int, int]:
        """For each chain in the body, the `{` it is directly inside, if any (one sweep)."""
        tokens = self.tokens
        start, end = unit.body
        lo = bisect.bisect_left(self.chain_starts, start)
        hi = bisect.bisect_left(self.chain_starts, end)
        wanted = {c.start for c in self.chains[lo:hi]}
        found: dict[int, int] = {}
        stack: list[int] = []
        for j in range(start, end):
            token = tokens[j]
            if token.kind == PUNCT and token.text == "{":
                stack.append(j)
            elif token.kind == PUNCT and token.text == "}" and stack:
                stack.pop()
            elif j in wanted and stack:
                found[j] = stack[-1]
        return found

    def _condition_of(self, brace: int | None) -> tuple[int, int] | None:
        """The condition of the `if` whose block opens at `brace`: `if (c) {` or `if c {`."""
        if brace is None:
            return None
        tokens, partner = self.tokens, self.partner
        if brace and tokens[brace - 1].text == ")" and partner[brace - 1] >= 0:
            open_ = partner[brace - 1]
            if open_ and tokens[open_ - 1].text == "if":
                return open_ + 1, brace - 1
        j = brace - 1
        stops = ("{", "}") if self.rules.finder == "go" else ("{", "}", ";")  # Go: if x := f(); x != y {
        while j >= 0 and brace - j < 64 and tokens[j].text not in stops:
            if tokens[j].text == "if":
                return j + 1, brace
            if tokens[j].text in (")", "]") and 0 <= partner[j] < j:
                j = partner[j]
            j -= 1
        return None

    def _annotation_marker(self, annotation: Annotation, where: str) -> Marker | None:
        args = self._args_text(annotation)
        kind = self.rules.marker_annotations(annotation.name, args)
        if kind is None:
            return None
        return Marker(kind, f"{annotation.name}({args})", where, self._shown(*annotation.span))

    def _args_text(self, annotation: Annotation) -> str:
        if annotation.args is None:
            return ""
        open_, close = annotation.args
        return " ".join(t.text for t in self.tokens[open_ + 1 : close])

    def _annotation_checks(self, unit: Unit, names: dict[str, str]) -> list[Check]:
        """JUnit 4's `@Test(expected = X.class)` checks that the body throws X."""
        found = []
        for annotation in unit.annotations:
            args = self._args_text(annotation)
            if annotation.name.rsplit(".", 1)[-1] == "Test" and re.search(r"\bexpected\s*=", args):
                found.append(Check(f"@Test({args})", "@Test(expected)", f"@Test({args})"))
        return found

    def _head_markers(self, unit: Unit) -> list[Marker]:
        """Skips written in a C or C++ test macro's arguments: GoogleTest's `DISABLED_` prefix,
        Catch2's hidden tags (`[.]`, `[!mayfail]`), Criterion's `.disabled = true`, Boost's `disabled()`."""
        if unit.head is None or self.rules.name != "C/C++":
            return []
        tokens = self.tokens[unit.head[0] + 1 : unit.head[1]]
        found = []
        for j, token in enumerate(tokens):
            disabled = token.kind == ID and token.text.startswith("DISABLED_")
            if disabled or (token.kind == STR and _HIDDEN_CATCH_TAG.search(token.text)):
                found.append(Marker(SKIP, token.text, "", token.text))
            elif token.text == "disabled" and j + 2 < len(tokens) and tokens[j + 2].text == "true":
                found.append(Marker(SKIP, ".disabled = true", "", ".disabled = true"))
            elif token.text == "disabled" and j + 1 < len(tokens) and tokens[j + 1].text == "(":
                found.append(Marker(SKIP, "disabled()", "", "disabled()"))
        return found

    def _example_outputs(self, unit: Unit) -> list[Check]:
        """A Go example is checked against its `// Output:` comment (without one it is not run)."""
        start = self.tokens[unit.body[0] - 1].pos
        end = self.tokens[unit.body[1]].pos if unit.body[1] < len(self.tokens) else len(self.text)
        found = []
        first, last = bisect.bisect_left(self.comment_starts, start), bisect.bisect_left(self.comment_starts, end)
        for comment in self.comments[first:last]:
            if _GO_OUTPUT.match(comment.text):
                tail = self.text[comment.pos : end].rsplit("}", 1)[0]
                found.append(Check(f"output {' '.join(tail.split())}", "output", comment.text))
        return found

    def _infix_checks(self, unit: Unit, names: dict[str, str], dead: Ranges) -> list[Check]:
        """Kotlin's infix matchers: `result shouldBe 5`, the statement on its line."""
        tokens = self.tokens
        found = []
        for j in range(*unit.body):
            token = tokens[j]
            if token.kind == ID and token.text.startswith("should") and j and tokens[j - 1].text not in (".", "fun"):
                if j in dead:
                    continue
                line = self.lines[j]
                a = j
                while a > max(unit.body[0], j - MAX_LINE_TOKENS) and self.lines[a - 1] == line:
                    a -= 1
                b = j
                while b + 1 < min(unit.body[1], j + MAX_LINE_TOKENS) and self.lines[b + 1] == line:
                    b += 1
                found.append(
                    Check(
                        form(tokens, a, b + 1, names), form(tokens, a, b + 1, names, blank=True), self._shown(a, b + 1)
                    )
                )
        return found

    def _row(self, span: tuple[int, int], names: dict[str, str]) -> Check:
        tokens = self.tokens
        return Check(
            "case " + form(tokens, *span, names),
            "case " + form(tokens, *span, names, blank=True),
            self._shown(*span),
            row=True,
        )

    # -- the file ------------------------------------------------------------------------------------

    def _whole_file(self) -> None:
        """No test found: every check of the file counts for one test standing for the file."""
        tokens = self.tokens
        checks = []
        for chain in self.chains:
            if self.rules.marker(chain) is None:
                checks += self._checks_of(chain, {}, None)
        if self.rules.finder == "generic":
            self.out.markers = [
                self._marker(kind, c) for c in self.chains if (kind := self.rules.marker(c)) is not None
            ]
        if checks or tokens:
            self.out.tests[WHOLE_FILE] = TestUnit(WHOLE_FILE, WHOLE_FILE, tuple(checks))

    def _is_exit(self, chain: Chain) -> bool:
        return any(chain.names[: len(e)] == e and len(chain.names) == len(e) for e in self.rules.exits)

    def _marker(self, kind: str, chain: Chain, where: str = "") -> Marker:
        """A marker, with its form: its names and the condition it skips on (`it.skipIf(c)`,
        `Skip.If(c)`), not the test's name and body nor a skip's reason, which can change and skip
        nothing more; and how it is shown, the condition's source text."""
        names, conditions = ".".join(chain.names), self._conditions(chain)
        form_ = " ".join([names, *(form(self.tokens, *g, {}, limit=MAX_FORM) for g in conditions)])
        shown = names + "".join(self._shown(open_, close + 1) for open_, close in conditions)
        return Marker(kind, form_, where, shown)

    def _conditions(self, chain: Chain) -> list[tuple[int, int]]:
        return [
            (open_, close)
            for (open_, close), count in zip(chain.calls, chain.after, strict=True)
            if count and chain.names[count - 1] in _CONDITIONS and self.tokens[open_].text == "("
        ]

    def _shown(self, start: int, end: int) -> str:
        """The source text of tokens start to end, for a message: at most MAX_SHOWN characters."""
        if start >= end or start >= len(self.tokens):
            return ""
        last = self.tokens[min(end, len(self.tokens)) - 1]
        first = self.tokens[start].pos
        return self.text[first : min(last.pos + len(last.text), first + MAX_SHOWN)]


def _outermost_tests(units: list[Unit]) -> list[Unit]:
    """Leave out a test declared inside another test's call: no runner collects it there, and
    judging each body once keeps the work linear however deep a file nests them."""
    kept = []
    end = -1
    for unit in sorted(units, key=lambda u: u.head[0] if u.head else 0):
        start = unit.head[0] if unit.head else 0
        if unit.test and start < end:
            continue
        if unit.test and unit.head:
            end = unit.head[1]
        kept.append(unit)
    return kept


def _suites_of(chains: Sequence[Chain], suites: Sequence[Unit]) -> dict[int, str]:
    """The innermost suite each chain stands in, or is the declaration of, by id: one sweep."""
    declared = {id(s.declaration): s.name for s in suites if s.declaration is not None}
    opened = sorted((s.head[0], s.head[1], s.name) for s in suites if s.head is not None)
    found: dict[int, str] = {}
    stack: list[tuple[int, int, str]] = []
    k = 0
    for chain in sorted(chains, key=lambda c: c.start):
        while k < len(opened) and opened[k][0] < chain.start:
            while stack and stack[-1][1] <= opened[k][0]:
                stack.pop()  # a suite that ended before this one began
            stack.append(opened[k])
            k += 1
        while stack and chain.start >= stack[-1][1]:
            stack.pop()
        if id(chain) in declared:
            found[id(chain)] = declared[id(chain)]
        elif stack:
            found[id(chain)] = stack[-1][2]
    return found


def _go_tables(tokens: Sequence[Token], partner: Sequence[int], start: int, end: int) -> list[tuple[int, int]]:
    """The rows of a Go table test: each element of a slice or map literal of the test's body
    (`[]struct{...}{ {...}, {...} }`, `map[string]struct{...}{ "a": {...} }`)."""
    rows = []
    j = start
    while j < end - 2:
        token = tokens[j]
        k = -1
        if token.text == "[" and tokens[j + 1].text == "]":
            k = j + 2
        elif token.text == "map" and tokens[j + 1].text == "[" and partner[j + 1] > j:
            k = partner[j + 1] + 1
        if k < 0:
            j += 1
            continue
        if k < end and tokens[k].text == "struct" and k + 1 < end and tokens[k + 1].text == "{":
            k = partner[k + 1] + 1
        else:
            while k < end and (tokens[k].kind == ID or tokens[k].text in ("*", ".")):
                k += 1
        if k < end and tokens[k].text == "{" and partner[k] > k:
            rows += arguments(tokens, partner, k, partner[k])
            j = partner[k] + 1
            continue
        j += 1
    return rows


def _empty(tokens: Sequence[Token], start: int, end: int) -> bool:
    texts = [t.text for t in tokens[start:end]]
    return not [t for t in texts if t not in ("return", ";", "pass", "Unit")] or texts == ["{", "}"]
