"""The local-model agent: a pinned GGUF run in-process by llama.cpp (llama-cpp-python).

Each step the model writes one JSON step under a grammar built from visible data only
(``grammar.step_grammar``). The text goes to the runner verbatim: it is never retried, repaired
or re-serialized, so whatever the model writes is what gets parsed and scored.

Repeatability. A trial starts from a context holding exactly the fixed preamble (computed from
empty, or kept from the previous trial of the same model: the same arithmetic either way), and
every step replays the same operations: the new prompt suffix is evaluated after the tokens
already in the cache (the evaluated prefix is reused, never re-evaluated), then tokens are
sampled from a fresh sampler chain seeded from the trial seed and the step index. Cold and warm
trials therefore do the same arithmetic and write the same text; a different llama.cpp build may
not (its kernels round differently), which is why the build identity is part of the model
fingerprint.

Forced text. Where the grammar admits exactly one continuation (JSON scaffolding, and a citation
once its URI and line numbers are chosen), that text is appended as tokens in one batch instead
of being sampled one token at a time. The model could not have written anything else there; this
only saves time. Sampled and forced token counts are reported separately.

The agent sees the task, the tool definitions and delivered results; the model file path and
its verified digest come from the runner's preflight (``agentic.locks``), never from the task.
"""

from __future__ import annotations

import codecs
import ctypes
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import llama_cpp

from agentic.agents.base import TokenCount
from agentic.agents.grammar import Matcher, StepShape, step_grammar, to_gbnf
from agentic.agents.prompting import (
    PROMPT_VERSION,
    Segment,
    after_call,
    citables,
    preamble,
    render_task,
    seen_uris,
    task_opening,
)
from agentic.contract.canonical import fingerprint
from agentic.contract.errors import ContractError
from agentic.contract.steps import VisibleCall
from agentic.contract.strict_json import JsonObject
from agentic.contract.task import AgentTask

AGENT_VERSION = "local-model-agent-v1"
GRAMMAR_VERSION = "local-model-grammar-v1"
SEED_SPACE = 2**32


@dataclass(frozen=True)
class Sampling:
    temperature: float
    top_k: int
    top_p: float
    min_p: float


@dataclass(frozen=True)
class LocalModelSettings:
    """Everything that decides the model's behaviour, as pinned by the agent-model lock."""

    agent_id: str
    model_path: Path
    model_sha256: str
    tokenizer_id: str
    vocab_size: int
    chat_format: str
    context_tokens: int
    batch_tokens: int
    threads: int
    max_tool_calls: int
    max_output_tokens: int
    sampling: Sampling

    def identity(self) -> JsonObject:
        """The behaviour-deciding settings as JSON (the path is where, not what: left out)."""
        return {
            "agent": AGENT_VERSION,
            "agentId": self.agent_id,
            "modelSha256": self.model_sha256,
            "chatFormat": self.chat_format,
            # Threads are left out: they change speed, not arithmetic (a real-model test holds
            # this). The batch size stays in: it decides how prompt evaluation is split.
            "runtime": {"contextTokens": self.context_tokens, "batchTokens": self.batch_tokens},
            "budgets": {
                "maxToolCalls": self.max_tool_calls,
                "maxOutputTokens": self.max_output_tokens,
            },
            "sampling": {
                "temperature": self.sampling.temperature,
                "topK": self.sampling.top_k,
                "topP": self.sampling.top_p,
                "minP": self.sampling.min_p,
            },
            "prompt": PROMPT_VERSION,
            "grammar": GRAMMAR_VERSION,
        }

    def tokenizer_fingerprint(self) -> str:
        # The GGUF digest binds the embedded tokenizer's vocabulary and merges.
        return fingerprint(
            {
                "tokenizer": self.tokenizer_id,
                "source": "gguf-embedded",
                "vocabSize": self.vocab_size,
                "modelSha256": self.model_sha256,
            }
        )


def build_identity() -> dict[str, str]:
    """The llama.cpp build: different kernels round differently, so output is build-specific."""
    info = llama_cpp.llama_print_system_info()
    return {
        "llamaCppPython": str(llama_cpp.__version__),
        "system": info.decode("utf-8", "replace") if isinstance(info, bytes) else str(info),
    }


@dataclass(frozen=True)
class StepStats:
    sampled_tokens: int
    forced_tokens: int
    prompt_tokens: int
    seconds: float


# --- sampling -----------------------------------------------------------------------------------


