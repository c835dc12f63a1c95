"""A small JSON-Schema subset validator for the documented shapes: Claude Code's hook output and
settings (tests/resources/integrations/) and every command's `--json` document (docs/schema/).

Supports type (one or a list, `null` included), const, enum, properties, required,
additionalProperties (false or a schema), items, minItems, minLength, maxLength, minimum, oneOf and
`$ref` to `#/$defs/...` of the same document or `other.json#/$defs/...` beside it.
"""

from __future__ import annotations

import json
from typing import Any

from tests.paths import DOCS, RESOURCES

RESOURCES = RESOURCES / "integrations"
SCHEMAS = DOCS / "schema"
_TYPES: dict[str, tuple[type, ...]] = {
    "null": (type(None),),
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


def command_schema(command: str) -> dict[str, Any]:
    """The documented schema of `reasonlessons COMMAND --json` (docs/schema/COMMAND.json)."""
    schema: dict[str, Any] = json.loads((SCHEMAS / f"{command}.json").read_text())
    return schema


def command_problems(command: str, value: Any) -> list[str]:
    schema = command_schema(command)
    return problems(value, schema, root=schema)


def _resolve(ref: str, root: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(schema, its document) of a `$ref`."""
    doc_name, _, pointer = ref.partition("#")
    doc = json.loads((SCHEMAS / doc_name).read_text()) if doc_name else root
    target: Any = doc
    for part in pointer.strip("/").split("/") if pointer else []:
        target = target[int(part)] if isinstance(target, list) else target[part]
    return target, doc


def _is(value: Any, kind: str) -> bool:
    return isinstance(value, _TYPES[kind]) and not (kind in ("integer", "number") and isinstance(value, bool))


def problems(
    value: Any, schema: dict[str, Any], where: str = "$", *, root: dict[str, Any] | None = None
) -> list[str]:
    """Every way `value` breaks `schema` (empty when it conforms); `root` is the document `$ref`s
    without a file name point into."""
    root = schema if root is None else root
    if "$ref" in schema:
        target, doc = _resolve(schema["$ref"], root)
        return problems(value, target, where, root=doc)
    out: list[str] = []
    kind = schema.get("type")
    if kind is not None:
        kinds = kind if isinstance(kind, list) else [kind]
        if not any(_is(value, k) for k in kinds):
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
        out += _object(value, schema, where, root)
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            out.append(f"{where}: fewer than {schema['minItems']} items")
        if "items" in schema:
            for i, item in enumerate(value):
                out += problems(item, schema["items"], f"{where}[{i}]", root=root)
    if "oneOf" in schema:
        matching = [s for s in schema["oneOf"] if not problems(value, s, where, root=root)]
        if len(matching) != 1:
            out.append(f"{where}: matches {len(matching)} of the oneOf alternatives, not exactly 1")
    return out


def _object(value: dict[str, Any], schema: dict[str, Any], where: str, root: dict[str, Any]) -> list[str]:
    out = [f"{where}: missing {key!r}" for key in schema.get("required", []) if key not in value]
    properties = schema.get("properties", {})
    extra = schema.get("additionalProperties", True)
    for key, item in value.items():
        if key in properties:
            out += problems(item, properties[key], f"{where}.{key}", root=root)
        elif extra is False:
            out.append(f"{where}: unexpected key {key!r}")
        elif isinstance(extra, dict):
            out += problems(item, extra, f"{where}.{key}", root=root)
    return out
