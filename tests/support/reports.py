"""Reports for tests: a report document resealed with the fingerprints of its content, as the
kit writes them (a hand edit without resealing is what ``validate`` and ``compare`` refuse)."""

from __future__ import annotations

from agentic.contract.canonical import fingerprint
from agentic.contract.report import BenchmarkReport
from agentic.contract.strict_json import JsonObject
from agentic.report.assemble import projection


def resealed(document: JsonObject) -> JsonObject:
    report = BenchmarkReport.model_validate(document)
    return {
        **document,
        "canonicalFingerprint": fingerprint(projection(report)),
        "resultsFingerprint": fingerprint(projection(report, with_environment=False)),
    }
