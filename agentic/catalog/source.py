"""How a run's catalog was built, as data: a worker on another machine (``--executor ray``)
rebuilds the same catalog from it. The paths must be the same on every worker (a shared
filesystem, or the same image); the run identity each worker checks catches any difference."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agentic.catalog.agent_openers import openai_agent_entry
from agentic.catalog.entries import LaneEntry
from agentic.catalog.load import load_catalog
from agentic.catalog.table import Catalog
from agentic.resources import repo_root

if TYPE_CHECKING:
    from agentic.agents.llm_cache import CacheMode


@dataclass(frozen=True)
class CatalogSource:
    backends: tuple[Path, ...] = ()  # --backend files
    agent_config: Path | None = None  # --agent-config: an openai-chat agent
    llm_cache: Path | None = None
    llm_cache_mode: CacheMode = "off"

    def absolute(self) -> CatalogSource:
        """The same source with every path absolute, for a worker with another cwd."""
        cache = self.llm_cache.absolute() if self.llm_cache is not None else None
        config = self.agent_config.absolute() if self.agent_config is not None else None
        return CatalogSource(
            tuple(p.absolute() for p in self.backends), config, cache, self.llm_cache_mode
        )

    @classmethod
    def for_lane(
        cls, lane: LaneEntry, mode: CacheMode | None = None, backends: tuple[Path, ...] = ()
    ) -> CatalogSource:
        """What a named lane's run loads: an endpoint lane's agent from its committed config
        and cache (reused unless ``mode`` says record), else the catalog alone."""
        root = repo_root()
        if lane.agent_config is None or lane.llm_cache is None or root is None:
            return cls(backends)
        return cls(backends, root / lane.agent_config, root / lane.llm_cache, mode or "reuse")

    def load(self) -> tuple[Catalog, str | None]:
        """The catalog, and the kind of the configured agent (None without one)."""
        catalog = load_catalog(self.backends)
        if self.agent_config is None:
            return catalog, None
        entry = openai_agent_entry(self.agent_config, self.llm_cache, self.llm_cache_mode)
        return catalog.configure_agent(entry), entry.kind
