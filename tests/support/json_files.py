"""Hand edits of a JSON file the kit wrote, for tests of what it refuses or detects."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.support.reports import resealed


def edit_json(path: Path, edit: Callable[[Any], object], *, reseal: bool = False) -> None:
    """Apply ``edit`` to the parsed document at ``path`` and write it back; ``reseal`` gives a
    report the fingerprints of its edited content, as a careful forger would."""
    document = json.loads(path.read_bytes())
    edit(document)
    path.write_text(json.dumps(resealed(document) if reseal else document), encoding="utf-8")
