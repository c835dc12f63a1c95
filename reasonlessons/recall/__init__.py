"""Recall: pick the fresh, relevant lessons for an agent turn and render them as background data.

Kept import-light on purpose: `reasonlessons recall` runs before every agent turn.
"""

from __future__ import annotations
