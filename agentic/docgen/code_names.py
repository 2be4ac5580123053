"""``agentic/contract/code_names.py``: the name of every code of the code table as one ``Literal``
type, written from the table (``contract/codes.py``), so that adding a code is adding its entry.

mypy checks a code where it is written against a ``Literal`` only, and cannot build one from the
table's entries: so the type is written out, one name per line in the table's order, and
rewritten by ``python -m agentic.docgen`` like the generated pages (a test fails while it is
stale). Only the names between ``ErrorCodeName = Literal[`` and its closing ``]`` are written;
the rest of the module is its own text, kept as it stands.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentic.contract.codes import ENTRIES, ErrorCode

PAGE = "agentic/contract/code_names.py"

_OPEN = "ErrorCodeName = Literal[\n"
_CLOSE = "]\n"


def render_code_names(module: str, entries: Sequence[ErrorCode] = ENTRIES) -> str:
    """The module's text ``module`` with its ``ErrorCodeName`` names written from ``entries``."""
    head, opened, rest = module.partition(_OPEN)
    _old_names, closed, tail = rest.partition(_CLOSE)
    if not opened or not closed:
        raise ValueError(f"{PAGE} has no {_OPEN.strip()!r} ... {_CLOSE.strip()!r} block")
    names = "".join(f'    "{entry.code}",\n' for entry in entries)
    return head + _OPEN + names + _CLOSE + tail
