"""What a Python test file declares, read with Python's own parser (`ast`), as pytest and unittest
would collect it.

- Tests: module functions named `test*`, and `test*` methods of classes pytest collects (`Test*`
  without `__init__`) or unittest does (a `TestCase` base, or a base class of this module that is
  one). `__test__ = False` stops a module or class being collected.
- Markers: every reference that resolves to a skip or xfail (`@pytest.mark.skip`/`skipif`/`xfail`,
  `unittest.skip*`, `expectedFailure`, `pytest.skip(`, `pytest.importorskip(`, `self.skipTest(`,
  `raise SkipTest`), through imports and module-level aliases (`skip = pytest.mark.skip`, then
  `@skip`), on the test, its class, the module (`pytestmark`) or a parameter (`pytest.param(...,
  marks=...)`); `pytest.mark.only`/`focus` focus the run.
- Checks: `assert`, calls named `assert*` (`self.assertEqual`, `assert_called_once_with`,
  `assert_that`), `pytest.raises`/`warns`, `self.fail`, `expect(`, and calls of this module's own
  helpers counted as the checks they hold. Checks after an unconditional `return`, `raise`,
  `pytest.skip()` or `if True: return` are unreachable and do not count.
- Hooks: the pytest hooks that can change what runs or what it reports (`pytest_runtest_makereport`,
  `pytest_collection_modifyitems`, `pytest_sessionfinish`, ...), autouse fixtures, `pytest_plugins`,
  unittest's `load_tests`; `collect_ignore`; calls that end the process (`os._exit`, `sys.exit`)
  outside `if __name__ == "__main__":`.

Walks are iterative (`ast.walk`) or bounded by Python's own limit on nested blocks: a file that
parses cannot make them recurse too deep.
"""

# ruff: noqa: SIM905 - word lists read best as words

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from code_commit.guard.weakening.facts import FOCUS, SKIP, Check, FileFacts, Marker, TestUnit

_SKIP_NAMES = frozenset(
    "skip skipif skipunless xfail expectedfailure importorskip skiptest skipifdbfeature skipunlessdbfeature "
    "skipunlessanydbfeature".split()
)
_FOCUS_NAMES = frozenset({"only", "focus"})
_TEST_ROOTS = frozenset({"pytest", "_pytest", "unittest", "django", "nose", "nose2", "twisted", "absl"})
_SELF = frozenset({"self", "cls"})
# pytest hooks through which a conftest.py or plugin can change which tests run or what they report.
OUTCOME_HOOKS = frozenset(
    """pytest_runtest_makereport pytest_runtest_call pytest_runtest_setup pytest_runtest_teardown
    pytest_runtest_protocol pytest_runtestloop pytest_pyfunc_call pytest_collection_modifyitems pytest_collection
    pytest_ignore_collect pytest_collect_file pytest_collect_directory pytest_pycollect_makeitem
    pytest_pycollect_makemodule pytest_make_collect_report pytest_generate_tests pytest_sessionstart
    pytest_sessionfinish pytest_configure pytest_cmdline_main pytest_cmdline_parse pytest_load_initial_conftests
    pytest_report_teststatus pytest_runtest_logreport pytest_unconfigure load_tests""".split()
)
_EXITS = frozenset({"os._exit", "sys.exit", "exit", "quit", "os.abort", "posix._exit"})
_RAISES = frozenset({"raises", "warns", "deprecated_call"})
_COLLECT_IGNORE = ("collect_ignore", "collect_ignore_glob")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$")


def python_facts(source: bytes) -> FileFacts:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        return FileFacts(unreadable=f"it no longer parses as Python: {type(exc).__name__}")
    return _Reader(tree, source).facts()


@dataclass
class _Class:
    node: ast.ClassDef
    name: str  # qualified: Outer::Inner
    collected: bool
    markers: list[Marker] = field(default_factory=list)
    cases: int = 1


