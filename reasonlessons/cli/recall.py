"""`recall` in the Typer app (for `--help` and docs); the per-turn path is cli/fast/recall.py."""

from __future__ import annotations

from reasonlessons.cli.app import app
from reasonlessons.cli.fast.recall import OPTIONS, run
from reasonlessons.cli.tables import add_command

add_command(app, "recall", OPTIONS, run)
