"""The four report artifacts of a lane, rendered as bytes: ``report.json``, ``canonical.json``
(the projection and both fingerprints), ``observations.json`` and ``report.md``. Writing them as
one set is ``output/staging.py``'s."""

from __future__ import annotations

from agentic.contract.canonical import stable_pretty_json
from agentic.contract.receipt import TrajectoryReceipt
from agentic.contract.report import BenchmarkReport, pair_identity
from agentic.contract.strict_json import JsonObject
from agentic.report.assemble import projection
from agentic.report.markdown import DEFAULT_PROMOTION_HEADING, render_markdown

TEMP_PLACEHOLDER = "<temp>"


def _observations_without_paths(receipt: TrajectoryReceipt) -> JsonObject:
    data: JsonObject = receipt.observations.to_json()
    data["tempPaths"] = [TEMP_PLACEHOLDER for _ in data["tempPaths"]]
    return data


def render_artifacts(
    report: BenchmarkReport,
    *,
    promotion_heading: str = DEFAULT_PROMOTION_HEADING,
    extra_markdown: str = "",
) -> dict[str, bytes]:
    """The four files of one report, as bytes. Temp paths appear as ``<temp>``."""
    full = report.to_json()
    for receipt_json, receipt in zip(full["receipts"], report.receipts, strict=True):
        receipt_json["observations"] = _observations_without_paths(receipt)
    canonical = {
        "canonicalFingerprint": report.canonicalFingerprint,
        "resultsFingerprint": report.resultsFingerprint,
        "projection": projection(report),
    }
    observations = {
        "environment": report.environment.to_json(),
        "preparations": [
            {"adapterId": p.adapterId, "observations": p.observations.to_json()}
            for p in report.preparations
        ],
        "receipts": [
            {**pair_identity(r.canonical), "observations": _observations_without_paths(r)}
            for r in report.receipts
        ],
    }
    return {
        "report.json": stable_pretty_json(full).encode("utf-8"),
        "canonical.json": stable_pretty_json(canonical).encode("utf-8"),
        "observations.json": stable_pretty_json(observations).encode("utf-8"),
        "report.md": (render_markdown(report, promotion_heading) + extra_markdown).encode("utf-8"),
    }
