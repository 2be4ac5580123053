"""A real model's verdict on the backends of a lane (``docgen/verdict.py``): success with its
Wilson interval, the exact McNemar test between adapters paired by task, the agreement of two
rankings, and the primary cause of each failed pair."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from agentic.docgen import verdict

TEMPLATE = Path(__file__).parent.parent / "baselines" / "fixture-agent" / "report.json"


def _record(adapter: str, task: str, success: bool, lifecycle: str = "cold") -> dict[str, Any]:
    return {
        "adapterId": adapter,
        "taskId": task,
        "trialId": "t1",
        "lifecycle": lifecycle,
        "score": {"scored": True, "success": int(success)},
    }


def _lane(outcomes: dict[str, str]) -> dict[str, Any]:
    """Scores of a lane: per adapter, one character per task (``1`` pass, ``0`` fail)."""
    return {
        "scores": [
            _record(adapter, f"task{index}", flag == "1")
            for adapter, flags in outcomes.items()
            for index, flag in enumerate(flags)
        ]
    }


def test_success_is_counted_per_adapter_best_first_with_its_wilson_interval() -> None:
    rows = verdict.successes(verdict.outcomes(_lane({"lexical": "0001", "capsule": "0111"})))

    assert [(r.adapter, r.successes, r.pairs) for r in rows] == [
        ("capsule", 3, 4),
        ("lexical", 1, 4),
    ]
    assert rows[0].interval.text() == "[0.301, 0.954]"


def test_only_the_cold_cohort_is_read() -> None:
    lane = _lane({"lexical": "1"})
    lane["scores"].append(_record("lexical", "task1", False, lifecycle="warm"))

    assert verdict.outcomes(lane) == {"lexical": {("task0", "t1"): True}}


def test_adapters_are_compared_on_the_tasks_only_one_of_them_passes() -> None:
    (pair,) = verdict.adapter_pairs(verdict.outcomes(_lane({"a": "110010", "b": "011011"})))

    assert (pair.first, pair.second, pair.units) == ("a", "b", 6)
    assert (pair.difference.worse, pair.difference.better) == (1, 2)
    assert pair.difference.p_value == 1.0


def test_eight_tasks_one_way_and_none_the_other_is_beyond_noise() -> None:
    (pair,) = verdict.adapter_pairs(verdict.outcomes(_lane({"a": "1" * 8, "b": "0" * 8})))

    assert pair.difference.p_value == pytest.approx(2 / 256)
    assert pair.difference.beyond_noise


def test_rankings_agree_disagree_or_tie_pair_by_pair() -> None:
    model = verdict.successes(verdict.outcomes(_lane({"a": "11", "b": "10", "c": "10"})))
    scripted = verdict.successes(verdict.outcomes(_lane({"a": "10", "b": "11", "c": "00"})))

    orders = {(r.first, r.second): r.order for r in verdict.rank_agreement(model, scripted)}

    assert orders == {("a", "b"): "disagree", ("a", "c"): "agree", ("b", "c"): "tie"}


def test_rankings_compare_only_the_adapters_both_ran() -> None:
    model = verdict.successes(verdict.outcomes(_lane({"a": "1", "b": "0"})))
    scripted = verdict.successes(verdict.outcomes(_lane({"a": "1", "z": "0"})))

    assert verdict.rank_agreement(model, scripted) == []


@pytest.fixture(scope="module")
def template() -> dict[str, Any]:
    """One committed pair: its canonical receipt and its score record."""
    document = json.loads(TEMPLATE.read_text(encoding="utf-8"))
    record = next(r for r in document["scores"] if r["lifecycle"] == "cold")
    receipt = next(
        r
        for r in document["receipts"]
        if (r["canonical"]["adapterId"], r["canonical"]["taskId"], r["canonical"]["lifecycle"])
        == (record["adapterId"], record["taskId"], "cold")
    )
    return {"receipt": receipt, "record": record}


def _failed(template: dict[str, Any], **score: Any) -> dict[str, Any]:
    receipt, record = copy.deepcopy(template["receipt"]), copy.deepcopy(template["record"])
    record["score"].update({"success": 0, "completed": False, **score})
    return {"receipts": [receipt], "scores": [record]}


def test_a_failed_pair_is_counted_by_what_it_lacked_first(template: dict[str, Any]) -> None:
    lane = _failed(template, missingRequiredClaims=["a"], unsupportedClaims=["b"])

    (counted,) = verdict.failure_causes(lane).values()

    assert counted == {"incomplete: missing": 1}


def test_a_failed_receipt_is_counted_by_its_failure_code(template: dict[str, Any]) -> None:
    lane = _failed(template, missingRequiredClaims=["a"])
    lane["receipts"][0]["canonical"]["failure"] = {
        "class": "agent_error",
        "code": "agent_context_exceeded",
        "redactedMessage": None,
    }

    (counted,) = verdict.failure_causes(lane).values()

    assert counted == {"failure agent_context_exceeded": 1}


def test_a_successful_pair_has_no_cause(template: dict[str, Any]) -> None:
    lane = _failed(template)
    lane["scores"][0]["score"]["success"] = 1

    assert verdict.failure_causes(lane) == {}
