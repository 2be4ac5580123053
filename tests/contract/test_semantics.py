"""Final-envelope semantics against the public task: one issue code per broken rule."""

from __future__ import annotations

from typing import Any

from agentic.contract.envelope import FinalEnvelope
from agentic.contract.semantics import envelope_issues
from agentic.contract.task import AgentTask
from tests.support import documents as docs

# The task of support.documents: launchDate (date, required, substantive), owner (string, optional).
TASK = AgentTask.model_validate(docs.task())


def claim(key: str = "launchDate", value: Any = None, citations: int = 1) -> dict[str, Any]:
    return {
        "claimKey": key,
        "value": value or {"type": "date", "value": "2026-09-14"},
        "citations": [docs.evidence() for _ in range(citations)],
    }


def gap(key: str, reason: str = "missing_evidence") -> dict[str, Any]:
    return {"claimKey": key, "reason": reason}


def issues(claims: list[dict[str, Any]], gaps: list[dict[str, Any]]) -> list[str]:
    envelope = FinalEnvelope.model_validate({**docs.envelope(), "claims": claims, "gaps": gaps})
    return [str(issue) for issue in envelope_issues(envelope, TASK)]


def test_a_sound_envelope_has_no_issue() -> None:
    assert issues([claim()], [gap("owner")]) == []


def test_an_optional_claim_may_be_neither_claimed_nor_gapped() -> None:
    assert issues([claim()], []) == []


def test_an_optional_claim_may_be_claimed_without_citations() -> None:
    owner = claim("owner", {"type": "string", "value": "Priya"}, citations=0)

    assert issues([claim(), owner], []) == []


def test_a_claim_key_given_twice_is_one_duplicate_claim_issue() -> None:
    assert issues([claim(), claim(), claim()], []) == ["duplicate_claim:launchDate"]


def test_a_claim_the_task_does_not_define_is_an_extra_claim() -> None:
    extra = claim("budgetCode", {"type": "string", "value": "X"})

    assert issues([claim(), extra], []) == ["extra_claim:budgetCode"]


def test_an_extra_claim_is_not_also_a_type_mismatch_or_uncited() -> None:
    extra = claim("budgetCode", {"type": "number", "value": 3}, citations=0)

    assert issues([claim(), extra], []) == ["extra_claim:budgetCode"]


def test_a_value_of_another_type_than_declared_is_a_type_mismatch() -> None:
    wrong = claim(value={"type": "string", "value": "2026-09-14"})

    assert issues([wrong], []) == ["type_mismatch:launchDate"]


def test_a_required_claim_without_citations_is_uncited() -> None:
    assert issues([claim(citations=0)], []) == ["uncited_required_claim:launchDate"]


def test_a_citation_whose_range_runs_backwards_is_an_invalid_evidence_range() -> None:
    backwards = claim()
    backwards["citations"] = [docs.evidence(start=5, end=4)]

    assert issues([backwards], []) == ["invalid_evidence_range:launchDate"]


def test_a_single_line_citation_is_a_valid_range() -> None:
    single = claim()
    single["citations"] = [docs.evidence(start=4, end=4)]

    assert issues([single], []) == []


def test_an_extra_claim_with_a_backwards_range_reports_both() -> None:
    extra = claim("budgetCode", {"type": "string", "value": "X"})
    extra["citations"] = [docs.evidence(start=2, end=1)]

    assert issues([claim(), extra], []) == [
        "extra_claim:budgetCode",
        "invalid_evidence_range:budgetCode",
    ]


def test_a_gap_key_given_twice_is_one_duplicate_gap_issue() -> None:
    assert issues([claim()], [gap("owner"), gap("owner", "budget_exhausted")]) == [
        "duplicate_gap:owner"
    ]


def test_a_gap_for_a_claim_the_task_does_not_define_is_an_extra_gap() -> None:
    assert issues([claim()], [gap("budgetCode")]) == ["extra_gap:budgetCode"]


def test_a_required_claim_neither_claimed_nor_gapped_is_missing() -> None:
    assert issues([], [gap("owner")]) == ["missing_required_claim:launchDate"]


def test_any_gap_reason_accounts_for_a_required_claim() -> None:
    for reason in (
        "missing_evidence",
        "conflicting_evidence",
        "budget_exhausted",
        "tool_unavailable",
    ):
        assert issues([], [gap("launchDate", reason)]) == []


def test_issues_are_sorted_by_code_then_claim_key() -> None:
    found = issues(
        [
            claim("zeta", {"type": "string", "value": "z"}),
            claim("alpha", {"type": "number", "value": 1}),
        ],
        [gap("owner"), gap("owner"), gap("beta")],
    )

    assert found == [
        "duplicate_gap:owner",
        "extra_claim:alpha",
        "extra_claim:zeta",
        "extra_gap:beta",
        "missing_required_claim:launchDate",
    ]
