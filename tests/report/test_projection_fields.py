"""Every field of the benchmark report is decided: hashed into the fingerprints, or left out for
a stated reason. A field added to ``BenchmarkReport`` (or to a preparation or a receipt, which the
projection picks from by hand) fails here until it joins one of the two lists beside
``projection()`` in ``agentic/report/assemble.py``."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from pathlib import Path

import pytest
from pydantic import BaseModel

from agentic.contract.canonical import fingerprint
from agentic.contract.json_access import objects_at
from agentic.contract.receipt import TrajectoryReceipt
from agentic.contract.report import BenchmarkReport, Preparation
from agentic.contract.schemas import parse_and_load
from agentic.report.assemble import (
    ENVIRONMENT_FIELD,
    LEFT_OUT,
    PREPARATION_LEFT_OUT,
    PREPARATION_PROJECTED,
    PROJECTED,
    RECEIPT_LEFT_OUT,
    RECEIPT_PROJECTED,
    projection,
)
from agentic.resources import repo_root

DECISIONS: list[tuple[type[BaseModel], Collection[str], Mapping[str, str]]] = [
    (BenchmarkReport, PROJECTED, LEFT_OUT),
    (Preparation, PREPARATION_PROJECTED, PREPARATION_LEFT_OUT),
    (TrajectoryReceipt, RECEIPT_PROJECTED, RECEIPT_LEFT_OUT),
]


@pytest.mark.parametrize(
    ("model", "projected", "left_out"), DECISIONS, ids=[d[0].__name__ for d in DECISIONS]
)
def test_every_field_is_projected_or_left_out_with_a_reason(
    model: type[BaseModel], projected: Collection[str], left_out: Mapping[str, str]
) -> None:
    assert set(model.model_fields) == set(projected) | set(left_out), model.__name__
    assert not set(projected) & set(left_out), model.__name__
    assert all(reason.strip() for reason in left_out.values())


@pytest.fixture(scope="module")
def report() -> BenchmarkReport:
    root = repo_root()
    assert root is not None
    path = Path(root, "baselines", "fixture-agent", "report.json")
    return parse_and_load("benchmark-report", path.read_bytes(), source=str(path))


def test_the_projection_holds_exactly_the_projected_fields(report: BenchmarkReport) -> None:
    assert set(projection(report)) == set(PROJECTED)
    assert set(projection(report, with_environment=False)) == set(PROJECTED) - {ENVIRONMENT_FIELD}
    assert report.preparations
    for projected in objects_at(projection(report), "preparations"):
        assert set(projected) == set(PREPARATION_PROJECTED)
    receipts = projection(report)["receipts"]
    assert receipts == [receipt.canonical.to_json() for receipt in report.receipts]


def test_the_committed_fingerprints_are_those_of_the_projection(report: BenchmarkReport) -> None:
    assert fingerprint(projection(report)) == report.canonicalFingerprint
    assert fingerprint(projection(report, with_environment=False)) == report.resultsFingerprint


def test_what_is_left_out_moves_no_fingerprint(report: BenchmarkReport) -> None:
    preparation = report.preparations[0]
    receipt = report.receipts[0]
    observations = preparation.observations.model_copy(update={"preparationMs": 123456.0})
    diagnostics = receipt.observations.model_copy(update={"diagnostics": ("changed",)})
    edited = report.model_copy(
        update={
            "preparations": (
                preparation.model_copy(update={"observations": observations}),
                *report.preparations[1:],
            ),
            "receipts": (
                receipt.model_copy(update={"observations": diagnostics}),
                *report.receipts[1:],
            ),
        }
    )
    assert projection(edited) == projection(report)