class _Reader:
    def __init__(self, tree: ast.Module, source: bytes) -> None:
        self.tree = tree
        # Lines as Python counts them (\n, \r\n or \r; not the form feeds str.splitlines also splits on).
        self.lines: list[str] = _LINE.findall(source.decode("utf-8", "replace"))
        self.aliases: dict[str, str] = {}  # local name -> dotted name it stands for
        self.alias_values: dict[str, ast.expr] = {}  # local name -> the expression it was set to
        self.helpers: dict[str, int] = {}  # module function or method name -> checks it holds
        self.module_lists: dict[str, ast.expr] = {}  # NAME = [...] at module level: parametrize may name one
        self.out = FileFacts()
        self.module_collected = True

    def facts(self) -> FileFacts:
        statements = list(_top_statements(self.tree.body))
        for statement, _ in statements:
            self._note_alias(statement)
        for _ in range(2):  # a helper may call a helper
            for statement, _ in statements:
                self._note_helpers(statement, "")
        classes: dict[str, bool] = {}
        for statement, live in statements:
            self._read_top(statement, live, classes)
        self.out.exits = sum(1 for node in _outside_main(self.tree) if self._is_exit(node))
        return self.out

    # -- names ----------------------------------------------------------------------------------------

    def _note_alias(self, statement: ast.stmt) -> None:
        if isinstance(statement, ast.Assign | ast.AnnAssign) and isinstance(statement.value, ast.List | ast.Tuple):
            for name in _targets(statement):
                self.module_lists[name] = statement.value
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.asname:
                    self.aliases[alias.asname] = alias.name
        elif isinstance(statement, ast.ImportFrom) and statement.module and statement.level == 0:
            for alias in statement.names:
                self.aliases[alias.asname or alias.name] = f"{statement.module}.{alias.name}"
        elif isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Name) and target.id not in ("pytestmark", *_COLLECT_IGNORE):
                value = statement.value
                resolved = self.dotted(value.func if isinstance(value, ast.Call) else value)
                if resolved is not None and resolved != target.id:
                    self.aliases[target.id] = resolved
                    self.alias_values[target.id] = value

    def dotted(self, node: ast.expr) -> str | None:
        """The dotted name an expression stands for (`pt.mark.skip` -> `pytest.mark.skip`), or None."""
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name):
            return None
        parts.append(self.aliases.get(node.id, node.id))
        return ".".join(reversed(parts))

    def _marker_kind(self, node: ast.expr) -> str | None:
        """SKIP or FOCUS for a reference to a skip or focus marker, else None."""
        name = self.dotted(node)
        if name is None:
            return None
        parts = name.split(".")
        known_root = parts[0] in _TEST_ROOTS or (parts[0] in _SELF and parts[-1].lower() == "skiptest")
        if known_root and any(part.lower() in _SKIP_NAMES for part in parts[1:]):
            return SKIP  # pytest.mark.skipif, unittest.skip, self.skipTest, pytest.skip.Exception
        if len(parts) == 1 and name.lower() in _SKIP_NAMES:
            return SKIP  # a bare skip, xfail or SkipTest of unknown origin
        if parts[-1].lower() in _FOCUS_NAMES and name.startswith("pytest.mark."):
            return FOCUS
        return None

    def _is_exit(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Call):
            return self.dotted(node.func) in _EXITS
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            return self.dotted(exc) == "SystemExit"
        return False

    # -- the module -----------------------------------------------------------------------------------

    def _read_top(self, statement: ast.stmt, live: bool, classes: dict[str, bool]) -> None:
        out = self.out
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            name = statement.name
            if name in OUTCOME_HOOKS:
                out.hooks[name] = _fingerprint(statement, {})
            elif self._autouse_fixture(statement):
                out.hooks[f"autouse fixture {name}"] = _fingerprint(statement, {})
            if live and name.startswith("test") and self.module_collected:
                self._add_test(statement, name, 1)
            else:
                out.others[_body_print(statement)] = name
        elif isinstance(statement, ast.ClassDef):
            self._read_class(statement, "", live and self.module_collected, classes, 1)
        elif isinstance(statement, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Expr):
            self._read_module_assignment(statement)
        if isinstance(statement, ast.Assign | ast.AnnAssign | ast.Expr | ast.Raise):
            out.markers += self._skips_at_import(statement)

    def _read_module_assignment(self, statement: ast.stmt) -> None:
        out = self.out
        targets = _targets(statement)
        assigned = statement.value if isinstance(statement, ast.Assign) else None
        if "__test__" in targets and isinstance(assigned, ast.Constant) and not assigned.value:
            self.module_collected = False
            out.narrowing.append("__test__ = False: pytest no longer collects this module")
            for name, unit in list(out.tests.items()):  # tests read before the line
                out.others[unit.body] = name
                del out.tests[name]
        marked = _value(statement)
        if "pytestmark" in targets and marked is not None:
            out.markers += self._markers_in(marked, where="module")
        if "pytest_plugins" in targets:
            out.hooks["pytest_plugins"] = _fingerprint(statement, {})
        for name in _COLLECT_IGNORE:
            if name in targets or _appends_to(statement, name):
                value = _value(statement)
                entries = value.elts if isinstance(value, ast.List | ast.Tuple | ast.Set) else [value]
                out.narrowing += [f"{name}: {self._shown(entry)}" for entry in entries if entry is not None]

    def _skips_at_import(self, statement: ast.stmt) -> list[Marker]:
        """Skips that run when the module is imported (`pytest.importorskip("x")`, `pytest.skip(...,
        allow_module_level=True)`, `raise SkipTest`), not marker objects made for later (`pytest.mark.*`)."""
        if isinstance(statement, ast.Raise):
            return self._markers_in(statement, where="module")
        found = []
        for node in ast.walk(statement):
            if not isinstance(node, ast.Call) or ".mark." in f".{self.dotted(node.func)}.":
                continue
            if self._marker_kind(node.func) == SKIP:
                found.append(Marker(SKIP, self._marker_key(node), "module", self._shown(node)))
        return found

    def _autouse_fixture(self, function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        for decorator in function.decorator_list:
            if isinstance(decorator, ast.Call) and (self.dotted(decorator.func) or "").endswith("fixture"):
                for keyword in decorator.keywords:
                    if keyword.arg == "autouse" and not (
                        isinstance(keyword.value, ast.Constant) and not keyword.value.value
                    ):
                        return True
        return False

    def _read_class(self, node: ast.ClassDef, outer: str, live: bool, classes: dict[str, bool], cases: int) -> None:
        name = f"{outer}::{node.name}" if outer else node.name
        classes[node.name] = self._collected(node, classes)
        collected = live and classes[node.name]
        # A class's markers stand for all its tests: reported once, on the class, as a suite's are.
        self.out.markers += self._decorator_markers(node.decorator_list, where=name)
        cases *= self._cases(node.decorator_list)
        for statement in node.body:
            if isinstance(statement, ast.Assign) and "pytestmark" in _targets(statement):
                self.out.markers += self._markers_in(statement.value, where=name)
        for statement in node.body:
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                if collected and statement.name.startswith("test"):
                    self._add_test(statement, f"{name}::{statement.name}", cases, cls=node)
                else:
                    self.out.others[_body_print(statement)] = f"{name}.{statement.name}"
            elif isinstance(statement, ast.ClassDef):
                self._read_class(statement, name, collected, classes, cases)

    def _collected(self, node: ast.ClassDef, classes: dict[str, bool]) -> bool:
        for statement in node.body:
            if isinstance(statement, ast.Assign) and "__test__" in _targets(statement):
                return not (isinstance(statement.value, ast.Constant) and not statement.value.value)
        for base in node.bases:
            base_name = (self.dotted(base) or "").rsplit(".", 1)[-1]
            if "TestCase" in base_name or classes.get(base_name) or base_name.startswith("Test"):
                return True
        has_init = any(isinstance(s, ast.FunctionDef) and s.name == "__init__" for s in node.body)
        return node.name.startswith("Test") and not has_init

    # -- one test -------------------------------------------------------------------------------------

    def _add_test(
        self,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        name: str,
        outer_cases: int,
        cls: ast.ClassDef | None = None,
    ) -> None:
        names = _local_names(function)
        markers = self._decorator_markers(function.decorator_list)
        markers += [m for s in function.body for m in self._markers_in(s)]
        live, unreachable, _ = self._block(function.body, names, cls)
        rows = self._rows(function.decorator_list) + (self._rows(cls.decorator_list) if cls else [])
        self.out.tests[name] = TestUnit(
            name=name,
            simple=function.name,
            checks=tuple(live + rows),
            unreachable=unreachable,
            markers=tuple(markers),
            cases=outer_cases * self._cases(function.decorator_list),
            body=_body_print(function, names),
            empty=_does_nothing(function.body),
        )

    def _decorator_markers(self, decorators: list[ast.expr], where: str = "") -> list[Marker]:
        return [m for decorator in decorators for m in self._markers_in(decorator, where)]

    def _markers_in(self, node: ast.AST, where: str = "") -> list[Marker]:
        """Every skip or focus marker referenced under `node` (not inside the value of an alias, which
        counts where the alias is used)."""
        found = []
        consumed: set[int] = set()
        for child in ast.walk(node):
            if id(child) in consumed:
                continue
            target = child.func if isinstance(child, ast.Call) else child
            if not isinstance(target, ast.Name | ast.Attribute):
                continue
            kind = self._marker_kind(target)
            if kind is None:
                continue
            consumed.add(id(target))
            if isinstance(target, ast.Attribute):
                consumed.update(id(n) for n in ast.walk(target))
            alias = self.alias_values.get(target.id) if isinstance(target, ast.Name) else None
            form = alias if alias is not None and not isinstance(child, ast.Call) else target
            if isinstance(child, ast.Call) and child.func is target:
                form = child
            found.append(Marker(kind, self._marker_key(form), where, self._shown(child)))
        return found

    def _marker_key(self, node: ast.expr) -> str:
        """A marker's form with its name resolved, so `@mark.skip` after `from pytest import mark`
        is `@pytest.mark.skip`."""
        if isinstance(node, ast.Call):
            arguments = [*node.args, *node.keywords]
            return f"{self.dotted(node.func)}({','.join(_fingerprint(a, {}) for a in arguments)})"
        return self.dotted(node) or _fingerprint(node, {})

    def _cases(self, decorators: list[ast.expr]) -> int:
        """The parametrized cases the decorators make, multiplied; a list that is not written out
        counts as one."""
        cases = 1
        for values in self._case_lists(decorators):
            cases *= len(values)
        return cases

    def _case_lists(self, decorators: list[ast.expr]) -> list[list[ast.expr]]:
        """The argument values of each `@pytest.mark.parametrize` written out as a list."""
        found = []
        for decorator in decorators:
            if not isinstance(decorator, ast.Call) or not (self.dotted(decorator.func) or "").endswith("parametrize"):
                continue
            values = decorator.args[1] if len(decorator.args) > 1 else None
            for keyword in decorator.keywords:
                if keyword.arg == "argvalues":
                    values = keyword.value
            if isinstance(values, ast.Name):
                values = self.module_lists.get(values.id)  # CASES = [...] at module level
            if isinstance(values, ast.List | ast.Tuple | ast.Set):
                found.append(values.elts)
        return found

    def _rows(self, decorators: list[ast.expr]) -> list[Check]:
        """Each parametrized case as a row, so a case whose values changed is seen."""
        return [
            Check("case " + _fingerprint(v, {}), "case " + _fingerprint(v, {}, blank=True), self._shown(v), row=True)
            for values in self._case_lists(decorators)
            for v in values
        ]

    def _block(
        self, statements: list[ast.stmt], names: dict[str, str], cls: ast.ClassDef | None
    ) -> tuple[list[Check], int, bool]:
        """The reachable checks of a block, the count of unreachable ones, and whether the block
        always ends the test (return, raise, skip)."""
        live: list[Check] = []
        dead = 0
        ended = False
        for statement in statements:
            checks, unreachable, ends = self._statement(statement, names, cls)
            if ended:
                dead += len(checks) + unreachable
                continue
            live += checks
            dead += unreachable
            ended = ends
        return live, dead, ended

    def _statement(
        self, statement: ast.stmt, names: dict[str, str], cls: ast.ClassDef | None
    ) -> tuple[list[Check], int, bool]:
        block = self._block
        if isinstance(statement, ast.If):
            head = self._checks_in(statement.test, names, cls)
            truth = _constant_truth(statement.test)
            body, body_dead, body_ends = block(statement.body, names, cls)
            other, other_dead, other_ends = block(statement.orelse, names, cls)
            if truth is True:
                return head + body, body_dead + len(other) + other_dead, body_ends
            if truth is False:
                return head + other, other_dead + len(body) + body_dead, other_ends
            return head + body + other, body_dead + other_dead, body_ends and other_ends
        if isinstance(statement, ast.With | ast.AsyncWith):
            head = [c for item in statement.items for c in self._checks_in(item.context_expr, names, cls)]
            head += [self._check(item.context_expr, names) for item in statement.items if self._raises(item)]
            body, body_dead, ends = block(statement.body, names, cls)
            return head + body, body_dead, ends
        if isinstance(statement, ast.For | ast.AsyncFor | ast.While):
            header = statement.test if isinstance(statement, ast.While) else statement.iter
            head = self._checks_in(header, names, cls)
            body, body_dead, _ = block(statement.body, names, cls)
            other, other_dead, _ = block(statement.orelse, names, cls)
            return head + body + other, body_dead + other_dead, False
        if isinstance(statement, ast.Try | ast.TryStar):
            parts = [statement.body, *(h.body for h in statement.handlers), statement.orelse, statement.finalbody]
            results = [block(part, names, cls) for part in parts]
            checks = [c for r in results for c in r[0]]
            return checks, sum(r[1] for r in results), results[-1][2]
        if isinstance(statement, ast.Match):
            results = [block(case.body, names, cls) for case in statement.cases]
            head = self._checks_in(statement.subject, names, cls)
            return head + [c for r in results for c in r[0]], sum(r[1] for r in results), False
        checks = self._checks_in(statement, names, cls)
        return checks, 0, self._ends(statement)

    def _ends(self, statement: ast.stmt) -> bool:
        if isinstance(statement, ast.Return | ast.Raise):
            return True
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            call = statement.value
            name = (self.dotted(call.func) or "").lower()
            return self._marker_kind(call.func) == SKIP or name.endswith(".fail") or self._is_exit(call)
        return False

    def _raises(self, item: ast.withitem) -> bool:
        expr = item.context_expr
        name = self.dotted(expr.func) if isinstance(expr, ast.Call) else None
        return name is not None and name.split(".")[0] == "pytest" and name.rsplit(".", 1)[-1] in _RAISES

    def _checks_in(self, node: ast.AST, names: dict[str, str], cls: ast.ClassDef | None) -> list[Check]:
        found = []
        for child in ast.walk(node):
            if isinstance(child, ast.Assert):
                found.append(self._check(child, names))
            elif isinstance(child, ast.Call):
                name = self.dotted(child.func) or ""
                last = name.rsplit(".", 1)[-1]
                fails = last == "fail" and name.split(".")[0] in ("pytest", *_SELF)
                if last.lower().startswith("assert") or last == "expect" or fails:
                    found.append(self._check(child, names))
                else:
                    helper = self._helper_name(child, cls)
                    found += [self._check(child, names)] * self.helpers.get(helper, 0) if helper else []
        return found

    def _helper_name(self, call: ast.Call, cls: ast.ClassDef | None) -> str | None:
        func = call.func
        if isinstance(func, ast.Name):
            return func.id
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in _SELF and cls:
            return f"{cls.name}.{func.attr}"
        return None

    def _note_helpers(self, statement: ast.stmt, owner: str) -> None:
        """The checks each function that is not a test holds, so a test calling it is credited."""
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef) and not statement.name.startswith("test"):
            count = sum(len(self._checks_in(child, {}, None)) for child in statement.body)
            self.helpers[f"{owner}{statement.name}"] = count
        elif isinstance(statement, ast.ClassDef) and not owner:
            for child in statement.body:
                self._note_helpers(child, f"{statement.name}.")

    def _check(self, node: ast.AST, names: dict[str, str]) -> Check:
        checked = _without_message(node)
        return Check(
            key=_fingerprint(checked, names),
            shape=_fingerprint(checked, names, blank=True),
            shown=self._shown(node),
            always_passes=_always_passes(node),
        )

    def _shown(self, node: ast.AST) -> str:
        """The node's text as written: like ast.get_source_segment, without splitting the whole
        source on every call (that made a file of many checks cost the square of its size)."""
        first: int | None = getattr(node, "lineno", None)
        last: int | None = getattr(node, "end_lineno", None)
        start: int | None = getattr(node, "col_offset", None)
        end: int | None = getattr(node, "end_col_offset", None)
        if first is None or last is None or start is None or end is None or last > len(self.lines):
            return type(node).__name__
        if first == last:
            return self.lines[first - 1].encode()[start:end].decode("utf-8", "replace")
        head = self.lines[first - 1].encode()[start:].decode("utf-8", "replace")
        tail = self.lines[last - 1].encode()[:end].decode("utf-8", "replace")
        return head + "".join(self.lines[first : last - 1]) + tail


