"""A tiny, valid, pinned fixture in contract v1.0 format, for tests of every area.

Three tasks:
- ``t0000a01`` exact_identifier: one identifier claim, single-line evidence, a same-topic decoy;
- ``t0000b02`` multi_document_comparison: two claims (a date on one line, a string over two
  lines), a draft document that is forbidden evidence, and an expected scope collection;
- ``t0000c03`` missing_evidence: an abstention task with one call, ``failOnUnexpectedEvidence``.

Hashes, coordinates and the corpus fingerprint are computed here with hashlib and json only,
independently of ``agentic.fixture``, so loader tests check the loader against a second
implementation rather than against itself.

Usage: ``from tests.support.tiny_fixture import write_tiny_fixture``, or the fixtures
``tiny_fixture_dir`` and ``tiny_fixture`` of ``tests/conftest.py``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentic.contract.json_access import as_objects, as_str
from agentic.contract.strict_json import JsonArray, JsonObject

TASK_A = "t0000a01"
TASK_B = "t0000b02"
TASK_C = "t0000c03"
TASK_IDS: tuple[str, ...] = (TASK_A, TASK_B, TASK_C)

CUES_FILE = "fixture-agent.cues.json"
# The fixture agent's cue table for the three tasks (outside the manifest, like any cue file).
CUES: JsonObject = {
    "schemaVersion": "1.0",
    "agentId": "fixture-agent-v1",
    "claims": {
        "incidentId": {"cues": ["incident"]},
        "launchDate": {"cues": ["launch date"]},
        "launchOwner": {"cues": ["owner"]},
        "budgetCode": {"cues": ["budget code"]},
    },
}

INSTRUCTIONS: JsonArray = [
    "Return only the declared structured claims or gaps.",
    "Cite exact evidence spans and abstain when required evidence is absent.",
]

# (taskId, collection, relPath) -> lines (joined with the chosen line ending, plus a final one)
DOCUMENTS: dict[tuple[str, str, str], list[str]] = {
    (TASK_A, "c0a1", "d001.md"): [
        "# North gateway deployment review",
        "",
        "Incident: INC-4827",
        "Status: resolved after rollback.",
    ],
    (TASK_A, "c0a1", "d002.md"): [
        "# South gateway deployment review",
        "",
        "Incident: INC-5190",
        "Status: still open.",
    ],
    (TASK_B, "c0b2", "d001.md"): [
        "# Atlas launch plan",
        "",
        "## Decision",
        "",
        "Launch date: 2026-09-14",
        "Owner: Priya Raman",
        "Approved by the steering group.",
    ],
    (TASK_B, "c0b2", "notes/d002.md"): [
        "# Atlas launch plan (draft)",
        "",
        "Launch date: 2026-08-01",
        "Owner: to be decided",
    ],
    (TASK_C, "c0c3", "d001.md"): [
        "# Harbor project budget",
        "",
        "The budget code has not been assigned yet.",
        "Finance will publish it next quarter.",
    ],
}


def sha256_hex(data: bytes | str) -> str:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.sha256(raw).hexdigest()


def canary(task_id: str) -> str:
    return f"oracle-only-{task_id}-tiny01"


def corpus_path(task_id: str, collection: str, rel_path: str) -> str:
    return f"corpus/{task_id}/{collection}/{rel_path}"


def document_bytes(key: tuple[str, str, str], line_ending: str = "\n") -> bytes:
    return (line_ending.join(DOCUMENTS[key]) + line_ending).encode("utf-8")


def evidence(
    key: tuple[str, str, str], start: int, end: int, line_ending: str = "\n"
) -> JsonObject:
    """A harness-observed coordinate; the span joins the selected lines with LF."""
    _, collection, rel_path = key
    span = "\n".join(DOCUMENTS[key][start - 1 : end])
    return {
        "uri": f"gno://{collection}/{rel_path}",
        "sourceHash": sha256_hex(document_bytes(key, line_ending)),
        "startLine": start,
        "endLine": end,
        "spanHash": sha256_hex(span),
        "sourceHashProvenance": "harness_observed",
        "spanHashProvenance": "harness_observed",
    }


def _task(
    task_id: str,
    category: str,
    goal: str,
    *,
    claims: list[tuple[str, str]],
    collection: str,
    budgets: tuple[int, int],
) -> JsonObject:
    return {
        "schemaVersion": "1.0",
        "taskId": task_id,
        "category": category,
        "brief": {"goal": goal, "instructions": INSTRUCTIONS},
        "claims": [
            {"claimKey": key, "valueType": value_type, "substantive": True, "required": True}
            for key, value_type in claims
        ],
        "allowedTools": ["search", "get", "multi_get"],
        "budgets": {"maxAgentCalls": budgets[0], "maxModelVisibleBytes": budgets[1]},
        "corpus": {"collections": [collection]},
    }


def _oracle(
    task_id: str,
    claims: JsonArray,
    *,
    budgets: tuple[int, int],
    missing: JsonArray | None = None,
    scope: str | None = None,
    abstain: bool = False,
    fail_on_unexpected: bool = False,
) -> JsonObject:
    return {
        "schemaVersion": "1.0",
        "taskId": task_id,
        "claims": claims,
        "expectedMissing": missing or [],
        "expectedScope": {"collection": scope, "filters": {}},
        "completion": {
            "expectAbstention": abstain,
            "maxAgentCalls": budgets[0],
            "maxModelVisibleBytes": budgets[1],
            "failOnUnexpectedEvidence": fail_on_unexpected,
        },
        "leakCanaries": [canary(task_id)],
    }


def _claim(
    key: str,
    value_type: str,
    value: Any,
    normalizer: str,
    *,
    required: JsonArray,
    forbidden: JsonArray | None = None,
) -> JsonObject:
    return {
        "claimKey": key,
        "expectedValue": {"type": value_type, "value": value},
        "normalizer": {"id": normalizer, "version": 1},
        "requiredEvidence": required,
        "optionalEvidence": [],
        "forbiddenEvidence": forbidden or [],
    }


def tiny_documents(line_ending: str = "\n") -> dict[str, JsonObject]:
    """Task and oracle documents by fixture path."""
    a_doc = (TASK_A, "c0a1", "d001.md")
    b_doc = (TASK_B, "c0b2", "d001.md")
    b_draft = (TASK_B, "c0b2", "notes/d002.md")
    return {
        f"tasks/{TASK_A}.json": _task(
            TASK_A,
            "exact_identifier",
            "Find the incident identifier of the failed north gateway deployment.",
            claims=[("incidentId", "identifier")],
            collection="c0a1",
            budgets=(3, 12000),
        ),
        f"oracles/{TASK_A}.json": _oracle(
            TASK_A,
            [
                _claim(
                    "incidentId",
                    "identifier",
                    "INC-4827",
                    "identifier-v1",
                    required=[evidence(a_doc, 3, 3, line_ending)],
                )
            ],
            budgets=(3, 12000),
        ),
        f"tasks/{TASK_B}.json": _task(
            TASK_B,
            "multi_document_comparison",
            "Find the approved Atlas launch date and who owns the launch.",
            claims=[("launchDate", "date"), ("launchOwner", "string")],
            collection="c0b2",
            budgets=(4, 16000),
        ),
        f"oracles/{TASK_B}.json": _oracle(
            TASK_B,
            [
                _claim(
                    "launchDate",
                    "date",
                    "2026-09-14",
                    "iso-date-v1",
                    required=[evidence(b_doc, 5, 5, line_ending)],
                    forbidden=[evidence(b_draft, 3, 3, line_ending)],
                ),
                _claim(
                    "launchOwner",
                    "string",
                    "Priya Raman",
                    "trim-lower-v1",
                    required=[evidence(b_doc, 6, 7, line_ending)],
                ),
            ],
            budgets=(4, 16000),
            scope="c0b2",
        ),
        f"tasks/{TASK_C}.json": _task(
            TASK_C,
            "missing_evidence",
            "Find the budget code assigned to the Harbor project.",
            claims=[("budgetCode", "identifier")],
            collection="c0c3",
            budgets=(1, 4000),
        ),
        f"oracles/{TASK_C}.json": _oracle(
            TASK_C,
            [],
            budgets=(1, 4000),
            missing=["budgetCode"],
            abstain=True,
            fail_on_unexpected=True,
        ),
    }


def write_json(path: Path, document: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _kind_of(path: str) -> tuple[str, str, str | None]:
    """(kind, taskId, collection) from a fixture-relative path."""
    parts = path.split("/")
    if parts[0] == "corpus":
        return "corpus", parts[1], parts[2]
    return parts[0].removesuffix("s"), parts[1].removesuffix(".json"), None


def _utf16(text: str) -> bytes:
    return text.encode("utf-16-be")


def refresh_manifest(root: Path) -> JsonObject:
    """Re-hash the files the manifest lists (same list) and recompute the corpus fingerprint.

    Tamper tests use it to make a deliberate edit look pinned, so that only the check under
    test can catch it.
    """
    manifest: JsonObject = json.loads((root / "manifest.json").read_text(encoding="utf-8"))
    records: list[dict[str, str]] = []
    for entry in as_objects(manifest["files"], "files"):
        path = as_str(entry["path"], "path")
        entry["sha256"] = digest = sha256_hex((root / path).read_bytes())
        if entry["kind"] == "corpus":
            task_id, collection = (
                as_str(entry["taskId"], "taskId"),
                as_str(entry["collection"], "collection"),
            )
            prefix = f"corpus/{task_id}/{collection}/"
            records.append(
                {
                    "taskId": task_id,
                    "collection": collection,
                    "relPath": path[len(prefix) :],
                    "sourceHash": digest,
                }
            )
    records.sort(
        key=lambda r: _utf16(
            "\x00".join((r["taskId"], r["collection"], r["relPath"], r["sourceHash"]))
        )
    )
    canonical = json.dumps(records, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    manifest["corpusFingerprint"] = sha256_hex(canonical)
    write_json(root / "manifest.json", manifest)
    return manifest


def write_manifest(root: Path, paths: list[str], fixture_version: str = "tiny-1") -> None:
    files = []
    for path in sorted(paths, key=_utf16):
        kind, task_id, collection = _kind_of(path)
        files.append(
            {
                "path": path,
                "kind": kind,
                "sha256": "0" * 64,
                "taskId": task_id,
                "collection": collection,
            }
        )
    manifest = {
        "schemaVersion": "1.0",
        "fixtureVersion": fixture_version,
        "license": "MIT",
        "provenance": "Synthetic test fixture written by tests/support/tiny_fixture.py.",
        "taskCount": sum(1 for entry in files if entry["kind"] == "task"),
        "files": files,
        "corpusFingerprint": "0" * 64,
    }
    write_json(root / "manifest.json", manifest)
    refresh_manifest(root)


def write_tiny_fixture(
    root: Path,
    *,
    line_ending: str = "\n",
    pinned: bool = True,
    fixture_version: str = "tiny-1",
) -> Path:
    """Write the tiny fixture under ``root`` and return ``root``.

    ``line_ending`` is used for every corpus file (spans are still LF-joined, as the contract
    says); ``pinned=False`` leaves out manifest.json.
    """
    root.mkdir(parents=True, exist_ok=True)
    paths: list[str] = []
    for path, document in tiny_documents(line_ending).items():
        write_json(root / path, document)
        paths.append(path)
    for key in DOCUMENTS:
        path = corpus_path(*key)
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(document_bytes(key, line_ending))
        paths.append(path)
    # Outside the manifest and allowed there.
    (root / "README.md").write_text("Tiny fixture for tests.\n", encoding="utf-8")
    (root / CUES_FILE).write_text(json.dumps(CUES, indent=2) + "\n", encoding="utf-8")
    if pinned:
        write_manifest(root, paths, fixture_version)
    return root


def rewrite_json(root: Path, path: str, mutate: Callable[[Any], None]) -> None:
    """Load ``root/path`` as JSON, let ``mutate`` change it in place, and write it back."""
    target = root / path
    document = json.loads(target.read_text(encoding="utf-8"))
    mutate(document)
    write_json(target, document)
