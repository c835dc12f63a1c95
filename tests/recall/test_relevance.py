"""The pruned BM25 search equals a full read: same scores to the bit, same order, same recall.

Libraries are generated (seeded): a Zipf-like vocabulary in which a few words are in most lessons,
generic words, triggers of every kind, deprecated, superseded, expired, shadowed lessons and other
task types. Each turn is answered twice, by `Recaller` and by tests/recall/reference.py (every
posting of every query word read, as before), with the search's constants at their real values and
shrunk so that every branch (probing, several rounds, the fallback) runs.
"""

from __future__ import annotations

import datetime as dt
import random
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from reasonlessons.constants import ENV_HOME
from reasonlessons.integrations import claude_recall
from reasonlessons.integrations.claude_hook import Hook
from reasonlessons.lessons.file import render_lesson
from reasonlessons.lessons.locations import Locations
from reasonlessons.lessons.model import Lesson
from reasonlessons.recall import bm25, postings, rank, relevance
from reasonlessons.recall.api import Recaller
from reasonlessons.recall.index import LessonIndex
from reasonlessons.recall.match import Query
from reasonlessons.support import stamp
from reasonlessons.support.tokens import GENERIC, tokenize
from tests.recall.reference import ReferenceRecaller

NOW = dt.datetime(2026, 11, 21, 12, 0, tzinfo=dt.UTC)
COMMON = ["test", "tests", "build", "run", "file", "add", "make", "code", "error", "check", "config"]
PATHS = ["tests/foo.test.ts", "src/api/index.ts", "src/web/app.tsx", "docs/guide.md", "scripts/build.py"]
GLOBS = ["tests/**/*.test.ts", "**/*.ts", "src/api/**", "src/*/index.ts", "docs/*.md", "**/*.py", "src/**"]
COMMANDS = [r"\bnpm (run )?test\b", r"pytest -q", r"make build", r"\bgit push\b", r"vitest"]


def fresh(lesson: Lesson) -> Sequence[Any]:
    return []


def vocabulary(rng: random.Random) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = {"".join(rng.choice(letters) for _ in range(rng.randint(3, 8))) for _ in range(400)}
    return sorted(words)


def word(rng: random.Random, words: list[str]) -> str:
    """Half the draws from a few common words (most lessons have them), the rest Zipf-like."""
    if rng.random() < 0.45:
        return rng.choice(COMMON)
    return words[min(int(rng.paretovariate(0.8)) - 1, len(words) - 1)]


def write_library(root: Path, home: Path, n: int, seed: int) -> Locations:
    rng = random.Random(seed)
    words = vocabulary(rng)
    project = root / ".reasonix" / "lessons"
    global_dir = home / "lessons"
    project.mkdir(parents=True)
    global_dir.mkdir(parents=True)
    for i in range(n):
        scope_dir = global_dir if i % 17 == 0 else project
        name = f"l-{i % 400:04d}" if scope_dir is global_dir else f"l-{i:04d}"
        triggers: dict[str, list[str]] = {}
        if rng.random() < 0.3:
            triggers["keywords"] = [" ".join(word(rng, words) for _ in range(rng.randint(1, 2)))]
        if rng.random() < 0.2:
            triggers["files"] = [rng.choice(GLOBS)]
        if rng.random() < 0.1:
            triggers["commands"] = [rng.choice(COMMANDS)]
        meta: dict[str, Any] = {
            "name": name,
            "fingerprint": [],
            "description": " ".join(word(rng, words) for _ in range(rng.randint(2, 6))),
            "captured-at": dt.date(2026, 1, 1) + dt.timedelta(days=rng.randint(0, 40)),
            "triggers": triggers,
        }
        if rng.random() < 0.2:
            meta["refreshed-at"] = dt.date(2026, 3, 1) + dt.timedelta(days=rng.randint(0, 40))
        if rng.random() < 0.15:
            meta["task-types"] = rng.sample(["code-gen", "exploration", "qa", "other"], rng.randint(1, 2))
        roll = rng.random()
        if roll < 0.04:
            meta["status"] = "deprecated"
        elif roll < 0.08:
            meta["expires-at"] = dt.date(2026, 2, 1)
        elif roll < 0.12:
            meta["supersedes"] = [f"l-{rng.randrange(n):04d}"]
        lines = []
        for _ in range(rng.randint(1, 4)):
            line = [word(rng, words) for _ in range(rng.randint(2, 16))]
            if rng.random() < 0.3:
                line += [rng.choice(line)] * rng.randint(1, 4)  # higher term frequencies
            lines.append("- " + " ".join(line))
        body = "\n".join(lines)
        (scope_dir / f"{name}.md").write_bytes(render_lesson(Lesson(meta=meta, body=body)))
    return Locations(root=root, home=home)


