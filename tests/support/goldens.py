"""Goldens for the tiny fixture (``tests.support.tiny_fixture``), written under its root.

Five questions covering the golden shapes: a near-miss identifier, a distractor draft with a
numeric answer, an out-of-corpus refusal, a graded two-document question and a multi-turn one
whose raw final message is the search (the honest floor).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentic.contract.strict_json import JsonObject
from tests.support.tiny_fixture import TASK_A, TASK_B, TASK_C, write_tiny_fixture

NORTH = "gno://c0a1/d001.md"
SOUTH = "gno://c0a1/d002.md"
ATLAS = "gno://c0b2/d001.md"
ATLAS_DRAFT = "gno://c0b2/notes/d002.md"
HARBOR = "gno://c0c3/d001.md"


def golden(golden_id: str, task_id: str, **fields: Any) -> JsonObject:
    document: JsonObject = {
        "id": golden_id,
        "taskId": task_id,
        "query": f"Question {golden_id}?",
        "turns": [],
        "relevantDocIds": [],
        "mustInclude": [],
        "mustNotInclude": [],
        "expectRefusal": False,
        "tags": [],
    }
    document.update(fields)
    return document


def tiny_goldens() -> list[JsonObject]:
    return [
        golden(
            "north-incident",
            TASK_A,
            query="Which incident did the north gateway deployment have?",
            searchQuery="north gateway incident",
            relevantDocIds=[NORTH],
            mustInclude=[r"\bINC-4827\b"],
            mustNotInclude=[r"INC-5190"],
            tags=["near-miss", "single-hop"],
        ),
        golden(
            "atlas-launch-date",
            TASK_B,
            query="When does Atlas launch?",
            searchQuery="Atlas launch date",
            collection="c0b2",
            relevantDocIds=[ATLAS],
            mustInclude=[r"2026-09-14"],
            mustNotInclude=[r"2026-08-01"],
            tags=["distractor", "numeric"],
        ),
        golden(
            "harbor-budget-code",
            TASK_C,
            query="What is the Harbor project's budget code?",
            searchQuery="Harbor budget code",
            expectRefusal=True,
            mustNotInclude=[r"\bHB-\d+"],
            tags=["out-of-corpus"],
        ),
        golden(
            "gateway-reviews",
            TASK_A,
            query="Which gateway deployment reviews exist?",
            searchQuery="gateway",
            relevantDocIds=[NORTH, SOUTH],
            grades={NORTH: 2},
            mustInclude=[r"north", r"south"],
            tags=["multi-hop"],
        ),
        golden(
            "atlas-owner-followup",
            TASK_B,
            query="And who owns it?",
            turns=[
                {"role": "user", "content": "Is there an Atlas launch plan?"},
                {"role": "assistant", "content": "Yes, an approved one."},
            ],
            relevantDocIds=[ATLAS],
            mustInclude=[r"Priya Raman"],
            tags=["multi-turn"],
        ),
    ]


def write_goldens(root: Path, goldens: list[JsonObject], name: str = "tiny.jsonl") -> Path:
    folder = root / "goldens"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(
        "".join(json.dumps(g, ensure_ascii=False) + "\n" for g in goldens), encoding="utf-8"
    )
    return path


def write_tiny_fixture_with_goldens(root: Path) -> Path:
    write_tiny_fixture(root)
    write_goldens(root, tiny_goldens())
    return root
