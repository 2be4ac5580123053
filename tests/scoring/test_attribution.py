"""Attribution: a pair failed because the backend never delivered the required evidence
(retrieval) or because the agent answered wrong given what it saw (the model).

Facts are written by hand here (not by ``task_facts``), so the rule is checked against a second
statement of it; ``task_facts`` itself is checked against the tiny fixture at the end."""

from __future__ import annotations

from agentic.contract.envelope import Evidence
from agentic.contract.receipt import CanonicalReceipt
from agentic.contract.report import TaskScore
from agentic.fixture.loader import Fixture
from agentic.scoring.attribution import (
    AttributedPair,
    Attribution,
    CohortAttribution,
    Discordance,
    Verdict,
    attribute,
    discordance,
    evidence_delivered,
    summarize,
)
from agentic.scoring.evidence import keys_of
from agentic.scoring.task_facts import RequiredClaim, TaskFacts, task_facts
from tests.support.scoring import (
    line_evidence,
    make_call,
    make_receipt,
    make_result,
    plain_score,
)
from tests.support.tiny_fixture import TASK_A, TASK_B, TASK_C

OWNER = line_evidence()  # line 3, harness observed
REVIEWED = line_evidence(4, "Reviewed yearly.")


def facts(*required: tuple[str, list[Evidence]], abstention: bool = False) -> TaskFacts:
    return TaskFacts(
        category="exact_identifier",
        spans=(),
        expect_abstention=abstention,
        required_claims=tuple(RequiredClaim(key, keys_of(items)) for key, items in required),
    )


OWNER_FACTS = facts(("owner", [OWNER]))


def delivering(*coordinates: Evidence, delivered: bool = True) -> CanonicalReceipt:
    """A receipt with one call whose result carries ``coordinates``."""
    call = make_call(
        0,
        make_result(list(coordinates)),
        delivered=delivered,
        failure_code=None if delivered else "tool_timeout",
    )
    return make_receipt([call])


FAILED = plain_score(success=0)
SUCCEEDED = plain_score(success=1)
EXCLUDED = plain_score(success=0, scored=False)


# --- evidenceDelivered ------------------------------------------------------------------------


def test_evidence_is_delivered_when_every_required_coordinate_reached_the_agent() -> None:
    assert evidence_delivered(delivering(OWNER), OWNER_FACTS) is True


def test_evidence_is_not_delivered_when_a_required_coordinate_is_missing() -> None:
    assert evidence_delivered(delivering(REVIEWED), OWNER_FACTS) is False


def test_the_same_lines_with_another_provenance_are_not_delivered() -> None:
    asserted = line_evidence(provenance="backend_provided")
    assert evidence_delivered(delivering(asserted), OWNER_FACTS) is False


def test_a_call_never_delivered_to_the_agent_delivers_nothing() -> None:
    assert evidence_delivered(delivering(OWNER, delivered=False), OWNER_FACTS) is False


def test_every_required_claim_needs_its_evidence_delivered() -> None:
    two_claims = facts(("owner", [OWNER]), ("review", [REVIEWED]))
    assert evidence_delivered(delivering(OWNER), two_claims) is False
    assert evidence_delivered(delivering(OWNER, REVIEWED), two_claims) is True


def test_an_abstention_task_has_no_evidence_to_deliver() -> None:
    abstention = facts(("owner", [OWNER]), abstention=True)
    assert evidence_delivered(delivering(OWNER), abstention) is None


def test_a_task_whose_required_claims_name_no_evidence_has_none_to_deliver() -> None:
    assert evidence_delivered(delivering(OWNER), facts(("owner", []))) is None


# --- verdicts ---------------------------------------------------------------------------------


def test_a_score_left_unscored_by_a_harness_error_is_excluded() -> None:
    assert attribute(delivering(REVIEWED), EXCLUDED, OWNER_FACTS) == Attribution(False, "excluded")


