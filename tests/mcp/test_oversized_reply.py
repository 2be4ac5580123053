"""A message over the byte cap comes from the product (its stdout line or its HTTP reply), so the
call fails as the product's ``tool_result_too_large``, scored rather than excluded as a harness
error; and since the product's process group is killed, a warm cohort is corrupted by it."""

from __future__ import annotations

from agentic.adapters.mcp.adapter import call_failure
from agentic.adapters.mcp.client import McpClientError
from agentic.contract.codes import CODES
from agentic.runner.trial import CORRUPTING_CODES


def test_an_oversized_message_is_the_products_tool_result_too_large() -> None:
    error = call_failure(McpClientError("oversized", "server message exceeds 4194304 bytes"), "")
    assert (error.code, error.failure_class) == ("tool_result_too_large", "product_error")


def test_the_failure_names_the_cap_it_broke() -> None:
    error = call_failure(McpClientError("oversized", "server message exceeds 65536 bytes"), "")
    assert "exceeds 65536 bytes" in str(error)


def test_a_malformed_reply_stays_a_harness_invalid_tool_result() -> None:
    error = call_failure(McpClientError("malformed", "malformed result: x"), "")
    assert (error.code, error.failure_class) == ("invalid_tool_result", "harness_error")


def test_an_oversized_reply_corrupts_a_warm_cohort() -> None:
    assert "tool_result_too_large" in CORRUPTING_CODES


def test_the_code_is_cataloged_as_a_product_error() -> None:
    assert CODES["tool_result_too_large"].failure_class == "product_error"
