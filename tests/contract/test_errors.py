"""The exception hierarchy: every exception the kit defines derives from ``AgenticError``."""

from __future__ import annotations

import ast
import importlib
import pickle
from pathlib import Path

from agentic.adapters.errors import AdapterCallError, AdapterError
from agentic.contract.code_names import RelayedCode
from agentic.contract.errors import AgenticError, ContractError

PACKAGE = Path(__file__).resolve().parent.parent.parent / "agentic"

# A BaseException on purpose: no ``except Exception`` may stop SIGTERM unwinding (cli.py).
OUTSIDE = frozenset({"agentic.cli.TerminatedError"})


def _exception_classes() -> list[type[BaseException]]:
    """Every module-level class of the package that is an exception (its module imported)."""
    found: list[type[BaseException]] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = [
            node.name
            for node in tree.body
            if isinstance(node, ast.ClassDef)
            and any(word in ast.unparse(base) for base in node.bases for word in ("Error", "Exc"))
        ]
        if not names:
            continue
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        module = importlib.import_module(".".join(parts))
        for name in names:
            cls = getattr(module, name)
            if isinstance(cls, type) and issubclass(cls, BaseException):
                found.append(cls)
    return found


def test_the_collector_finds_the_exceptions_of_the_package() -> None:
    names = {cls.__name__ for cls in _exception_classes()}
    assert {"ContractError", "AdapterCallError", "StepError", "TerminatedError"} <= names


def test_every_exception_of_the_package_derives_from_agentic_error() -> None:
    stray = sorted(
        f"{cls.__module__}.{cls.__qualname__}"
        for cls in _exception_classes()
        if not issubclass(cls, AgenticError) and f"{cls.__module__}.{cls.__name__}" not in OUTSIDE
    )
    assert stray == []


def test_a_contract_error_is_still_a_value_error() -> None:
    assert issubclass(ContractError, ValueError)


def test_a_contract_error_crosses_a_process_boundary_pickled() -> None:
    error = ContractError("unknown_task", "no task\n  t9")
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is ContractError
    assert (back.code, back.message, str(back)) == ("unknown_task", "no task t9", str(error))


def test_a_relayed_code_is_kept_as_the_product_sent_it() -> None:
    error = AdapterCallError(RelayedCode("gno_whatever"), "product_error", "relayed")
    assert isinstance(error, AdapterError)
    assert (error.code, error.failure_class, str(error)) == (
        "gno_whatever",
        "product_error",
        "relayed",
    )