_ONE_ARGUMENT = frozenset({"assertTrue", "assertFalse", "assertIsNone", "assertIsNotNone", "assert_", "fail"})


def _without_message(node: ast.AST) -> ast.AST:
    """A check without its message, so rewording a message changes no check: `assert x, "msg"`,
    `self.assertEqual(a, b, "msg")`, `msg=`/`reason=` keywords."""
    if isinstance(node, ast.Assert):
        return ast.Assert(test=node.test, msg=None)
    if not isinstance(node, ast.Call):
        return node
    name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
    arity = 1 if name in _ONE_ARGUMENT else 2
    args = list(node.args)
    if len(args) > arity and isinstance(args[-1], ast.Constant) and isinstance(args[-1].value, str):
        args = args[:-1]
    keywords = [k for k in node.keywords if k.arg not in ("msg", "message", "reason", "err_msg")]
    return ast.Call(func=node.func, args=args, keywords=keywords)


def _top_statements(body: list[ast.stmt], live: bool = True) -> Iterator[tuple[ast.stmt, bool]]:
    """Module statements, including those inside module-level if and try blocks; `live` is false
    under `if False:` (a test defined there never exists)."""
    for statement in body:
        if isinstance(statement, ast.If):
            truth = _constant_truth(statement.test)
            yield from _top_statements(statement.body, live and truth is not False)
            yield from _top_statements(statement.orelse, live and truth is not True)
        elif isinstance(statement, ast.Try | ast.TryStar):
            for part in (statement.body, *(h.body for h in statement.handlers), statement.orelse, statement.finalbody):
                yield from _top_statements(part, live)
        else:
            yield statement, live


