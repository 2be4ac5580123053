"""Ranking tier: retrieval alone, scored against goldens (recall, hit rate, MRR, nDCG, P)."""
