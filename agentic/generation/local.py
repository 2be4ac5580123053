"""``local:<lock>``: a pinned GGUF through llama-cpp-python, for the generation tier.

``<lock>`` names a lock file: ``agent-model`` is ``locks/agent-model.lock.json``; a value with a
``/`` or ending in ``.json`` is a path. The lock is verified by ``agentic.locks`` (strict lock,
exact file name and size, streaming sha256) before llama.cpp sees the file, and the file is
re-checked before every answer. No network: the offline switches are set before loading.

Answers use temperature 0 and the run's fixed seed, with the model's state reset before each
one, so an answer depends on its request only. The lock's runtime shape (context, batch,
threads) and chat format are used as pinned; its agent sampling and budgets are not (they are
the agentic lane's). A prompt that does not fit the context window is
``generation_context_overflow``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from agentic.contract.canonical import fingerprint
from agentic.contract.errors import ContractError
from agentic.contract.strict_json import JsonObject
from agentic.generation.model import PROMPT_VERSION, GenerationRequest
from agentic.locks import AGENT_MODEL_LOCK, ModelPreflight, enforce_offline, preflight_agent_model
from agentic.resources import locks_dir

LOCAL_PREFIX = "local:"
MAX_ANSWER_TOKENS = 128
SAMPLING: JsonObject = {"temperature": 0.0, "topK": 1, "maxTokens": MAX_ANSWER_TOKENS}
LOCK_SUFFIX = ".lock.json"


def lock_path(name: str) -> Path:
    """The lock file a ``local:<name>`` spec names."""
    if "/" in name or name.endswith(".json"):
        return Path(name)
    return locks_dir() / f"{name}{LOCK_SUFFIX}"


def default_lock_names() -> tuple[str, ...]:
    """Every ``agent-model*.lock.json`` in ``locks/``, by name: the matrix's default rows."""
    folder = locks_dir()
    if not folder.is_dir():
        return ()
    stem = AGENT_MODEL_LOCK.removesuffix(LOCK_SUFFIX)
    names = sorted(
        p.name.removesuffix(LOCK_SUFFIX)
        for p in folder.iterdir()
        if p.name.startswith(stem) and p.name.endswith(LOCK_SUFFIX) and p.is_file()
    )
    return tuple(names)


def _load_llama(preflight: ModelPreflight) -> Any:
    try:
        from llama_cpp import Llama
    except ImportError:
        raise ContractError(
            "model_runtime_missing", "llama-cpp-python is not installed (extra 'local-model')"
        ) from None
    runtime = preflight.lock.runtime
    preflight.model.ensure_unchanged()
    llama = Llama(
        model_path=str(preflight.model.path),
        n_ctx=runtime.contextTokens,
        n_batch=runtime.batchTokens,
        n_threads=runtime.threads,
        n_threads_batch=runtime.threads,
        seed=preflight.lock.trials[0].seed,
        chat_format=preflight.lock.chatFormat,
        verbose=False,
    )
    expected = preflight.lock.tokenizer.vocabSize
    if llama.n_vocab() != expected:
        found = llama.n_vocab()
        llama.close()
        raise ContractError(
            "tokenizer_mismatch", f"model vocabulary has {found} tokens, the lock pins {expected}"
        )
    return llama


class LocalModel:
    """One loaded GGUF answering generation requests."""

    def __init__(self, spec_name: str, preflight: ModelPreflight, llama: Any) -> None:
        self._name = spec_name
        self._preflight = preflight
        self._llama = llama
        self._answering = 0  # generate calls in flight (one abandoned at its deadline, say)

    @property
    def model_id(self) -> str:
        return f"{LOCAL_PREFIX}{self._name}"

    @property
    def fingerprint(self) -> str:
        # Different llama.cpp builds round differently, so the build is part of the identity.
        from agentic.agents.local_model import build_identity

        return fingerprint(
            {
                "lock": self._preflight.lock.to_json(),
                "prompt": PROMPT_VERSION,
                "sampling": SAMPLING,
                "build": build_identity(),
            }
        )

    def generate(self, request: GenerationRequest) -> str:
        self._answering += 1
        try:
            return self._generate(request)
        finally:
            self._answering -= 1

    def _generate(self, request: GenerationRequest) -> str:
        self._preflight.model.ensure_unchanged()
        self._llama.reset()
        messages = [m.to_chat() for m in request.messages()]
        try:
            result = self._llama.create_chat_completion(
                messages=messages,
                temperature=SAMPLING["temperature"],
                top_k=SAMPLING["topK"],
                seed=request.seed,
                max_tokens=MAX_ANSWER_TOKENS,
            )
        except ValueError as exc:
            raise ContractError("generation_context_overflow", f"{self.model_id}: {exc}") from None
        content = result["choices"][0]["message"].get("content")
        return content if isinstance(content, str) else ""

    def close(self) -> None:
        # An answer abandoned at its deadline may still run on its worker thread: freeing the
        # model under it crashes the process (SIGSEGV) before the timeout is reported. The
        # process is ending with that error, which frees everything anyway.
        if self._answering:
            return
        close = getattr(self._llama, "close", None)
        if callable(close):
            close()


def open_local_model(name: str, environ: Mapping[str, str] | None = None) -> LocalModel:
    """Verify the lock's file, then load it; raises ContractError (exit 2) on any mismatch."""
    enforce_offline(os.environ)
    preflight = preflight_agent_model(lock_path(name), os.environ if environ is None else environ)
    return LocalModel(name, preflight, _load_llama(preflight))
