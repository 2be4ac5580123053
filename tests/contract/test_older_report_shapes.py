"""A stored report of a shape this kit does not write is refused, naming the kit that wrote it.

There are no compatibility branches: a report of an older kit is rerun, never rendered through a
shim. These are the shapes earlier kits wrote that this one refuses."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agentic import __version__
from agentic.contract.errors import ContractError
from agentic.contract.schemas import load_model, parse_and_load

ENDPOINT_REPORT = (
    Path(__file__).resolve().parents[2] / "baselines/optional/openai-smollm2/report.json"
)


def endpoint_report() -> dict[str, Any]:
    document: dict[str, Any] = json.loads(ENDPOINT_REPORT.read_bytes())
    return document


def refusal(document: dict[str, Any]) -> str:
    with pytest.raises(ContractError) as caught:
        parse_and_load("benchmark-report", json.dumps(document), source="report.json")
    assert caught.value.code == "schema_violation"
    return str(caught.value)


def test_an_endpoint_without_its_step_deadline_names_the_kit_that_wrote_it() -> None:
    document = endpoint_report()
    del document["environment"]["agentEndpoint"]["stepTimeoutS"]
    document["environment"]["packageVersion"] = "0.0.9"
    message = refusal(document)
    assert "stepTimeoutS" in message
    assert f"written by agentic 0.0.9; this is agentic {__version__}" in message


def test_an_endpoint_url_with_credentials_is_refused_not_scrubbed_when_shown() -> None:
    document = endpoint_report()
    document["environment"]["agentEndpoint"]["baseUrl"] = "http://user:pw@127.0.0.1:8080/v1"
    message = refusal(document)
    assert "/environment/agentEndpoint/baseUrl" in message
    assert "holds credentials" in message
    assert "user:pw" not in message


def test_the_renderers_reader_refuses_an_older_shape_too() -> None:
    document = endpoint_report()
    del document["environment"]["agentEndpoint"]["stepTimeoutS"]
    with pytest.raises(ContractError, match="written by agentic"):
        load_model("benchmark-report", document, source="report.json")


def test_the_committed_endpoint_report_is_of_this_kits_shape() -> None:
    report = parse_and_load("benchmark-report", json.dumps(endpoint_report()), source="report.json")
    assert report.environment.agentEndpoint is not None
