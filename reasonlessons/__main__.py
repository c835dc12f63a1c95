"""`python -m reasonlessons` and the `reasonlessons` console script (the dispatch: reasonlessons/cli/)."""

from __future__ import annotations

from reasonlessons.cli import entry, main

__all__ = ["entry", "main"]

if __name__ == "__main__":
    entry()
