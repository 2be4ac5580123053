"""What an agent sees and what it may answer: the visible call history and one step.

These types are the whole interface between the runner and an agent. They carry no oracle data,
no paths, no adapter ids and no backend hashes, by construction.
"""

from __future__ import annotations

from typing import Literal

from agentic.contract.base import ContractModel, NonNegativeInt, Str
from agentic.contract.envelope import Evidence, FinalEnvelope
from agentic.contract.receipt import ResultRole
from agentic.contract.strict_json import JsonObject


class VisibleEvidence(Evidence):
    """A citeable coordinate plus the exact text it covers."""

    text: Str


class VisibleResult(ContractModel):
    status: Literal["ok", "error"]
    resultRole: ResultRole
    content: Str
    evidence: tuple[VisibleEvidence, ...]
    errorCode: Str | None


class VisibleCall(ContractModel):
    callIndex: NonNegativeInt
    toolName: Str
    arguments: JsonObject
    result: VisibleResult


class ToolStep(ContractModel):
    kind: Literal["tool"]
    toolName: Str
    arguments: JsonObject


class FinalStep(ContractModel):
    kind: Literal["final"]
    envelope: FinalEnvelope


AgentStep = ToolStep | FinalStep
