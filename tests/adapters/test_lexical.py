"""The lexical adapter (contract v1, 5.1): BM25 over SQLite FTS5 with the reference's field
weights and query grammar, min-max normalized scores, snippet evidence, scopes, accounting."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agentic.adapters.errors import AdapterCallError, AdapterError
from agentic.adapters.fts_query import compile_query
from agentic.adapters.lexical import LexicalAdapter, normalize
from agentic.adapters.lexical_index import (
    FIRST_CHUNK_BYTES,
    INDEX_FILE,
    LexicalIndex,
    index_fingerprint,
)
from agentic.contract.canonical import canonical_text, fingerprint
from agentic.contract.receipt import ToolResult
from agentic.fixture.snapshot import CorpusSnapshot
from tests.support.sessions import TIMEOUT_S, call, lexical_session, open_session
from tests.support.snapshots import filler, make_task, snapshot_from

BODY = "The plan covers the rollout of the new gateway and more words."
WEIGHTED = snapshot_from(
    {
        "c001/a.md": f"# Zephyr\n\n{BODY}\n",
        "c001/b.md": "# Gateway\n\nZephyr zephyr rollout of the new gateway and more words now.\n",
        "c001/zephyr.md": f"# Other\n\n{BODY}\n",
        "c001/d.md": "# Other\n\nThe plan covers the zephyr rollout of the new gateway and more.\n",
        **filler(8),
    }
)


def search(snapshot: CorpusSnapshot, tmp_path: Path, **arguments: Any) -> ToolResult:
    with lexical_session(snapshot, tmp_path / "root") as session:
        return call(session, "search", **arguments).result


def hits(result: ToolResult) -> list[dict[str, Any]]:
    payload = json.loads(result.content)
    scopes = payload.get("scopes", [payload])
    return [hit for scope in scopes for hit in scope["results"]]


def hit_uris(result: ToolResult) -> list[str]:
    return [hit["uri"] for hit in hits(result)]


def search_error(snapshot: CorpusSnapshot, tmp_path: Path, query: str) -> AdapterCallError:
    with (
        lexical_session(snapshot, tmp_path / "root") as session,
        pytest.raises(AdapterCallError) as raised,
    ):
        call(session, "search", query=query)
    return raised.value


# --- ranking --------------------------------------------------------------------------------------


def test_ranking_weighs_title_over_filepath_over_body(tmp_path: Path) -> None:
    # Title match (4.0) beats two body matches, which beat a filepath match (1.5), which beats
    # one body match (1.0); equal weights would put b.md first and d.md above zephyr.md.
    result = search(WEIGHTED, tmp_path, query="zephyr")

    assert hit_uris(result) == [
        "gno://c001/a.md",
        "gno://c001/b.md",
        "gno://c001/zephyr.md",
        "gno://c001/d.md",
    ]


def test_raw_scores_are_fts5_bm25_with_the_contract_weights(tmp_path: Path) -> None:
    prepared = LexicalAdapter(WEIGHTED).prepare(WEIGHTED, tmp_path / "root", timeout_s=TIMEOUT_S)
    db_path = prepared.root / INDEX_FILE
    index = LexicalIndex.open(db_path)
    try:
        found = {hit.uri: hit.score for hit in index.search("zephyr", "c001", 20)}
    finally:
        index.close()
    with sqlite3.connect(db_path) as db:
        rows = db.execute(
            "SELECT d.uri, bm25(documents_fts, 1.5, 4.0, 1.0) FROM documents_fts "
            "JOIN documents AS d ON d.id = documents_fts.rowid "
            "WHERE documents_fts MATCH '\"zephyr\"*'"
        ).fetchall()

    assert found == dict(rows)


# Collections whose ids share a prefix: their URIs still sort into one run each.
MIXED = snapshot_from(
    {
        "c01/a.md": "# Valve\n\nThe quartz valve opens.\n",
        "c01a/b.md": "# Quartz\n\nA quartz valve and a quartz gate.\n",
        "c01/z.md": "# Gate\n\nThe gate is quartz.\n",
        "c02/c.md": "# Valve\n\nQuartz everywhere: quartz, quartz.\n",
        "c01a/y.md": "# Other\n\nNothing of note.\n",
        **filler(6),
    }
)
WHOLE_INDEX_SQL = (
    "SELECT d.uri, d.collection, d.relPath, d.title, bm25(documents_fts, 1.5, 4.0, 1.0) AS s "
    "FROM documents_fts JOIN documents AS d ON d.id = documents_fts.rowid "
    "WHERE documents_fts MATCH ? AND d.collection = ? ORDER BY s, d.uri"
)


@pytest.mark.parametrize("collection", ["c01", "c01a", "c02"])
@pytest.mark.parametrize("query", ["quartz", "valve gate", "nothing"])
def test_a_search_ranks_a_collection_as_the_whole_index_filtered_by_it(
    tmp_path: Path, collection: str, query: str
) -> None:
    prepared = LexicalAdapter(MIXED).prepare(MIXED, tmp_path / "root", timeout_s=TIMEOUT_S)
    index = LexicalIndex.open(prepared.root / INDEX_FILE)
    try:
        found = [
            (h.uri, h.collection, h.rel_path, h.title, h.score)
            for h in index.search(query, collection, 20)
        ]
    finally:
        index.close()
    with sqlite3.connect(prepared.root / INDEX_FILE) as db:
        expected = db.execute(WHOLE_INDEX_SQL, (compile_query(query), collection)).fetchall()

    assert found == expected


def test_a_collection_with_no_documents_has_no_hits(tmp_path: Path) -> None:
    prepared = LexicalAdapter(MIXED).prepare(MIXED, tmp_path / "root", timeout_s=TIMEOUT_S)
    index = LexicalIndex.open(prepared.root / INDEX_FILE)
    try:
        assert index.search("quartz", "c09", 20) == []
    finally:
        index.close()


def test_documents_with_equal_scores_are_ordered_by_uri(tmp_path: Path) -> None:
    text = "# Note\n\nThe quartz valve is closed.\n"
    snapshot = snapshot_from({"c001/z.md": text, "c001/m.md": text, "c001/a.md": text, **filler(4)})

    result = search(snapshot, tmp_path, query="quartz")

    assert hit_uris(result) == ["gno://c001/a.md", "gno://c001/m.md", "gno://c001/z.md"]
    assert [hit["score"] for hit in hits(result)] == [1, 1, 1]


def test_a_shorter_document_outranks_a_longer_one_with_the_same_matches(tmp_path: Path) -> None:
    snapshot = snapshot_from(
        {
            "c001/long.md": "# Note\n\nThe quartz valve is closed. " + "More text. " * 30 + "\n",
            "c001/short.md": "# Note\n\nThe quartz valve is closed.\n",
            **filler(4),
        }
    )

    assert hit_uris(search(snapshot, tmp_path, query="quartz")) == [
        "gno://c001/short.md",
        "gno://c001/long.md",
    ]


def test_limit_caps_the_hits_of_each_scope(tmp_path: Path) -> None:
    assert hit_uris(search(WEIGHTED, tmp_path, query="zephyr", limit=2)) == [
        "gno://c001/a.md",
        "gno://c001/b.md",
    ]


@pytest.mark.parametrize("limit", [2**63, 1e19])
def test_a_limit_beyond_sqlites_integer_range_means_no_limit(tmp_path: Path, limit: float) -> None:
    assert len(hits(search(WEIGHTED, tmp_path, query="zephyr", limit=limit))) == 4


# --- normalization --------------------------------------------------------------------------------


def test_normalization_maps_best_to_1_and_worst_to_0() -> None:
    assert normalize([-4.0, -3.0, -2.0]) == [1.0, 0.5, 0.0]


def test_normalization_of_equal_or_single_scores_is_1() -> None:
    assert normalize([-2.5, -2.5]) == [1.0, 1.0]
    assert normalize([-0.1]) == [1.0]
    assert normalize([]) == []


@given(st.lists(st.floats(min_value=-50, max_value=0), min_size=2, max_size=12))
def test_normalized_scores_keep_the_order_within_0_and_1(raw: list[float]) -> None:
    scores = normalize(raw)

    assert all(0.0 <= score <= 1.0 for score in scores)
    for raw_a, norm_a in zip(raw, scores, strict=True):
        for raw_b, norm_b in zip(raw, scores, strict=True):
            if raw_a < raw_b:  # lower bm25 is better
                assert norm_a >= norm_b
    if min(raw) != max(raw):
        assert scores[raw.index(min(raw))] == 1.0
        assert scores[raw.index(max(raw))] == 0.0


def test_search_reports_min_max_normalized_scores_best_first(tmp_path: Path) -> None:
    scores = [hit["score"] for hit in hits(search(WEIGHTED, tmp_path, query="zephyr"))]

    assert scores[0] == 1 and scores[-1] == 0
    assert scores == sorted(scores, reverse=True)


def test_min_score_filters_hits_and_their_evidence_after_normalization(tmp_path: Path) -> None:
    everything = search(WEIGHTED, tmp_path / "all", query="zephyr")
    kept = [hit for hit in hits(everything) if hit["score"] >= 0.5]
    assert 0 < len(kept) < len(hits(everything))

    result = search(WEIGHTED, tmp_path / "some", query="zephyr", minScore=0.5)

    assert hits(result) == kept
    assert {e.uri for e in result.evidence} == {hit["uri"] for hit in kept}


# --- result shape ---------------------------------------------------------------------------------


def test_a_scoped_search_returns_one_bm25_payload_as_canonical_json(tmp_path: Path) -> None:
    snapshot = snapshot_from({"c001/a.md": "# A\n\nQuartz.\n", "c002/b.md": "# B\n\nQuartz.\n"})
    with lexical_session(snapshot, tmp_path / "root") as session:
        outcome = call(session, "search", query="quartz", collection="c002")

    assert outcome.result.resultRole == "candidates"
    assert outcome.result.content == canonical_text(
        {
            "mode": "bm25",
            "query": "quartz",
            "results": [{"uri": "gno://c002/b.md", "score": 1, "startLine": 1, "endLine": 3}],
        }
    )
    assert outcome.backend_invocations == 1


def test_an_unscoped_search_covers_each_task_collection_in_task_order(tmp_path: Path) -> None:
    snapshot = snapshot_from({"c001/a.md": "# A\n\nQuartz.\n", "c002/b.md": "# B\n\nQuartz.\n"})
    task = make_task(["c002", "c001"])
    with lexical_session(snapshot, tmp_path / "root", task) as session:
        outcome = call(session, "search", query="quartz")

    payload = json.loads(outcome.result.content)
    assert [scope["results"][0]["uri"] for scope in payload["scopes"]] == [
        "gno://c002/b.md",
        "gno://c001/a.md",
    ]
    assert [e.uri for e in outcome.result.evidence] == ["gno://c002/b.md"] * 2 + [
        "gno://c001/a.md"
    ] * 2
    assert outcome.backend_invocations == 2


def test_evidence_is_every_non_blank_line_of_each_hit_as_single_lines(tmp_path: Path) -> None:
    snapshot = snapshot_from({"c001/a.md": "# A\n\nQuartz one.\n   \nQuartz two.\n"})

    result = search(snapshot, tmp_path, query="quartz")

    assert [(e.startLine, e.endLine, e.text) for e in result.evidence] == [
        (1, 1, "# A"),
        (3, 3, "Quartz one."),
        (5, 5, "Quartz two."),
    ]
    assert {e.backendHashUnavailableReason for e in result.evidence} == {
        "lexical results do not provide complete source/span hash pairs"
    }
    assert all(e.backendSourceHash is None and e.backendSpanHash is None for e in result.evidence)


def test_a_long_document_yields_only_its_first_chunk(tmp_path: Path) -> None:
    lines = ["# Quartz handbook", ""] + [f"Paragraph {n} " + "x" * 90 for n in range(40)]
    snapshot = snapshot_from({"c001/long.md": "\n".join(lines) + "\n"})

    result = search(snapshot, tmp_path, query="quartz")

    # The first chunk is the longest prefix within 1500 bytes, counting one LF per line.
    sizes = [len(line.encode()) + 1 for line in lines]
    end = max(n for n in range(1, len(lines) + 1) if sum(sizes[:n]) <= FIRST_CHUNK_BYTES)
    assert hits(result)[0]["endLine"] == end < len(lines)
    assert result.evidence[-1].endLine == end


def test_a_query_that_matches_nothing_is_an_ok_empty_result(tmp_path: Path) -> None:
    result = search(WEIGHTED, tmp_path, query="nonexistentterm")

    assert (result.status, hits(result), result.evidence) == ("ok", [], ())


def test_unsupported_search_options_are_accepted_and_ignored(tmp_path: Path) -> None:
    plain = search(WEIGHTED, tmp_path / "a", query="zephyr")
    decorated = search(
        WEIGHTED,
        tmp_path / "b",
        query="zephyr",
        rerank=True,
        filters={"lang": "en"},
        lang="de",
        tagsAll=["x"],
    )

    assert decorated == plain


def test_reads_cost_two_backend_invocations_per_uri(tmp_path: Path) -> None:
    with lexical_session(WEIGHTED, tmp_path / "root") as session:
        one = call(session, "get", uri="gno://c001/a.md")
        three = call(
            session, "multi_get", uris=["gno://c001/a.md", "gno://c001/b.md", "gno://c001/d.md"]
        )

    assert (one.backend_invocations, three.backend_invocations) == (2, 6)


# --- query grammar --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "expression"),
    [
        ("Retention", '"retention"*'),
        ("retention period", '"retention"* AND "period"*'),
        ('"retention period"', '"retention period"'),
        ("wi-fi", '"wi fi"'),
        ("c++", '"c"*'),
        ("a+b-c", '"a b c"'),
        ("-draft retention", '"retention"* NOT "draft"*'),
        ('retention -"old policy"', '"retention"* NOT "old policy"'),
        ("foo:bar (baz)", '"foobar"* AND "baz"*'),
        ("Ünïcode 日本語", '"ünïcode"* AND "日本語"*'),
        ("o'neil snake_case", '"o\'neil"* AND "snake_case"*'),
        ("_ ' retention", '"retention"*'),
        ('x "" y', '"x"* AND "y"*'),
        ("NEAR(a b) OR c", '"neara"* AND "b"* AND "or"* AND "c"*'),
    ],
)
def test_agent_queries_compile_to_the_reference_grammar(query: str, expression: str) -> None:
    assert compile_query(query) == expression


@pytest.mark.parametrize(
    "query",
    ["", "   ", "two\nlines", "carriage\rreturn", 'odd "quote', "-draft", '-"old"', "*", "- -"],
)
def test_invalid_queries_are_rejected(query: str) -> None:
    with pytest.raises(AdapterCallError) as raised:
        compile_query(query)

    assert (raised.value.code, raised.value.failure_class) == (
        "invalid_search_query",
        "product_error",
    )


def test_an_invalid_query_fails_the_search_call(tmp_path: Path) -> None:
    assert search_error(WEIGHTED, tmp_path, '"unbalanced').code == "invalid_search_query"


def test_a_plain_term_matches_by_prefix(tmp_path: Path) -> None:
    assert "gno://c001/a.md" in hit_uris(search(WEIGHTED, tmp_path, query="zeph"))


def test_a_phrase_needs_adjacent_words(tmp_path: Path) -> None:
    snapshot = snapshot_from(
        {"c001/a.md": "# A\n\nquartz valve\n", "c001/b.md": "# B\n\nvalve of quartz\n", **filler(3)}
    )

    assert hit_uris(search(snapshot, tmp_path / "p", query='"quartz valve"')) == ["gno://c001/a.md"]
    assert set(hit_uris(search(snapshot, tmp_path / "t", query="quartz valve"))) == {
        "gno://c001/a.md",
        "gno://c001/b.md",
    }


def test_a_negated_term_excludes_documents(tmp_path: Path) -> None:
    assert hit_uris(search(WEIGHTED, tmp_path, query="zephyr -plan")) == ["gno://c001/b.md"]


def test_terms_are_stemmed(tmp_path: Path) -> None:
    snapshot = snapshot_from({"c001/a.md": "# A\n\nTwo rotating valves.\n", **filler(3)})

    assert hit_uris(search(snapshot, tmp_path, query='"rotated valve"')) == ["gno://c001/a.md"]


# --- index integrity ------------------------------------------------------------------------------


def test_the_index_fingerprint_is_the_contract_projection_of_the_corpus() -> None:
    documents = [
        {"uri": f.uri, "sourceHash": f.source_hash, "mirrorHash": f.source_hash, "active": True}
        for f in WEIGHTED.files
    ]
    documents.sort(key=lambda d: str(d["uri"]).encode("utf-16-be"))

    assert index_fingerprint(WEIGHTED) == fingerprint(
        {"tokenizer": "porter unicode61", "documents": documents}
    )


def test_stored_text_that_fails_its_hash_is_never_served(tmp_path: Path) -> None:
    adapter = LexicalAdapter(WEIGHTED)
    prepared = adapter.prepare(WEIGHTED, tmp_path / "root", timeout_s=TIMEOUT_S)
    with sqlite3.connect(prepared.root / INDEX_FILE) as db:
        db.execute(
            "UPDATE documents SET source = ? WHERE uri = ?", (b"tampered", "gno://c001/a.md")
        )
    session = adapter.attach(prepared, timeout_s=TIMEOUT_S)
    try:
        session.reset(make_task(["c001"]), readiness_probe=False, timeout_s=TIMEOUT_S)
        with pytest.raises(AdapterCallError) as raised:
            call(session, "get", uri="gno://c001/a.md")
    finally:
        session.close()

    assert (raised.value.code, raised.value.failure_class) == (
        "source_hash_mismatch",
        "product_error",
    )


def test_attach_refuses_an_index_whose_fingerprint_changed(tmp_path: Path) -> None:
    adapter = LexicalAdapter(WEIGHTED)
    prepared = adapter.prepare(WEIGHTED, tmp_path / "root", timeout_s=TIMEOUT_S)
    with sqlite3.connect(prepared.root / INDEX_FILE) as db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'indexFingerprint'", ("0" * 64,))

    with pytest.raises(AdapterError) as raised:
        adapter.attach(prepared, timeout_s=TIMEOUT_S)

    assert raised.value.code == "index_fingerprint_changed"


def test_preparation_refuses_to_overwrite_an_existing_index(tmp_path: Path) -> None:
    adapter = LexicalAdapter(WEIGHTED)
    adapter.prepare(WEIGHTED, tmp_path / "root", timeout_s=TIMEOUT_S)

    with pytest.raises(FileExistsError):
        adapter.prepare(WEIGHTED, tmp_path / "root", timeout_s=TIMEOUT_S)


def test_the_first_reset_after_attach_reports_startup_and_later_ones_do_not(
    tmp_path: Path,
) -> None:
    adapter = LexicalAdapter(WEIGHTED)
    with open_session(adapter, WEIGHTED, tmp_path / "root", make_task(["c001"])) as session:
        later = session.reset(make_task(["c001"]), readiness_probe=True, timeout_s=TIMEOUT_S)

    assert later.startup_ms is None and later.model_load_ms is None
    prepared = adapter.prepare(WEIGHTED, tmp_path / "again", timeout_s=TIMEOUT_S)
    fresh = adapter.attach(prepared, timeout_s=TIMEOUT_S)
    try:
        first = fresh.reset(make_task(["c001"]), readiness_probe=False, timeout_s=TIMEOUT_S)
    finally:
        fresh.close()
    assert first.startup_ms is not None and first.startup_ms >= 0
