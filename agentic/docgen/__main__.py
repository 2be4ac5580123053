"""``python -m agentic.docgen [--check]``: rewrite the generated pages of the checkout.
The one generated module, ``contract/code_names.py``, is rewritten as a page is. With ``--check``
it writes nothing: it names each stale page and exits 1.

Only a source checkout has these pages (``baselines/`` and ``docs/`` are not in the wheel).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agentic.contract.errors import EXIT_ERROR, EXIT_GATE_FAILED, EXIT_OK
from agentic.contract.files import replace_atomically
from agentic.resources import repo_root


@dataclass(frozen=True)
class Page:
    """A generated page: its path in the checkout and how to render it from the checkout."""

    path: str
    render: Callable[[Path], str]


def _reference(root: Path) -> str:
    from agentic.docgen.reference import render_reference

    return render_reference()


def _modules(root: Path) -> str:
    from agentic.docgen.modules import render_modules

    return render_modules(root)


def _code_names(root: Path) -> str:
    from agentic.docgen.code_names import PAGE, render_code_names

    return render_code_names((root / PAGE).read_text(encoding="utf-8"))


def _baselines(root: Path) -> str:
    from agentic.docgen.baselines import render_baselines

    return render_baselines(root / "baselines")


PAGES: tuple[Page, ...] = (
    Page("docs/reference.md", _reference),
    Page("docs/modules.md", _modules),
    Page("baselines/README.md", _baselines),
    Page("agentic/contract/code_names.py", _code_names),
)


def stale_pages(root: Path) -> list[tuple[Page, str]]:
    """Each page whose file differs from its rendering, with that rendering."""
    stale = []
    for page in PAGES:
        text = page.render(root)
        target = root / page.path
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            stale.append((page, text))
    return stale


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m agentic.docgen", description=__doc__)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if stale")
    args = parser.parse_args(argv)
    root = repo_root()
    if root is None:
        print("agentic.docgen: the generated pages live in a source checkout", file=sys.stderr)
        return EXIT_ERROR
    stale = stale_pages(root)
    for page, text in stale:
        if args.check:
            print(f"stale: {page.path}")
        else:
            replace_atomically(root / page.path, text.encode("utf-8"))
            print(f"wrote {page.path}")
    return EXIT_GATE_FAILED if args.check and stale else EXIT_OK


if __name__ == "__main__":
    raise SystemExit(main())
