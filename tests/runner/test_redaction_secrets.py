"""Redaction removes the exact secret values it is given (``Identity.secrets``), whatever their
shape: shape rules alone let a key that looks like nothing in particular through."""

from __future__ import annotations

from agentic.contract.credentials import SECRET, Secrets
from agentic.runner.redaction import MAX_MESSAGE, Identity, redact, redact_secrets

SHAPELESS = "Zq8xv7Lw0pN3mR5tQ2yK"  # no token shape, no NAME=value around it
HOLDING = Identity().holding(Secrets.of([SHAPELESS]))


def test_a_shapeless_secret_survives_shape_rules_alone() -> None:
    assert SHAPELESS in redact(f"server said: who is {SHAPELESS}?", Identity())


def test_a_secret_value_held_by_the_identity_is_redacted_wherever_it_stands() -> None:
    assert redact(f"server said: who is {SHAPELESS}?", HOLDING) == f"server said: who is {SECRET}?"


def test_a_secret_value_is_redacted_before_the_length_cap_cuts_it() -> None:
    message = "x" * (MAX_MESSAGE - 6) + " " + SHAPELESS
    assert SHAPELESS[:5] not in redact(message, HOLDING)


def test_a_secret_value_is_redacted_from_a_reason_that_keeps_its_paths() -> None:
    assert SHAPELESS not in redact_secrets(f"/opt/x/y: {SHAPELESS}", HOLDING)


def test_redacting_twice_with_secrets_changes_nothing() -> None:
    once = redact(f"token {SHAPELESS} for /home/alice/x", HOLDING)
    assert redact(once, HOLDING) == once


def test_holding_adds_to_the_secrets_already_held() -> None:
    both = HOLDING.holding(Secrets.of(["another-secret-value"]))
    assert both.secrets.values == {SHAPELESS, "another-secret-value"}
