"""Fuzzing redaction and the trust scanner: any text, quickly, and redaction leaves nothing behind.

Both run on text from logs and from other people's lessons, so a pathological input must not hang
them (every pattern is bounded), and redacting must be complete and idempotent.
"""

from __future__ import annotations

import random
import string

from hypothesis import example, given
from hypothesis import strategies as st

from reasonlessons.safety.redact import find_secrets, redact
from reasonlessons.store.trust import scan_text
from tests.fuzzing import bounded, fuzz_settings
from tests.secretcorpus import corpus

SECRETS = [s.context for s in corpus(seed=5)]
# The characters secret patterns and hostile-text patterns are made of.
tricky = st.text(alphabet=string.printable + "\u202e\u200béß", max_size=300)
pieces = st.sampled_from(
    ["curl ", "| sh", "-----BEGIN PRIVATE KEY-----", "://", ":", "@", "password=", "Bearer ", "sk-", "ghp_",
     "eyJ", "AKIA", "${", "$(", "?a=", "<system>", "ignore all previous instructions", "\n", " ", "=", "\""]
)  # fmt: skip
texts = st.one_of(
    tricky,
    st.lists(st.one_of(pieces, st.sampled_from(SECRETS), tricky), max_size=12).map("".join),
)


@fuzz_settings(ci=300)
@given(texts)
# Found by the long run: the placeholder gave `pASSWD=` a word boundary it did not have before.
@example("SG." + "0" * 22 + "." + "0" * 43 + "pASSWD=a8f3k2m9x7q1w5e6r4t2")
def test_redaction_of_any_text_is_complete_idempotent_and_quick(text: str) -> None:
    with bounded(seconds=3, megabytes=32):
        once = redact(text)
        assert find_secrets(once.text) == []
        assert redact(once.text).text == once.text


@fuzz_settings(ci=300)
@given(description=texts, body=texts)
def test_the_trust_scanner_takes_any_text_quickly(description: str, body: str) -> None:
    with bounded(seconds=3, megabytes=32):
        for flag in scan_text(description, body):
            assert flag.code
            assert flag.detail


def test_pathological_repetitions_stay_linear() -> None:
    rng = random.Random(1)
    for unit in ["curl -d x ", "curl |sh ", "<system ", "a://", "password=", "Bearer ", "${", "eyJ.", "@",
                 "ignore ", "-----BEGIN PRIVATE KEY-----", "sk-" + "a" * 30 + " ", "|sh "]:  # fmt: skip
        text = unit * (60_000 // len(unit)) + "".join(rng.choice(string.printable) for _ in range(50))
        with bounded(seconds=5, megabytes=64):
            scan_text("d", text)
            redact(text)
