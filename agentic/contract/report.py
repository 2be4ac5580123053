"""The benchmark report: environment, preparations, receipts, scores, replays, promotion."""

from __future__ import annotations

from typing import Annotated, Literal, Protocol

from pydantic import AfterValidator, Field

from agentic.contract.base import (
    Bool,
    ContractModel,
    Int,
    NonNegativeInt,
    Number,
    Sha256,
    Str,
    TaskId,
)
from agentic.contract.credentials import recorded_url
from agentic.contract.receipt import FailureClass, Lifecycle, PairIdentity, TrajectoryReceipt
from agentic.contract.strict_json import JsonObject

BENCHMARK_ID = "agentic-retrieval@1"
# How a run isolated its backend child processes (agentic/adapters/sandbox.py).
Isolation = Literal["bubblewrap", "none"]


class GitInfo(ContractModel):
    commit: Annotated[Str, Field(pattern=r"^[a-f0-9]{40}$")] | None
    dirty: Bool | None
    unavailableReason: Str | None


class Trial(ContractModel):
    trialId: Str
    seed: Int | None


def _recorded(url: str) -> str:
    if recorded_url(url) != url:
        raise ValueError("holds credentials: the kit records an endpoint URL without them")
    return url


# An endpoint URL as the kit records it (contract/credentials.py), so no page or table made from
# a report can print a credential.
RecordedUrl = Annotated[Str, AfterValidator(_recorded)]


class AgentEndpoint(ContractModel):
    """Our extension: the model endpoint an openai-chat agent talked to, and how its answers
    reached the lane (live, or from the content-addressed record/reuse cache)."""

    kind: Literal["openai-chat"]
    baseUrl: RecordedUrl
    model: Str
    endpointModels: tuple[Str, ...]
    answers: Literal["live", "content-addressed cache"]
    # The agent config's timeout_s: each step's request deadline (tool calls keep the run's
    # per-operation timeout).
    stepTimeoutS: Annotated[float, Field(gt=0)]


class Environment(ContractModel):
    packageVersion: Str
    # The reference runs on Bun; this kit runs on Python and records that in pythonVersion.
    # bunVersion stays (nullable) so reference reports remain valid here.
    bunVersion: Str | None
    pythonVersion: Str | None = None
    platform: Str
    architecture: Str
    git: GitInfo
    fixtureVersion: Str
    agentId: Str
    trials: Annotated[tuple[Trial, ...], Field(min_length=1)]
    # How backend child processes were isolated; None when no backend spawned any.
    isolation: Isolation | None = None
    # The endpoint of an openai-chat agent; None for every other agent.
    agentEndpoint: AgentEndpoint | None = None

    def to_json(self) -> JsonObject:
        data = super().to_json()
        # pythonVersion, isolation and agentEndpoint are our extensions: a report without them
        # (the reference writes none) keeps its own environment bytes, so its
        # canonicalFingerprint recomputes to what it states.
        for extension in ("pythonVersion", "isolation", "agentEndpoint"):
            if data[extension] is None:
                del data[extension]
        return data


class PreparationObservations(ContractModel):
    preparationMs: Number | None
    preparationUnavailableReason: Str | None
    details: dict[str, Str | Number | Bool | None]


class Preparation(ContractModel):
    adapterId: Str
    corpusFingerprint: Sha256
    indexFingerprint: Sha256
    observations: PreparationObservations


class NamesAPair(Protocol):
    """Anything that carries the six identity fields: receipts, scores, exclusions, replays."""

    # Read-only members, as the frozen models hold them (camelCase: the JSON field names).
    @property
    def taskId(self) -> str: ...  # noqa: N802
    @property
    def adapterId(self) -> str: ...  # noqa: N802
    @property
    def trialId(self) -> str: ...  # noqa: N802
    @property
    def seed(self) -> int | None: ...
    @property
    def lifecycle(self) -> Lifecycle: ...
    @property
    def agentId(self) -> str: ...  # noqa: N802


PAIR_IDENTITY_FIELDS: tuple[str, ...] = tuple(PairIdentity.model_fields)
# The contract's order of receipts, scores and replays in a report: adapter, task, trial,
# lifecycle, seed, agent.
PAIR_SORT_FIELDS = ("adapterId", "taskId", "trialId", "lifecycle", "seed", "agentId")


def pair_identity(record: NamesAPair) -> JsonObject:
    """The six fields that name ``record``'s pair, as every record of it spells them."""
    return {name: getattr(record, name) for name in PAIR_IDENTITY_FIELDS}


def pair_sort_key(record: NamesAPair) -> tuple[str, ...]:
    """``record``'s identity as text, in the contract's sort order."""
    return tuple(str(getattr(record, name)) for name in PAIR_SORT_FIELDS)


class Exclusion(PairIdentity):
    failureClass: FailureClass
    reason: Str


class TaskScore(ContractModel):
    taskId: TaskId
    scored: Bool
    exclusionReason: Str | None
    success: Annotated[Int, Field(ge=0, le=1)]
    completed: Bool
    supportedClaims: tuple[Str, ...]
    unsupportedClaims: tuple[Str, ...]
    unsupportedSubstantiveClaims: tuple[Str, ...]
    missingRequiredClaims: tuple[Str, ...]
    forbiddenEvidenceClaims: tuple[Str, ...]
    invalidOutputs: tuple[Str, ...]
    correctAbstention: Bool
    prematureStop: Bool
    unnecessaryRead: Bool
    collectionCorrect: Bool
    filtersCorrect: Bool
    substantiveClaims: NonNegativeInt
    linkedSupportedClaims: NonNegativeInt


class ScoreRecord(PairIdentity):
    score: TaskScore


class ReplayPayload(ContractModel):
    canonicalJson: Annotated[Str, Field(min_length=2)]
    sha256: Sha256


class CapsuleReplay(ContractModel):
    taskId: TaskId
    adapterId: Literal["capsule"]
    trialId: Str
    seed: Int | None
    lifecycle: Lifecycle
    agentId: Str
    first: ReplayPayload
    second: ReplayPayload


class PromotionMetrics(ContractModel):
    baselineSuccessRate: Number | None
    candidateSuccessRate: Number | None
    agentCallReduction: Number | None
    contextByteReduction: Number | None
    claimLinkageRate: Number | None
    baselineUnsupportedClaims: NonNegativeInt | None
    candidateUnsupportedClaims: NonNegativeInt | None
    unsupportedClaimReduction: Number | None


class Promotion(ContractModel):
    passed: Bool
    pairCount: NonNegativeInt
    failures: tuple[Str, ...]
    metrics: PromotionMetrics


class BenchmarkReport(ContractModel):
    schemaVersion: Literal["1.0"]
    benchmarkId: Literal["agentic-retrieval@1"]
    canonicalFingerprint: Sha256
    # Our extension: the canonical projection without the environment, so runs on two machines
    # (or host and container) compare on results alone. Optional so reference reports validate.
    resultsFingerprint: Sha256 | None = None
    fixtureFingerprint: Sha256
    environment: Environment
    methodology: tuple[Str, ...]
    limitations: tuple[Str, ...]
    preparations: tuple[Preparation, ...]
    attemptedPairs: NonNegativeInt
    scoredPairs: NonNegativeInt
    exclusions: tuple[Exclusion, ...]
    receipts: tuple[TrajectoryReceipt, ...]
    scores: tuple[ScoreRecord, ...]
    capsuleReplays: tuple[CapsuleReplay, ...]
    promotion: Promotion | None

    def to_json(self) -> JsonObject:
        data = super().to_json()
        data["environment"] = self.environment.to_json()  # without its absent extensions
        return data
