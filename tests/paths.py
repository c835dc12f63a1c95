"""Where the tests find things: one place, so a test can live at any depth under tests/."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parent
REPO_ROOT = TESTS.parent
RESOURCES = TESTS / "resources"
EXAMPLE = REPO_ROOT / ".reasonix-example"
DOCS = REPO_ROOT / "docs"
PACKAGE = REPO_ROOT / "reasonlessons"
# ../shared beside the checkout; tests that read it skip cleanly when it is absent.
SHARED_FIXTURES = REPO_ROOT.parent / "shared" / "fixtures"