@contextmanager
def sampler_chain(llm: Any, gbnf: str, sampling: Sampling, seed: int) -> Iterator[Any]:
    """A fresh llama.cpp sampler chain (grammar first), freed on exit."""
    chain = llama_cpp.llama_sampler_chain_init(llama_cpp.llama_sampler_chain_default_params())
    try:
        vocab = llama_cpp.llama_model_get_vocab(llm.model)
        grammar = llama_cpp.llama_sampler_init_grammar(vocab, gbnf.encode("utf-8"), b"root")
        if not grammar:
            raise RuntimeError("llama.cpp rejected the step grammar")
        llama_cpp.llama_sampler_chain_add(chain, grammar)
        if sampling.temperature == 0:
            llama_cpp.llama_sampler_chain_add(chain, llama_cpp.llama_sampler_init_greedy())
        else:
            for stage in (
                llama_cpp.llama_sampler_init_top_k(sampling.top_k),
                llama_cpp.llama_sampler_init_top_p(sampling.top_p, 1),
                llama_cpp.llama_sampler_init_min_p(sampling.min_p, 1),
                llama_cpp.llama_sampler_init_temp(sampling.temperature),
                llama_cpp.llama_sampler_init_dist(ctypes.c_uint32(seed).value),
            ):
                llama_cpp.llama_sampler_chain_add(chain, stage)
        yield chain
    finally:
        llama_cpp.llama_sampler_free(chain)


def step_seed(trial_seed: int, step: int) -> int:
    return (trial_seed + step) % SEED_SPACE


# --- the agent ----------------------------------------------------------------------------------


def open_model(settings: LocalModelSettings) -> Any:
    """llama.cpp over the verified file, with the lock's context, batch and thread settings."""
    return llama_cpp.Llama(
        model_path=str(settings.model_path),
        n_ctx=settings.context_tokens,
        n_batch=settings.batch_tokens,
        n_ubatch=settings.batch_tokens,
        n_threads=settings.threads,
        n_threads_batch=settings.threads,
        seed=0,
        use_mmap=True,
        verbose=False,
    )


class PreambleCache:
    """The evaluated preamble, kept across the fresh loads of one lane.

    Every conversation starts with the same ~540 preamble tokens. A fresh load (each cold pair)
    would evaluate them again, which costs more than the load itself; restoring the context saved
    after the first evaluation gives the same bytes, so the same text afterwards (a real-model
    test holds this). The model is still loaded, and its load timed, for every cold pair.
    """

    def __init__(self) -> None:
        self._prefix: list[int] = []
        self._state: Any = None

    def restore(self, llm: Any, prefix: list[int]) -> bool:
        if self._state is None or self._prefix != prefix:
            return False
        llm.load_state(self._state)
        return True

    def store(self, llm: Any, prefix: list[int]) -> None:
        self._prefix, self._state = list(prefix), llm.save_state()


class LocalModelAgent:
    """One loaded model. Cold pairs load a fresh agent each; a warm cohort shares one."""

    def __init__(
        self, settings: LocalModelSettings, llm: Any, load_ms: float, preambles: PreambleCache
    ) -> None:
        self.agent_id = settings.agent_id
        self._settings = settings
        self._llm = llm
        self._load_ms: float | None = load_ms
        self._preambles = preambles
        self._fingerprint = fingerprint({**settings.identity(), "build": build_identity()})

    @classmethod
    def load(cls, settings: LocalModelSettings, preambles: PreambleCache) -> LocalModelAgent:
        started = time.perf_counter()
        llm = open_model(settings)
        load_ms = (time.perf_counter() - started) * 1000
        found = llm.n_vocab()
        if found != settings.vocab_size:
            llm.close()
            raise ContractError(
                "tokenizer_mismatch",
                f"model vocabulary has {found} tokens, the lock pins {settings.vocab_size}",
            )
        return cls(settings, llm, load_ms, preambles)

    @property
    def settings(self) -> LocalModelSettings:
        return self._settings

    def model_fingerprint(self) -> str:
        return self._fingerprint

    def prompt_fingerprint(self, task: AgentTask) -> str:
        return fingerprint(
            {
                "preamble": "".join(segment.text for segment in preamble()),
                "prompt": PROMPT_VERSION,
                "chatFormat": self._settings.chat_format,
                "task": render_task(task),
            }
        )

    def open(
        self, task: AgentTask, tools: list[JsonObject], *, seed: int | None = None
    ) -> LocalModelSession:
        if seed is None:
            raise ContractError(
                "trial_seed_required", "the local-model agent samples with the trial's seed"
            )
        # Only the first session after a load paid for the load.
        load_ms, self._load_ms = self._load_ms, None
        listed = {str(tool["name"]) for tool in tools}
        return LocalModelSession(
            self._settings,
            self._llm,
            task,
            listed_tools=listed,
            seed=seed,
            load_ms=load_ms,
            preambles=self._preambles,
        )


