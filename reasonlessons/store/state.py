"""Versioned JSON documents in the local state directory; a damaged one is rebuilt, never fatal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from reasonlessons import safety, support
from reasonlessons.constants import STATE_SCHEMA_VERSION
from reasonlessons.support.atomic import write_atomic


def load_state(path: Path, *, kind: str, version: int = STATE_SCHEMA_VERSION) -> dict[str, Any]:
    """Read a state document of `kind` and `version`; missing, corrupt or foreign ones read as empty."""
    try:
        raw = path.read_bytes()
    except OSError:
        return {}
    # orjson and redaction load on first use: recall imports this module (store/outcomes.py).
    try:
        doc = support.jsonio.loads(raw)
    except support.jsonio.JSONDecodeError:
        return {}
    if (
        not isinstance(doc, dict)
        or doc.get("kind") != kind
        or doc.get("version") != version
        or not isinstance(doc.get("data"), dict)
    ):
        return {}
    data: dict[str, Any] = doc["data"]
    return data


def save_state(path: Path, data: dict[str, Any], *, kind: str, version: int = STATE_SCHEMA_VERSION) -> None:
    """Write a state document atomically with its kind and schema version, secrets redacted.

    The one writer of JSON state, so the one place its redaction is enforced: every string and
    every mapping key, including the shapes a secret keeps once lower-cased or cut into words
    (a summary's prompt terms, a path's parts); fail closed (SecretFoundError, nothing written)."""
    doc = {"kind": kind, "version": version, "data": data}
    # _dump: indented JSON, one item per line.
    _, text = safety.redact.scrub(doc, _dump, line_bound=True, derived=True)
    write_atomic(path, text.encode("utf-8"))


def _dump(doc: dict[str, Any]) -> str:
    return support.jsonio.dumps(doc, sort_keys=True, indent=True).decode("utf-8")
