"""The public agent task: everything an agent may see about one task, and nothing more."""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import Field

from agentic.contract.base import (
    Bool,
    ClaimKey,
    Collection,
    ContractModel,
    NonEmptyStr,
    PositiveInt,
    TaskId,
    ToolName,
    Unique,
)
from agentic.contract.envelope import ValueType

Category = Literal[
    "exact_identifier",
    "ambiguity",
    "multi_document_comparison",
    "meeting_decision",
    "temporal",
    "typed_relationship",
    "code_documentation",
    "multilingual",
    "missing_evidence",
]
CATEGORIES: tuple[str, ...] = get_args(Category)


class Brief(ContractModel):
    goal: NonEmptyStr
    instructions: Annotated[tuple[NonEmptyStr, ...], Field(min_length=1)]


class ClaimDefinition(ContractModel):
    claimKey: ClaimKey
    valueType: ValueType
    substantive: Bool
    required: Bool


class Budgets(ContractModel):
    maxAgentCalls: PositiveInt
    maxModelVisibleBytes: PositiveInt


class TaskCorpus(ContractModel):
    collections: Annotated[tuple[Collection, ...], Field(min_length=1), Unique]


class AgentTask(ContractModel):
    schemaVersion: Literal["1.0"]
    taskId: TaskId
    category: Category
    brief: Brief
    claims: Annotated[tuple[ClaimDefinition, ...], Field(min_length=1)]
    allowedTools: Annotated[tuple[ToolName, ...], Field(min_length=1), Unique]
    budgets: Budgets
    corpus: TaskCorpus

    def claim(self, key: str) -> ClaimDefinition | None:
        return next((c for c in self.claims if c.claimKey == key), None)
