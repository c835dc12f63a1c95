"""The learning loop: lessons improve with evidence.

captured session ──trace──▶ which lessons were recalled into it (link.py)
                 ──outcomes.py──▶ success | failure | unsure, per recalled lesson
                 ──lifecycle.py──▶ counts in local state; caution; deactivation (revivable)
                 ──summaries.py──▶ per-session tokens for `reasonlessons stats`
promote ──supersede.py──▶ a newer candidate for the same fact supersedes the stale lesson
"""

from __future__ import annotations
