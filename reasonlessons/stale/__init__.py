"""The `stale` use case: which lessons drifted, answered from caches when nothing changed."""
