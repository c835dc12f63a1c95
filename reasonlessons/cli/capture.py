"""`reasonlessons capture`: read agent session logs and propose candidate lessons."""

from __future__ import annotations

from reasonlessons.cli.app import app
from reasonlessons.cli.fast.capture import OPTIONS, run
from reasonlessons.cli.tables import add_command

add_command(app, "capture", OPTIONS, run)
