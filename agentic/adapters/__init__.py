"""Retrieval backends behind the one frozen tool contract."""