def prompts(seed: int, words: int = 400) -> Iterator[tuple[str, list[str], str | None]]:
    rng = random.Random(seed)
    vocab = vocabulary(random.Random(seed))
    for i in range(40):
        size = rng.choice([1, 2, 3, 5, 8, 13, 40])
        text = " ".join(word(rng, vocab) if rng.random() < 0.8 else "the" for _ in range(size))
        files = rng.sample(PATHS, rng.randint(0, 2))
        cmd = rng.choice([None, None, "npm test", "make build && pytest -q", "git push origin main"])
        yield f"add {text}" if i % 3 else text, files, cmd


def _newest_change(written: list[tuple[Locations, int, int]]) -> int:
    """The latest ctime (ns) among the generated lesson files and their folders."""
    newest = 0
    for loc, _, _ in written:
        for top in (loc.root, loc.home):
            for path in [top, *top.rglob("*")]:
                info = path.stat()
                newest = max(newest, info.st_mtime_ns, info.st_ctime_ns)
    return newest


@pytest.fixture(scope="module")
def libraries(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[Locations, int]]:
    out = []
    written = []
    for seed, n in ((1, 60), (2, 450), (3, 900)):
        base = tmp_path_factory.mktemp(f"lib{seed}")
        written.append((write_library(base / "repo", base / "home", n, seed), seed, n))
    # Wait out the racy window of the files just written: until then every index opened re-reads
    # them and numbers them anew, and the new and old recallers below each open one, so ties
    # (ranked by lesson number) could differ between them for a reason that is not the search.
    time.sleep(max(0, _newest_change(written) + stamp.RACY_NS + 10_000_000 - time.time_ns()) / 1e9)
    for loc, seed, n in written:
        idx = LessonIndex(loc)
        idx.ensure()
        assert idx.n_docs == n  # every generated lesson is valid
        out.append((loc, seed))
    return out


