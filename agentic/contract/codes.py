"""Every error and failure code the kit can emit, with its class and what it means.

A code reaches a user in one of two ways, and this table is where to look either up:

- in a trajectory receipt, as ``canonical.failure.code`` (with ``failure.class``), as a call's
  ``failureCode``, or as the ``errorCode`` of a synthetic error result;
- on stderr, as ``agentic: <code>: <message>``: a ``ContractError`` (bad input, a failed
  preflight, an unsafe write, a CLI usage problem) that ends the command with exit code 2.

Each entry gives:

- ``failure_class``: the contract v1.0 receipt class the code is raised or written with
  (``harness_error``, ``agent_error``, ``product_error``), or None for a code that is only ever a
  ``ContractError``. A class is the kit's verdict of who failed; it does not say where the code
  lands. An ``AdapterCallError`` (a failed tool call) and the runner's own codes end a trial and
  become ``failure.code``. An ``AdapterError`` raised while preparing or attaching an adapter
  does not: the runner records the pair as ``adapter_preparation_failed``,
  ``cold_trial_setup_failed``, ``warm_cohort_setup_failed`` or ``warm_trial_setup_failed`` and
  keeps the adapter's code in ``observations.diagnostics``; ``agentic prepare`` and the ranking
  commands turn it into an ``agentic: <code>:`` line instead.
- ``input_error``: True when the code is raised as a ``ContractError``. A few codes are both:
  ``invalid_final_envelope`` is an agent_error in a run and an input error from
  ``agentic validate``. A ``ContractError`` raised inside an adapter's preparation (the qmd
  preflight codes, say) shows up as that adapter's ``adapter_preparation_failed`` diagnostic.
- ``meaning``: one line, written from the code that raises it.

Not in this table: codes a product owns, relayed as they are. GNO's error results reach the agent
as ``gno_<GNO's code>`` delivered error results (not failures); any ``gno_*`` code not listed
here is one of them. The score's ``invalidOutputs`` issue codes (``contract/accounting.py``,
``contract/semantics.py``) and promotion's invalid-pair reasons (``scoring/promotion.py``) are
separate vocabularies, documented where they are checked.

``tests/test_error_codes.py`` reads every module of the package and keeps this table exact: every
code raised or written is listed with the class it is raised with, and every entry is emitted
somewhere. Every code is written out as a literal where it is emitted (no code is built by an
f-string); ``code_names.ErrorCodeName`` spells the same codes as a type, which the exceptions'
``code`` parameters take, so mypy checks each literal against this table. That type is written
from this table by ``python -m agentic.docgen``: a new code is one entry here, then that command.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from agentic.contract.code_names import ErrorCodeName
from agentic.contract.errors import FailureClass


@dataclass(frozen=True)
class ErrorCode:
    """One code: its receipt class (None: only a ContractError; never "none", which is no
    failure), and what it means."""

    code: ErrorCodeName
    failure_class: FailureClass | None
    input_error: bool
    meaning: str


# Sorted by code.
ENTRIES: tuple[ErrorCode, ...] = (
    ErrorCode(
        "adapter_attach_failed",
        "harness_error",
        False,
        "attaching a prepared adapter failed: its index would not open, or the MCP product "
        "would not start or list its tools",
    ),
    ErrorCode(
        "adapter_attach_timeout",
        "harness_error",
        False,
        "the MCP product did not come up within the timeout while attaching",
    ),
    ErrorCode(
        "adapter_identity_mismatch",
        "harness_error",
        False,
        "the prepared index or running product is not this adapter's: prepared by another "
        "adapter, another server name, or the adapter config changed since preparation",
    ),
    ErrorCode(
        "adapter_not_reset",
        "product_error",
        False,
        "a tool call reached an adapter session before reset() gave it a task",
    ),
    ErrorCode(
        "adapter_preparation_failed",
        "harness_error",
        False,
        "preparing an adapter failed (a step exited non-zero, the product would not start or "
        "list its tools); the runner writes it for every pair of that adapter",
    ),
    ErrorCode(
        "adapter_preparation_timeout",
        "harness_error",
        False,
        "a preparation step, or the MCP product's start during preparation, exceeded the timeout",
    ),
    ErrorCode(
        "agent_call_budget_exceeded",
        "agent_error",
        False,
        "the agent asked for a tool call beyond the task's maxAgentCalls; recorded undelivered",
    ),
    ErrorCode(
        "agent_context_exceeded",
        "agent_error",
        False,
        "the agent's next request would exceed its context budget (the agent config's "
        "context_budget), or the endpoint refused it as longer than the model's context",
    ),
    ErrorCode(
        "agent_timeout",
        "agent_error",
        False,
        "the agent gave no step within its step deadline (an endpoint agent's timeout_s, "
        "else the per-operation timeout)",
    ),
    ErrorCode(
        "artifact_target_busy",
        None,
        True,
        "another process holds the lock of the report folder being written; nothing was staged",
    ),
    ErrorCode(
        "artifact_write_failed",
        None,
        True,
        "a report artifact could not be staged or swapped into its folder",
    ),
    ErrorCode(
        "baseline_exists",
        None,
        True,
        "--accept refused: a baseline already exists at the target (compare, or remove it)",
    ),
    ErrorCode(
        "baseline_missing",
        None,
        True,
        "no committed baseline to compare or verify against, or no checkout to find one in",
    ),
    ErrorCode(
        "baseline_write_failed",
        None,
        True,
        "a baseline file could not be written",
    ),
    ErrorCode(
        "capsule_budget_exceeded",
        "product_error",
        False,
        "the capsule adapter's evidence bundle exceeds its byte budget",
    ),
    ErrorCode(
        "cold_trial_setup_failed",
        "harness_error",
        False,
        "a cold pair's setup (attach, tool check, reset, agent open) raised; the pair did not run",
    ),
    ErrorCode(
        "context_byte_budget_exceeded",
        "agent_error",
        False,
        "delivering a result would exceed the task's maxModelVisibleBytes; recorded undelivered",
    ),
    ErrorCode(
        "corpus_fingerprint_mismatch",
        "harness_error",
        False,
        "an index was prepared from, or asked to prepare, another corpus than the fixture's",
    ),
    ErrorCode(
        "disallowed_tool",
        "agent_error",
        False,
        "the agent named a tool that is not listed, not allowed for the task, or not mapped",
    ),
    ErrorCode(
        "document_not_found",
        "product_error",
        False,
        "a read named a URI the index or product does not hold",
    ),
    ErrorCode(
        "duplicate_adapter_id",
        None,
        True,
        "two catalog entries (built-in or plugin) claim the same adapter id",
    ),
    ErrorCode(
        "duplicate_agent_id",
        None,
        True,
        "two catalog entries (built-in or plugin) claim the same agent kind",
    ),
    ErrorCode(
        "duplicate_key",
        None,
        True,
        "a JSON object repeats a key (strict JSON rejects it)",
    ),
    ErrorCode(
        "export_write_failed",
        None,
        True,
        "agentic export: the --out file could not be written",
    ),
    ErrorCode(
        "fixture_agent_cues_missing",
        None,
        True,
        "the fixture agent was scheduled on a task with a claim its cue table has no entry for",
    ),
    ErrorCode(
        "fixture_authoring_busy",
        None,
        True,
        "fixture add-task refused: another add-task holds the fixture's authoring lock; nothing "
        "was changed",
    ),
    ErrorCode(
        "fixture_authoring_failed",
        None,
        True,
        "fixture init or add-task refused: a folder that is not empty, an unknown area, an "
        "evidence line that is not in its document, a claim key another task owns, two source "
        "files on one library path, a symlink leaving the folder copied from",
    ),
    ErrorCode(
        "fixture_canary_leak",
        None,
        True,
        "a hidden oracle's canary appears in agent-visible fixture text",
    ),
    ErrorCode(
        "fixture_collection_ownership",
        None,
        True,
        "a collection has two owning tasks, a file is outside its collection folder, or a "
        "task's corpus.collections differ from its files",
    ),
    ErrorCode(
        "fixture_contract_invalid",
        None,
        True,
        "a task, or a task and its oracle together, break a contract rule",
    ),
    ErrorCode(
        "fixture_document_too_large",
        None,
        True,
        "fixture init or add-task refused: a document is larger than the 8 MiB cap on one document",
    ),
    ErrorCode(
        "fixture_evidence_invalid",
        None,
        True,
        "an oracle's evidence does not match the corpus text it cites",
    ),
    ErrorCode(
        "fixture_file_missing",
        None,
        True,
        "a file listed in the manifest is missing, not a regular file, or vanished while pinning",
    ),
    ErrorCode(
        "fixture_file_unlisted",
        None,
        True,
        "a file in the fixture is not listed in its manifest",
    ),
    ErrorCode(
        "fixture_fingerprint_mismatch",
        None,
        True,
        "a manifest's corpusFingerprint is not the recomputed one, or a report measured "
        "another fixture",
    ),
    ErrorCode(
        "fixture_hash_mismatch",
        None,
        True,
        "a fixture file's sha256 differs from its manifest entry",
    ),
    ErrorCode(
        "fixture_layout_invalid",
        None,
        True,
        "a fixture path does not match the fixed layout of its kind",
    ),
    ErrorCode(
        "fixture_manifest_invalid",
        None,
        True,
        "the fixture manifest is missing, not a regular file, not strict JSON, or breaks its rules",
    ),
    ErrorCode(
        "fixture_not_found",
        None,
        True,
        "the fixture folder does not exist or is not a directory",
    ),
    ErrorCode(
        "fixture_pairing_invalid",
        None,
        True,
        "task and oracle files do not pair up (paths, taskIds, counts, or no task at all)",
    ),
    ErrorCode(
        "fixture_path_unsafe",
        None,
        True,
        "a fixture path is unsafe: a symlink, outside the root, or not a regular file",
    ),
    ErrorCode(
        "fixture_schema_invalid",
        None,
        True,
        "a fixture task or oracle file fails its JSON schema",
    ),
    ErrorCode(
        "fixture_utf8_invalid",
        None,
        True,
        "a fixture text file is not valid UTF-8",
    ),
    ErrorCode(
        "generation_context_overflow",
        None,
        True,
        "a generation prompt does not fit the local model's context window",
    ),
    ErrorCode(
        "generation_timeout",
        None,
        True,
        "the generation model gave no answer within the timeout",
    ),
    ErrorCode(
        "gno_collection_scope_required",
        "product_error",
        False,
        "gno-mcp: a search of a multi-collection task must name one collection",
    ),
    ErrorCode(
        "gno_embed_failed",
        "harness_error",
        False,
        "gno preparation: `gno --json embed` exited non-zero",
    ),
    ErrorCode(
        "gno_executable_not_found",
        "harness_error",
        False,
        "no gno executable: set AGENTIC_GNO_EXECUTABLE or put gno on PATH",
    ),
    ErrorCode(
        "gno_filter_unsupported",
        "product_error",
        False,
        "gno-mcp cannot map a search filter onto GNO",
    ),
    ErrorCode(
        "gno_update_failed",
        "harness_error",
        False,
        "gno preparation: `gno --json update` exited non-zero",
    ),
    ErrorCode(
        "golden_duplicate_id",
        None,
        True,
        "two goldens share an id",
    ),
    ErrorCode(
        "golden_file_invalid",
        None,
        True,
        "a goldens file is missing, unreadable, not UTF-8, empty or has an invalid line; or the "
        "selection holds no golden",
    ),
    ErrorCode(
        "golden_grade_invalid",
        None,
        True,
        "a golden grades a document that is not one of its relevant documents",
    ),
    ErrorCode(
        "golden_refusal_invalid",
        None,
        True,
        "a refusal golden names relevant documents",
    ),
    ErrorCode(
        "golden_regex_invalid",
        None,
        True,
        "a golden's regular expression does not compile",
    ),
    ErrorCode(
        "golden_relevance_missing",
        None,
        True,
        "an answerable golden names no relevant document",
    ),
    ErrorCode(
        "golden_scope_invalid",
        None,
        True,
        "a golden's collection or relevant document is outside what its task may search",
    ),
    ErrorCode(
        "golden_tag_unknown",
        None,
        True,
        "a tag filter names a tag no golden carries",
    ),
    ErrorCode(
        "golden_unknown_document",
        None,
        True,
        "a golden names a document that is not in the corpus",
    ),
    ErrorCode(
        "golden_unknown_task",
        None,
        True,
        "a golden names a task that is not in the fixture",
    ),
    ErrorCode(
        "incomplete_artifact_set",
        None,
        True,
        "a report folder lacks one of its artifacts, or keeps changing while it is read",
    ),
    ErrorCode(
        "index_fingerprint_changed",
        "harness_error",
        False,
        "the prepared index was rebuilt between preparation and attach",
    ),
    ErrorCode(
        "index_not_found",
        None,
        True,
        "agentic serve: no prepared index at the given path",
    ),
    ErrorCode(
        "index_unreadable",
        None,
        True,
        "agentic serve: the prepared index cannot be opened",
    ),
    ErrorCode(
        "input_too_large",
        None,
        True,
        "an input file exceeds the input cap (AGENTIC_MAX_INPUT_BYTES) or grew past it",
    ),
    ErrorCode(
        "invalid_adapter_entry",
        None,
        True,
        "a catalog adapter entry records replayable bundles under another id than contract v1.0's",
    ),
    ErrorCode(
        "invalid_adapter_preparation",
        "harness_error",
        False,
        "a prepared index was made with another adapter config (config fingerprint differs)",
    ),
    ErrorCode(
        "invalid_adapter_schedule",
        None,
        True,
        "the adapter list is empty, repeats or names an unknown adapter or MCP profile, or "
        "misuses an oracle-reading adapter",
    ),
    ErrorCode(
        "invalid_agent_action",
        "agent_error",
        False,
        "a tool step's arguments fail the tool's input schema",
    ),
    ErrorCode(
        "invalid_agent_config",
        None,
        True,
        "an --agent-config file is not a valid openai-chat config (unreadable, not TOML, an "
        "unknown or mistyped key, extra_body overriding the kit's own fields)",
    ),
    ErrorCode(
        "invalid_agent_step",
        "agent_error",
        False,
        "the agent's output is not one valid step (not an object, wrong keys, unknown kind), "
        "or the agent raised",
    ),
    ErrorCode(
        "invalid_backend_config",
        None,
        True,
        "an MCP backend config file is unreadable, not strict JSON, or fails validation",
    ),
    ErrorCode(
        "invalid_cli_option",
        None,
        True,
        "a command-line option is missing, conflicting or invalid (every argparse usage error too)",
    ),
    ErrorCode(
        "invalid_cue_table",
        None,
        True,
        "the fixture agent's cue table is unreadable or malformed, or its sha256 is not hex",
    ),
    ErrorCode(
        "invalid_final_envelope",
        "agent_error",
        True,
        "a final envelope fails its schema or semantics (agent_error in a run; exit 2 from "
        "agentic validate)",
    ),
    ErrorCode(
        "invalid_index_cache",
        None,
        True,
        "an index-cache entry's record is malformed",
    ),
    ErrorCode(
        "invalid_journal",
        None,
        True,
        "a resume journal entry is malformed, tampered (its receipt's canonical hash "
        "differs, or its HMAC does not verify under the run's key), of another pair, or lacks "
        "its adapter's preparation: the journal is kept as it is",
    ),
    ErrorCode(
        "invalid_lanes_file",
        None,
        True,
        "the checkout's lanes.toml is unreadable, not TOML, or fails validation (an "
        "unknown or mistyped key, a lane naming an unknown adapter or agent or a taken "
        "name)",
    ),
    ErrorCode(
        "invalid_lifecycle_schedule",
        None,
        True,
        "the lifecycle list is empty, repeats a lifecycle, or names an unknown one",
    ),
    ErrorCode(
        "invalid_limit",
        "product_error",
        False,
        "reference server: a search limit below 1",
    ),
    ErrorCode(
        "invalid_max_bytes",
        "product_error",
        False,
        "reference server: a multi-get maxBytes below 1",
    ),
    ErrorCode(
        "invalid_model_lock",
        None,
        True,
        "a model lock file (locks/*.lock.json of a model published in parts) is not valid: "
        "bad JSON, an unknown or missing key, parts that do not add up to the model's size",
    ),
    ErrorCode(
        "invalid_model_spec",
        None,
        True,
        "--model is neither mock nor local:<lock>",
    ),
    ErrorCode(
        "invalid_model_threads",
        None,
        True,
        "AGENTIC_MODEL_THREADS is not an integer in the allowed range",
    ),
    ErrorCode(
        "invalid_oracle_evidence",
        "harness_error",
        False,
        "the oracle adapter found a hidden oracle's evidence inconsistent with the snapshot",
    ),
    ErrorCode(
        "invalid_plugin",
        None,
        True,
        "a catalog plugin cannot be loaded, raised while loading, or gives the wrong type",
    ),
    ErrorCode(
        "invalid_range",
        "product_error",
        False,
        "reference server: a read's fromLine or lineCount below 1",
    ),
    ErrorCode(
        "invalid_report",
        None,
        True,
        "a report is unreadable, malformed, of no known kind, or its scores do not match it",
    ),
    ErrorCode(
        "invalid_run_key",
        None,
        True,
        "a run's key file (--key-file, AGENTIC_KEY_FILE or the state dir's) is not a regular "
        "file of 32 to 4096 bytes owned by the running user and readable by its owner only",
    ),
    ErrorCode(
        "invalid_schema",
        None,
        True,
        "a bundled JSON schema is unreadable, has the wrong $id, is not valid draft-07, or uses "
        "a keyword or $ref the kit's validator does not check",
    ),
    ErrorCode(
        "invalid_search_query",
        "product_error",
        False,
        "the search query breaks the agent query grammar (empty, multi-line, odd quotes, "
        "only negative or no usable terms)",
    ),
    ErrorCode(
        "invalid_shard",
        None,
        True,
        "a --shard value that is not K/N with 1 <= K <= N, or a shard.json that is not a "
        "version 2 shard of the kit (a field missing or unknown, a receipt failing its schema, "
        "an HMAC that does not verify under the run's key)",
    ),
    ErrorCode(
        "invalid_task_schedule",
        None,
        True,
        "the task list is empty, repeats a task, or names a task not in the fixture",
    ),
    ErrorCode(
        "invalid_task_spec",
        None,
        True,
        "a task spec is not UTF-8 TOML, has an unknown or missing key, or breaks a naming or "
        "value rule",
    ),
    ErrorCode(
        "invalid_tool_result",
        "harness_error",
        False,
        "an adapter's outcome or result is malformed: fails validation, a malformed MCP "
        "message, evidence off the document",
    ),
    ErrorCode(
        "invalid_trial_schedule",
        None,
        True,
        "the trial list is empty or repeats a trial id",
    ),
    ErrorCode(
        "invalid_uris",
        "product_error",
        False,
        "reference server: a multi-get with an empty uris list",
    ),
    ErrorCode(
        "journal_busy",
        None,
        True,
        "another run is writing the same output and holds its journal's lock: nothing was run",
    ),
    ErrorCode(
        "journal_exists",
        None,
        True,
        "the output has the journal of an interrupted run and --resume was not given: nothing "
        "was run, the journal is kept",
    ),
    ErrorCode(
        "journal_mismatch",
        None,
        True,
        "--resume found the journal of another run (another fixture, agent, adapter config, "
        "schedule, shard, timeout or kit), or an adapter prepared another index than the "
        "journaled one: nothing was run",
    ),
    ErrorCode(
        "lane_failed",
        None,
        True,
        "agentic verify: a lane run ended without a report",
    ),
    ErrorCode(
        "lane_harness_error",
        None,
        True,
        "agentic verify: a lane run recorded a harness_error receipt",
    ),
    ErrorCode(
        "llm_api_key_missing",
        None,
        True,
        "the variable an agent config names in api_key_env is not set",
    ),
    ErrorCode(
        "llm_cache_corrupt",
        None,
        True,
        "an entry of the LLM record/reuse cache fails its checks: a link or not a regular "
        "file, not strict JSON, not the entry shape, its request or its body hash differ, an "
        "error status (never recorded, but a refusal of a request longer than the model's "
        "context), or a body over the live reply cap",
    ),
    ErrorCode(
        "llm_cache_miss",
        None,
        True,
        "reuse asked the LLM cache for a request that was never recorded (or the cache "
        "folder is missing)",
    ),
    ErrorCode(
        "llm_cache_write_failed",
        None,
        True,
        "recording into the LLM cache failed (a full disk, a read-only folder)",
    ),
    ErrorCode(
        "llm_endpoint_failed",
        "harness_error",
        False,
        "the model endpoint answered with a status that is not 2xx (429 aside): a refused "
        "request (4xx: model name, key, URL) or a broken endpoint (5xx)",
    ),
    ErrorCode(
        "llm_endpoint_unreachable",
        None,
        True,
        "the model endpoint could not be reached (connection refused, dropped, DNS, TLS): the "
        "run stops there, since every later pair would end alike; --resume finishes it",
    ),
    ErrorCode(
        "llm_grammar_ignored",
        "harness_error",
        False,
        "the model endpoint did not apply the grammar the rendered protocol sent: its reply is "
        "text the grammar does not admit (a server without llama.cpp's grammar field)",
    ),
    ErrorCode(
        "llm_rate_limited",
        "harness_error",
        False,
        "the model endpoint kept answering 429 beyond the retries and the wait budget",
    ),
    ErrorCode(
        "llm_response_invalid",
        "harness_error",
        False,
        "the model endpoint's reply is not usable: over the size cap (reading stops there), "
        "not a strict JSON object (duplicate keys, nesting too deep), no choices, no message, "
        "a tool call without a name",
    ),
    ErrorCode(
        "local_model_unavailable",
        None,
        True,
        "the local-model agent needs llama-cpp-python (extra 'local-model'), not importable",
    ),
    ErrorCode(
        "malformed_agent_json",
        "agent_error",
        False,
        "the agent's output is not strict JSON",
    ),
    ErrorCode(
        "malformed_json",
        None,
        True,
        "an input is not strict JSON: bad UTF-8, empty, a syntax error, a non-finite number, "
        "too deep, a lone surrogate, or not an object",
    ),
    ErrorCode(
        "model_file_changed",
        None,
        True,
        "a locked model file changed or vanished while or after it was verified",
    ),
    ErrorCode(
        "model_file_missing",
        None,
        True,
        "a locked model file is not found (AGENTIC_MODEL_PATH), not a regular file, or unreadable",
    ),
    ErrorCode(
        "model_file_name_mismatch",
        None,
        True,
        "the model path does not name the file its lock pins",
    ),
    ErrorCode(
        "model_lock_duplicate_key",
        None,
        True,
        "an agent model lock repeats a JSON key",
    ),
    ErrorCode(
        "model_lock_invalid",
        None,
        True,
        "an agent model lock fails validation",
    ),
    ErrorCode(
        "model_lock_malformed",
        None,
        True,
        "an agent model lock is not strict JSON",
    ),
    ErrorCode(
        "model_lock_missing",
        None,
        True,
        "an agent model lock cannot be read",
    ),
    ErrorCode(
        "model_part_mismatch",
        None,
        True,
        "a chunk of a model published in parts, or the joined file, is not what its lock pins "
        "(size or sha256), or its wheel is missing",
    ),
    ErrorCode(
        "model_runtime_missing",
        None,
        True,
        "local generation needs llama-cpp-python (extra 'local-model'), not installed",
    ),
    ErrorCode(
        "model_sha256_mismatch",
        None,
        True,
        "a model file's sha256 differs from its lock",
    ),
    ErrorCode(
        "model_size_mismatch",
        None,
        True,
        "a model file's size differs from its lock",
    ),
    ErrorCode(
        "non_json_value",
        None,
        True,
        "a value to canonicalize is not JSON (the message names the value and its pointer)",
    ),
    ErrorCode(
        "oracle_not_found",
        "harness_error",
        False,
        "the oracle adapter has no hidden oracle for the task",
    ),
    ErrorCode(
        "output_holds_another_report",
        None,
        True,
        "the output folder holds a previous report of another lane, kind or model; --force "
        "replaces it",
    ),
    ErrorCode(
        "pair_not_in_base",
        None,
        True,
        "compare --receipts: a pair of NEW has no counterpart in BASE",
    ),
    ErrorCode(
        "prepared_tree_too_large",
        "harness_error",
        False,
        "a backend config's prepare step left more than 100000 entries or 1 GiB of files under "
        "{prepared}, refused from their sizes before any is read (at preparation and attach)",
    ),
    ErrorCode(
        "qmd_index_clone_mismatch",
        None,
        True,
        "the copy of the prepared qmd index differs from its source",
    ),
    ErrorCode(
        "qmd_index_mismatch",
        None,
        True,
        "qmd indexed other documents, collections or bytes than the snapshot",
    ),
    ErrorCode(
        "qmd_install_failed",
        None,
        True,
        "installing qmd failed: npm is not on PATH, or npm ci failed, could not start or timed out",
    ),
    ErrorCode(
        "qmd_install_stale",
        None,
        True,
        "the qmd install was built from another package-lock; run nox -s qmd-setup",
    ),
    ErrorCode(
        "qmd_lock_invalid",
        None,
        True,
        "the qmd lock fails validation (fields, toolsFingerprint, model roles)",
    ),
    ErrorCode(
        "qmd_lock_malformed",
        None,
        True,
        "the qmd lock is not strict JSON",
    ),
    ErrorCode(
        "qmd_lock_mismatch",
        None,
        True,
        "a file the qmd lock pins has another sha256; re-record the lock",
    ),
    ErrorCode(
        "qmd_lock_missing",
        None,
        True,
        "the qmd lock, or a file it pins, cannot be read",
    ),
    ErrorCode(
        "qmd_model_cache_unset",
        None,
        True,
        "the qmd lane needs QMD_MODEL_CACHE naming a folder with its three pinned models",
    ),
    ErrorCode(
        "qmd_model_changed",
        None,
        True,
        "a qmd model file changed while it was being hashed",
    ),
    ErrorCode(
        "qmd_model_missing",
        None,
        True,
        "a pinned qmd model is not a readable file",
    ),
    ErrorCode(
        "qmd_model_sha256_mismatch",
        None,
        True,
        "a qmd model's sha256 differs from the lock",
    ),
    ErrorCode(
        "qmd_model_size_mismatch",
        None,
        True,
        "a qmd model's size differs from the lock",
    ),
    ErrorCode(
        "qmd_node_missing",
        None,
        True,
        "the qmd install's node binary is missing, cannot start, or fails --version",
    ),
    ErrorCode(
        "qmd_node_unsupported",
        None,
        True,
        "node's version is unrecognized or below the lock's minimum major",
    ),
    ErrorCode(
        "qmd_node_version_mismatch",
        None,
        True,
        "node is not the version the qmd lock pins",
    ),
    ErrorCode(
        "qmd_not_installed",
        None,
        True,
        "no qmd install: AGENTIC_QMD_HOME unset, or the package or its entry point missing",
    ),
    ErrorCode(
        "qmd_not_prepared",
        None,
        True,
        "a qmd prepared root has no readable run record",
    ),
    ErrorCode(
        "qmd_preflight_failed",
        None,
        True,
        "the qmd MCP preflight failed (the server would not start or list tools, or the "
        "cold-start search failed)",
    ),
    ErrorCode(
        "qmd_tool_drift",
        None,
        True,
        "qmd's tools (names, descriptions or input schemas) differ from the lock",
    ),
    ErrorCode(
        "qmd_tool_error",
        "product_error",
        False,
        "a qmd tool returned an error result other than not-found",
    ),
    ErrorCode(
        "qmd_unsupported_path",
        None,
        True,
        "qmd cannot address a corpus path unambiguously",
    ),
    ErrorCode(
        "qmd_update_failed",
        None,
        True,
        "a qmd indexing command failed, could not start, or timed out",
    ),
    ErrorCode(
        "qmd_version_mismatch",
        None,
        True,
        "the installed qmd package, or the identity qmd mcp reports, is not the locked version",
    ),
    ErrorCode(
        "ray_unavailable",
        None,
        True,
        "--executor ray without the 'distributed' extra installed, or with no Ray cluster at "
        "the address (RAY_ADDRESS, else one started on this machine): nothing was run",
    ),
    ErrorCode(
        "readiness_probe_failed",
        "harness_error",
        False,
        "the warm readiness probe (or the reference's cold-start search) failed, found nothing,"
        " or (gno-mcp) did not report meta.vectorsUsed",
    ),
    ErrorCode(
        "report_fingerprint_mismatch",
        None,
        True,
        "a report's stored fingerprint is not the hash of its content: edited after writing",
    ),
    ErrorCode(
        "report_incomparable",
        None,
        True,
        "the two reports were measured with different settings",
    ),
    ErrorCode(
        "report_kind_mismatch",
        None,
        True,
        "the two reports are of different kinds, or --receipts was given non-lane reports",
    ),
    ErrorCode(
        "run_key_mismatch",
        None,
        True,
        "--resume or agentic merge was given another key than the one the journal or shard "
        "was sealed with: nothing was run or written",
    ),
    ErrorCode(
        "run_key_missing",
        None,
        True,
        "--resume or agentic merge found no key of the run (its state dir key, or the given "
        "key file), or the journal was begun where no key could be kept: nothing was run",
    ),
    ErrorCode(
        "run_key_unavailable",
        None,
        True,
        "a shard's key cannot be created in the state dir (not writable): set "
        "AGENTIC_KEY_FILE or XDG_STATE_HOME; nothing was run",
    ),
    ErrorCode(
        "sandbox_unavailable",
        None,
        True,
        "AGENTIC_ISOLATION asks for bubblewrap (or names no known isolation) and a lane with a "
        "process-spawning backend cannot have it here",
    ),
    ErrorCode(
        "schema_violation",
        None,
        True,
        "a document fails its JSON schema or its contract model",
    ),
    ErrorCode(
        "shards_mismatch",
        None,
        True,
        "agentic merge was given shards that do not belong together (another run identity, "
        "environment, gate or split; a shard missing, given twice or not holding exactly its "
        "slice; another index or fixture): nothing written",
    ),
    ErrorCode(
        "source_hash_mismatch",
        "product_error",
        False,
        "a document's stored text fails its hash, or differs from the snapshot",
    ),
    ErrorCode(
        "task_scope_violation",
        "product_error",
        False,
        "a call reaches outside the task's collections",
    ),
    ErrorCode(
        "tokenizer_mismatch",
        None,
        True,
        "a local model's vocabulary size differs from its lock",
    ),
    ErrorCode(
        "tool_call_failed",
        "product_error",
        False,
        "a tool call failed: the product crashed, broke protocol, answered an error, closed or "
        "would not start, or the adapter raised",
    ),
    ErrorCode(
        "tool_result_too_large",
        "product_error",
        False,
        "the MCP product sent a message (a stdio line or an HTTP reply) over its byte cap "
        "(max_message_bytes); its process group is killed",
    ),
    ErrorCode(
        "tool_schema_mismatch",
        "harness_error",
        False,
        "an adapter does not list the frozen tools, or a product lacks a mapped tool or field",
    ),
    ErrorCode(
        "tool_timeout",
        "product_error",
        False,
        "a tool call exceeded its deadline",
    ),
    ErrorCode(
        "trec_export_invalid",
        None,
        True,
        "a value to write into a TREC run file contains whitespace",
    ),
    ErrorCode(
        "trial_seed_required",
        None,
        True,
        "the local-model agent samples with the trial's seed, and the trial has none",
    ),
    ErrorCode(
        "unexpected_harness_error",
        None,
        True,
        "a run's receipt matrix differs from its schedule (a harness bug)",
    ),
    ErrorCode(
        "unknown_collection",
        "product_error",
        False,
        "reference server: a search names a collection the index does not hold",
    ),
    ErrorCode(
        "unknown_index_document",
        "product_error",
        False,
        "a result or the index names a document that is not in the corpus",
    ),
    ErrorCode(
        "unknown_schema",
        None,
        True,
        "a schema name the kit does not bundle",
    ),
    ErrorCode(
        "unknown_task",
        None,
        True,
        "a task id that is not in the fixture",
    ),
    ErrorCode(
        "unreadable_file",
        None,
        True,
        "an input file cannot be opened or read, or is not a regular file",
    ),
    ErrorCode(
        "unsafe_baseline_write",
        None,
        True,
        "--write or --accept refused: no source checkout, not every task and both "
        "lifecycles, or not a named lane",
    ),
    ErrorCode(
        "unsafe_output_path",
        None,
        True,
        "an output path is a link, a file, or a folder holding anything but a previous report "
        "of the kit: refused, nothing written or removed (--force does not apply)",
    ),
    ErrorCode(
        "warm_cohort_corrupted",
        "harness_error",
        False,
        "a warm pair was not run: an earlier pair's timeout, crash or invalid result, or a "
        "failed reset, left the shared state unknown",
    ),
    ErrorCode(
        "warm_cohort_setup_failed",
        "harness_error",
        False,
        "the warm cohort's attach, readiness probe or agent creation failed; no warm pair ran",
    ),
    ErrorCode(
        "warm_trial_setup_failed",
        "harness_error",
        False,
        "opening the agent for one warm pair failed; that pair did not run",
    ),
    ErrorCode(
        "worker_lost",
        "harness_error",
        False,
        "a worker running a unit of pairs died (a crashed process, a lost Ray node) and "
        "--retries had no retry left: the unit's pairs never ran; each retry is in the "
        "receipts' observations",
    ),
    ErrorCode(
        "worker_mismatch",
        None,
        True,
        "a Ray worker rebuilt another run than the driver's (kit, runtime, fixture, agent, "
        "adapter config, schedule), or two workers built different indexes of one adapter: "
        "the run stops",
    ),
)


# Code -> entry, for lookups.
CODES: Mapping[str, ErrorCode] = MappingProxyType({entry.code: entry for entry in ENTRIES})
