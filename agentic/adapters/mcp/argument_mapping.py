"""A configured server's arguments for a contract call: each mapped, scoped, fanned out or paged.

Each mapped contract argument is sent under the server's own name. The ``collection`` argument
scopes a search: when the server declares its scope argument as an array, it gets
``[collection]`` or, without one, every collection of the task; when it declares a string, it
gets the named collection (or the task's only one). A URI or a named collection outside the
task's collections is refused before any traffic (``task_scope_violation``), whether or not the
server takes a scope.

A search with ``query_split = "words"`` is one ranking per word, each asked per collection as
above; with ``paging``, each of those calls pages (``paging.py``); ``query_syntax`` escapes
each query sent (``query_forms.py``).
"""

from __future__ import annotations

import copy
import itertools
import re
from collections.abc import Callable, Sequence
from pathlib import Path

from agentic.adapters.errors import AdapterCallError
from agentic.adapters.mcp import contract_shapes, profile, query_forms
from agentic.adapters.mcp import paging as paging_rule
from agentic.adapters.mcp.backend_config import Paging, ResultReading, ToolMapping
from agentic.adapters.mcp.mapped import DEFAULT_LIMIT, MappedReplies
from agentic.adapters.mcp.preparation import fill_placeholders
from agentic.adapters.mcp.server_ids import ServerIds
from agentic.adapters.reads import TaskScope
from agentic.contract.json_access import as_array, as_int, as_object
from agentic.contract.strict_json import JsonArray, JsonObject, JsonValue

# What a regex-escaped query escapes: the metacharacters of POSIX extended and Rust/PCRE
# regexes alike (an escaped space or letter means something else, or nothing, to some of them).
_REGEX_SPECIAL = re.compile(r"[.^$*+?()\[\]{}|\\]")


def _declares_array(schema: object) -> bool:
    if not isinstance(schema, dict):
        return False
    if schema.get("type") == "array" or (
        isinstance(schema.get("type"), list) and "array" in schema["type"]
    ):
        return True
    return any(_declares_array(option) for option in schema.get("anyOf", []))


def _scope_value(
    arguments: JsonObject, scope: profile.CallScope, property_schema: JsonValue
) -> str | JsonArray | None:
    named = arguments.get("collection")  # inside the task's scope: checked by map_arguments
    if _declares_array(property_schema):
        return [str(named)] if named is not None else list(scope.collections)
    if named is not None:
        return str(named)
    return scope.collections[0] if len(scope.collections) == 1 else None


def _string_scope(mapping: ToolMapping, scope: profile.CallScope) -> str | None:
    """The server argument of a string-typed collection scope, else None."""
    server_name = mapping.arguments.get("collection")
    if server_name is None:
        return None
    schema = scope.product_schemas.get(mapping.name, {})
    properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
    return None if _declares_array(properties.get(server_name)) else server_name


def reply_merge(
    reading: ResultReading,
) -> Callable[[Sequence[profile.RawResult]], profile.RawResult] | None:
    """How several replies join into one for the parser; None: the parser reads each."""
    if reading.shape == "hits":
        return contract_shapes.merge_hits
    if reading.shape == "resources":
        return contract_shapes.merge_resources
    return None


def fan_out(
    mapping: ToolMapping,
    reading: ResultReading,
    config_dir: Path,
    ids: ServerIds | None,
    mapped: MappedReplies,
) -> profile.FanOut:
    """A server whose scope argument takes one collection is asked once per task collection
    when the agent names none (as the in-process adapters search each collection). With
    ``query_split = "words"`` each word of the query is a ranking of its own, asked once per
    collection so; with ``paging``, each of those calls pages (``_next_page``)."""
    mapper = argument_mapper(mapping, config_dir, ids)
    paging = mapping.paging

    def split(arguments: JsonObject, scope: profile.CallScope) -> profile.Plan | None:
        server_name = _string_scope(mapping, scope)
        per_collection = not (
            server_name is None or "collection" in arguments or len(scope.collections) < 2
        )
        queries = query_forms.split_query(mapping.query_split, str(arguments["query"]))
        if not per_collection and queries == (arguments["query"],) and paging is None:
            return None  # one call, as ``map_arguments`` maps it
        rankings: list[tuple[JsonObject, ...]] = []
        for query in queries:
            base = mapper({**arguments, "query": query}, scope)
            if paging is not None:
                _put(base, paging.argument, paging.start)
            if server_name is not None and per_collection:
                rankings.append(tuple({**base, server_name: c} for c in scope.collections))
            else:
                rankings.append((base,))
        return tuple(rankings)

    next_page = None if paging is None else _next_page(paging, mapped)
    return profile.FanOut(split=split, merge=reply_merge(reading), next_page=next_page)


