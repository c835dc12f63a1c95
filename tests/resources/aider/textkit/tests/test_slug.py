from textkit.slug import slugify, truncate, word_count


def test_slugify_joins_words():
    assert slugify("Hello, World!") == "hello-world"


def test_word_count():
    assert word_count("one two  three") == 3


def test_truncate_cuts_at_a_word():
    assert truncate("hello big world", 10) == "hello…"
