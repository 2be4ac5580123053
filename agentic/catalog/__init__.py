"""The catalog: every adapter, agent and named lane a run can use, and where each comes from."""