def _next_page(paging: Paging, mapped: MappedReplies) -> profile.NextPage:
    """The next page's arguments of a paged search call, while ``paging.py`` asks for one."""

    def next_page(
        arguments: JsonObject,
        scope: profile.CallScope,
        first: JsonObject,
        pages: Sequence[profile.RawResult],
    ) -> JsonObject | None:
        try:
            read = [mapped.page_read(arguments, scope, raw) for raw in pages]
        except AdapterCallError:
            return None  # an error reply, or one the config cannot read: the parse reports it
        limit = as_int(arguments.get("limit", DEFAULT_LIMIT), "limit")
        if not paging_rule.more_pages(read, limit, paging.max_pages):
            return None
        following = copy.deepcopy(first)
        _put(following, paging.argument, paging_rule.next_position(paging, read))
        return following

    return next_page


def _put(arguments: JsonObject, name: str, value: JsonValue) -> None:
    """Set a server argument by its name; a dotted name (``searches.0.query``) sets a field
    of a nested object, a numeric part an item of a list (grown as needed)."""
    parts = name.split(".")
    holder: JsonValue = arguments
    for part, following in itertools.pairwise(parts):
        holder = _child(holder, part, list if following.isdigit() else dict)
    last = parts[-1]
    if isinstance(holder, list):
        index = int(last)
        holder.extend({} for _ in range(index + 1 - len(holder)))
        holder[index] = value
    else:
        as_object(holder, f"the server argument holding {last!r}")[last] = value


def _child(holder: JsonValue, part: str, kind: type[JsonArray] | type[JsonObject]) -> JsonValue:
    if isinstance(holder, list):
        index = int(part)
        holder.extend(kind() for _ in range(index + 1 - len(holder)))
        return holder[index]
    return as_object(holder, f"the server argument holding {part!r}").setdefault(part, kind())


def fixed_arguments(mapping: ToolMapping, config_dir: Path) -> Callable[[Path | None], JsonObject]:
    """A tool's fixed arguments, placeholders in their text filled for a prepared root."""

    def values(root: Path | None) -> JsonObject:
        return {
            name: fill_placeholders(value, root, config_dir)
            if isinstance(value, str) and root
            else value
            for name, value in (mapping.fixed or {}).items()
        }

    return values


def argument_mapper(
    mapping: ToolMapping, config_dir: Path, ids: ServerIds | None = None
) -> profile.ArgumentMapper:
    """The server's arguments for a contract call: each mapped argument under the server's
    name (document URIs as the server names them, transforms applied), then the fixed ones."""
    transforms = mapping.transforms or {}
    fixed = fixed_arguments(mapping, config_dir)

    def map_arguments(arguments: JsonObject, scope: profile.CallScope) -> JsonObject:
        task_scope = TaskScope(task_id=scope.task.taskId, collections=scope.collections)
        # Refused here whether or not the server takes a scope: a server given none would
        # otherwise be asked anyway, and its results in the named collection kept.
        if arguments.get("collection") is not None:
            task_scope.check_collection(str(arguments["collection"]))
        for uri in [arguments.get("uri"), *as_array(arguments.get("uris", []), "uris")]:
            if uri is not None:
                task_scope.check_uri(str(uri))
        schema = scope.product_schemas.get(mapping.name, {})
        properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
        product: JsonObject = {}
        for contract_name, server_name in mapping.arguments.items():
            if contract_name == "collection":
                scoped = _scope_value(arguments, scope, properties.get(server_name))
                if scoped is not None:
                    _put(product, server_name, scoped)
            elif contract_name == "lineCount" and transforms.get("lineCount") == "inclusive_end":
                if "lineCount" in arguments:
                    first = as_int(arguments.get("fromLine", 1), "fromLine")
                    last = first + as_int(arguments["lineCount"], "lineCount") - 1
                    _put(product, server_name, last)
            elif contract_name in arguments:
                value = arguments[contract_name]
                if contract_name == "query" and transforms.get("query") == "regex_escape":
                    value = _REGEX_SPECIAL.sub(r"\\\g<0>", str(value))
                elif contract_name == "query" and mapping.query_syntax is not None:
                    value = query_forms.escaped(mapping.query_syntax, str(value))
                elif contract_name in ("uri", "uris") and ids is not None:
                    value = ids.for_server(value, scope.prepared_root)
                _put(product, server_name, value)
        for name, value in fixed(scope.prepared_root).items():
            _put(product, name, value)
        return product

    return map_arguments