def test_a_successful_pair_is_a_success() -> None:
    assert attribute(delivering(OWNER), SUCCEEDED, OWNER_FACTS) == Attribution(True, "success")


def test_a_failure_without_the_required_evidence_is_retrievals() -> None:
    assert attribute(delivering(REVIEWED), FAILED, OWNER_FACTS) == Attribution(False, "retrieval")


def test_a_failure_with_the_required_evidence_delivered_is_the_models() -> None:
    assert attribute(delivering(OWNER), FAILED, OWNER_FACTS) == Attribution(True, "model")


def test_a_failure_on_a_task_with_nothing_to_deliver_is_the_models() -> None:
    abstention = facts(("owner", [OWNER]), abstention=True)
    assert attribute(delivering(), FAILED, abstention) == Attribution(None, "model")


def test_attribution_reads_as_the_json_observations_json_holds() -> None:
    assert Attribution(None, "model").to_json() == {"evidenceDelivered": None, "verdict": "model"}


# --- per cohort and between adapters ----------------------------------------------------------


def pair(
    task: str, score: TaskScore, delivered: bool | None, verdict: Verdict, seed: int = 0
) -> AttributedPair:
    return AttributedPair((task, "trial-1", "cold", seed), score, Attribution(delivered, verdict))


def test_a_cohort_counts_its_scored_pairs_by_delivery_success_and_verdict() -> None:
    pairs = [
        pair("t1", SUCCEEDED, True, "success"),
        pair("t2", FAILED, True, "model"),
        pair("t3", FAILED, False, "retrieval"),
        pair("t4", FAILED, None, "model"),  # abstention task: not answer-bearing
        pair("t5", EXCLUDED, False, "excluded"),  # left out of every count
    ]
    assert summarize(pairs) == CohortAttribution(
        scored=4,
        answer_bearing=3,
        delivered=2,
        successes=1,
        delivered_successes=1,
        retrieval=1,
        model=2,
    )


def test_discordance_counts_only_pairs_both_adapters_have() -> None:
    first = [
        pair("t1", SUCCEEDED, True, "success"),
        pair("t2", SUCCEEDED, True, "success"),
        pair("t3", FAILED, False, "retrieval"),
        pair("t9", SUCCEEDED, True, "success"),  # the second adapter has no t9
    ]
    second = [
        pair("t1", FAILED, False, "retrieval"),
        pair("t2", SUCCEEDED, True, "success"),
        pair("t3", SUCCEEDED, True, "success"),
        pair("t3", FAILED, False, "retrieval", seed=1),  # another seed: another pair
    ]
    assert discordance(first, second, "success") == Discordance(3, 1, 1)
    assert discordance(first, second, "evidenceDelivered") == Discordance(3, 1, 1)


def test_discordance_on_delivery_leaves_out_excluded_and_not_applicable_pairs() -> None:
    first = [pair("t1", EXCLUDED, True, "excluded"), pair("t2", FAILED, None, "model")]
    second = [pair("t1", FAILED, False, "retrieval"), pair("t2", FAILED, None, "model")]
    assert discordance(first, second, "evidenceDelivered") == Discordance(0, 0, 0)
    assert discordance(first, second, "success") == Discordance(1, 0, 0)


# --- the facts, from a fixture ----------------------------------------------------------------


def test_task_facts_hold_each_required_claims_required_evidence(tiny_fixture: Fixture) -> None:
    found = task_facts(tiny_fixture)
    oracle = tiny_fixture.oracle(TASK_B)
    assert found[TASK_B].required_claims == tuple(
        RequiredClaim(c.claimKey, keys_of(c.requiredEvidence)) for c in oracle.claims
    )
    assert not found[TASK_A].expect_abstention


def test_task_facts_mark_an_abstention_task_with_nothing_required(tiny_fixture: Fixture) -> None:
    found = task_facts(tiny_fixture)[TASK_C]
    assert found.expect_abstention
    assert found.required_claims == (RequiredClaim("budgetCode", frozenset()),)
