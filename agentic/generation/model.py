"""What a generation model is given, the protocol it implements, and the ``mock`` model.

A request is the fixed system text, the injected passages (possibly none), the golden's prior
turns and its question. ``messages()`` renders it the one way every chat model sees it, so the
prompt fingerprint covers it and no backend formats context its own way.

``mock`` answers by echoing the injected passages verbatim: the extractive ceiling, the best a
perfect reader could do with what was injected. With nothing injected it declines. A real model
below the mock line is the bottleneck; a mock line that is itself low means retrieval is.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from agentic.contract.canonical import fingerprint

PROMPT_VERSION = "generation-prompt-v1"
REFUSAL_TEXT = "I don't know."
PASSAGE_SEPARATOR = "\n\n---\n\n"

CONTEXT_SYSTEM = (
    "You answer questions using only the reference text in the user's message. "
    "Answer in one or two sentences and keep exact numbers, names and identifiers. "
    "If the reference text does not answer the question, reply exactly: "
    f"{REFUSAL_TEXT} "
    "Never mention the reference text, documents, sources or context in your answer."
)
PLAIN_SYSTEM = (
    "You answer questions from your own knowledge. "
    "Answer in one or two sentences and keep exact numbers, names and identifiers. "
    f"If you do not know the answer, reply exactly: {REFUSAL_TEXT}"
)

Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class Message:
    role: Role
    content: str

    def to_chat(self) -> dict[str, str]:
        """The message as a chat-completion API takes it."""
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True)
class GenerationRequest:
    passages: tuple[str, ...]
    turns: tuple[Message, ...]
    question: str
    seed: int
    with_context: bool

    def messages(self) -> tuple[Message, ...]:
        """System, prior turns, then the question (after the reference text, when injected).

        ``with_context`` is false only in ``noretrieval`` mode; a context mode that retrieved
        nothing still uses the context prompt with an empty reference, so that the model is
        asked to decline rather than to answer from memory.
        """
        if not self.with_context:
            return (Message("system", PLAIN_SYSTEM), *self.turns, Message("user", self.question))
        reference = PASSAGE_SEPARATOR.join(self.passages) if self.passages else "(none)"
        user = f"Reference text:\n{reference}\n\nQuestion: {self.question}"
        return (Message("system", CONTEXT_SYSTEM), *self.turns, Message("user", user))


class GenerationModel(Protocol):
    """A text generator for the generation tier. Implementations own their resources."""

    @property
    def model_id(self) -> str: ...

    @property
    def fingerprint(self) -> str:
        """Identity of everything that shapes answers: weights, runtime settings, prompt."""
        ...

    def generate(self, request: GenerationRequest) -> str: ...

    def close(self) -> None: ...


class MockModel:
    """The extractive ceiling: echo the injected passages; decline when there are none."""

    model_id = "mock"

    @property
    def fingerprint(self) -> str:
        return fingerprint({"model": "mock-echo-v1", "prompt": PROMPT_VERSION})

    def generate(self, request: GenerationRequest) -> str:
        return "\n\n".join(request.passages) if request.passages else REFUSAL_TEXT

    def close(self) -> None:
        return None
