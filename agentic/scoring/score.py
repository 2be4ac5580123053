"""Deterministic, judge-free scoring of one receipt against its task and hidden oracle.

The rules are contract v1.0, section "Scoring" (steps 1-14). No model reads the answer: a claim
is supported only when its normalized value equals the oracle's, it cites every required
coordinate, every citation was really delivered to the agent, and nothing it cites is forbidden.
Claim lists keep the oracle's claim order (then the task's) and ``invalidOutputs`` is sorted,
so a score is a pure function of its inputs.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from agentic.contract.accounting import accounting_issues
from agentic.contract.envelope import Claim, FinalEnvelope
from agentic.contract.oracle import HiddenOracle, OracleClaim
from agentic.contract.receipt import CanonicalReceipt
from agentic.contract.report import TaskScore
from agentic.contract.semantics import envelope_issues
from agentic.contract.task import AgentTask, ClaimDefinition
from agentic.scoring.evidence import (
    EvidenceKey,
    delivered_evidence,
    expected_evidence,
    keys_of,
)
from agentic.scoring.normalizers import value_correct
from agentic.scoring.scope import collection_correct, filters_correct
from agentic.tools import visible_bytes

# Given a present envelope as plain JSON, its schema errors as "<path> <keyword> <message>"
# strings (e.g. agentic.contract.schemas.schema_errors); empty when it is valid. Without one,
# a FinalEnvelope model counts as schema-valid, which it is by construction.
EnvelopeSchemaErrors = Callable[[object], Sequence[str]]

ENVELOPE_SCHEMA_PREFIX = "final-envelope schema validation failed: "
# A missing envelope (agent or product error) has one schema error, in our own fixed wording;
# the contract leaves the message format to each implementation.
NULL_ENVELOPE_ERRORS = ("/ type must be object",)


def receipt_accounting_issues(receipt: CanonicalReceipt) -> list[str]:
    """The contract's accounting checks, including the per-call byte charge, which needs the
    agent-visible projection from ``agentic.tools``."""
    return accounting_issues(receipt, call_bytes=visible_bytes)


def score_receipt(
    receipt: CanonicalReceipt,
    task: AgentTask,
    oracle: HiddenOracle,
    *,
    envelope_schema_errors: EnvelopeSchemaErrors | None = None,
) -> TaskScore:
    if task.taskId != oracle.taskId or task.taskId != receipt.taskId:
        return invalid_score(task, "task_identity_mismatch")
    if receipt.failure.class_ == "harness_error":
        return invalid_score(task, "harness_error", scored=False)
    envelope = receipt.finalEnvelope
    if envelope is None:
        return _invalid_envelope(task, NULL_ENVELOPE_ERRORS)
    errors = [] if envelope_schema_errors is None else envelope_schema_errors(envelope.to_json())
    if errors:
        return _invalid_envelope(task, errors)
    return _score_envelope(receipt, task, oracle, envelope)


def invalid_score(task: AgentTask, reason: str, *, scored: bool = True) -> TaskScore:
    """A zero score that names its reason: in invalidOutputs when scored, else as exclusion."""
    return TaskScore(
        taskId=task.taskId,
        scored=scored,
        exclusionReason=None if scored else reason,
        success=0,
        completed=False,
        supportedClaims=(),
        unsupportedClaims=(),
        unsupportedSubstantiveClaims=(),
        missingRequiredClaims=tuple(c.claimKey for c in task.claims if c.required),
        forbiddenEvidenceClaims=(),
        invalidOutputs=(reason,) if scored else (),
        correctAbstention=False,
        prematureStop=False,
        unnecessaryRead=False,
        collectionCorrect=False,
        filtersCorrect=False,
        substantiveClaims=0,
        linkedSupportedClaims=0,
    )


def _invalid_envelope(task: AgentTask, errors: Sequence[str]) -> TaskScore:
    message = ENVELOPE_SCHEMA_PREFIX + "; ".join(sorted(errors))
    return invalid_score(task, f"invalid_final_envelope:{message}")


@dataclass
class _ClaimTally:
    """Per-claim verdicts, accumulated in oracle claim order."""

    supported: list[str] = field(default_factory=list)
    unsupported: list[str] = field(default_factory=list)
    unsupported_substantive: list[str] = field(default_factory=list)
    missing_required: list[str] = field(default_factory=list)
    forbidden: list[str] = field(default_factory=list)
    substantive: int = 0
    linked: int = 0

    def evidence_failure(self) -> bool:
        return bool(self.unsupported or self.missing_required or self.forbidden)


def _tally_claims(
    receipt: CanonicalReceipt, task: AgentTask, oracle: HiddenOracle, envelope: FinalEnvelope
) -> _ClaimTally:
    tally = _ClaimTally()
    actual_claims = {claim.claimKey: claim for claim in envelope.claims}  # last one wins
    observed = keys_of(delivered_evidence(receipt))
    for expected in oracle.claims:
        definition = task.claim(expected.claimKey)
        actual = actual_claims.get(expected.claimKey)
        if definition is None or actual is None:
            if definition is not None and definition.required:
                tally.missing_required.append(expected.claimKey)
            continue
        _judge_claim(tally, definition, expected, actual, observed)
    for definition in task.claims:
        key = definition.claimKey
        # Quirk kept from the contract: an abstention task lists its (gapped) claim here.
        if definition.required and key not in actual_claims and key not in tally.missing_required:
            tally.missing_required.append(key)
    return tally


def _judge_claim(
    tally: _ClaimTally,
    definition: ClaimDefinition,
    expected: OracleClaim,
    actual: Claim,
    observed: frozenset[EvidenceKey],
) -> None:
    key = expected.claimKey
    if definition.substantive:
        tally.substantive += 1
    cited = keys_of(actual.citations)
    correct = value_correct(expected.expectedValue, actual.value, expected.normalizer.id)
    complete = keys_of(expected.requiredEvidence) <= cited
    was_observed = cited <= observed
    forbidden = not cited.isdisjoint(keys_of(expected.forbiddenEvidence))
    if forbidden:
        tally.forbidden.append(key)
    if correct and complete and was_observed and not forbidden:
        tally.supported.append(key)
        if definition.substantive and actual.citations:
            tally.linked += 1
        return
    tally.unsupported.append(key)
    if definition.substantive:
        tally.unsupported_substantive.append(key)


def _correct_abstention(
    oracle: HiddenOracle, envelope: FinalEnvelope, tally: _ClaimTally, invalid: Sequence[str]
) -> bool:
    missing_gaps = {gap.claimKey for gap in envelope.gaps if gap.reason == "missing_evidence"}
    return (
        oracle.completion.expectAbstention
        and envelope.abstained
        and envelope.stopReason == "abstained"
        and not envelope.claims
        and not invalid
        and not tally.unsupported
        and not tally.forbidden
        and all(key in missing_gaps for key in oracle.expectedMissing)
    )


def _unnecessary_read(receipt: CanonicalReceipt, oracle: HiddenOracle) -> bool:
    """Over the oracle's call or byte budget, or (when the task demands a tight read) any
    delivered coordinate the oracle does not name: returned evidence counts, not only cited."""
    completion = oracle.completion
    if receipt.agentCalls > completion.maxAgentCalls:
        return True
    if receipt.modelVisibleUtf8Bytes > completion.maxModelVisibleBytes:
        return True
    if not completion.failOnUnexpectedEvidence:
        return False
    return not keys_of(delivered_evidence(receipt)) <= expected_evidence(oracle)


def _score_envelope(
    receipt: CanonicalReceipt, task: AgentTask, oracle: HiddenOracle, envelope: FinalEnvelope
) -> TaskScore:
    semantic = [str(issue) for issue in envelope_issues(envelope, task)]
    invalid = sorted([*semantic, *receipt_accounting_issues(receipt)])
    tally = _tally_claims(receipt, task, oracle, envelope)
    abstention = _correct_abstention(oracle, envelope, tally, invalid)
    collection_ok = collection_correct(receipt, oracle)
    filters_ok = filters_correct(receipt, oracle)
    unnecessary = _unnecessary_read(receipt, oracle)
    failed = tally.evidence_failure() or bool(invalid)
    if oracle.completion.expectAbstention:
        completed = abstention
    else:
        completed = envelope.stopReason == "complete" and not envelope.abstained and not failed
    success = (
        completed
        and not unnecessary
        and collection_ok
        and filters_ok
        and receipt.failure.class_ == "none"
    )
    return TaskScore(
        taskId=task.taskId,
        scored=True,
        exclusionReason=None,
        success=1 if success else 0,
        completed=completed,
        supportedClaims=tuple(tally.supported),
        unsupportedClaims=tuple(tally.unsupported),
        unsupportedSubstantiveClaims=tuple(tally.unsupported_substantive),
        missingRequiredClaims=tuple(tally.missing_required),
        forbiddenEvidenceClaims=tuple(tally.forbidden),
        invalidOutputs=tuple(invalid),
        correctAbstention=abstention,
        prematureStop=envelope.stopReason == "complete" and failed,
        unnecessaryRead=unnecessary,
        collectionCorrect=collection_ok,
        filtersCorrect=filters_ok,
        substantiveClaims=tally.substantive,
        linkedSupportedClaims=tally.linked,
    )
