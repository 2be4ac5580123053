"""The rendered protocol's grammar against real llama.cpp: every grammar the agent can send for a
task of either fixture is one llama.cpp's parser accepts (an unparsable grammar would leave the
server sampling free text), and llama-cpp-python's server, serving the model with its own chat
template, holds its reply to the grammar sent (and without it, does not)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from agentic.agents.call_grammar import GrammarIgnoredError, call_grammar, read_call
from agentic.agents.chat_config import load_agent_config
from agentic.agents.chat_endpoint import Endpoint, EndpointSettings
from agentic.agents.grammar import Citable, StepShape, to_gbnf
from agentic.agents.rendered_chat import RenderedChatSession
from agentic.contract.task import AgentTask
from agentic.fixture.loader import Fixture, load_fixture
from agentic.locks import preflight_agent_model
from agentic.resources import fixtures_dir, locks_dir
from tests.support.fake_openai import config_text
from tests.support.openai_server import RunningServer, requires_openai_server, start_server

pytestmark = [pytest.mark.real_process, pytest.mark.local_model, requires_openai_server]


def model_path() -> Path:
    return preflight_agent_model(locks_dir() / "agent-model.lock.json", os.environ).model.path


def fixtures() -> list[Fixture]:
    return [load_fixture(fixtures_dir() / name) for name in ("agentic-retrieval", "sqlite-docs")]


def shapes(fixture: Fixture, task: AgentTask) -> list[StepShape]:
    """The turns a task can have: first (nothing shown), middle (the oracle's lines shown, as if
    results had shown them) and last (calls spent)."""
    lines = [
        Citable(e.uri, e.startLine, e.endLine, e.sourceHash, e.spanHash)
        for claim in fixture.oracle(task.taskId).claims
        for e in (*claim.requiredEvidence, *claim.optionalEvidence)
    ]
    uris = tuple(dict.fromkeys(line.uri for line in lines))
    collections = task.corpus.collections
    return [
        StepShape(task.allowedTools, collections, (), ()),
        StepShape(task.allowedTools, collections, uris, tuple(dict.fromkeys(lines))),
        StepShape((), collections, uris, tuple(dict.fromkeys(lines))),
    ]


def test_every_grammar_for_every_task_parses_in_llama_cpp() -> None:
    import llama_cpp

    llm = llama_cpp.Llama(model_path=str(model_path()), vocab_only=True, verbose=False)
    vocab = llama_cpp.llama_model_get_vocab(llm.model)
    refused = []
    for fixture in fixtures():
        for task in fixture.tasks:
            for shape in shapes(fixture, task):
                gbnf = to_gbnf(call_grammar(task, shape)).encode("utf-8")
                sampler = llama_cpp.llama_sampler_init_grammar(vocab, gbnf, b"root")
                if not sampler:
                    refused.append(task.taskId)
                    continue
                llama_cpp.llama_sampler_free(sampler)
    assert refused == []


@pytest.fixture(scope="module")
def templated_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RunningServer]:
    """The pinned SmolLM2 behind llama-cpp-python's server with its own chat template."""
    log = tmp_path_factory.mktemp("rendered-server") / "server.log"
    server = start_server(
        model_path(), chat_format=None, n_ctx=4096, threads=2, model_alias="m", log_path=log
    )
    try:
        yield server
    finally:
        server.stop()


def first_request(server: RunningServer, tmp_path: Path) -> tuple[dict[str, Any], Any]:
    path = tmp_path / "agent.toml"
    keys = {"protocol": "rendered", "model": "m", "max_output_tokens": 128}
    path.write_text(config_text(server.base_url, **keys), encoding="utf-8")
    config = load_agent_config(path)
    settings = EndpointSettings(server.base_url, None, timeout_s=600, max_retries=0)
    task = fixtures()[0].tasks[0]
    session = RenderedChatSession(config, Endpoint(settings, None), task, 1)
    shape = session.shape(())
    grammar = call_grammar(task, shape)
    return session.request((), 1200, to_gbnf(grammar)), grammar


def reply_text(server: RunningServer, body: dict[str, Any]) -> str:
    with httpx2.Client(timeout=600, trust_env=False) as client:
        response = client.post(f"{server.base_url}/chat/completions", json=body)
    response.raise_for_status()
    return str(response.json()["choices"][0]["message"]["content"])


def test_the_server_holds_its_reply_to_the_grammar_sent(
    templated_server: RunningServer, tmp_path: Path
) -> None:
    body, grammar = first_request(templated_server, tmp_path)
    text = reply_text(templated_server, body)
    assert read_call(text, grammar) is not None, text


def test_without_the_grammar_the_same_request_is_answered_otherwise(
    templated_server: RunningServer, tmp_path: Path
) -> None:
    body, grammar = first_request(templated_server, tmp_path)
    body.pop("grammar")
    text = reply_text(templated_server, body)
    with pytest.raises(GrammarIgnoredError):
        read_call(text, grammar)