def _outside_main(tree: ast.Module) -> Iterator[ast.AST]:
    """Every node but those under `if __name__ == "__main__":`, which runs only as a script."""
    for statement in tree.body:
        if isinstance(statement, ast.If) and _is_main_guard(statement.test):
            continue
        yield from ast.walk(statement)


def _is_main_guard(test: ast.expr) -> bool:
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and len(test.comparators) == 1
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == "__main__"
    )


def _targets(statement: ast.stmt) -> set[str]:
    if isinstance(statement, ast.Assign):
        return {t.id for t in statement.targets if isinstance(t, ast.Name)}
    if isinstance(statement, ast.AugAssign | ast.AnnAssign) and isinstance(statement.target, ast.Name):
        return {statement.target.id}
    return set()


def _value(statement: ast.stmt) -> ast.expr | None:
    if isinstance(statement, ast.Assign | ast.AugAssign | ast.AnnAssign):
        return statement.value
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call) and statement.value.args:
        return statement.value.args[0]
    return None


def _appends_to(statement: ast.stmt, name: str) -> bool:
    """`name.append(x)` or `name.extend(xs)` at module level."""
    if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call)):
        return False
    func = statement.value.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr in ("append", "extend")
        and isinstance(func.value, ast.Name)
        and func.value.id == name
    )


