"""Opening the built-in agents: which agent runs, with which trials (see ``builtins``)."""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING

from agentic.agents.base import Agent, AgentStepError
from agentic.catalog.entries import AgentContext, AgentEntry, OpenedAgent
from agentic.contract.canonical import sha256_hex
from agentic.contract.credentials import recorded_url
from agentic.contract.errors import ContractError
from agentic.contract.report import AgentEndpoint, Trial
from agentic.contract.task import AgentTask

if TYPE_CHECKING:
    # The lock and cache modules are the model agents' own: a fixture-agent run loads neither.
    from agentic.agents.chat_config import OpenAIChatConfig
    from agentic.agents.llm_cache import CacheMode, LlmCache
    from agentic.agents.local_model import LocalModelSettings
    from agentic.locks import ModelPreflight

CUES_FILE = "fixture-agent.cues.json"
FIXTURE_TRIALS: tuple[Trial, ...] = (Trial(trialId="fixture-01", seed=0),)


def open_fixture_agent(fixture_root: Path, cues_path: Path | None) -> OpenedAgent:
    from agentic.agents.cues import parse_cue_table
    from agentic.agents.fixture_agent import FixtureAgent

    path = cues_path or fixture_root / CUES_FILE
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ContractError(
            "invalid_cue_table",
            f"the fixture agent reads its cues from {path}: {exc.strerror} (add cues to the task "
            "specs and re-add them, pass --cues FILE, or run another agent)",
        ) from None
    table = parse_cue_table(data)
    digest = sha256_hex(data)
    agent = FixtureAgent(table, digest)

    def check_task(task: AgentTask) -> None:
        uncued = [c.claimKey for c in task.claims if table.get(c.claimKey) is None]
        if uncued:
            raise ContractError(
                "fixture_agent_cues_missing",
                f"task {task.taskId}: claim {uncued[0]} has no entry in {path.name}; the fixture "
                "agent runs only on tasks whose every claim has cues",
            )

    # The fixture agent is stateless between sessions, so one instance serves every pair.
    return OpenedAgent(
        "fixture", agent.agent_id, lambda: agent, FIXTURE_TRIALS, check_task=check_task
    )


def local_model_settings(checked: ModelPreflight, environ: Mapping[str, str]) -> LocalModelSettings:
    """The agent's settings from a verified lock (threads may be overridden by the environment)."""
    from agentic.locks import model_threads

    try:
        from agentic.agents.local_model import LocalModelSettings, Sampling
    except ImportError as exc:
        raise ContractError(
            "local_model_unavailable",
            f"llama-cpp-python is not importable ({exc}); install the 'local-model' extra",
        ) from None
    lock, model = checked.lock, checked.model
    return LocalModelSettings(
        agent_id=lock.agentId,
        model_path=model.path,
        model_sha256=model.sha256,
        tokenizer_id=lock.tokenizer.id,
        vocab_size=lock.tokenizer.vocabSize,
        chat_format=lock.chatFormat,
        context_tokens=lock.runtime.contextTokens,
        batch_tokens=lock.runtime.batchTokens,
        threads=model_threads(lock, environ),
        max_tool_calls=lock.budgets.maxToolCalls,
        max_output_tokens=lock.budgets.maxOutputTokens,
        sampling=Sampling(
            temperature=lock.sampling.temperature,
            top_k=lock.sampling.topK,
            top_p=lock.sampling.topP,
            min_p=lock.sampling.minP,
        ),
    )


def open_local_model_agent(lock_path: Path, environ: MutableMapping[str, str]) -> OpenedAgent:
    """Preflight (strict lock, exact file, streaming sha256) before anything loads the model."""
    from agentic.locks import enforce_offline, preflight_agent_model

    enforce_offline(environ)
    checked = preflight_agent_model(lock_path, environ)
    settings = local_model_settings(checked, environ)
    from agentic.agents.local_model import LocalModelAgent, PreambleCache

    lock, model = checked.lock, checked.model
    preambles = PreambleCache()

    def load() -> Agent:
        # Cheap re-check that the verified file is still the one on disk, before every load.
        model.ensure_unchanged()
        return LocalModelAgent.load(settings, preambles)

    trials = tuple(Trial(trialId=t.trialId, seed=t.seed) for t in lock.trials)
    return OpenedAgent("local-model", lock.agentId, load, trials)


OPENAI_TRIAL_ID = "endpoint-01"


def refuse_unconfigured(context: AgentContext) -> OpenedAgent:
    """``--agent openai-chat`` alone: the agent is its config's, so there is nothing to open."""
    raise ContractError(
        "invalid_cli_option",
        "agent openai-chat talks to the endpoint its config names: pass --agent-config FILE "
        "instead of --agent openai-chat (docs/agents.md)",
    )


def openai_agent_entry(
    config_path: Path, cache_folder: Path | None, cache_mode: CacheMode
) -> AgentEntry:
    """``--agent-config FILE``: the config's agent as a catalog entry of kind ``id``. The
    config is read now (a bad file is refused before anything runs); the endpoint is asked for
    its models when the lane opens the agent, through the cache in reuse mode."""
    from agentic.agents.chat_config import load_agent_config
    from agentic.agents.llm_cache import open_cache

    config = load_agent_config(config_path)
    cache = open_cache(cache_folder, cache_mode)

    def open_agent(context: AgentContext) -> OpenedAgent:
        return open_openai_agent(config, cache, context.environ)

    return AgentEntry(
        config.id, open_agent, origin="config", source=str(config_path), concurrent=True
    )


def open_openai_agent(
    config: OpenAIChatConfig, cache: LlmCache | None, environ: Mapping[str, str]
) -> OpenedAgent:
    from agentic.agents.chat_config import api_key
    from agentic.agents.chat_endpoint import Endpoint, EndpointSettings
    from agentic.agents.openai_chat import EndpointIdentity, OpenAIChatAgent, endpoint_models

    settings = EndpointSettings(
        base_url=config.base_url,
        # On reuse no request leaves the machine, so no key is needed (CI, the container).
        api_key=None if cache is not None and cache.mode == "reuse" else api_key(config, environ),
        timeout_s=config.timeout_s,
        max_retries=config.max_retries,
    )
    probe = Endpoint(settings, cache)
    try:
        models = endpoint_models(probe)
    except AgentStepError as exc:
        # Before any pair: an endpoint that cannot list its models cannot run a lane.
        raise ContractError(exc.code, f"agent {config.id}: {exc}") from None
    except ContractError as exc:
        raise ContractError(exc.code, f"agent {config.id}: {exc.message}") from None
    finally:
        probe.close()
    identity = EndpointIdentity(models=models, cached=cache is not None)
    agent = OpenAIChatAgent(config, settings, cache, identity)
    provenance = AgentEndpoint(
        kind="openai-chat",
        # Recorded without credentials (report, canonical data, run identity): a URL with none
        # is recorded as written, so committed fingerprints stay.
        baseUrl=recorded_url(config.base_url),
        model=config.model,
        endpointModels=models,
        answers=identity.answers,
        stepTimeoutS=config.timeout_s,
    )
    trials = (Trial(trialId=OPENAI_TRIAL_ID, seed=config.seed),)
    return OpenedAgent(config.id, config.id, lambda: agent, trials, endpoint=provenance)
