"""Generation tier: answers under oracle / e2e / noretrieval context, scored without a judge."""

from __future__ import annotations

from agentic.contract.errors import ContractError
from agentic.generation.model import GenerationModel, MockModel

MOCK = "mock"


def open_model(spec: str) -> GenerationModel:
    """``mock`` or ``local:<lock>``; anything else is ``invalid_model_spec`` (exit 2)."""
    if spec == MOCK:
        return MockModel()
    from agentic.generation.local import LOCAL_PREFIX, open_local_model

    if spec.startswith(LOCAL_PREFIX) and len(spec) > len(LOCAL_PREFIX):
        return open_local_model(spec[len(LOCAL_PREFIX) :])
    raise ContractError("invalid_model_spec", f"--model takes mock or local:<lock>, not {spec!r}")