def _constant_truth(test: ast.expr) -> bool | None:
    if isinstance(test, ast.Constant):
        return bool(test.value)
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _constant_truth(test.operand) if isinstance(test.operand, ast.Constant) else None
        return None if inner is None else not inner
    return None


def _local_names(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, str]:
    """The names a function binds (its parameters, assignments, loop and `with` targets), each
    renamed by the order of its first binding: `_1`, `_2`, ..."""
    bound: list[tuple[int, int, str]] = []
    arguments = function.args
    for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg):
        if arg is not None:
            bound.append((arg.lineno, arg.col_offset, arg.arg))
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.append((node.lineno, node.col_offset, node.id))
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.append((node.lineno, node.col_offset, node.name))
    names: dict[str, str] = {}
    for _, _, name in sorted(bound):
        if name not in _SELF:  # a test moved into a class gains `self`, and stays the same test
            names.setdefault(name, f"_{len(names) + 1}")
    return names


def _body_print(function: ast.FunctionDef | ast.AsyncFunctionDef, names: dict[str, str] | None = None) -> str:
    body = function.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring
    names = _local_names(function) if names is None else names
    return "\n".join(_fingerprint(statement, names) for statement in body)


def _does_nothing(body: list[ast.stmt]) -> bool:
    for statement in body:
        if isinstance(statement, ast.Pass):
            continue
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue  # a docstring or ...
        if isinstance(statement, ast.Return) and statement.value is None:
            continue
        return False
    return True


