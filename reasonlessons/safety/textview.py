"""Text as a secret scanner should read it: escapes decoded, invisible characters gone, and a map
back to where each character came from.

A secret split by a zero-width space or a soft hyphen, spelled with `\\u0067`, `\\x67`, `%67` or
`&#x67;` escapes, or in full-width letters is the same secret to whoever reads it. `view(text)` gives
that reading (None when it would not differ), and `View.origin(start, end)` turns a span found in it
into the span of the original text to replace, escapes and invisible characters included.
`INVISIBLE` is the one list of format characters that hide text, shared with the trust scanner.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass

# Format characters a reader does not see: soft hyphen, zero-width and joiner characters, bidi
# controls, word joiners and invisible operators, variation selectors, the BOM, Hangul fillers
# and Unicode tag characters.
INVISIBLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e0fff]"
)
BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_SPECIAL = re.compile(
    r"\\u\{[0-9a-fA-F]{1,6}\}|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|\\x[0-9a-fA-F]{2}|%[0-9a-fA-F]{2}"
    r"|&#[xX][0-9a-fA-F]{1,6};|&#\d{1,7};|[^\x00-\x7f]"
)


def _decoded(token: str) -> str | None:
    """What one escape or character reads as: '' when invisible, None when left as it is."""
    if len(token) == 1:
        if INVISIBLE.match(token) or unicodedata.category(token) == "Cf":
            return ""
        folded = unicodedata.normalize("NFKC", token)
        return folded if folded != token and folded.isascii() else None
    if token.startswith("&#"):
        body = token[2:-1]
        code = int(body[1:], 16) if body[:1] in "xX" else int(body)
    elif token.startswith("%"):
        code = int(token[1:], 16)
    elif token.startswith("\\u{"):
        code = int(token[3:-1], 16)
    else:
        code = int(token[2:], 16)
    if code > 0x10FFFF:
        return None
    char = chr(code)
    if INVISIBLE.match(char):
        return ""
    if not char.isprintable() or not char.isascii() or char == "%":
        return None  # a line break or control decoded would change where lines end
    return char


@dataclass(frozen=True)
class View:
    """The decoded text and, per segment, (view start, original start, original length, copied)."""

    text: str
    _starts: list[int]
    _segments: list[tuple[int, int, int, bool]]

    def origin(self, start: int, end: int) -> tuple[int, int]:
        """The original span a view span [start, end) was read from."""
        return self._orig(start, end=False), self._orig(end - 1, end=True)

    def _orig(self, at: int, *, end: bool) -> int:
        i = bisect.bisect_right(self._starts, at) - 1
        v_start, o_start, o_len, copied = self._segments[i]
        if copied:
            return o_start + (at - v_start) + (1 if end else 0)
        return o_start + o_len if end else o_start


def view(text: str) -> View | None:
    """The text with escapes decoded and invisible characters removed; None when nothing changes."""
    if text.isascii() and "\\" not in text and "%" not in text and "&#" not in text:
        return None
    parts: list[str] = []
    starts: list[int] = []
    segments: list[tuple[int, int, int, bool]] = []
    v_pos = o_pos = 0
    changed = False

    def copy(upto: int) -> None:
        nonlocal v_pos, o_pos
        if upto > o_pos:
            n = upto - o_pos
            parts.append(text[o_pos:upto])
            starts.append(v_pos)
            segments.append((v_pos, o_pos, n, True))
            v_pos, o_pos = v_pos + n, upto

    for match in _SPECIAL.finditer(text):
        token = match.group(0)
        decoded = _decoded(token)
        if decoded is None:
            continue
        copy(match.start())
        changed = True
        if decoded:
            parts.append(decoded)
            starts.append(v_pos)
            segments.append((v_pos, o_pos, len(token), False))
            v_pos += len(decoded)
        o_pos = match.end()
    if not changed:
        return None
    copy(len(text))
    return View("".join(parts), starts, segments)


# Cyrillic, Greek and other letters drawn like Latin ones (Unicode's confusables, the common part):
# "іgnоrе" in Cyrillic reads "ignore" to a model and to a person, so filters compare skeletons.
_CONFUSABLES = str.maketrans(
    "аеорсухіјѕԁԛԝһӏѵɡАВЕКМНОРСТХУІЈЅԌԚԜҮӀαοντρικυχεβΑΒΕΖΗΙΚΜΝΟΡΤΥΧϲϳɑɩɪʟᴀᴄᴅᴇᴋᴍᴏᴘᴛᴜᴠᴡᴢ",
    "aeopcyxijsdqwhlvgABEKMHOPCTXYIJSGQWYIaovtpikuxeBABEZHIKMNOPTYXcjaiiLACDEKMOPTUVWZ",
)


def skeleton(text: str) -> str:
    """`text` as filters should compare it: compatibility forms folded (NFKC: full-width and
    mathematical letters), invisible format characters removed, look-alike letters made Latin."""
    if text.isascii():
        return text
    folded = unicodedata.normalize("NFKC", text)
    folded = INVISIBLE.sub("", folded)
    folded = "".join(c for c in folded if c.isascii() or unicodedata.category(c) != "Cf")
    return folded.translate(_CONFUSABLES)
