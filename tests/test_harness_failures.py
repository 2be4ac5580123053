"""Failures the harness causes (``docgen/harness_failures.py``): the pairs of a real-model lane
that ended on the agent's own mechanics, counted against the target of at most 10% of pairs."""

from __future__ import annotations

from agentic.contract.receipt import CanonicalReceipt
from agentic.contract.report import TaskScore
from agentic.docgen.baselines import harness_text
from agentic.docgen.harness_failures import count_harness_failures
from tests.support.scoring import make_receipt, plain_score

# What the scorer writes for a pair that ended without an envelope, whatever ended it.
NO_ENVELOPE = (
    "invalid_final_envelope:final-envelope schema validation failed: / type must be object"
)


def _ended(code: str | None, *, invalid: bool = True) -> tuple[CanonicalReceipt, TaskScore]:
    """A failed pair ended by ``code`` (None: it gave an envelope the scorer refused)."""
    receipt = make_receipt(
        envelope="default" if code is None else None,
        failure_class="none" if code is None else "agent_error",
        failure_code=code,
    )
    outputs = (NO_ENVELOPE,) if invalid else ()
    return receipt, plain_score(success=0).model_copy(update={"invalidOutputs": outputs})


def test_pairs_ended_by_the_agents_mechanics_or_an_invalid_envelope_are_the_harnesss() -> None:
    failures = count_harness_failures(
        [
            _ended("agent_context_exceeded"),
            _ended("document_not_found"),
            _ended("invalid_final_envelope"),  # the runner refused the final step
            _ended(None),  # the scorer refused the envelope
            _ended("agent_timeout"),  # its invalid_final_envelope: entry is only the aftermath
            _ended(None, invalid=False),  # an answer that is wrong, not malformed
            (make_receipt(), plain_score(success=1)),
        ]
    )

    assert (failures.count, failures.pairs) == (4, 7)
    assert dict(failures.causes) == {
        "agent_context_exceeded": 1,
        "document_not_found": 1,
        "invalid_final_envelope": 2,
    }
    assert failures.causes[0] == ("invalid_final_envelope", 2)  # most first
    assert "4 of 7 pairs (57%; the target is at most 10%: not met)" in harness_text(failures)[0]
