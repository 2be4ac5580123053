"""Did a trajectory search in the scope the oracle expects (collection and filters)?

Arguments are checked on every recorded call, delivered or not: scope is about what the agent
asked for. Values compare like JavaScript's ``===`` on JSON values, so ``true`` never equals
``1`` and ``"1"`` never equals ``1`` (Python's ``==`` would say ``True == 1``).
"""

from __future__ import annotations

from collections.abc import Mapping

from agentic.contract.oracle import HiddenOracle
from agentic.contract.receipt import CanonicalReceipt

_MISSING = object()


def strict_equal(left: object, right: object) -> bool:
    """JSON-primitive equality without Python's bool/int and int/float mixing surprises."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left is right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return left == right
    if isinstance(left, str) and isinstance(right, str):
        return left == right
    return False  # objects, arrays and absent values never equal a primitive


def nested_value(arguments: Mapping[str, object], path: str) -> object:
    """The value at a dotted path, or a sentinel when some step is not an object."""
    current: object = arguments
    for segment in path.split("."):
        if not isinstance(current, Mapping) or segment not in current:
            return _MISSING
        current = current[segment]
    return current


def collection_correct(receipt: CanonicalReceipt, oracle: HiddenOracle) -> bool:
    expected = oracle.expectedScope.collection
    if expected is None:
        return True
    return any(
        strict_equal(nested_value(call.arguments, "collection"), expected) for call in receipt.calls
    )


def filters_correct(receipt: CanonicalReceipt, oracle: HiddenOracle) -> bool:
    """True when some single call matches every expected filter, given either as a top-level
    argument or inside ``arguments.filters`` (dotted keys reach nested objects)."""
    filters = oracle.expectedScope.filters
    if not filters:
        return True
    return any(
        all(_filter_matches(call.arguments, key, value) for key, value in filters.items())
        for call in receipt.calls
    )


def _filter_matches(arguments: Mapping[str, object], key: str, expected: object) -> bool:
    return strict_equal(nested_value(arguments, key), expected) or strict_equal(
        nested_value(arguments, f"filters.{key}"), expected
    )
