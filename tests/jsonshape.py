"""A small JSON-Schema subset validator for the documented shapes in tests/resources/integrations/.

Supports type, const, enum, properties, required, additionalProperties (false or a schema), items,
minItems, minLength, maxLength, minimum and oneOf: enough for Claude Code's hook output and settings.
"""

from __future__ import annotations

import json
from typing import Any

from tests.paths import RESOURCES

RESOURCES = RESOURCES / "integrations"
_TYPES: dict[str, tuple[type, ...]] = {
    "object": (dict,),
    "array": (list,),
    "string": (str,),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
}


def load_schema(name: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((RESOURCES / name).read_text())
    return schema


def problems(value: Any, schema: dict[str, Any], where: str = "$") -> list[str]:
    """Every way `value` breaks `schema` (empty when it conforms)."""
    out: list[str] = []
    kind = schema.get("type")
    if kind is not None:
        ok = isinstance(value, _TYPES[kind]) and not (
            kind in ("integer", "number") and isinstance(value, bool)
        )
        if not ok:
            return [f"{where}: expected {kind}, got {type(value).__name__}"]
    if "const" in schema and value != schema["const"]:
        out.append(f"{where}: expected {schema['const']!r}, got {value!r}")
    if "enum" in schema and value not in schema["enum"]:
        out.append(f"{where}: {value!r} not one of {schema['enum']}")
    if isinstance(value, str):
        if len(value) > schema.get("maxLength", len(value)):
            out.append(f"{where}: {len(value)} characters, over {schema['maxLength']}")
        if len(value) < schema.get("minLength", 0):
            out.append(f"{where}: shorter than {schema['minLength']}")
    if isinstance(value, int) and not isinstance(value, bool) and value < schema.get("minimum", value):
        out.append(f"{where}: {value} below {schema['minimum']}")
    if isinstance(value, dict):
        out += _object(value, schema, where)
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            out.append(f"{where}: fewer than {schema['minItems']} items")
        if "items" in schema:
            for i, item in enumerate(value):
                out += problems(item, schema["items"], f"{where}[{i}]")
    if "oneOf" in schema:
        matching = [s for s in schema["oneOf"] if not problems(value, s, where)]
        if len(matching) != 1:
            out.append(f"{where}: matches {len(matching)} of the oneOf alternatives, not exactly 1")
    return out


def _object(value: dict[str, Any], schema: dict[str, Any], where: str) -> list[str]:
    out = [f"{where}: missing {key!r}" for key in schema.get("required", []) if key not in value]
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        if key in properties:
            out += problems(item, properties[key], f"{where}.{key}")
        elif extra is False:
            out.append(f"{where}: unexpected key {key!r}")
        elif isinstance(extra, dict):
            out += problems(item, extra, f"{where}.{key}")
    return out
