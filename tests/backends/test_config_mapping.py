"""The mapping keys of a backend config (results per tool, ids, fixed arguments, transforms,
readiness, corpus mode): each mistake is one precise line, and a config that uses none of them
keeps the identity it had before they existed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentic.adapters.mcp.backend_config import BackendConfig
from agentic.adapters.mcp.configured import configured_profile
from agentic.adapters.mcp.profile import CallScope
from agentic.contract.json_access import object_at
from agentic.contract.strict_json import JsonObject
from tests.support.backends import config_rejection, parse_config, stdio_config
from tests.support.snapshots import make_task, snapshot_from

GREP_LINES = r"(?P<uri>[^:]+):(?P<line>\d+): ?(?P<text>.*)"


def with_search(**changes: Any) -> dict[str, Any]:
    document = stdio_config()
    object_at(document, "tools", "search").update(changes)
    return document


def test_a_config_without_mapping_keys_dumps_as_before() -> None:
    dump = parse_config(stdio_config()).model_dump(mode="json")
    assert set(dump) == {
        "id", "transport", "command", "url", "prepare", "env", "server_name",
        "startup_timeout_s", "max_message_bytes", "tools", "results",
    }  # fmt: skip
    assert dump["results"] == {"shape": "hits"}
    assert set(dump["tools"]["search"]) == {"name", "arguments"}


def test_a_tool_may_read_its_replies_its_own_way() -> None:
    document = with_search(results={"shape": "lines", "pattern": GREP_LINES})
    config = parse_config(document)
    assert config.reading("search").shape == "lines"
    assert config.reading("get").shape == "hits"


def test_records_need_a_field_map() -> None:
    assert "'fields' is required by shape 'records'" in config_rejection(
        with_search(results={"shape": "records", "path": "result"})
    )


def test_a_lines_pattern_must_name_a_text_group() -> None:
    message = config_rejection(with_search(results={"shape": "lines", "pattern": r"(?P<uri>.*)"}))
    assert "pattern must name a group 'text'" in message


def test_a_pattern_that_is_no_regular_expression_is_named() -> None:
    message = config_rejection(with_search(results={"shape": "lines", "pattern": "(?P<text>"}))
    assert "pattern: not a regular expression" in message


def test_a_search_cannot_read_replies_that_name_no_document() -> None:
    message = config_rejection(with_search(results={"shape": "document"}))
    assert "tools.search.results: shape 'document' does not say which document" in message


def test_a_fixed_argument_may_not_shadow_a_mapped_one() -> None:
    message = config_rejection(with_search(fixed={"q": "x"}))
    assert "tools.search.fixed sets 'q', which an argument is mapped to" in message


def test_a_transform_must_fit_its_argument() -> None:
    message = config_rejection(with_search(transforms={"query": "inclusive_end"}))
    assert "'inclusive_end' does not apply to 'query'" in message


def test_a_transform_needs_its_argument_mapped() -> None:
    document = stdio_config()
    object_at(document, "tools", "get")["transforms"] = {"lineCount": "inclusive_end"}
    assert "names 'lineCount', which is not mapped" in config_rejection(document)


def test_drop_extension_is_for_paths() -> None:
    document: JsonObject = {**stdio_config(), "ids": {"form": "permalink", "drop_extension": True}}
    assert "drop_extension is for form 'path'" in config_rejection(document)


def test_an_id_prefix_may_hold_only_the_corpus_placeholder() -> None:
    document: JsonObject = {**stdio_config(), "ids": {"form": "path", "prefix": "{prepared}/"}}
    assert "ids.prefix may hold only the {corpus} placeholder" in config_rejection(document)


def test_a_readiness_pattern_must_compile() -> None:
    document: JsonObject = {**stdio_config(), "ready": {"not_ready": "[unclosed"}}
    assert "not_ready: not a regular expression" in config_rejection(document)


def test_home_and_run_placeholders_fill_env_values() -> None:
    document: JsonObject = {**stdio_config(), "env": {"HOME": "{home}", "TMP": "{run}/tmp"}}
    assert parse_config(document).env == {"HOME": "{home}", "TMP": "{run}/tmp"}


def test_the_corpus_mode_defaults_to_the_read_only_snapshot() -> None:
    config: BackendConfig = parse_config(stdio_config())
    assert config.corpus_mode == "snapshot"
    assert parse_config({**stdio_config(), "corpus": "copy"}).corpus_mode == "copy"


def test_the_run_placeholder_is_for_env_values_only() -> None:
    message = config_rejection(stdio_config(command=["server", "{run}"]))
    assert "command[1]: unknown placeholder {run}" in message


def mapped_search(search: dict[str, Any], arguments: dict[str, Any], tmp_path: Path) -> Any:
    """What the server is sent for a search with ``arguments``, under ``search`` settings."""
    document = stdio_config()
    object_at(document, "tools", "search").update(search)
    config = parse_config(document)
    snapshot = snapshot_from({"c0a1/page.md": "text\n"})
    profile = configured_profile(config, tmp_path, snapshot)
    binding = profile.binding("search")
    assert binding is not None
    scope = CallScope(task=make_task(["c0a1"]), snapshot=snapshot, prepared_root=tmp_path)
    return binding.map_arguments(arguments, scope)


def test_a_dotted_argument_name_builds_nested_arguments(tmp_path: Path) -> None:
    search = {
        "arguments": {"query": "searches.0.query", "collection": "scope"},
        "fixed": {"searches.0.type": "lex", "rerank": False},
    }
    sent = mapped_search(search, {"query": "retention"}, tmp_path)
    assert sent == {
        "searches": [{"query": "retention", "type": "lex"}],
        "scope": "c0a1",
        "rerank": False,
    }


def test_a_fixed_argument_fills_its_placeholders(tmp_path: Path) -> None:
    sent = mapped_search({"fixed": {"project": "{home}/main"}}, {"query": "x"}, tmp_path)
    assert sent["project"] == f"{tmp_path}/home/main"


def test_a_regex_escaped_query_escapes_metacharacters_only(tmp_path: Path) -> None:
    search = {"transforms": {"query": "regex_escape"}}
    sent = mapped_search(search, {"query": "a.b (c) d"}, tmp_path)
    assert sent["q"] == r"a\.b \(c\) d"


def test_two_names_setting_one_field_are_refused() -> None:
    message = config_rejection(with_search(fixed={"q.x": 1}))
    assert "'q' and 'q.x' set the same field" in message


def test_a_dotted_name_with_an_empty_part_is_refused() -> None:
    message = config_rejection(with_search(fixed={"a..b": 1}))
    assert "'a..b' is not a field name or a dotted path" in message
