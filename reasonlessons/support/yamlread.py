"""Reading YAML as PyYAML's safe loader does, faster for plain documents (lessons, config files).

`safe_load(text)` is `yaml.load(text, Loader=CSafeLoader)` (SafeLoader without libyaml): same
values, same errors. yaml.load composes a node graph, then builds values through generic per-node
machinery; for a lesson's few dozen values that is most of the cost of reading it, and a cold `stale`
reads 1,000 lessons. A plain document (no anchors, aliases or explicit tags: what reasonlessons
writes, and what people write by hand) is read line by line when it has the simplest block shape
(yamlblock.py), else built here straight from libyaml's events, scalars resolved and built by the
loader's own resolvers and constructors either way. Anything else, errors included, goes to
yaml.load, which gives its own answer.
"""

from __future__ import annotations

import functools
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from reasonlessons.support.yamlblock import LoaderClass

from reasonlessons.support import yamlblock

_OTHER = object()  # not a plain document: yaml.load decides
_NO_KEY = object()


def loader() -> LoaderClass:
    """The loader class yaml.load is given: libyaml's when PyYAML was built with it."""
    import yaml

    return getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def safe_load(text: str) -> Any:
    """`yaml.load(text, Loader=loader())`."""
    return safe_load_read(text)[0]


def safe_load_read(text: str) -> tuple[Any, bool]:
    """`safe_load(text)`, and whether it was read line by line with PyYAML's own table
    (yamlblock.py): such a value shares no container (no anchors, no aliases; only scalars are
    built by the table) and nests no deeper than one level per line and per `- ` of the text."""
    state = yamlblock.NEEDS_LOADER
    if "yaml" not in sys.modules or _stock(loader()):  # PyYAML's resolvers are as it ships them
        state, value = yamlblock.load(text, None)
        if state == yamlblock.OK:
            return value, True
    return _general(text, state), False


def _general(text: str, state: int) -> Any:
    """safe_load for a document the table did not read (`state`: why not)."""
    cls = loader()
    if _standard(cls):
        if state == yamlblock.NEEDS_LOADER:
            state, value = yamlblock.load(text, cls)
            if state == yamlblock.OK:
                return value
        value = _plain(text, cls)
        if value is not _OTHER:
            return value
    import yaml

    return yaml.load(text, Loader=cls)


def _standard(cls: LoaderClass) -> bool:
    """Whether the loader builds str, maps and lists as PyYAML ships it (nobody added their own)."""
    return not cls.yaml_path_resolvers and _shipped(cls, _shipped_constructors()[:3])


def _stock(cls: LoaderClass) -> bool:
    """Whether the loader resolves and builds plain scalars exactly as yamlblock's own table does
    (PyYAML as it ships): then yamlblock's memo of resolved scalars holds for it too, which spares
    the resolvers' regexes on every scalar (a third of reading a lesson's frontmatter). Checked on
    every call, as anyone may add a resolver or constructor at any time (a few microseconds)."""
    return (
        not cls.yaml_path_resolvers
        and _shipped(cls, _shipped_constructors())
        and _table_resolvers(cls.yaml_implicit_resolvers)
    )


# Resolver tables found equal to yamlblock's, each with a copy made then: the copy holds the same
# (tag, regexp) pairs, so comparing with it is mostly identity tests (comparing compiled regexps
# costs more than the rest of the check). A table changed since compares unequal to its copy.
_checked: dict[int, tuple[object, object]] = {}


def _table_resolvers(table: dict[Any, list[Any]]) -> bool:
    """Whether `table` resolves as yamlblock.RESOLVERS does (equal to it, same order)."""
    known = _checked.get(id(table))
    if known is not None and known[0] is table and table == known[1]:
        return True
    if table != yamlblock.RESOLVERS:
        return False
    if len(_checked) < 16:
        _checked[id(table)] = (table, {first: list(pairs) for first, pairs in table.items()})
    return True


def _shipped(cls: LoaderClass, shipped: tuple[tuple[str, object], ...]) -> bool:
    ctors = cls.yaml_constructors
    return all(ctors.get(tag) is ctor for tag, ctor in shipped)


@functools.cache
def _shipped_constructors() -> tuple[tuple[str, object], ...]:
    """(tag, SafeConstructor's own constructor): str, map and seq first, then yamlblock.BUILT."""
    from yaml.constructor import SafeConstructor

    names = ("str", "map", "seq", *yamlblock.BUILT)
    return tuple((f"tag:yaml.org,2002:{n}", getattr(SafeConstructor, f"construct_yaml_{n}")) for n in names)


def _plain(text: str, cls: LoaderClass) -> object:
    """The document's value built from its events, or _OTHER."""
    from yaml.events import (
        DocumentEndEvent,
        DocumentStartEvent,
        MappingEndEvent,
        MappingStartEvent,
        ScalarEvent,
        SequenceEndEvent,
        SequenceStartEvent,
        StreamEndEvent,
        StreamStartEvent,
    )
    from yaml.nodes import ScalarNode

    resolvers = cls.yaml_implicit_resolvers
    wildcard = resolvers.get(None, [])
    ctors = cls.yaml_constructors
    parser: Any = cls(text)  # events are told apart by `type(event) is`, which mypy does not narrow
    root: Any = None
    documents = 0
    stack: list[Any] = []  # open collections, innermost last
    keys: list[Any] = []  # for each open collection: a mapping's pending key, or _NO_KEY
    try:
        while True:
            event = parser.get_event()
            kind = type(event)
            if kind is ScalarEvent:
                if event.anchor is not None or event.tag is not None:
                    return _OTHER
                value: Any = event.value
                if event.implicit[0]:  # plain: resolved as Resolver.resolve does
                    for tag, regexp in [*resolvers.get(value[:1], []), *wildcard]:
                        if regexp.match(value):
                            if tag not in ctors or tag.endswith((":merge", ":value")):
                                return _OTHER
                            value = ctors[tag](parser, ScalarNode(tag, value, style=event.style))
                            break
            elif kind is MappingStartEvent or kind is SequenceStartEvent:
                if event.anchor is not None or event.tag is not None:
                    return _OTHER
                value = {} if kind is MappingStartEvent else []
            elif kind is MappingEndEvent or kind is SequenceEndEvent:
                stack.pop()
                keys.pop()
                continue
            elif kind is DocumentStartEvent:
                documents += 1
                if documents > 1:
                    return _OTHER
                continue
            elif kind is StreamEndEvent:
                return root
            elif kind is StreamStartEvent or kind is DocumentEndEvent:
                continue
            else:  # an alias, or anything newer
                return _OTHER
            if not stack:
                root = value
            elif keys[-1] is _NO_KEY:
                if type(stack[-1]) is list:
                    stack[-1].append(value)
                elif isinstance(value, dict | list):
                    return _OTHER  # an unhashable key: yaml.load raises
                else:
                    keys[-1] = value
            else:
                stack[-1][keys[-1]] = value
                keys[-1] = _NO_KEY
            if type(value) is dict or type(value) is list:
                stack.append(value)
                keys.append(_NO_KEY)
    except Exception:  # noqa: BLE001 (a YAML error, or a scalar its constructor refuses: yaml.load says)
        return _OTHER
    finally:
        parser.dispose()
