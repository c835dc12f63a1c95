"""`python -m reasonlessons` and the `reasonlessons` console script."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Run the command line and return its exit code."""
    from reasonlessons.cli import run

    return run(argv)


def entry() -> None:
    """Console-script entry point."""
    sys.exit(main())


if __name__ == "__main__":
    sys.exit(main())
