"""The simplest block YAML, read line by line: the first try of reasonlessons.support.yamlread.

What `yaml.dump` writes for a lesson's frontmatter (and most hand-written config) is block mappings
and sequences of one-line scalars: `key: value`, `key:` over a nested block, `- item`. Such a
document is read here with a few string operations per line, its plain scalars resolved and built by
the loader's own resolvers and constructors; a lesson then costs a third of what `yaml.load` takes
(half of building it from libyaml's events). Anything outside that shape (flow collections other
than `[]` and `{}`, block scalars, multi-line scalars, anchors, tags, escapes, comments after a
value, tabs, non-ASCII text, odd indentation) is left to yamlread, which reads it the general way.

While PyYAML is not imported at all, nobody can have changed its resolvers: plain scalars are then
resolved with a copy of its YAML 1.1 table (tests hold it equal to PyYAML's) and the common values
built here (null, booleans, decimal integers, dates), so a cold `stale` need not import PyYAML.
yamlread does the same once PyYAML is imported, for as long as its loader is still as shipped.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from yaml import CSafeLoader, SafeLoader

    LoaderClass = type[SafeLoader] | type[CSafeLoader]  # what yamlread.loader() gives

_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@`")
_LINE = re.compile(r"^( *)([^ #\n].*)$", re.MULTILINE)
_SINGLE = re.compile(r"'((?:[^']|'')*)'")
_DOUBLE = re.compile(r'"([^"\\]*)"')
_STR = "tag:yaml.org,2002:str"


class _Unsupported(Exception):
    pass


class _NeedsLoader(Exception):
    pass


def _starts_mapping(text: str) -> bool:
    return text[0] not in _INDICATORS and (": " in text or text[-1] == ":")


OK, NOT_SIMPLE, NEEDS_LOADER = 1, 0, -1


def load(text: str, loader: LoaderClass | None) -> tuple[int, Any]:
    """(OK, value) when the document has the simple shape, else (NOT_SIMPLE, None). `loader` is the
    loader class yaml.load would use (its resolvers and constructors decide plain scalars), or None
    for PyYAML's own table, while PyYAML is not imported: then (NEEDS_LOADER, None) when a scalar
    needs one of its constructors."""
    if unusual(text) or " \n" in text or text[-1:] == " " or has_marker(text):
        return NOT_SIMPLE, None  # odd characters, trailing spaces, document markers
    # Blank lines and whole-line comments mean nothing here: _LINE skips them.
    lines = [(len(indent), body) for indent, body in _LINE.findall(text)]
    if not lines:
        return NOT_SIMPLE, None
    try:
        value, end = _Reader(lines, loader).block(0)
    except _Unsupported:
        return NOT_SIMPLE, None
    except _NeedsLoader:
        return NEEDS_LOADER, None
    return (OK, value) if end == len(lines) else (NOT_SIMPLE, None)


def unusual(text: str) -> bool:
    """Whether `text` holds anything but printable ASCII and newlines (`[^\\n\\x20-\\x7e]`): PyYAML
    treats other characters (tabs, CR, NEL, BOM, ...) specially, and those documents go the general
    way. Two C scans instead of a regex search, which costs a lesson ~6 µs (1,000 of them cold)."""
    return not (text.isascii() and text.replace("\n", "").isprintable())


def has_marker(text: str) -> bool:
    """Whether a line starts with a document marker (`^(?:---|\\.\\.\\.)`, multi-line), by substring
    search: the regex tries every position of the document."""
    return text.startswith(("---", "...")) or "\n---" in text or "\n..." in text


# A loader instance per class, for the constructors of non-string scalars (they keep no state).
_instances: dict[Any, Any] = {}
# Plain scalars resolved with PyYAML's own table (immutable values: str, None, bool, int, date).
_known: dict[str, Any] = {}
_NOTHING = object()


class _Reader:
    def __init__(self, lines: list[tuple[int, str]], loader: LoaderClass | None) -> None:
        self.lines = lines
        self.loader = loader
        if loader is None:
            self.resolvers: dict[Any, list[tuple[str, re.Pattern[str]]]] = RESOLVERS
            self.ctors: dict[Any, Any] = {}
        else:
            self.resolvers = loader.yaml_implicit_resolvers
            self.ctors = loader.yaml_constructors
        self.wildcard = self.resolvers.get(None, [])
        # A scalar whose first character no resolver is keyed on resolves to itself (`_resolve`
        # tries no pattern): most keys, paths and hashes of a lesson are decided by this one test.
        self.keyed: frozenset[Any] | None = (
            None if self.wildcard else _KEYED if loader is None else frozenset(self.resolvers)
        )

    def block(self, i: int) -> tuple[Any, int]:
        """The block node starting at line i (a mapping or a sequence at that line's indent)."""
        indent, body = self.lines[i]
        if body == "-" or body[:2] == "- ":
            return self.sequence(i, indent)
        return self.mapping(i, indent)

    def nested(self, i: int, indent: int, dash_ok: bool) -> tuple[Any, int]:
        """The value of a `key:` or `-` at `indent` with nothing after it: the block on the next
        lines, or null. A sequence may sit at the key's own indent (`dash_ok`)."""
        if i < len(self.lines):
            deeper, body = self.lines[i]
            if deeper > indent or (dash_ok and deeper == indent and (body == "-" or body[:2] == "- ")):
                return self.block(i)
        return self.scalar(""), i

    def mapping(self, i: int, indent: int) -> tuple[dict[Any, Any], int]:
        out: dict[Any, Any] = {}
        lines = self.lines
        keyed = self.keyed
        n = len(lines)
        while i < n:
            depth, body = lines[i]
            if depth != indent:
                break
            if body[0] in _INDICATORS:
                raise _Unsupported  # a sequence entry where a key belongs, a quoted key, ...
            # (partition, not find and slices: str.find parses its arguments the slow way)
            key, colon, rest = body.partition(": ")
            if not colon:
                if body[-1] != ":":
                    raise _Unsupported
                key, rest = body[:-1], ""
            else:
                rest = rest.lstrip(" ")
            if key[-1] == " " or " #" in key or len(key) > 1000:
                raise _Unsupported  # (YAML allows a key on one line of at most 1,024 characters)
            resolved = key if keyed is not None and key[0] not in keyed else self.scalar(key)
            i += 1
            if not rest:
                out[resolved], i = self.nested(i, indent, dash_ok=True)
            elif (
                keyed is not None
                and rest[0] not in keyed
                and rest[0] not in _INDICATORS
                and ": " not in rest
                and " #" not in rest
                and rest[-1] != ":"
            ):
                out[resolved] = rest  # `inline`'s commonest case, without the call
            else:
                out[resolved] = self.inline(rest)
        if i < n and lines[i][0] > indent:
            raise _Unsupported
        return out, i

    def sequence(self, i: int, indent: int) -> tuple[list[Any], int]:
        out: list[Any] = []
        lines = self.lines
        while i < len(lines) and lines[i][0] == indent:
            body = lines[i][1]
            if body != "-" and body[:2] != "- ":
                break
            rest = body[2:].lstrip(" ")
            if rest and (rest == "-" or rest[:2] == "- " or _starts_mapping(rest)):
                # A compact block in the entry (`- name: test` then `  run: x`): the block starts
                # at the column of `rest`, and the lines below it at that column belong to it.
                lines[i] = (len(lines[i][1]) - len(rest) + indent, rest)
                value, i = self.block(i)
                out.append(value)
                continue
            i += 1
            if rest:
                out.append(self.inline(rest))
            elif i < len(lines) and lines[i][0] > indent:
                raise _Unsupported  # a block inside an entry
            else:
                out.append(self.scalar(""))
        if i < len(lines) and lines[i][0] > indent:
            raise _Unsupported
        return out, i

    def inline(self, text: str) -> object:
        """A value on the same line as its key or dash."""
        first = text[0]
        if first in _INDICATORS:
            if text == "[]":
                return []
            if text == "{}":
                return {}
            quoted = _SINGLE.fullmatch(text) if first == "'" else _DOUBLE.fullmatch(text)
            if quoted is None:
                raise _Unsupported
            return quoted.group(1).replace("''", "'") if first == "'" else quoted.group(1)
        if ": " in text or " #" in text or text[-1] == ":":
            raise _Unsupported  # a mapping in a value, or a comment after it
        keyed = self.keyed
        return text if keyed is not None and first not in keyed else self.scalar(text)

    def scalar(self, text: str) -> object:
        """A plain scalar, resolved and built as the loader does (Resolver.resolve)."""
        if self.loader is None:  # PyYAML's own table: the same text always gives the same value
            found = _known.get(text, _NOTHING)
            if found is _NOTHING:
                found = self._resolve(text)
                if len(_known) > 4096:
                    _known.clear()
                _known[text] = found
            return found
        return self._resolve(text)

    def _resolve(self, text: str) -> object:
        for tag, regexp in [*self.resolvers.get(text[:1], []), *self.wildcard]:
            if regexp.match(text):
                if tag == _STR:
                    return text
                if self.loader is None:
                    return _construct(tag, text)
                ctor = self.ctors.get(tag)
                if ctor is None or tag.endswith((":merge", ":value")):
                    raise _Unsupported
                from yaml.nodes import ScalarNode

                instance = _instances.get(self.loader)
                if instance is None:
                    instance = _instances[self.loader] = self.loader("")
                try:
                    return ctor(instance, ScalarNode(tag, text))
                except Exception:  # noqa: BLE001 (an invalid date, say: yaml.load reports it)
                    raise _Unsupported from None
        return text


# The tags _construct builds as SafeConstructor does (the rest it leaves to the loader).
BUILT = ("null", "bool", "int", "timestamp")


def _construct(tag: str, text: str) -> object:
    """What SafeConstructor builds for the commonest implicit tags; the rest needs PyYAML."""
    kind = tag.rpartition(":")[2]
    if kind == "null":
        return None
    if kind == "bool":
        return _BOOLS[text.lower()]
    if kind == "int" and _DECIMAL.fullmatch(text):
        return int(text)
    if kind == "timestamp" and _DATE.fullmatch(text):
        try:
            return dt.date(int(text[:4]), int(text[5:7]), int(text[8:10]))
        except ValueError:
            raise _Unsupported from None  # yaml.load reports it
    raise _NeedsLoader


_BOOLS = {"yes": True, "no": False, "true": True, "false": False, "on": True, "off": False}
_DECIMAL = re.compile(r"[-+]?(?:0|[1-9][0-9]*)")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def _table() -> dict[Any, list[tuple[str, re.Pattern[str]]]]:
    """PyYAML's Resolver.yaml_implicit_resolvers (yaml/resolver.py, YAML 1.1), same order."""
    out: dict[Any, list[tuple[str, re.Pattern[str]]]] = {}
    for name, pattern, flags, first in (
        (
            "bool",
            r"""^(?:yes|Yes|YES|no|No|NO
                    |true|True|TRUE|false|False|FALSE
                    |on|On|ON|off|Off|OFF)$""",
            re.X,
            "yYnNtTfFoO",
        ),
        (
            "float",
            r"""^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?
                    |\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
                    |[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*
                    |[-+]?\.(?:inf|Inf|INF)
                    |\.(?:nan|NaN|NAN))$""",
            re.X,
            "-+0123456789.",
        ),
        (
            "int",
            r"""^(?:[-+]?0b[0-1_]+
                    |[-+]?0[0-7_]+
                    |[-+]?(?:0|[1-9][0-9_]*)
                    |[-+]?0x[0-9a-fA-F_]+
                    |[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$""",
            re.X,
            "-+0123456789",
        ),
        ("merge", r"^(?:<<)$", 0, "<"),
        (
            "null",
            r"""^(?: ~
                    |null|Null|NULL
                    | )$""",
            re.X,
            ["~", "n", "N", ""],
        ),
        (
            "timestamp",
            r"""^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]
                    |[0-9][0-9][0-9][0-9] -[0-9][0-9]? -[0-9][0-9]?
                     (?:[Tt]|[ \t]+)[0-9][0-9]?
                     :[0-9][0-9] :[0-9][0-9] (?:\.[0-9]*)?
                     (?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$""",
            re.X,
            "0123456789",
        ),
        ("value", r"^(?:=)$", 0, "="),
        ("yaml", r"^(?:!|&|\*)$", 0, "!&*"),
    ):
        regexp = re.compile(pattern, flags)
        for char in first:
            out.setdefault(char, []).append((f"tag:yaml.org,2002:{name}", regexp))
    return out


RESOLVERS = _table()
_KEYED = frozenset(RESOLVERS)