@pytest.fixture(params=["real", "tiny", "bound-all"])
def constants(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """The search's constants as shipped, or shrunk so probing, rounds and the fallback all run,
    or every survivor found by bounding every lesson (relevance._bound_every_lesson)."""
    if request.param == "bound-all":
        monkeypatch.setattr(relevance, "BOUND_ALL", "always")
    if request.param == "tiny":
        monkeypatch.setattr(relevance, "SEED_POSTINGS", 3)
        monkeypatch.setattr(relevance, "SEED_PER_WANTED", 1)
        monkeypatch.setattr(relevance, "FIRST_K", 1)
        monkeypatch.setattr(relevance, "CHUNK", 1)  # choose the term to read after every posting
        monkeypatch.setattr(relevance, "DICT_AFTER", 0)  # look up through dicts, not bisection
    return str(request.param)


def _fused(cands: list[rank.Candidate]) -> list[tuple[Any, ...]]:
    return [
        (c.doc, c.name, c.scope, c.score, c.specificity, c.relevance, tuple(c.reasons))
        for c in rank.fuse(cands)
    ]


def test_candidates_and_ranking_equal_a_full_read(
    libraries: list[tuple[Locations, int]], constants: str
) -> None:
    compared = returned = 0
    for loc, seed in libraries:
        new, old = Recaller(loc, drift=fresh), ReferenceRecaller(loc, drift=fresh)
        new.index.ensure()
        old.index.ensure()
        for prompt, files, cmd in prompts(seed):
            query = Query.build(prompt, files, cmd, root=str(loc.root))
            for task in ("code-gen", "qa"):
                rng = random.Random(f"{prompt}{task}")
                seen = {f"project:l-{rng.randrange(900):04d}" for _ in range(40)}
                got, _ = new._candidates(query, task, NOW, seen)
                want, _ = old._candidates(query, task, NOW, seen)
                assert _fused(got) == _fused(want), (prompt, files, cmd, task)
                compared += 1
            result = new.recall(prompt, files=files, cmd=cmd, task_type="code-gen", now=NOW, record=False)
            expected = old.recall(prompt, files=files, cmd=cmd, task_type="code-gen", now=NOW, record=False)
            assert [(x.name, x.scope, x.score, x.reasons) for x in result.lessons] == [
                (x.name, x.scope, x.score, x.reasons) for x in expected.lessons
            ]
            returned += len(result.lessons)
    assert compared == 3 * 40 * 2
    assert returned > 100


def test_scores_and_the_text_only_order_equal_bm25_over_every_posting(
    libraries: list[tuple[Locations, int]], constants: str
) -> None:
    for loc, seed in libraries:
        idx = LessonIndex(loc)
        idx.ensure()
        for prompt, files, cmd in prompts(seed + 100):
            terms = list(dict.fromkeys(tokenize(prompt) + tokenize(" ".join([*files, cmd or ""]))))
            want, shared = _full_read(idx, terms)
            rng = random.Random(prompt)
            exclude = set(rng.sample(sorted(want), min(len(want), 5)))
            order = _ranked(want, shared, exclude)
            search = relevance.TextSearch(idx, terms)
            assert list(search.ranked(exclude=exclude, min_shared=2, limit=50)) == order[:50]
            assert list(search.ranked(exclude=exclude, min_shared=2, limit=7)) == order[:7]
            some = rng.sample(range(1, idx.n_docs + 1), min(idx.n_docs, 30))
            assert relevance.TextSearch(idx, terms).scores(some) == {d: want[d] for d in some if d in want}


def test_reading_grows_with_the_rare_words_not_with_a_word_every_lesson_has(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A word in every lesson ("test") is looked up only for the few lessons that can win."""
    monkeypatch.setattr(relevance, "SEED_POSTINGS", 64)  # below the libraries' sizes
    for n in (300, 1200):
        project = tmp_path / str(n) / "repo" / ".reasonix" / "lessons"
        project.mkdir(parents=True)
        for i in range(n):
            body = f"- test build {'parser date' if i % 150 == 0 else 'other words'} number{i}"
            meta = {
                "name": f"l-{i:04d}",
                "description": "how we test",
                "fingerprint": [],
                "captured-at": "2026-01-01",
            }
            (project / f"l-{i:04d}.md").write_bytes(render_lesson(Lesson(meta=meta, body=body)))
        loc = Locations(root=tmp_path / str(n) / "repo", home=tmp_path / str(n) / "home")
        idx = LessonIndex(loc)
        idx.ensure()
        search = relevance.TextSearch(idx, tokenize("add a test for the date parser"))
        top = list(search.ranked(exclude=set(), min_shared=2, limit=3))
        rare = {f"l-{i:04d}" for i in range(0, n, 150)}  # equal scores: in id order
        assert len(top) == min(3, len(rare))
        assert {info.name for info in idx.docs(top).values()} <= rare
        # Python-level work: postings scanned, lookups, lessons scored (lists are copied as blobs).
        read = search.work["scanned"] + search.work["lookups"] + search.work["exact"]
        assert read < n  # "test" alone has n postings
        assert read <= 10 * 2 * len(rare)  # a few steps per posting of the rare words


def test_a_word_of_one_lesson_does_not_send_the_search_to_every_lesson_with_a_common_word(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The seed budget spent on a word one lesson has leaves one seed: the budget grows to take in
    the next rarest word, instead of scoring every lesson with "test" (50,000 lessons: 0.9 s)."""
    monkeypatch.setattr(relevance, "SEED_POSTINGS", 64)
    n = 2000
    project = tmp_path / "repo" / ".reasonix" / "lessons"
    project.mkdir(parents=True)
    for i in range(n):
        words = ["test build", "parser" if i % 20 == 0 else "other", "zebra" if i == 7 else "plain"]
        meta = {
            "name": f"l-{i:04d}",
            "description": "how we test",
            "fingerprint": [],
            "captured-at": "2026-01-01",
        }
        body = f"- {' '.join(words)} number{i}"
        (project / f"l-{i:04d}.md").write_bytes(render_lesson(Lesson(meta=meta, body=body)))
    idx = LessonIndex(Locations(root=tmp_path / "repo", home=tmp_path / "home"))
    idx.ensure()
    terms = tokenize("zebra parser test build")
    search = relevance.TextSearch(idx, terms)
    top = list(search.ranked(exclude=set(), min_shared=2, limit=3))
    postings = idx.postings(terms)
    want = bm25.score(terms, postings, n_docs=idx.n_docs, avgdl=idx.avgdl)
    assert top == sorted(want, key=lambda d: (-want[d], d))[:3]
    assert search.work["exact"] <= 101  # the parser lessons tie: each may be third
    assert search.work["scanned"] + search.work["lookups"] < n // 2


def test_the_claude_code_hook_answers_as_with_a_full_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, constants: str
) -> None:
    """The hook path (UserPromptSubmit and PreToolUse, recording each turn) gives the same context
    with the pruned search as with the full read, turn after turn on twin copies of a library."""
    twins = []
    for side in ("new", "old"):
        loc = write_library(tmp_path / side / "repo", tmp_path / side / "home", 300, 7)
        twins.append((loc, {ENV_HOME: str(loc.home)}))
    answered = 0
    for turn, (prompt, files, cmd) in enumerate(prompts(7)):
        payloads: list[dict[str, Any]] = [{"hook_event_name": "UserPromptSubmit", "prompt": prompt}]
        if files or cmd:
            tool = {"file_path": files[0]} if files else {"command": cmd}
            payloads.append({"hook_event_name": "PreToolUse", "tool_input": tool})
        for payload in payloads:
            outputs = []
            for (loc, env), recaller in zip(twins, (Recaller, ReferenceRecaller), strict=True):
                monkeypatch.setattr(claude_recall, "Recaller", recaller)
                hook = Hook({**payload, "session_id": f"s{turn % 3}"}, repo=str(loc.root), env=env, now=NOW)
                handle = claude_recall.on_prompt if "prompt" in payload else claude_recall.on_pre_tool
                outputs.append(handle(hook))
            assert outputs[0] == outputs[1], (turn, payload)
            answered += outputs[0] is not None
    assert answered > 20


def _full_read(idx: LessonIndex, terms: list[str]) -> tuple[dict[int, float], dict[int, int]]:
    """BM25 over every posting of `terms`, and how many non-generic terms each lesson shares."""
    postings = idx.postings(terms)
    scores = bm25.score(terms, postings, n_docs=idx.n_docs, avgdl=idx.avgdl)
    shared: dict[int, int] = {}
    for term, plist in postings.items():
        for doc, _, _ in plist:
            shared[doc] = shared.get(doc, 0) + (term not in GENERIC)
    return scores, shared


def _ranked(scores: dict[int, float], shared: dict[int, int], exclude: set[int]) -> list[int]:
    """The text-only order: lessons sharing two words, best score first, ties by id."""
    return sorted((d for d in scores if d not in exclude and shared[d] >= 2), key=lambda d: (-scores[d], d))


def _full_order(idx: LessonIndex, terms: list[str], exclude: set[int]) -> list[int]:
    return _ranked(*_full_read(idx, terms), exclude)


def _write(project: Path, name: str, body: str) -> None:
    meta = {"name": name, "description": "a note", "fingerprint": [], "captured-at": "2026-01-01"}
    (project / f"{name}.md").write_bytes(render_lesson(Lesson(meta=meta, body=body)))


def test_a_turn_of_common_words_only_reads_the_best_postings_and_keeps_ties_in_id_order(
    tmp_path: Path, constants: str
) -> None:
    """A PreToolUse of tests/foo.test.ts: every word is in most lessons ("tests", "test"), shares
    are nearly flat and many lessons tie. The order is a full read's, ties by id, and at shipped
    constants the search reads a small part of the lists."""
    project = tmp_path / "repo" / ".reasonix" / "lessons"
    project.mkdir(parents=True)
    rng = random.Random(5)
    n = 3000
    for i in range(n):
        words = ["tests"] * rng.choice([1, 1, 1, 2]) + ["test"] * rng.choice([1, 1, 2, 3])
        if i % 4 == 0:
            words = ["tests", "test"]  # a quarter of the lessons tie exactly
        filler = " ".join(f"w{rng.randrange(50)}" for _ in range(rng.randint(4, 40)))
        _write(project, f"l-{i:04d}", f"- {' '.join(words)} {filler if i % 4 else 'same length words'}")
    _write(project, "only-ts", "- ts config")
    idx = LessonIndex(Locations(root=tmp_path / "repo", home=tmp_path / "home"))
    idx.ensure()
    terms = tokenize("tests/foo.test.ts")
    for exclude in (set(), {1, 2, 3}):
        order = _full_order(idx, terms, exclude)
        for limit in (1, 3, 4, 17, 50):
            search = relevance.TextSearch(idx, terms)
            assert list(search.ranked(exclude=exclude, min_shared=2, limit=limit)) == order[:limit]
    # The ties themselves: a limit that ends inside a run of equal scores takes the lowest ids.
    order = _full_order(idx, terms, set())
    scores = relevance.TextSearch(idx, terms).scores(order)
    runs = Counter(scores[d] for d in order)
    tie, size = runs.most_common(1)[0]
    assert size > 100
    cut = next(i for i, d in enumerate(order) if scores[d] == tie) + 10
    search = relevance.TextSearch(idx, terms)
    assert list(search.ranked(exclude=set(), min_shared=2, limit=cut)) == order[:cut]
    if constants == "real":
        search = relevance.TextSearch(idx, terms)
        list(search.ranked(exclude=set(), min_shared=2, limit=3))
        assert search.work["scanned"] + search.work["lookups"] < n // 2, search.work  # each list: n postings


def test_impact_order_still_bounds_after_updates_move_the_average_length(
    tmp_path: Path, constants: str
) -> None:
    """Rows not rewritten by an update keep the impact order of the old average document length;
    their bounds must hold when the average grows (long lessons added) and when it falls."""
    project = tmp_path / "repo" / ".reasonix" / "lessons"
    project.mkdir(parents=True)
    rng = random.Random(9)
    for i in range(400):
        body = " ".join(
            rng.choice(["alpha", "beta", "gamma", "delta", "x", "y", "z"]) for _ in range(rng.randint(10, 30))
        )
        _write(project, f"l-{i:04d}", f"- {body}")
    loc = Locations(root=tmp_path / "repo", home=tmp_path / "home")
    idx = LessonIndex(loc)
    idx.ensure()
    first = idx.avgdl
    prompts_ = ["alpha beta", "alpha beta gamma", "gamma delta x"]
    for step, (count, words) in enumerate(((900, 1), (300, 200))):  # the average falls, then grows
        for j in range(count):
            filler = " ".join(f"f{rng.randrange(999)}" for _ in range(words))
            _write(project, f"m{step}-{j:04d}", f"- {filler}")
        idx.ensure(sweep=True)
        # The rows of alpha, beta, ... were not rewritten: their impact order is the first average's.
        assert (idx.avgdl < first / 1.5) if step == 0 else (idx.avgdl > first * 1.5), (step, first, idx.avgdl)
        for prompt in prompts_:
            terms = tokenize(prompt)
            order = _full_order(idx, terms, set())
            for limit in (1, 5, 40):
                search = relevance.TextSearch(idx, terms)
                assert list(search.ranked(exclude=set(), min_shared=2, limit=limit)) == order[:limit]


def test_common_words_read_as_dense_bytes_give_the_full_reads_order(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, constants: str
) -> None:
    """Common words come as bytes by lesson id (a tf and a share code each): the order is a full
    read's, with a tf past the byte's range, lessons added after a common word's row was written
    (its bytes are shorter than their ids), and the same as with every word kept as arrays."""
    project = tmp_path / "repo" / ".reasonix" / "lessons"
    project.mkdir(parents=True)
    rng = random.Random(11)
    for i in range(600):
        words = ["common"] * rng.choice([1, 1, 2, 5]) + ["build"] * rng.choice([0, 1, 3])
        words += ["parser"] if i % 7 == 0 else []
        words += ["date"] if i % 11 == 0 else []
        filler = " ".join(f"w{rng.randrange(80)}" for _ in range(rng.randint(3, 30)))
        _write(project, f"l-{i:04d}", f"- {' '.join(words)} {filler}")
    _write(project, "many", "- " + " ".join(["common"] * 300) + " parser date")  # tf above TF_CAP
    loc = Locations(root=tmp_path / "repo", home=tmp_path / "home")
    idx = LessonIndex(loc)
    idx.ensure()
    prompts_ = ["common parser", "common build parser date", "date common", "build common w3 parser"]

    def check(expect_dense: bool) -> None:
        dense = 0
        for prompt in prompts_:
            terms = tokenize(prompt)
            for exclude in (set(), {1, 2, 3, 8}):
                order = _full_order(idx, terms, exclude)
                for limit in (1, 4, 30):
                    search = relevance.TextSearch(idx, terms)
                    assert list(search.ranked(exclude=exclude, min_shared=2, limit=limit)) == order[:limit]
            search = relevance.TextSearch(idx, terms)
            list(search.ranked(exclude=set(), min_shared=2, limit=4))
            dense += search.work["dense"] + search.work["bounded"]  # code bounds, read or summed
        assert (dense > 0) == expect_dense

    check(expect_dense=True)
    # Lessons with the rarer words but not "common": its row is not rewritten, its bytes end before
    # their ids; a turn on the same open index keeps the dense rows it read (they must be dropped).
    for j in range(40):
        _write(project, f"n-{j:04d}", f"- parser date build w{j} " + "x " * rng.randint(0, 40))
    idx.ensure(sweep=True)
    assert idx.conn is not None
    short = idx.conn.execute("SELECT length(codes) FROM terms WHERE term = 'common'").fetchone()[0]
    assert short == 601 + 1  # ids 1..601: written before the new lessons were numbered
    check(expect_dense=True)
    # Every word kept as arrays only: the same orders (and no dense reading).
    monkeypatch.setattr(postings, "DENSE_MIN", 10**9)
    (loc.state_dir / "recall-index.sqlite").unlink()
    idx = LessonIndex(loc)
    idx.ensure()
    check(expect_dense=False)


def test_every_lessons_bound_is_at_least_its_score(tmp_path: Path) -> None:
    """The per-lesson bounds that `_bound_every_lesson` sums (a common word's from its share code,
    any other word's from its shares, a tf past the byte's range, lessons added after a common
    word's row was written) are never below a lesson's exact score, and the lessons it lists are
    exactly those whose summed levels reach the threshold's."""
    project = tmp_path / "repo" / ".reasonix" / "lessons"
    project.mkdir(parents=True)
    rng = random.Random(13)
    for i in range(500):
        words = ["common"] * rng.choice([1, 1, 2, 6]) + ["build"] * rng.choice([0, 1, 3])
        words += ["parser"] if i % 9 == 0 else []
        words += ["rarer"] * rng.randint(1, 3) if i % 25 == 0 else []  # 20 lessons: not dense
        filler = " ".join(f"w{rng.randrange(60)}" for _ in range(rng.randint(2, 40)))
        _write(project, f"l-{i:04d}", f"- {' '.join(words)} {filler}")
    _write(project, "many", "- " + " ".join(["common"] * 300) + " parser build")  # tf above TF_CAP
    loc = Locations(root=tmp_path / "repo", home=tmp_path / "home")
    idx = LessonIndex(loc)
    idx.ensure()
    for j in range(30):  # after "common"'s row was written: its bytes end before their ids
        _write(project, f"n-{j:04d}", f"- parser build w{j} " + "x " * rng.randint(0, 30))
    idx.ensure(sweep=True)
    checked = 0
    for term in ["common", "build", "parser", "w3", "rarer"]:  # one at a time: no other's slack
        want, _ = _full_read(idx, [term])
        summed = relevance.TextSearch(idx, [term])._sum_levels()
        assert summed is not None
        level = summed[0].to_bytes(2 * summed[1], "little")
        for doc, score in want.items():
            assert int.from_bytes(level[2 * doc : 2 * doc + 2], "little") * summed[2] >= score, (term, doc)
    for prompt in ["common parser", "common build parser w3 rarer", "build common", "w1 rarer common"]:
        terms = tokenize(prompt)
        want, _ = _full_read(idx, terms)
        search = relevance.TextSearch(idx, terms)
        summed = search._sum_levels()
        assert summed is not None
        lanes, span, unit = summed
        assert search._dense  # "common" (and "build") come as dense bytes, "rarer" as arrays
        level = lanes.to_bytes(2 * span, "little")
        for doc, score in want.items():
            assert int.from_bytes(level[2 * doc : 2 * doc + 2], "little") * unit >= score, (prompt, doc)
            checked += 1
        cut = sorted(want.values(), reverse=True)[min(5, len(want) - 1)]
        found = search._bound_every_lesson(cut - relevance.MARGIN)
        assert found is not None
        assert {d for d, v in want.items() if v >= cut} <= set(found)
    assert checked > 1000


def test_what_an_open_index_keeps_for_searches_is_dropped_when_the_lessons_change(tmp_path: Path) -> None:
    """LessonIndex keeps, while its image stays open, what searches read of it: terms' df and
    skylines, their postings in impact order with their shares, lessons' lengths. Lessons added
    change all of those (df, the lesson count in every weight, the average length): the next
    search on the same LessonIndex gives a fresh index's scores, to the bit."""
    project = tmp_path / "repo" / ".reasonix" / "lessons"
    project.mkdir(parents=True)
    rng = random.Random(13)
    vocab = ["alpha", "beta", "gamma", "delta", "x", "y", "z"]
    for i in range(300):
        _write(project, f"l-{i:04d}", "- " + " ".join(rng.choice(vocab) for _ in range(rng.randint(5, 30))))
    loc = Locations(root=tmp_path / "repo", home=tmp_path / "home")
    kept = LessonIndex(loc)
    kept.ensure()
    terms = tokenize("alpha beta gamma")

    def answer(idx: LessonIndex) -> tuple[list[int], dict[int, float]]:
        search = relevance.TextSearch(idx, terms)
        order = list(search.ranked(exclude=set(), min_shared=2, limit=20))
        # Every lesson's exact score too (lengths of lessons the search did not read).
        return order, relevance.TextSearch(idx, terms).scores(range(1, idx.n_docs + 1))

    for _ in range(2):
        answer(kept)
    assert kept._orders  # what the test is about was kept
    assert kept._stats
    assert kept._lengths
    for j in range(200):  # shorter lessons, "alpha" and "beta" in most: new df, weights, average
        _write(project, f"m-{j:04d}", "- alpha beta " + "alpha " * rng.randint(0, 3) + f"w{j}")
    kept.ensure(sweep=True)
    fresh_index = LessonIndex(loc)
    fresh_index.ensure()
    expected = answer(fresh_index)
    assert expected[0] == _full_order(fresh_index, terms, set())[:20]
    assert answer(kept) == expected
    # Built anew (the file lost, a lesson removed): every lesson after it is numbered one lower.
    (loc.state_dir / "recall-index.sqlite").unlink()
    (project / "l-0000.md").unlink()
    kept.ensure(sweep=True)
    fresh_index = LessonIndex(loc)
    fresh_index.ensure()
    assert answer(kept) == answer(fresh_index)