def _always_passes(node: ast.AST) -> bool:
    """A check that cannot fail: it looks at no name at all, or compares a thing with itself."""
    if isinstance(node, ast.Assert):
        checked: list[ast.expr] = [node.test]
    elif isinstance(node, ast.Call):
        checked = [*node.args, *(k.value for k in node.keywords if k.arg not in ("msg", "reason"))]
    else:
        return False
    if not checked:
        return False
    if not any(isinstance(n, ast.Name | ast.Attribute | ast.Call) for expr in checked for n in ast.walk(expr)):
        return True
    if isinstance(node, ast.Assert) and isinstance(node.test, ast.Compare) and len(node.test.comparators) == 1:
        sides = (node.test.left, node.test.comparators[0])
        return isinstance(node.test.ops[0], ast.Eq | ast.Is | ast.LtE | ast.GtE) and _same(*sides)
    if isinstance(node, ast.Call) and len(node.args) >= 2:
        return _same(node.args[0], node.args[1])
    return False


def _same(a: ast.AST, b: ast.AST) -> bool:
    return _fingerprint(a, {}) == _fingerprint(b, {})


def _fingerprint(node: ast.AST, names: dict[str, str], blank: bool = False) -> str:
    """The node's form, without positions or layout; local names renamed by `names`; with `blank`,
    every constant replaced by `?`. Iterative: no tree Python parses can make it recurse."""
    out: list[str] = []
    stack: list[object] = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, ast.Constant):
            out.append("?" if blank else repr(item.value))
        elif blank and _signed(item):
            out.append("?")
        elif isinstance(item, ast.Name):
            out.append(names.get(item.id, item.id))
        elif isinstance(item, ast.arg):
            out.append(names.get(item.arg, item.arg))
        elif isinstance(item, ast.AST):
            out.append(type(item).__name__ + "(")
            stack.append(")")
            for value in reversed([getattr(item, f, None) for f in item._fields]):
                stack.append(",")
                _push(stack, value)
        elif isinstance(item, list):
            out.append("[")
            stack.append("]")
            stack.extend(reversed(item))
        else:
            out.append(repr(item))
    return "".join(out)


def _signed(item: object) -> bool:
    """-1 and +1: one literal, so `== 5` to `== -1` changes an expected value, not the form."""
    return (
        isinstance(item, ast.UnaryOp)
        and isinstance(item.op, ast.USub | ast.UAdd)
        and isinstance(item.operand, ast.Constant)
    )


def _push(stack: list[object], value: object) -> None:
    if isinstance(value, str):
        stack.append(repr(value))  # an attribute or keyword name: never a local, so never renamed
    elif isinstance(value, list | ast.AST) or value is None:
        stack.append(value if value is not None else "None")
    else:
        stack.append(repr(value))
