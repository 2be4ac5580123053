"""The reference server's retrieval logic (``KnowledgeBase``), in process: its product-style
tool shapes, independent of the adapter that normalizes them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from agentic.adapters.lexical_index import INDEX_FILE, LexicalIndex, build_index
from agentic.contract.json_access import number_at, objects_at
from agentic.fixture.loader import Fixture
from agentic.server.app import KnowledgeBase, ProductError, index_collections
from tests.support.mcp import DOC_B, DOC_B_LINES

DRAFT = "gno://c0b2/notes/d002.md"


@pytest.fixture
def kb(tiny_fixture: Fixture, tmp_path: Path) -> Iterator[KnowledgeBase]:
    db_path = tmp_path / INDEX_FILE
    build_index(tiny_fixture.snapshot, db_path)
    index = LexicalIndex.open(db_path)
    yield KnowledgeBase(index, index_collections(db_path))
    index.close()


def test_reads_number_their_lines_unless_told_not_to(kb: KnowledgeBase) -> None:
    numbered = kb.get(DOC_B, 5, 2, line_numbers=True)
    plain = kb.get(DOC_B, 5, 2, line_numbers=False)
    assert numbered["text"] == f"5: {DOC_B_LINES[4]}\n6: {DOC_B_LINES[5]}"
    assert plain["text"] == f"{DOC_B_LINES[4]}\n{DOC_B_LINES[5]}"
    assert (plain["startLine"], plain["endLine"]) == (5, 6)


def test_a_read_past_the_end_serves_an_empty_range(kb: KnowledgeBase) -> None:
    served = kb.get(DOC_B, 40, None, line_numbers=False)
    assert (served["startLine"], served["endLine"], served["text"]) == (40, 39, "")


def test_a_byte_cap_cuts_before_the_line_that_would_cross_it(kb: KnowledgeBase) -> None:
    cap = len(DOC_B_LINES[0].encode("utf-8")) + 1
    served = kb.multi_get([DOC_B, DRAFT], cap, line_numbers=False)
    [document] = objects_at(served, "documents")
    assert (served["requested"], served["returned"]) == (2, 1)
    assert (document["endLine"], document["truncated"]) == (2, True)  # line 2 is blank, free


def test_search_scores_are_normalized_per_collection(kb: KnowledgeBase) -> None:
    found = kb.search("launch", ["c0b2"], None)
    scores = [number_at(hit, "score") for hit in objects_at(found, "results")]
    assert found["searched"] == ["c0b2"]
    assert max(scores) == 1.0 and min(scores) == 0.0


def test_an_unknown_collection_is_a_product_error(kb: KnowledgeBase) -> None:
    with pytest.raises(ProductError) as raised:
        kb.search("launch", ["cfff"], None)
    assert raised.value.code == "unknown_collection"
