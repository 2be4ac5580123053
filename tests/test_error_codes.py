"""The error-code catalog (``agentic/contract/codes.py``) against the source that emits the codes.

Every module under ``agentic/`` is parsed with ``ast``. A *sink* is a call that carries a code: the
failure exceptions (``AdapterError``, ``AdapterCallError``, ``ContractError``, the runner's
``StepError``, the reference server's ``ProductError``), the runner's receipt writers
(``TrialFailure``, ``fail_trial``, ``_record``, ``harness_failure_receipt``, ``harness_receipt``)
and the helpers that forward a code to one of them (``read_input_file``, ``run_bounded``, ...). The
code given to a sink is read as written: a string literal, a conditional of literals, a local or
module constant, or a pick from a module-level table (a dict of codes, or of ``(code, class)``
pairs). A code built by an f-string is reported: every code is written out as a literal where it is
emitted, which is also what lets ``ErrorCodeName`` (``contract/code_names.py``) type it. A code
re-raised from another error (``exc.code``) or forwarded through a sink's own parameter was
collected where it was first written; a product's own code passed through is wrapped as
``RelayedCode(...)`` and listed in ``RELAYED``. Anything else is reported, so a new way of building
a code cannot slip past.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import get_args

import pytest

from agentic.contract.code_names import ErrorCodeName
from agentic.contract.codes import CODES, ENTRIES, ErrorCode
from agentic.docgen.code_names import PAGE as CODE_NAMES
from agentic.docgen.code_names import render_code_names

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "agentic"

INPUT = "input"  # the kind of a ContractError code: the command ends with exit 2, no receipt
CLASSES = frozenset({"harness_error", "agent_error", "product_error"})
CODE_SHAPE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")


@dataclass(frozen=True)
class Sink:
    """Where a call carries its code (position, keyword) and its class (likewise, or fixed)."""

    code_at: int | None
    code_kw: str
    class_at: int | None = None
    class_kw: str | None = None
    kind: str | None = None  # a fixed class or INPUT; None: read from the call, or not given


_ADAPTER = Sink(0, "code", 1, "failure_class")

# Sinks by the called name, wherever they are called.
SINKS: dict[str, Sink] = {
    "AdapterError": _ADAPTER,
    "AdapterCallError": _ADAPTER,
    "ContractError": Sink(0, "code", kind=INPUT),
    # runner/steps.py: an invalid agent step; run_trial ends the trial with it as an agent_error.
    "StepError": Sink(0, "code", kind="agent_error"),
    # server/app.py: an error result of the reference server; mcp-reference raises its code as
    # AdapterCallError(code, "product_error").
    "ProductError": Sink(0, "code", kind="product_error"),
    "TrialFailure": Sink(1, "code", 0, "failure_class"),
    # runner/receipts.py: a pair that never ran, always a harness_error.
    "harness_failure_receipt": Sink(None, "code", kind="harness_error"),
    # lane/harness_records.py: a pair that never ran (no preparation, a lost worker), through
    # the above.
    "never_ran": Sink(None, "code", kind="harness_error"),
    # contract/files.py: the ContractError code of an unreadable input file.
    "read_input_file": Sink(None, "code", kind=INPUT),
    # adapters/qmd/proc.py: the ContractError code of a process that cannot start or times out.
    # (mcp/process.py's run_bounded takes no code, so a call without ``code=`` carries none.)
    "run_bounded": Sink(None, "code", kind=INPUT),
    # contract/strict_json.py: the code every failure of a document's strict parse takes.
    "parse_strict_object": Sink(None, "code", kind=INPUT),
    # contract/toml_config.py: the code every failure of a TOML config file takes.
    "parse_toml_model": Sink(None, "code", kind=INPUT),
    # commands/argtypes.py: the ContractError code of a command that needs the baselines root
    # and has neither a checkout nor --baselines.
    "baselines_root": Sink(None, "code", kind=INPUT),
    # agents/base.py: a step an endpoint agent could not take, classified by the agent.
    "AgentStepError": Sink(1, "code", 0, "failure_class"),
    # A tool result's errorCode (a synthetic or a delivered error result): no class of its own.
    "ToolResult": Sink(None, "errorCode"),
}

# Private helpers, by (module, name): the same name means something else in another module.
MODULE_SINKS: dict[tuple[str, str], Sink] = {
    ("agentic/runner/trial.py", "fail_trial"): Sink(2, "code", 1, "failure_class"),
    ("agentic/runner/trial.py", "_record"): Sink(None, "failure_code"),
    ("agentic/runner/trial.py", "_record_undelivered"): Sink(3, "code"),
    ("agentic/runner/trial.py", "_synthetic_error"): Sink(1, "code"),
    ("agentic/runner/lifecycles.py", "harness_receipt"): Sink(2, "code", kind="harness_error"),
    ("agentic/adapters/mcp/adapter.py", "_list_product_tools"): Sink(
        2, "code", kind="harness_error"
    ),
    ("agentic/ranking/goldens.py", "_invalid"): Sink(0, "code", kind=INPUT),
    ("agentic/catalog/table.py", "_lookup"): Sink(None, "code", kind=INPUT),
    # An unusable endpoint reply: always llm_response_invalid, a harness_error.
    ("agentic/agents/openai_chat.py", "_invalid"): Sink(None, "code", kind="harness_error"),
}

# A product's own error code passed through, by (module, the source inside ``RelayedCode(...)``),
# with where those codes are. Only these may be wrapped as RelayedCode, and only so wrapped.
RELAYED: dict[tuple[str, str], str] = {
    (
        "agentic/adapters/mcp/reference.py",
        "product_error_code(call.raw.structured, 'error')",
    ): "the reference server's codes: its ProductError codes and the lexical index's "
    "AdapterError codes, both collected (and cataloged) where they are raised",
    (
        "agentic/adapters/mcp/gno.py",
        "f\"gno_{product_error_code(raw.structured, 'error')}\"",
    ): "GNO's own error codes, delivered to the agent as gno_<code> error results; an open "
    "set owned by the product, so not cataloged (the catalog's docstring says so)",
}

# Attributes that hold a code (or class) already raised elsewhere: ``raise X(exc.code, ...)``.
_PASSED_ATTRIBUTES = frozenset({"code", "failure_class", "errorCode"})


@dataclass(frozen=True)
class Emission:
    code: str
    kind: str | None  # a failure class, INPUT, or None when the sink gives no class
    where: str


@dataclass(frozen=True)
class _Values:
    """The literal values an expression can take; ``key`` pairs two conditionals of one test."""

    values: tuple[str, ...]
    key: str | None = None


_PASS = _Values(())  # forwarded or re-raised: collected where it was first written


@dataclass
class _Found:
    emissions: list[Emission]
    problems: list[str]
    used_relayed: set[tuple[str, str]]


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def _rel(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


@cache
def _tree(rel: str) -> ast.Module:
    return ast.parse((ROOT / rel).read_text(encoding="utf-8"), filename=rel)


@cache
def _module_values(rel: str) -> dict[str, ast.expr]:
    """Module-level ``NAME = value`` (and annotated) assignments, and agentic imports by name."""
    found: dict[str, ast.expr] = {}
    for node in _tree(rel).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                found[target.id] = node.value
        elif (
            isinstance(node, ast.AnnAssign)
            and node.value is not None
            and isinstance(node.target, ast.Name)
        ):
            found[node.target.id] = node.value
    return found


@cache
def _imported(rel: str) -> dict[str, str]:
    """Names imported from another agentic module: name -> that module's path."""
    found: dict[str, str] = {}
    for node in _tree(rel).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            target = ROOT / (node.module.replace(".", "/") + ".py")
            if node.module.startswith("agentic.") and target.is_file():
                for alias in node.names:
                    found[alias.asname or alias.name] = _rel(target)
    return found


