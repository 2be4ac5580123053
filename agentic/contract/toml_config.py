"""A config file the user writes in TOML, read into a closed pydantic model: any problem is one
``ContractError`` line naming the file, the key and what is wrong with it.

Both the backend configs (``--backend``) and the checkout's ``lanes.toml`` read this way; each
may name a key's place in its own words (``where``: a lane by its name, say).
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from agentic.contract.code_names import ErrorCodeName
from agentic.contract.errors import ContractError

Model = TypeVar("Model", bound=BaseModel)
Where = Callable[[tuple[int | str, ...], dict[str, Any]], str]


def dotted(location: tuple[int | str, ...], document: dict[str, Any]) -> str:
    """A key's place as its dotted path (``tools.search.name``)."""
    return ".".join(str(part) for part in location)


def first_error(exc: ValidationError, document: dict[str, Any], where: Where = dotted) -> str:
    """The first validation error as ``place: message`` (an unknown key says so plainly)."""
    error = exc.errors()[0]
    place = where(tuple(error["loc"]), document)
    message = str(error["msg"]).removeprefix("Value error, ")
    if error["type"] == "extra_forbidden":
        message = "unknown key"
    return f"{place}: {message}" if place else message


def parse_toml_model(
    data: bytes,
    model: type[Model],
    *,
    source: str,
    code: ErrorCodeName,
    where: Where = dotted,
) -> Model:
    """``data`` (a TOML document from ``source``) as ``model``; one ``code`` line if it is not."""
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ContractError(code, f"{source}: {exc}") from None
    try:
        return model.model_validate(document)
    except ValidationError as exc:
        raise ContractError(code, f"{source}: {first_error(exc, document, where)}") from None
