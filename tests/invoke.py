"""What the `cli_invoke` fixture returns, and its type for annotations."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class CliResult:
    code: int
    stdout: str
    stderr: str

    def json(self) -> object:
        return json.loads(self.stdout)


Invoke = Callable[..., CliResult]