class LocalModelSession:
    def __init__(
        self,
        settings: LocalModelSettings,
        llm: Any,
        task: AgentTask,
        *,
        listed_tools: set[str],
        seed: int,
        load_ms: float | None,
        preambles: PreambleCache,
    ) -> None:
        self._settings = settings
        self._preambles = preambles
        self._llm = llm
        self._task = task
        self._tools = tuple(name for name in task.allowedTools if name in listed_tools)
        self._seed = seed
        self._load_ms = load_ms
        self._tokenizer_fp = settings.tokenizer_fingerprint()
        self._vocab = llama_cpp.llama_model_get_vocab(llm.model)
        self._call_budget = min(task.budgets.maxAgentCalls, settings.max_tool_calls)
        self._steps = 0
        # Tokens that belong to the conversation but are not in the cache yet.
        self._pending: list[int] = []
        self.stats: list[StepStats] = []

    # -- AgentSession ---------------------------------------------------------------------------

    def next_step(self, calls: tuple[VisibleCall, ...]) -> str:
        if len(calls) != self._steps:
            raise RuntimeError(f"history has {len(calls)} calls after {self._steps} steps")
        if calls:
            self._pending.extend(self._tokens(after_call(self._task, calls)))
        else:
            self._start_from_preamble()
            self._pending = self._tokens(task_opening(self._task))
        remaining = self._call_budget - len(calls)
        shape = StepShape(
            tools=self._tools if remaining > 0 else (),
            collections=self._task.corpus.collections,
            uris=seen_uris(calls),
            citables=citables(self._task, calls),
        )
        grammar = step_grammar(self._task, shape)
        text = self._generate(Matcher(grammar), to_gbnf(grammar))
        self._steps += 1
        return text

    def count_tokens(self, text: str) -> TokenCount:
        tokens = self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)
        return TokenCount(tokens=len(tokens), tokenizer_fingerprint=self._tokenizer_fp)

    def model_load_ms(self) -> float | None:
        return self._load_ms

    def close(self) -> None:
        self._pending = []
        self._llm = None  # the agent owns the model; a closed session no longer holds it

    # -- generation -----------------------------------------------------------------------------

    def _tokens(self, segments: Sequence[Segment]) -> list[int]:
        tokens: list[int] = []
        for segment in segments:
            raw = segment.text.encode("utf-8")
            tokens.extend(self._llm.tokenize(raw, add_bos=False, special=segment.control))
        return tokens

    def _start_from_preamble(self) -> None:
        """Reset the context to exactly the evaluated preamble.

        The preamble is always evaluated on its own, from an empty context, so its cache entries
        are the same arithmetic whether they were just computed, restored from the lane's saved
        copy (a cold pair), or kept from the previous trial of this model (a warm cohort).
        Everything after it is dropped: nothing a previous trial saw or wrote can shape this one.
        """
        prefix = self._tokens(preamble())
        size = len(prefix)
        kept = self._llm.n_tokens >= size and list(self._llm.input_ids[:size]) == prefix
        if kept:
            self._llm.n_tokens = size  # the next eval drops every cache entry past the preamble
            return
        self._llm.reset()
        if self._preambles.restore(self._llm, prefix):
            return
        self._pending = prefix
        self._flush()
        self._preambles.store(self._llm, prefix)

    def _flush(self) -> None:
        count = len(self._pending)
        if self._llm.n_tokens + count > self._settings.context_tokens:
            raise RuntimeError(
                f"context_overflow: {self._llm.n_tokens + count} tokens exceed "
                f"{self._settings.context_tokens}"
            )
        if count:
            self._llm.eval(self._pending)
            self._pending = []

    def _generate(self, matcher: Matcher, gbnf: str) -> str:
        """Sample one step under the grammar; forced stretches are appended without sampling."""
        started = time.perf_counter()
        decoder = codecs.getincrementaldecoder("utf-8")()
        parts: list[str] = []
        sampled = forced_count = 0
        prompt = len(self._pending)
        seed = step_seed(self._seed, self._steps)
        with sampler_chain(self._llm, gbnf, self._settings.sampling, seed) as chain:
            while not matcher.finished:
                between_chars = not decoder.getstate()[0]
                forced = matcher.forced() if between_chars else ""
                if forced:
                    tokens = self._llm.tokenize(forced.encode("utf-8"), add_bos=False)
                    for token in tokens:
                        llama_cpp.llama_sampler_accept(chain, token)
                    self._pending.extend(tokens)
                    matcher.feed(forced)
                    parts.append(forced)
                    forced_count += len(tokens)
                    continue
                if sampled >= self._settings.max_output_tokens:
                    break  # truncated output: the runner rejects it as it stands
                self._flush()
                token = llama_cpp.llama_sampler_sample(chain, self._llm.ctx, -1)
                if llama_cpp.llama_vocab_is_eog(self._vocab, token):
                    break
                sampled += 1
                self._pending.append(token)
                piece = decoder.decode(self._llm.detokenize([token]))
                if not matcher.feed(piece):
                    raise RuntimeError(f"sampled text {piece!r} left the step grammar")
                parts.append(piece)
        self.stats.append(StepStats(sampled, forced_count, prompt, time.perf_counter() - started))
        return "".join(parts)
