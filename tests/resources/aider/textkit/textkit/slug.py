"""Turn titles into URL slugs."""

import re

_NON_WORD = re.compile(r"[^a-z0-9]+")
ELLIPSIS = "…"


def slugify(text: str) -> str:
    """Lower-case `text` and join its words with dashes: `slugify("Hi there")` is `"hi-there"`."""
    return _NON_WORD.sub("-", text.lower()).strip("-")


def word_count(text: str) -> int:
    """The number of words in `text`."""
    return len(text.split())


def truncate(text: str, limit: int) -> str:
    """`text` cut at a word boundary to at most `limit` characters, ending with an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[: limit - len(ELLIPSIS)].rsplit(" ", 1)[0]
    return cut + ELLIPSIS
