"""Small corpus snapshots and tasks for adapter tests, built directly from CorpusFile objects:
the standard two-task world, and snapshots of a handful of documents given as text."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from agentic.contract.canonical import fingerprint, sha256_hex
from agentic.contract.oracle import HiddenOracle
from agentic.contract.task import AgentTask
from agentic.fixture.snapshot import CorpusFile, CorpusSnapshot

TASK_ID = "t0000001"
OTHER_TASK_ID = "t0000002"


def corpus_file(collection: str, rel_path: str, text: str, task_id: str = TASK_ID) -> CorpusFile:
    data = text.encode("utf-8")
    return CorpusFile(
        task_id=task_id,
        collection=collection,
        rel_path=rel_path,
        source_hash=sha256_hex(data),
        data=data,
        text=text,
    )


def snapshot_of(files: Iterable[CorpusFile]) -> CorpusSnapshot:
    ordered = tuple(sorted(files, key=lambda f: f.uri))
    records = sorted(
        (
            {
                "taskId": f.task_id,
                "collection": f.collection,
                "relPath": f.rel_path,
                "sourceHash": f.source_hash,
            }
            for f in ordered
        ),
        key=lambda r: "\0".join((r["taskId"], r["collection"], r["relPath"], r["sourceHash"])),
    )
    return CorpusSnapshot(files=ordered, fingerprint=fingerprint(records))


def make_task(
    collections: Sequence[str],
    *,
    task_id: str = TASK_ID,
    claim_keys: Sequence[str] = ("retentionPeriod",),
    max_calls: int = 3,
    max_bytes: int = 12000,
    goal: str = "Find the retention period.",
) -> AgentTask:
    return AgentTask.model_validate(
        {
            "schemaVersion": "1.0",
            "taskId": task_id,
            "category": "exact_identifier",
            "brief": {"goal": goal, "instructions": ["Cite exact lines."]},
            "claims": [
                {"claimKey": key, "valueType": "string", "substantive": True, "required": True}
                for key in claim_keys
            ],
            "allowedTools": ["search", "get", "multi_get"],
            "budgets": {"maxAgentCalls": max_calls, "maxModelVisibleBytes": max_bytes},
            "corpus": {"collections": list(collections)},
        }
    )


POLICY = """# Retention policy

Retention period: 30 days for standard logs.
Regulated logs: kept 7 years.

## Scope
Applies to every service.
"""

DRAFT = """# Retention draft

Draft retention period: 14 days.
"""

# Each file is over 50 characters: gnosis-mcp leaves shorter files out of its index.
GLOSSARY = """# Glossary

SLA: service level agreement.
RPO: recovery point objective.
"""

FOREIGN = """# Foreign retention

Retention period: 90 days.
Owner: the records office.
"""


def standard_files() -> list[CorpusFile]:
    """Two collections for the task (c001, c002), one foreign collection (c0ff)."""
    return [
        corpus_file("c001", "policy.md", POLICY),
        corpus_file("c001", "draft.md", DRAFT),
        corpus_file("c002", "glossary.md", GLOSSARY),
        corpus_file("c0ff", "foreign.md", FOREIGN, task_id=OTHER_TASK_ID),
    ]


def standard_snapshot() -> CorpusSnapshot:
    return snapshot_of(standard_files())


def make_oracle(
    snapshot: CorpusSnapshot,
    required: Sequence[tuple[str, int, int]],
    *,
    task_id: str = TASK_ID,
    claim_key: str = "retentionPeriod",
) -> HiddenOracle:
    """An oracle whose one claim requires the given (uri, startLine, endLine) spans."""
    evidence = []
    for uri, start, end in required:
        file = snapshot.by_uri(uri)
        assert file is not None
        coordinate = file.span_evidence(start, end)
        assert coordinate is not None
        evidence.append(coordinate.to_json())
    claims = (
        []
        if not required
        else [
            {
                "claimKey": claim_key,
                "expectedValue": {"type": "string", "value": "30 days"},
                "normalizer": {"id": "exact-v1", "version": 1},
                "requiredEvidence": evidence,
                "optionalEvidence": [],
                "forbiddenEvidence": [],
            }
        ]
    )
    return HiddenOracle.model_validate(
        {
            "schemaVersion": "1.0",
            "taskId": task_id,
            "claims": claims,
            "expectedMissing": [] if required else [claim_key],
            "expectedScope": {"collection": None, "filters": {}},
            "completion": {
                "expectAbstention": not required,
                "maxAgentCalls": 3,
                "maxModelVisibleBytes": 12000,
                "failOnUnexpectedEvidence": False,
            },
            "leakCanaries": [f"oracle-only-{task_id}-9f7c2a"],
        }
    )


def snapshot_from(documents: dict[str, str]) -> CorpusSnapshot:
    """Documents keyed by ``collection/relPath``."""
    files = []
    for key, text in documents.items():
        collection, rel_path = key.split("/", 1)
        files.append(corpus_file(collection, rel_path, text))
    return snapshot_of(files)


def collections_of(snapshot: CorpusSnapshot) -> list[str]:
    return sorted({f.collection for f in snapshot.files})


def filler(count: int) -> dict[str, str]:
    """Unrelated documents, so that BM25's inverse document frequency stays positive."""
    return {
        f"c001/filler{index:02d}.md": f"# Filler {index}\n\nNothing of interest in note {index}.\n"
        for index in range(count)
    }
