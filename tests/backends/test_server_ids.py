"""A server's document ids mapped both ways to the snapshot's URIs: exact after the form's own
normalisation, and an id two files would share names neither."""

from __future__ import annotations

from agentic.adapters.mcp.backend_config import IdMapping
from agentic.adapters.mcp.server_ids import document_ids, slug
from tests.support.snapshots import snapshot_from

SNAPSHOT = snapshot_from({
    "notes/area/Page Title.md": "# Page Title\n\nbody\n",
    "notes/area/other.md": "---\ntitle: \"The Other\"\n---\n# Heading\n",
    "notes/untitled.md": "no heading here\n",
})  # fmt: skip


def test_a_path_id_is_the_collection_and_relative_path() -> None:
    ids = document_ids(IdMapping(form="path"), SNAPSHOT)
    found = ids.file("notes/area/other.md", "")
    assert found is not None and found.uri == "gno://notes/area/other.md"
    assert ids.server_id("gno://notes/area/other.md", "") == "notes/area/other.md"


def test_a_prefix_is_added_and_stripped() -> None:
    ids = document_ids(IdMapping(form="path", prefix="{corpus}/"), SNAPSHOT)
    assert (
        ids.server_id("gno://notes/untitled.md", "/srv/corpus/") == "/srv/corpus/notes/untitled.md"
    )
    found = ids.file("/srv/corpus/notes/untitled.md", "/srv/corpus/")
    assert found is not None and found.rel_path == "untitled.md"


def test_an_id_without_the_prefix_names_nothing() -> None:
    ids = document_ids(IdMapping(form="path"), SNAPSHOT)
    assert ids.file("notes/untitled.md", "main/") is None


def test_a_path_without_its_extension_maps_back() -> None:
    ids = document_ids(IdMapping(form="path", drop_extension=True), SNAPSHOT)
    found = ids.file("notes/area/other", "")
    assert found is not None and found.uri == "gno://notes/area/other.md"
    assert ids.server_id("gno://notes/area/other.md", "") == "notes/area/other"


def test_a_permalink_is_the_slug_of_the_path_without_extension() -> None:
    ids = document_ids(IdMapping(form="permalink"), SNAPSHOT)
    assert ids.server_id("gno://notes/area/Page Title.md", "") == "notes/area/page-title"
    found = ids.file("notes/area/Page-Title", "")
    assert found is not None and found.rel_path == "area/Page Title.md"


def test_a_title_comes_from_front_matter_before_the_first_heading() -> None:
    ids = document_ids(IdMapping(form="title"), SNAPSHOT)
    assert ids.server_id("gno://notes/area/other.md", "") == "The Other"
    assert ids.server_id("gno://notes/area/Page Title.md", "") == "Page Title"


def test_a_document_without_a_title_has_no_title_id() -> None:
    ids = document_ids(IdMapping(form="title"), SNAPSHOT)
    assert ids.server_id("gno://notes/untitled.md", "") is None


def test_an_id_two_documents_share_names_neither() -> None:
    twins = snapshot_from({"a/x.md": "# Same\n", "a/y.md": "# Same\n"})
    ids = document_ids(IdMapping(form="title"), twins)
    assert ids.file("Same", "") is None
    assert ids.server_id("gno://a/x.md", "") is None


def test_an_unknown_id_names_nothing() -> None:
    assert document_ids(IdMapping(form="path"), SNAPSHOT).file("notes/missing.md", "") is None


def test_slug_keeps_path_separators_and_joins_other_runs_with_one_dash() -> None:
    assert slug("Area One/Page  Title (v2)") == "area-one/page-title-v2"
