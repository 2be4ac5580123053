"""Child process for the two-writer tests: a writer held in the middle of staging.

``held_writer.py TARGET TAG`` starts ``write_artifacts(TARGET, ...)``; once the first file is
staged it prints ``staging`` and waits for one line on stdin, then finishes the write and exits 0.
A refused or failed write is one ``agentic: <code>: <message>`` line on stderr and exit 2.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator, Mapping
from pathlib import Path

from agentic.contract.errors import EXIT_ERROR, ContractError
from agentic.output.staging import ARTIFACT_NAMES, write_artifacts


class HeldFiles(Mapping[str, bytes]):
    """The four artifacts of ``tag``; asking for the second one pauses until stdin says go."""

    def __init__(self, tag: str) -> None:
        self.tag = tag

    def __getitem__(self, name: str) -> bytes:
        if name not in ARTIFACT_NAMES:
            raise KeyError(name)
        if name == ARTIFACT_NAMES[1]:
            print("staging", flush=True)
            sys.stdin.readline()
        return f"{self.tag} {name}\n".encode()

    def __iter__(self) -> Iterator[str]:
        return iter(ARTIFACT_NAMES)

    def __len__(self) -> int:
        return len(ARTIFACT_NAMES)


def main() -> int:
    try:
        write_artifacts(Path(sys.argv[1]), HeldFiles(sys.argv[2]))
    except ContractError as exc:
        print(f"agentic: {exc}", file=sys.stderr)
        return EXIT_ERROR
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
