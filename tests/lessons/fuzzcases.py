"""Lesson files to throw at the loaders (shared by test_fuzz_file and test_file_meta): the real lessons
under tests/resources as seeds, a minimal valid header, YAML bombs, and random edits of a seed."""

from __future__ import annotations

from hypothesis import strategies as st

from tests.paths import RESOURCES

SEEDS = sorted(
    p
    for p in [*RESOURCES.glob("repos/*/.reasonix/lessons/**/*.md"), *RESOURCES.glob("recall/*.md")]
    if p.read_bytes().startswith(b"---")
)
HEADER = "---\nname: fuzz\ndescription: d\nfingerprint: []\ncaptured-at: 2026-05-05\n"


def _laughs(levels: int, width: int = 10) -> str:
    lines = ['l0: &l0 ["lol"' + ', "lol"' * (width - 1) + "]"]
    for i in range(1, levels):
        lines.append(f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * width) + "]")
    return "\n".join(lines)


BOMBS = {
    "billion laughs": HEADER + _laughs(9) + "\n---\n- body\n",
    "laughs in a known key": HEADER.replace("fingerprint: []\n", "") + _laughs(8)
    + "\nfingerprint-recorded: {a: *l7}\nfingerprint: []\n---\n",
    "laughs in a mapping": HEADER + "b0: &b0 {x: 1, y: 2, z: 3, w: 4}\n"
    + "\n".join(f"b{i}: &b{i} {{p: *b{i-1}, q: *b{i-1}, r: *b{i-1}, s: *b{i-1}}}" for i in range(1, 15))
    + "\n---\n",
    "recursive list": HEADER + "loop: &loop [1, *loop]\n---\n",
    "recursive mapping": HEADER + "loop: &loop {self: *loop}\n---\n",
    "deep nesting": HEADER + "deep: " + "[" * 5000 + "]" * 5000 + "\n---\n",
    "deep mapping": HEADER + "deep: " + "{a: " * 3000 + "1" + "}" * 3000 + "\n---\n",
    "many keys": HEADER + "".join(f"k{i}: {i}\n" for i in range(20_000)) + "---\n",
}  # fmt: skip


def mutated_seed(data: st.DataObject, *, flips: bytes) -> bytes:
    """A seed lesson after one to five random edits: a byte flipped to one of `flips`, a cut, an
    insertion, or a duplicated run."""
    raw = bytearray(data.draw(st.sampled_from(SEEDS)).read_bytes())
    for _ in range(data.draw(st.integers(1, 5))):
        at = data.draw(st.integers(0, max(0, len(raw) - 1)))
        op = data.draw(st.sampled_from(["flip", "cut", "insert", "dup"]))
        if op == "flip" and raw:
            raw[at] = data.draw(st.sampled_from(flips))
        elif op == "cut":
            del raw[at : at + data.draw(st.integers(1, 40))]
        elif op == "insert":
            raw[at:at] = data.draw(st.binary(max_size=20))
        else:
            raw[at:at] = raw[at : at + 60]
    return bytes(raw)
