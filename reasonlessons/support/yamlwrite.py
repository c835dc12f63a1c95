"""YAML out for files other programs parse: a block mapping written by PyYAML's safe emitter.

The emitter, not string formatting, decides how each value is quoted, so a value that starts with
a backtick, `@`, `-`, a quote or any other indicator, or that holds `: ` or ` #`, reads back as the
same string in any YAML parser (Reasonix reads its memory facts and skills with Go's yaml.v3).
Every scalar stays on one line (no folding at any width) and non-ASCII text is written as is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class Quoted(str):
    """A string written double-quoted whatever it holds (timestamps, as Reasonix quotes them)."""

    __slots__ = ()


_dumper: Any = None
# Wide enough that no scalar is ever folded onto a second line.
_WIDTH = 1 << 30


def block_mapping(mapping: Mapping[str, Any]) -> str:
    """`mapping` as block YAML, keys in the order given, one line per scalar, ending in a newline."""
    import yaml

    return str(
        yaml.dump(
            dict(mapping),
            Dumper=_safe_dumper(),
            sort_keys=False,
            allow_unicode=True,
            width=_WIDTH,
            default_flow_style=False,
        )
    )


def _safe_dumper() -> Any:
    """SafeDumper that writes `Quoted` values double-quoted (built once, on first use)."""
    global _dumper
    if _dumper is None:
        import yaml

        class Dumper(yaml.SafeDumper):
            pass

        def quoted(dumper: yaml.SafeDumper, value: Quoted) -> yaml.ScalarNode:
            return dumper.represent_scalar("tag:yaml.org,2002:str", str(value), style='"')

        Dumper.add_representer(Quoted, quoted)
        _dumper = Dumper
    return _dumper
