"""Field entries: parse JSON/TOML/YAML, walk a field path, canonicalize the value for hashing.

Canonical form is compact JSON with sorted keys, so reformatting and key order never count as a change.
"""

from __future__ import annotations

import datetime as dt
import math

from reasonlessons import support
from reasonlessons.fingerprint.entry import Segment

# Canonicalizing a YAML alias bomb would never end; no real config value has this many nodes.
MAX_VALUE_NODES = 200_000


def parse_document(path: str, data: bytes) -> object:
    """Parse by extension; ValueError with a readable reason when the file is not valid."""
    suffix = path.lower().rpartition(".")[2]
    data = data.removeprefix(b"\xef\xbb\xbf")
    try:
        if suffix == "json":
            return support.jsonio.loads(data)
        text = data.decode("utf-8")
        if suffix == "toml":
            import tomllib

            return tomllib.loads(text)
        return _load_yaml(text)
    except UnicodeDecodeError as exc:
        raise ValueError(f"is not UTF-8 (byte {exc.start}): re-save it as UTF-8") from None
    except RecursionError:
        raise ValueError("is nested too deeply to parse") from None
    except ValueError as exc:  # JSONDecodeError and TOMLDecodeError are ValueErrors
        kind = "JSON" if suffix == "json" else "TOML"
        raise ValueError(f"is not valid {kind} ({_first_line(exc)}): fix the file") from None


def _load_yaml(text: str) -> object:
    try:
        return support.yamlread.safe_load(text)
    except Exception as exc:  # PyYAML is imported only when a document needs it
        import yaml

        if not isinstance(exc, yaml.YAMLError):
            raise
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or _first_line(exc)
        raise ValueError(f"is not valid YAML ({problem}{where}): fix the file") from None


def _first_line(exc: BaseException) -> str:
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def lookup(doc: object, segments: tuple[Segment, ...]) -> tuple[bool, object, str | None]:
    """(found, value, why not found) for a field path; a path into a scalar is simply not found."""
    current = doc
    walked: list[str] = []
    for text, quoted in segments:
        where = ".".join(walked) or "the document"
        if isinstance(current, dict):
            if text in current:
                current = current[text]
            elif not quoted and text.isdigit() and int(text) in current:
                current = current[int(text)]  # YAML allows integer keys
            else:
                return False, None, f"{where} has no key {text!r}"
        elif isinstance(current, list):
            if quoted or not text.isdigit():
                return False, None, f"{where} is a list: use an index such as {'.'.join([*walked, '0'])}"
            if int(text) >= len(current):
                return False, None, f"{where} has {len(current)} item(s), no index {text}"
            current = current[int(text)]
        else:
            return False, None, f"{where} is a {_type_name(current)}, not a table or list"
        walked.append(text)
    return True, current, None


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    return {bool: "boolean", int: "number", float: "number", str: "string"}.get(type(value), "scalar")


def canonical(value: object) -> bytes:
    """Compact sorted-key JSON of a value: equal data, equal bytes."""
    try:
        return support.jsonio.dumps(plain(value, [MAX_VALUE_NODES]), sort_keys=True)
    except RecursionError:
        raise ValueError("has a value nested too deeply: fingerprint a smaller field") from None


def plain(value: object, budget: list[int]) -> object:
    """`value` as JSON-ready data with string keys; ValueError past MAX_VALUE_NODES nodes."""
    budget[0] -= 1
    if budget[0] < 0:
        raise ValueError(f"has a value of over {MAX_VALUE_NODES} nodes: fingerprint a smaller field")
    if isinstance(value, str | bool) or value is None:
        return value
    if isinstance(value, int):
        return value if -(2**63) <= value < 2**64 else str(value)
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dict):
        return {str(k): plain(v, budget) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v, budget) for v in value]
    if isinstance(value, set | frozenset):
        return sorted((plain(v, budget) for v in value), key=repr)
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return str(value)
