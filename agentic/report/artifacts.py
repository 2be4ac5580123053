"""The four report artifacts of a lane, rendered as bytes.
They are ``report.json``, ``canonical.json`` (the projection and both fingerprints),
``observations.json`` and ``report.md``. Writing them as one set is ``output/staging.py``'s.

With the task facts of the report's fixture, each receipt entry of ``observations.json`` also
carries its ``attribution`` (``scoring/attribution.py``) and report.md its Attribution section.
Neither is fingerprinted: ``canonical.json`` is the same bytes with or without facts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from agentic.contract.canonical import stable_pretty_json
from agentic.contract.json_access import as_objects
from agentic.contract.receipt import TrajectoryReceipt
from agentic.contract.report import BenchmarkReport, pair_identity
from agentic.contract.strict_json import JsonObject
from agentic.report.assemble import projection
from agentic.report.markdown import DEFAULT_PROMOTION_HEADING, render_markdown
from agentic.scoring.attribution import Attribution, report_attributions
from agentic.scoring.task_facts import TaskFacts

TEMP_PLACEHOLDER = "<temp>"


def _observations_without_paths(receipt: TrajectoryReceipt) -> JsonObject:
    data: JsonObject = receipt.observations.to_json()
    data["tempPaths"] = [TEMP_PLACEHOLDER for _ in receipt.observations.tempPaths]
    return data


def _receipt_observations(
    report: BenchmarkReport, attributions: Sequence[Attribution] | None
) -> list[JsonObject]:
    entries: list[JsonObject] = [
        {**pair_identity(r.canonical), "observations": _observations_without_paths(r)}
        for r in report.receipts
    ]
    if attributions is not None:
        for entry, attribution in zip(entries, attributions, strict=True):
            entry["attribution"] = attribution.to_json()
    return entries


def render_artifacts(
    report: BenchmarkReport,
    *,
    promotion_heading: str = DEFAULT_PROMOTION_HEADING,
    extra_markdown: str = "",
    facts: Mapping[str, TaskFacts] | None = None,
) -> dict[str, bytes]:
    """The four files of one report, as bytes. Temp paths appear as ``<temp>``. ``facts``: the
    task facts of the report's fixture, for attribution (left out without them)."""
    full = report.to_json()
    receipts = as_objects(full["receipts"], "receipts")
    for receipt_json, receipt in zip(receipts, report.receipts, strict=True):
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
        "receipts": _receipt_observations(
            report, report_attributions(report, facts) if facts else None
        ),
    }
    return {
        "report.json": stable_pretty_json(full).encode("utf-8"),
        "canonical.json": stable_pretty_json(canonical).encode("utf-8"),
        "observations.json": stable_pretty_json(observations).encode("utf-8"),
        "report.md": (render_markdown(report, promotion_heading, facts) + extra_markdown).encode(
            "utf-8"
        ),
    }
