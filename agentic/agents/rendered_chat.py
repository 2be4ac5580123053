"""The openai-chat agent's rendered protocol (``protocol = "rendered"``), made for small models.
It is a conversation a small model can follow, and a grammar that holds it to the contract.

What the model reads:

- a short system text, and the tools as the server's chat template lists them (``tools`` in the
  request: the model's own tool-call format, e.g. Qwen's ``<tool_call>``), reduced to what a
  task can use: ``search`` takes words and one of the task's collections, ``get`` and
  ``multi_get`` take uris results have shown, ``final_answer`` takes claims and gaps;
- two worked examples on an invented corpus (no fixture's data): one that searches, reads and
  answers, one that finds nothing and answers with gaps;
- the public task, each claim with the kind of value it takes in words (never a label the model
  could copy as a value);
- after each call, its result rendered as numbered lines per uri, the lines that share most
  words with the goal, the claims and the query first, a slice sized to the context
  (``context_policy``); hashes and provenance are never shown, and a result equal to an earlier
  one is shown once.

What holds it: every request carries the grammar of its turn (``call_grammar``), in llama.cpp's
``grammar`` field, so the model can call only a tool the task allows while calls remain, search
only the task's collections, read only uris it was shown, and cite only lines it was shown; the
final answer names each claim once, as a claim or a gap. A reply the grammar does not admit means
the endpoint ignored the grammar: that is the harness's failure (``llm_grammar_ignored``), never
scored as the model's. A reply cut short is the model's malformed output, as for any agent.

The delivered results are charged in full as the contract says: what the model is shown is a
view, and the scorer judges against everything delivered.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from agentic.agents.base import AgentStepError, TokenCount
from agentic.agents.call_grammar import (
    FINAL_TOOL,
    GrammarIgnoredError,
    ModelCall,
    call_grammar,
    call_text,
    final_envelope,
    read_call,
)
from agentic.agents.chat_config import STEP_GRACE_S, Measured, OpenAIChatConfig, context_left
from agentic.agents.chat_endpoint import Endpoint, Usage, first_message
from agentic.agents.context_policy import (
    affordable_tools,
    call_room,
    result_chars,
    sized_arguments,
)
from agentic.agents.grammar import Citable, StepShape, to_gbnf
from agentic.agents.prompting import citables, render_result, seen_uris
from agentic.contract.canonical import canonical_text, fingerprint
from agentic.contract.steps import VisibleCall
from agentic.contract.strict_json import JsonObject
from agentic.contract.task import AgentTask

# The rendered protocol's version: its prompt, its grammar and its context policy.
PROMPT_VERSION = "openai-chat-rendered-v2"
# The fixed prompt is mostly JSON-escaped prose: bytes per token of the whole request body.
CHARS_PER_FIXED_TOKEN = 3.0

SYSTEM_PROMPT = (
    "You answer one question from a document collection with tools, one tool call per turn. "
    "Search with the goal's own words in one of the task's collections. Results show numbered "
    "lines of each source; when a result shows only part of what you need, read that source "
    "with get, from a line near the one you saw. Then call final_answer: each claim's value as "
    "the lines state it, citing the uri and line numbers of the lines that state it. A claim no "
    "shown line states is a gap with reason missing_evidence. Never repeat a call: its result "
    "would not change."
)

_STRING: JsonObject = {"type": "string"}
_INTEGER: JsonObject = {"type": "integer", "minimum": 1}
TOOLS: tuple[JsonObject, ...] = (
    {
        "name": "search",
        "description": "Find lines that share words with the query in one collection.",
        "parameters": {
            "type": "object",
            "properties": {"query": _STRING, "collection": _STRING},
            "required": ["query", "collection"],
        },
    },
    {
        "name": "get",
        "description": "Read one source shown in a result, from a line, for some lines.",
        "parameters": {
            "type": "object",
            "properties": {"uri": _STRING, "fromLine": _INTEGER, "lineCount": _INTEGER},
            "required": ["uri"],
        },
    },
    {
        "name": "multi_get",
        "description": "Read several sources shown in results.",
        "parameters": {
            "type": "object",
            "properties": {"uris": {"type": "array", "items": _STRING}},
            "required": ["uris"],
        },
    },
    {
        "name": FINAL_TOOL,
        "description": "Answer: every claim once, as a claim citing shown lines or as a gap.",
        "parameters": {
            "type": "object",
            "properties": {
                "claims": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "claimKey": _STRING,
                            "value": {},
                            "citations": {
                                "type": "array",
                                "items": {
                                    "type": "object",
                                    "properties": {
                                        "uri": _STRING,
                                        "startLine": _INTEGER,
                                        "endLine": _INTEGER,
                                    },
                                },
                            },
                        },
                    },
                },
                "gaps": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {"claimKey": _STRING, "reason": _STRING},
                    },
                },
            },
            "required": ["claims", "gaps"],
        },
    },
)

# What each value type is called in the task turn: words, not the type's label, which a small
# model copied as the value ("value": "string, required").
KINDS = {
    "string": "text",
    "identifier": "a name or code, as written",
    "number": "a number",
    "boolean": "true or false",
    "date": "a date, YYYY-MM-DD",
    "string[]": "a list of texts",
}


def render_chat_task(task: AgentTask) -> str:
    claims = "\n".join(
        f"- {c.claimKey}: {KINDS[c.valueType]}{'' if c.required else ' (optional)'}"
        for c in task.claims
    )
    calls = task.budgets.maxAgentCalls
    return (
        f"Goal: {task.brief.goal}\n"
        f"Rules: {' '.join(task.brief.instructions)}\n"
        f"Claims:\n{claims}\n"
        f"Collections: {', '.join(task.corpus.collections)}\n"
        f"Tools: {', '.join(task.allowedTools)}; {calls} call{'s' if calls != 1 else ''}, "
        "then final_answer."
    )


def _response(text: str) -> str:
    return f"<tool_response>\n{text}\n</tool_response>"


# The worked examples: an invented uploader's documentation, no fixture's data.
_EXAMPLE_URI = "gno://c101/kestrel/uploads.md"
_EXAMPLE_LINES = {
    12: "## Retries",
    14: "Kestrel retries a failed upload up to 5 times by default.",
    15: "The limit is set by the upload.retries key in kestrel.toml.",
}


def _example_result(tool: str, numbers: Sequence[int]) -> str:
    rows = "\n".join(f"{n}: {_EXAMPLE_LINES[n]}" for n in numbers)
    return _response(f"Result of {tool}: ok, candidates\nEvidence:\n{_EXAMPLE_URI}\n{rows}")


def _example_citation(line: int) -> JsonObject:
    return {"uri": _EXAMPLE_URI, "startLine": line, "endLine": line}


EXAMPLE_TURNS: tuple[tuple[str, str], ...] = (
    (
        "user",
        "Goal: How many times does the Kestrel uploader retry a failed upload by default, and "
        "which setting changes that?\nRules: Return only the declared structured claims or "
        "gaps.\nClaims:\n- retryLimit: a number\n- retrySetting: a name or code, as written\n"
        "Collections: c101\nTools: search, get, multi_get; 3 calls, then final_answer.",
    ),
    (
        "assistant",
        call_text("search", {"query": "Kestrel upload retry failed default", "collection": "c101"}),
    ),
    ("user", _example_result("search", (14,))),
    ("assistant", call_text("get", {"uri": _EXAMPLE_URI, "fromLine": 12, "lineCount": 4})),
    ("user", _example_result("get", (12, 14, 15))),
    (
        "assistant",
        call_text(
            FINAL_TOOL,
            {
                "claims": [
                    {"claimKey": "retryLimit", "value": 5, "citations": [_example_citation(14)]},
                    {
                        "claimKey": "retrySetting",
                        "value": "upload.retries",
                        "citations": [_example_citation(15)],
                    },
                ],
                "gaps": [],
            },
        ),
    ),
    (
        "user",
        "Goal: Which port does the Kestrel uploader's metrics endpoint listen on?\nRules: Return "
        "only the declared structured claims or gaps.\nClaims:\n- metricsPort: a number\n"
        "Collections: c101\nTools: search, get, multi_get; 3 calls, then final_answer.",
    ),
    (
        "assistant",
        call_text("search", {"query": "Kestrel metrics endpoint port", "collection": "c101"}),
    ),
    ("user", _response("Result of search: ok, candidates\nNo evidence.")),
    (
        "assistant",
        call_text(
            FINAL_TOOL,
            {"claims": [], "gaps": [{"claimKey": "metricsPort", "reason": "missing_evidence"}]},
        ),
    ),
)


def messages(
    task: AgentTask, calls: Sequence[VisibleCall], texts: Sequence[str], chars: int
) -> list[JsonObject]:
    """The conversation: system text, worked examples, the task, then each call as the model
    wrote it and its result as the model is shown it."""
    conversation: list[JsonObject] = [{"role": "system", "content": SYSTEM_PROMPT}]
    conversation += [{"role": role, "content": text} for role, text in EXAMPLE_TURNS]
    conversation.append({"role": "user", "content": render_chat_task(task)})
    for index, text in enumerate(texts):
        conversation.append({"role": "assistant", "content": text})
        shown = render_result(task, calls[: index + 1], chars)
        conversation.append({"role": "user", "content": _response(shown)})
    return conversation


def prompt_bytes(body: JsonObject) -> int:
    """The bytes of a request that the server renders into the prompt: all but the grammar,
    which constrains the reply and takes no room in the context (it grows with every line the
    model was shown: counted as prompt, it ended pairs whose prompt was a fifth of the context)."""
    return len(canonical_text({k: v for k, v in body.items() if k != "grammar"}).encode("utf-8"))


def prompt_fingerprint(task: AgentTask) -> str:
    return fingerprint(
        {
            "system": SYSTEM_PROMPT,
            "examples": [list(turn) for turn in EXAMPLE_TURNS],
            "tools": list(TOOLS),
            "prompt": PROMPT_VERSION,
            "task": render_chat_task(task),
        }
    )


class RenderedChatSession:
    """One trial. It keeps the text the model wrote for each call (its own turns are shown back
    verbatim; the call as sent may carry sizes the policy added)."""

    def __init__(
        self, config: OpenAIChatConfig, endpoint: Endpoint, task: AgentTask, seed: int | None
    ) -> None:
        self._config = config
        self._endpoint = endpoint
        self._task = task
        self._seed = seed
        self._usage = Usage()
        self._measured: Measured | None = None
        self._texts: list[str] = []
        self._chars: int | None = None

    @property
    def step_deadline_s(self) -> float:
        return self._config.timeout_s + STEP_GRACE_S

    def _result_chars(self) -> int:
        """The slice each result shows, fixed for the trial from its first request's size."""
        if self._chars is None:
            budget = self._config.context_budget
            tokens = None if budget is None or budget.tokens is None else budget.tokens
            fixed = prompt_bytes(self.request((), 0)) / CHARS_PER_FIXED_TOKEN
            output = self._config.max_output_tokens
            self._chars = result_chars(tokens, fixed, output, self._task.budgets.maxAgentCalls)
        return self._chars

    def shape(self, calls: tuple[VisibleCall, ...]) -> StepShape:
        spent = len(calls) >= self._task.budgets.maxAgentCalls
        return StepShape(
            tools=() if spent else affordable_tools(self._task, calls),
            collections=self._task.corpus.collections,
            uris=seen_uris(calls),
            citables=citables(self._task, calls, self._result_chars()),
        )

    def request(self, calls: tuple[VisibleCall, ...], chars: int, grammar: str = "") -> JsonObject:
        body: JsonObject = {
            "model": self._config.model,
            "messages": list(messages(self._task, calls, self._texts[: len(calls)], chars)),
            "tools": [{"type": "function", "function": tool} for tool in TOOLS],
            "temperature": self._config.temperature,
            "max_tokens": self._config.max_output_tokens,
            "stream": False,
        }
        if grammar:
            body["grammar"] = grammar
        if self._seed is not None:
            body["seed"] = self._seed
        return {**body, **self._config.extra_body}

    def next_step(self, calls: tuple[VisibleCall, ...]) -> str:
        if len(calls) != len(self._texts):
            raise RuntimeError(f"history has {len(calls)} calls after {len(self._texts)} steps")
        shape = self.shape(calls)
        grammar = call_grammar(self._task, shape)
        body = self.request(calls, self._result_chars(), to_gbnf(grammar))
        size = prompt_bytes(body)
        context_left(self._config, size, self._measured)
        reply = self._endpoint.post_json("chat/completions", body)
        self._usage.add(reply)
        if self._usage.last_prompt_tokens is not None:
            self._measured = Measured(size, self._usage.last_prompt_tokens)
        text = _content(reply)
        self._texts.append(text)
        try:
            call = read_call(text, grammar)
        except GrammarIgnoredError:
            raise AgentStepError(
                "harness_error",
                "llm_grammar_ignored",
                f"the endpoint's reply is text the grammar it was sent does not admit: "
                f"{text[:120]!r}",
            ) from None
        if call is None:
            return text  # cut short: the runner scores the unfinished text as malformed
        return self._step(call, calls, shape.citables)

    def _step(
        self, call: ModelCall, calls: tuple[VisibleCall, ...], shown: tuple[Citable, ...]
    ) -> str:
        if call.name == FINAL_TOOL:
            envelope = final_envelope(call.arguments, self._task, shown)
            return json.dumps({"kind": "final", "envelope": envelope}, ensure_ascii=False)
        arguments = sized_arguments(call.name, call.arguments, call_room(self._task, calls))
        step = {"kind": "tool", "toolName": call.name, "arguments": arguments}
        return json.dumps(step, ensure_ascii=False)

    def count_tokens(self, text: str) -> TokenCount | None:
        return None

    def model_load_ms(self) -> float | None:
        return None

    def notes(self) -> tuple[str, ...]:
        return (*self._endpoint.notes, *self._usage.note(), *self._endpoint.cache_notes())

    def close(self) -> None:
        self._endpoint.close()


def _content(reply: JsonObject) -> str:
    message = first_message(reply)
    content = message.get("content")
    if not isinstance(content, str):
        raise AgentStepError(
            "harness_error", "llm_response_invalid", "the reply's message has no text content"
        )
    return content
