"""What a terminal is shown: control and invisible characters rendered visibly, never acted on.

Lesson text, file names, drift values and log paths come from other people. Printed raw, an
`ESC ] 52` sequence writes the clipboard, `ESC ] 8` plants a hyperlink, a carriage return or a bidi
control makes a line read differently than it is. `visible` turns each such character into its
escape (`\\x1b`, `\\u202e`), keeping line breaks and tabs; `json_bytes` escapes the ones JSON
encoders leave raw (DEL, C1 controls, bidi and other format characters) in a JSON document.
Every human output of the command line goes through `visible`, every JSON output through
`json_bytes`. Standard library only: the per-turn commands print through it too.
"""

from __future__ import annotations

import re

# C0 controls but line feed and tab, DEL, C1 controls, line and paragraph separators, and the
# format characters that hide or reorder text (soft hyphen, zero-width, bidi, tags, BOM).
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff"
    "\ufff9-\ufffb\U000e0000-\U000e007f]"
)
# The same set, less what a JSON encoder already escapes (C0 and `"`/`\\`).
_JSON_RAW = re.compile(
    "[\x7f-\x9f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb"
    "\U000e0000-\U000e007f]"
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def visible(text: str) -> str:
    """`text` with every control or invisible character shown as its escape (line breaks and tabs kept)."""
    if text.isascii() and text.isprintable():
        return text
    return _UNSAFE.sub(_escape, text)


# The colour codes the command line adds itself (reasonlessons/cli/fast/terminal.py COLORS, reset).
_OWN_STYLE = re.compile("\x1b\\[(?:0|1|2|3[1-3])m")


def visible_styled(text: str) -> str:
    """`visible`, keeping the colour codes of our own palette (added on a terminal only): a colour
    is all such a code can do, never a clipboard write, a link or a rewritten line."""
    if "\x1b" not in text:
        return visible(text)
    out: list[str] = []
    pos = 0
    for match in _OWN_STYLE.finditer(text):
        out.append(visible(text[pos : match.start()]))
        out.append(match.group(0))
        pos = match.end()
    out.append(visible(text[pos:]))
    return "".join(out)


def _json_escape(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    if code < 0x10000:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def json_bytes(data: bytes) -> bytes:
    """A JSON document (UTF-8) with the characters encoders leave raw escaped: still the same JSON.

    They can only be inside strings, where `\\uXXXX` means the same character."""
    if data.isascii() and b"\x7f" not in data:
        return data
    text = data.decode("utf-8", "surrogateescape")
    return _JSON_RAW.sub(_json_escape, text).encode("utf-8", "surrogateescape")
