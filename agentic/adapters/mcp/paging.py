"""Paging a configured server's search (``[tools.search.paging]`` in its config), instead of a
config asking for a fixed large number of results.

Each product call of a search (one, or one per word and collection: ``query_forms.py``) asks for
its first page (``offset`` 0, or page ``first_page``) and then for the next while all hold:

- its pages hold fewer than the agent's ``limit`` distinct in-scope hits (document, line);
- the last page brought a hit no earlier page had (an empty page ends it, and so does one that
  only repeats: a server that ignores the offset);
- fewer than ``max_pages`` pages were asked (5 unless the config says, at most 20).

The next offset is the number of hits the pages so far held; the next page number, one more. A
reply that is an error, or one the config cannot read, ends the paging; the parse then reports
it as it reports any reply.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from agentic.adapters.mcp.backend_config import Paging


@dataclass(frozen=True)
class PageRead:
    """What one page held: a key per hit as the server named it (its id, line, end, text),
    and the (document, line) key of each hit in the call's scope."""

    hits: tuple[Hashable, ...]
    in_scope: tuple[Hashable, ...]


def more_pages(pages: Sequence[PageRead], limit: int, max_pages: int) -> bool:
    """Whether one call asks for another page after ``pages`` (see the module docstring)."""
    if not pages or len(pages) >= max_pages:
        return False
    if len({key for page in pages for key in page.in_scope}) >= limit:
        return False
    earlier = {key for page in pages[:-1] for key in page.hits}
    return any(key not in earlier for key in pages[-1].hits)


def next_position(paging: Paging, pages: Sequence[PageRead]) -> int:
    """What the next page sends as its offset (hits received so far) or page number."""
    if paging.offset is not None:
        return sum(len(page.hits) for page in pages)
    return paging.start + len(pages)
