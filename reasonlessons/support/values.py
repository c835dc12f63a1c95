"""Small value classes without `dataclasses`: importing it (it imports inspect, ast, dis and more)
costs half a bare Python start, and each decorated class compiles its methods when its module is
imported; the per-turn paths (recall, hooks, stale) load several of these classes every turn.

A subclass lists its fields in FIELDS and writes its own typed `__init__`; Value gives the
dataclass-style equality (same class, same fields), hash and repr over those fields.

`frozen` builds an instance of a frozen dataclass (one with an instance dict) for the loops that
make one per event of a log.
"""

from __future__ import annotations

from typing import Any, ClassVar, TypeVar

T = TypeVar("T")
_new, _set = object.__new__, object.__setattr__


class Value:
    __slots__ = ()
    FIELDS: ClassVar[tuple[str, ...]] = ()

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self.FIELDS)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.FIELDS)
        return f"{self.__class__.__qualname__}({shown})"


def frozen(cls: type[T], fields: dict[str, Any]) -> T:
    """An instance of the frozen dataclass `cls` whose fields are `fields` (every one, by name).

    Equal to `cls(**fields)`, as frozen and pickled alike, about twice as cheap: the generated
    `__init__` of a frozen dataclass sets each field through `object.__setattr__`, this sets the
    instance dict at once. Not for classes with `__slots__` or a `__post_init__`."""
    obj = _new(cls)
    _set(obj, "__dict__", fields)
    return obj
