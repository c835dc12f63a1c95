"""Reduce: one session's events to observations."""
