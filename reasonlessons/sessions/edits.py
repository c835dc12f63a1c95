"""File changes a tool call makes: writes, search/replace edits, patches, and shell mv/rm/touch."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

from reasonlessons.support.values import frozen

_PATH_KEYS = ("path", "file_path", "filePath", "filename", "file", "target_file", "targetFile")
_PAIRS = (("search", "replace"), ("old_string", "new_string"), ("old_str", "new_str"), ("old", "new"))
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$")
_PATCH_MOVE = re.compile(r"^\*\*\* Move to: (.+)$")
_TEXT_CAP = 4000
_MOVE_WORDS = re.compile(r"(?:^|[\s;&|])(?:git\s+)?(?:mv|rm)\s")


@dataclass(frozen=True)
class Edit:
    """A change the agent made to one file: created, or a replacement of `before` by `after`."""

    path: str
    before: str | None = None
    after: str | None = None
    created: bool = False
    ref: str = ""


@dataclass(frozen=True)
class Move:
    """A rename (`mv a b`, `git mv a b`) or, with `dest` None, a deletion."""

    source: str
    dest: str | None


@lru_cache(maxsize=4096)
def relative(path: str, bases: tuple[str, ...]) -> str | None:
    """`path` relative to the first base it lies under (or itself when already relative); None outside."""
    if not path or "\x00" in path:
        return None
    windows = bool(re.match(r"^[A-Za-z]:\\", path)) or "\\" in path
    pure = PureWindowsPath(path) if windows else PurePosixPath(path)
    if not pure.is_absolute() and not path.startswith("~"):
        parts = [p for p in pure.parts if p not in ("", ".")]
        return "/".join(parts) if parts and ".." not in parts else None
    for base in bases:
        if not base:
            continue
        base_pure = PureWindowsPath(base) if windows else PurePosixPath(base)
        try:
            rel = pure.relative_to(base_pure)
        except ValueError:
            continue
        parts = [p for p in rel.parts if p not in ("", ".")]
        return "/".join(parts) if parts else None
    return None


def _path_arg(args: dict[str, Any]) -> str | None:
    for key in _PATH_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    return None


def _cap(text: object) -> str | None:
    return text[:_TEXT_CAP] if isinstance(text, str) else None


def file_edits(tool: str | None, args: dict[str, Any] | None, ref: str) -> list[Edit]:
    """The edits a write/edit/patch call asks for (paths as given; callers relativize)."""
    if not args or (tool != "edit" and tool != "write"):
        return []  # most calls (shell, read, ...): decided before looking at the arguments
    if tool == "edit" and isinstance(args.get("input"), str):
        return _patch_edits(args["input"], ref)
    path = _path_arg(args)
    if path is None:
        return []
    if tool == "write":
        return [Edit(path, None, _cap(args.get("content")), created=True, ref=ref)]
    if tool != "edit":
        return []
    for old_key, new_key in _PAIRS:
        if isinstance(args.get(old_key), str) or isinstance(args.get(new_key), str):
            # Once per edit call of every log (the reducer's and the trace's): built by its dict.
            before, after = _cap(args.get(old_key)), _cap(args.get(new_key))
            fields = {"path": path, "before": before, "after": after, "created": False, "ref": ref}
            return [frozen(Edit, fields)]
    edits = args.get("edits")
    if isinstance(edits, list):
        out = []
        for item in edits[:20]:
            if isinstance(item, dict):
                for old_key, new_key in _PAIRS:
                    if old_key in item or new_key in item:
                        out.append(Edit(path, _cap(item.get(old_key)), _cap(item.get(new_key)), ref=ref))
                        break
        return out
    return [Edit(path, ref=ref)]


def _patch_edits(patch: str, ref: str) -> list[Edit]:
    """Codex `apply_patch` text: files added (created) and updated (with their -/+ lines)."""
    out: list[Edit] = []
    current: tuple[str, str] | None = None
    minus: list[str] = []
    plus: list[str] = []

    def close() -> None:
        if current is not None:
            kind, path = current
            if kind == "Add":
                out.append(Edit(path, None, "\n".join(plus)[:_TEXT_CAP], created=True, ref=ref))
            elif kind == "Update":
                out.append(Edit(path, "\n".join(minus)[:_TEXT_CAP], "\n".join(plus)[:_TEXT_CAP], ref=ref))

    for line in patch.splitlines()[:2000]:
        header = _PATCH_FILE.match(line)
        move = _PATCH_MOVE.match(line)
        if header:
            close()
            current, minus, plus = (header.group(1), header.group(2).strip()), [], []
        elif move and current is not None:
            current = (current[0], move.group(1).strip())
        elif line.startswith("+") and not line.startswith("+++"):
            plus.append(line[1:])
        elif line.startswith("-") and not line.startswith("---"):
            minus.append(line[1:])
    close()
    return out


def shell_moves(command: str) -> list[Move]:
    """Renames and deletions done by simple `mv`, `git mv`, `rm`, `git rm` commands."""
    out: list[Move] = []
    if not _MOVE_WORDS.search(command):
        return out
    for segment in re.split(r"&&|;|\|\|", command)[:10]:
        try:
            words = shlex.split(segment)
        except ValueError:
            continue
        if words[:2] in (["git", "mv"], ["git", "rm"]):
            words = words[1:]
        operands = [w for w in words[1:] if not w.startswith("-")]
        if words[:1] == ["mv"] and len(operands) == 2:
            out.append(Move(operands[0], operands[1]))
        elif words[:1] == ["rm"] and operands:
            out.extend(Move(p, None) for p in operands[:20])
    return out


def changed_region(before: str | None, after: str | None) -> tuple[str, str] | None:
    """The smallest readable before/after pair: whole strings when short, else the changed lines
    (one side empty when a single line was only added or only removed)."""
    if before is None or after is None or before == after:
        return None
    if len(before) <= 80 and len(after) <= 80 and "\n" not in before.strip() and "\n" not in after.strip():
        return before.strip(), after.strip()
    old_lines = [line.strip() for line in before.splitlines() if line.strip()]
    new_lines = [line.strip() for line in after.splitlines() if line.strip()]
    removed = [line for line in old_lines if line not in new_lines]
    added = [line for line in new_lines if line not in old_lines]
    if len(removed) + len(added) == 1 or len(removed) == len(added) == 1:
        pair = (removed[0] if removed else "", added[0] if added else "")
        if len(pair[0]) <= 120 and len(pair[1]) <= 120:
            return pair
    return None
