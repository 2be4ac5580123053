"""Deterministic scoring: claim normalizers, per-receipt task scores, the promotion gate.

Imports ``contract/`` and the agent-visible projection of ``agentic.tools`` (for the per-call
byte charge); never adapters, agents or the runner."""