def _called_name(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def _sink(rel: str, name: str | None) -> Sink | None:
    if name is None:
        return None
    return MODULE_SINKS.get((rel, name)) or SINKS.get(name)


def _argument(call: ast.Call, at: int | None, keyword: str | None) -> ast.expr | None:
    if at is not None and at < len(call.args):
        return call.args[at]
    return next((k.value for k in call.keywords if k.arg == keyword), None)


def _parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    arguments = function.args
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    return {a.arg for a in every}


def _assignment(
    function: ast.FunctionDef | ast.AsyncFunctionDef, name: str, line: int
) -> tuple[ast.expr, int | None] | None:
    """The last assignment to ``name`` before ``line`` in ``function`` (annotated or not): its
    value, and the index of ``name`` when the target is a tuple."""
    best: tuple[int, ast.expr, int | None] | None = None
    for node in ast.walk(function):
        if isinstance(node, ast.AnnAssign):
            named = isinstance(node.target, ast.Name) and node.target.id == name
            later = best is None or node.lineno > best[0]
            if named and later and node.value is not None and node.lineno < line:
                best = (node.lineno, node.value, None)
            continue
        if not isinstance(node, ast.Assign) or node.lineno >= line:
            continue
        for target in node.targets:
            index: int | None = None
            if isinstance(target, ast.Name) and target.id == name:
                index = None
            elif isinstance(target, ast.Tuple) and any(
                isinstance(e, ast.Name) and e.id == name for e in target.elts
            ):
                index = next(
                    i for i, e in enumerate(target.elts) if isinstance(e, ast.Name) and e.id == name
                )
            else:
                continue
            if best is None or node.lineno > best[0]:
                best = (node.lineno, node.value, index)
    return None if best is None else (best[1], best[2])


class _Resolver:
    def __init__(self, rel: str, found: _Found) -> None:
        self.rel = rel
        self.found = found

    def problem(self, node: ast.AST, what: str) -> None:
        self.found.problems.append(f"{self.rel}:{getattr(node, 'lineno', 0)}: {what}")

    def values(
        self,
        expr: ast.expr,
        function: ast.FunctionDef | ast.AsyncFunctionDef | None,
        sink_function: bool,
    ) -> _Values | None:
        """The literal values of ``expr``; _PASS when forwarded; None (reported) when unknown."""
        source = ast.unparse(expr)
        relayed = _relayed(expr)
        if relayed is not None:
            if (self.rel, relayed) not in RELAYED:
                self.problem(expr, f"relayed code {relayed} is not in RELAYED")
                return None
            self.found.used_relayed.add((self.rel, relayed))
            return _PASS
        if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
            return _Values((expr.value,))
        if isinstance(expr, ast.IfExp):
            body = self.values(expr.body, function, sink_function)
            orelse = self.values(expr.orelse, function, sink_function)
            if body is None or orelse is None or _PASS in (body, orelse):
                self.problem(expr, f"conditional code {source} is not literal")
                return None
            return _Values(body.values + orelse.values, f"if {ast.unparse(expr.test)}")
        if isinstance(expr, ast.JoinedStr):
            self.problem(expr, f"f-string code {source}: write each code out as a literal")
            return None
        if isinstance(expr, ast.Subscript):
            return self.pick(expr)
        if isinstance(expr, ast.Attribute) and expr.attr in _PASSED_ATTRIBUTES:
            return _PASS
        if isinstance(expr, ast.Name):
            return self.name(expr, function, sink_function)
        self.problem(expr, f"unrecognized code expression {source}")
        return None

    def name(
        self,
        expr: ast.Name,
        function: ast.FunctionDef | ast.AsyncFunctionDef | None,
        sink_function: bool,
    ) -> _Values | None:
        if function is not None:
            assigned = _assignment(function, expr.id, expr.lineno)
            if assigned is not None:
                value, index = assigned
                if index is None:
                    return self.values(value, function, sink_function)
                return self.table(expr, value, index)
            if expr.id in _parameters(function):
                if sink_function:
                    return _PASS  # a sink forwarding its own code: collected at its callers
                self.problem(expr, f"code parameter {expr.id!r} of a function that is no sink")
                return None
        constant = _module_values(self.rel).get(expr.id)
        if constant is not None:
            return self.values(constant, None, sink_function)
        origin = _imported(self.rel).get(expr.id)
        if origin is not None and expr.id in _module_values(origin):
            return _Resolver(origin, self.found).values(
                _module_values(origin)[expr.id], None, sink_function
            )
        self.problem(expr, f"unresolved code name {expr.id!r}")
        return None

    def table(self, expr: ast.Name, value: ast.expr, index: int) -> _Values | None:
        """``code, failure_class = TABLE[key]`` over a module-level dict of literal tuples."""
        if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name):
            table = _module_values(self.rel).get(value.value.id)
            if isinstance(table, ast.Dict):
                picked: list[str] = []
                for row in table.values:
                    if not isinstance(row, ast.Tuple) or len(row.elts) <= index:
                        break
                    cell = row.elts[index]
                    if not isinstance(cell, ast.Constant) or not isinstance(cell.value, str):
                        break
                    picked.append(cell.value)
                else:
                    return _Values(tuple(picked), f"table {value.value.id}")
        self.problem(expr, f"code {expr.id!r} unpacked from {ast.unparse(value)}")
        return None

    def pick(self, expr: ast.Subscript) -> _Values | None:
        """``TABLE[key]`` over a module-level dict whose values are all literal codes: any of
        them (every one is checked against the catalog, and counts as emitted)."""
        if isinstance(expr.value, ast.Name):
            table = _module_values(self.rel).get(expr.value.id)
            if isinstance(table, ast.Dict) and table.values:
                picked = [
                    cell.value
                    for cell in table.values
                    if isinstance(cell, ast.Constant) and isinstance(cell.value, str)
                ]
                if len(picked) == len(table.values):
                    return _Values(tuple(picked), f"table {expr.value.id}")
        self.problem(expr, f"code picked from {ast.unparse(expr)}, not a table of literal codes")
        return None


def _relayed(expr: ast.expr) -> str | None:
    """The source of what ``RelayedCode(...)`` wraps, or None when ``expr`` is no such call."""
    if (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Name)
        and expr.func.id == "RelayedCode"
        and len(expr.args) == 1
        and not expr.keywords
    ):
        return ast.unparse(expr.args[0])
    return None


def _pair(codes: _Values, classes: _Values | None, fixed: str | None) -> list[str | None]:
    """The class of each code value: fixed, broadcast from one class, or zipped by one test."""
    if fixed is not None:
        return [fixed] * len(codes.values)
    if classes is None or classes is _PASS:
        return [None] * len(codes.values)
    if len(classes.values) == 1:
        return [classes.values[0]] * len(codes.values)
    if classes.key is not None and classes.key == codes.key:
        return list(classes.values)
    raise ValueError(f"classes {classes.values} do not pair with codes {codes.values}")


class _Visitor(ast.NodeVisitor):
    def __init__(self, rel: str, found: _Found) -> None:
        self.rel = rel
        self.found = found
        self.resolver = _Resolver(rel, found)
        self.functions: list[ast.FunctionDef | ast.AsyncFunctionDef] = []

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._function(node)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._function(node)

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        sink = _sink(self.rel, node.name)
        if sink is not None:
            self._defaults(node, sink)
        self.functions.append(node)
        self.generic_visit(node)
        self.functions.pop()

    def _defaults(self, node: ast.FunctionDef | ast.AsyncFunctionDef, sink: Sink) -> None:
        """A sink's default code (``read_input_file(code="unreadable_file")``) is emitted too."""
        arguments = node.args
        positional = [*arguments.posonlyargs, *arguments.args]
        defaulted = positional[len(positional) - len(arguments.defaults) :]
        pairs = list(zip(defaulted, arguments.defaults, strict=True))
        pairs += [
            (a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d
        ]
        for parameter, default in pairs:
            if parameter.arg != sink.code_kw:
                continue
            if isinstance(default, ast.Constant) and isinstance(default.value, str):
                where = f"{self.rel}:{default.lineno}"
                self.found.emissions.append(Emission(default.value, sink.kind, where))

    def visit_Call(self, node: ast.Call) -> None:
        self.generic_visit(node)
        sink = _sink(self.rel, _called_name(node))
        if sink is None:
            return
        code_expr = _argument(node, sink.code_at, sink.code_kw)
        if code_expr is None:
            if sink.code_at is not None:
                self.resolver.problem(node, f"{ast.unparse(node.func)}(...) without a code")
            return
        if isinstance(code_expr, ast.Constant) and code_expr.value is None:
            return  # an ok result's errorCode, a delivered call's failureCode
        function = self.functions[-1] if self.functions else None
        in_sink = function is not None and _sink(self.rel, function.name) is not None
        codes = self.resolver.values(code_expr, function, in_sink)
        if codes is None or codes is _PASS:
            return
        classes: _Values | None = None
        if sink.kind is None and (sink.class_at is not None or sink.class_kw is not None):
            class_expr = _argument(node, sink.class_at, sink.class_kw)
            if class_expr is not None:
                classes = self.resolver.values(class_expr, function, in_sink)
        try:
            kinds = _pair(codes, classes, sink.kind)
        except ValueError as exc:
            self.resolver.problem(node, str(exc))
            return
        where = f"{self.rel}:{node.lineno}"
        for code, kind in zip(codes.values, kinds, strict=True):
            self.found.emissions.append(Emission(code, kind, where))


@cache
def _found() -> _Found:
    found = _Found([], [], set())
    for path in _modules():
        rel = _rel(path)
        _Visitor(rel, found).visit(_tree(rel))
    return found


def _emissions() -> list[Emission]:
    return _found().emissions


def _by_code() -> dict[str, list[Emission]]:
    grouped: dict[str, list[Emission]] = {}
    for emission in _emissions():
        grouped.setdefault(emission.code, []).append(emission)
    return grouped


# --- the source ---------------------------------------------------------------------------------


def test_every_code_expression_in_a_sink_is_understood() -> None:
    assert _found().problems == []


def test_the_source_emits_codes() -> None:
    # Guards the collector itself: a broken walk would make every other check vacuous.
    assert len(_by_code()) >= 100


def test_every_emitted_code_is_cataloged() -> None:
    missing = sorted(f"{e.where}: {e.code}" for e in _emissions() if e.code not in CODES)
    assert missing == []


def test_an_emitted_failure_class_matches_the_catalog() -> None:
    wrong = sorted(
        f"{e.where}: {e.code} raised as {e.kind}, cataloged as {CODES[e.code].failure_class}"
        for e in _emissions()
        if e.kind in CLASSES and e.code in CODES and CODES[e.code].failure_class != e.kind
    )
    assert wrong == []


def test_a_contract_error_code_is_cataloged_as_an_input_error() -> None:
    wrong = sorted(
        f"{e.where}: {e.code}"
        for e in _emissions()
        if e.kind == INPUT and e.code in CODES and not CODES[e.code].input_error
    )
    assert wrong == []


def test_every_emitted_class_is_a_receipt_failure_class() -> None:
    wrong = sorted(
        f"{e.where}: {e.code} with {e.kind}"
        for e in _emissions()
        if e.kind is not None and e.kind != INPUT and e.kind not in CLASSES
    )
    assert wrong == []


def test_every_cataloged_code_is_emitted() -> None:
    emitted = _by_code()
    assert sorted(code for code in CODES if code not in emitted) == []


def test_a_cataloged_failure_class_is_one_the_code_is_emitted_with() -> None:
    emitted = _by_code()
    dead = sorted(
        f"{entry.code}: {entry.failure_class}"
        for entry in ENTRIES
        if entry.failure_class is not None
        and entry.failure_class not in {e.kind for e in emitted.get(entry.code, [])}
    )
    assert dead == []


def test_a_cataloged_input_error_is_raised_as_a_contract_error() -> None:
    emitted = _by_code()
    dead = sorted(
        entry.code
        for entry in ENTRIES
        if entry.input_error and INPUT not in {e.kind for e in emitted.get(entry.code, [])}
    )
    assert dead == []


def test_an_f_string_code_is_reported() -> None:
    # Guards the collector: a code built from pieces cannot be typed or checked, so it is refused.
    found = _Found([], [], set())
    _Visitor("agentic/x.py", found).visit(ast.parse("raise ContractError(f'invalid_{kind}', 'm')"))
    assert found.emissions == []
    assert found.problems == [
        "agentic/x.py:1: f-string code f'invalid_{kind}': write each code out as a literal"
    ]


def test_every_relayed_code_in_the_package_is_registered() -> None:
    # Wherever a RelayedCode is made (reaching a sink or not), its source is listed in RELAYED.
    unlisted = sorted(
        f"{_rel(path)}:{node.lineno}: {ast.unparse(node)}"
        for path in _modules()
        for node in ast.walk(_tree(_rel(path)))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "RelayedCode"
        and (_rel(path), _relayed(node)) not in RELAYED
    )
    assert unlisted == []


def test_every_relayed_entry_is_still_in_the_source() -> None:
    found = _found()
    stale = sorted(
        f"{rel}: {source}" for rel, source in RELAYED if (rel, source) not in found.used_relayed
    )
    assert stale == []


# --- the table ----------------------------------------------------------------------------------


def test_the_catalog_is_sorted_by_code_without_duplicates() -> None:
    codes = [entry.code for entry in ENTRIES]
    assert codes == sorted(set(codes))


def test_the_mapping_holds_every_entry_under_its_code() -> None:
    assert dict(CODES) == {entry.code: entry for entry in ENTRIES}


def test_a_code_is_a_snake_case_token() -> None:
    assert [e.code for e in ENTRIES if not CODE_SHAPE.fullmatch(e.code)] == []


def test_an_entry_has_a_receipt_class_or_is_an_input_error() -> None:
    assert [e.code for e in ENTRIES if e.failure_class is None and not e.input_error] == []
    assert [e.code for e in ENTRIES if e.failure_class not in {None, *CLASSES}] == []


def test_a_meaning_is_one_line() -> None:
    bad = [e.code for e in ENTRIES if not e.meaning.strip() or "\n" in e.meaning]
    assert bad == []


def _agentic_imports(rel: str) -> set[str]:
    tree = _tree(rel)
    imported = {
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("agentic")
    }
    imported |= {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
        if alias.name.startswith("agentic")
    }
    return imported


def test_the_catalog_imports_nothing_from_agentic_but_contract_errors_and_code_names() -> None:
    allowed = {"agentic.contract.errors", "agentic.contract.code_names"}
    assert _agentic_imports("agentic/contract/codes.py") <= allowed
    assert _agentic_imports("agentic/contract/code_names.py") == set()


# --- the code names -----------------------------------------------------------------------------


def test_the_code_name_literal_lists_exactly_the_table_in_its_order() -> None:
    assert get_args(ErrorCodeName) == tuple(entry.code for entry in ENTRIES)


def test_the_code_names_module_is_the_one_written_from_the_table() -> None:
    committed = (ROOT / CODE_NAMES).read_text(encoding="utf-8")
    assert committed == render_code_names(committed), (
        f"{CODE_NAMES} is stale: run python -m agentic.docgen"
    )


def test_a_new_entry_of_the_table_is_a_new_name_of_the_literal() -> None:
    entry = ErrorCode("zz_new", None, True, "a code added to the table")  # type: ignore[arg-type]
    committed = (ROOT / CODE_NAMES).read_text(encoding="utf-8")
    assert '    "zz_new",\n]' in render_code_names(committed, (*ENTRIES, entry))


def test_rewriting_the_code_names_keeps_the_text_around_the_literal() -> None:
    module = '"""Doc."""\n\nErrorCodeName = Literal[\n    "old",\n]\n\nTail = 1\n'
    entry = ErrorCode("zz_new", None, True, "a code added to the table")  # type: ignore[arg-type]
    rewritten = render_code_names(module, (entry,))
    assert rewritten == '"""Doc."""\n\nErrorCodeName = Literal[\n    "zz_new",\n]\n\nTail = 1\n'


def test_a_code_names_module_without_the_literal_is_refused() -> None:
    with pytest.raises(ValueError, match="ErrorCodeName = Literal"):
        render_code_names('"""Doc."""\n')


def test_the_code_name_literal_is_written_out_one_code_per_line() -> None:
    literal = next(
        node.value
        for node in _tree("agentic/contract/code_names.py").body
        if isinstance(node, ast.Assign)
        and [ast.unparse(t) for t in node.targets] == ["ErrorCodeName"]
    )
    assert isinstance(literal, ast.Subscript)
    assert ast.unparse(literal.value) == "Literal"
    assert isinstance(literal.slice, ast.Tuple)
    cells = literal.slice.elts
    assert all(isinstance(c, ast.Constant) and isinstance(c.value, str) for c in cells)
    lines = [cell.lineno for cell in cells]
    assert lines == list(range(lines[0], lines[0] + len(cells)))
