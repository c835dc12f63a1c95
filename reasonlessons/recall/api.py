"""`recall`: the fresh, relevant lessons for one agent turn, within a token budget (docs/recall.md).

Pipeline: classify the turn -> triggers and BM25 over the index -> drop what is not live (inactive,
superseded, shadowed, expired, wrong task type, for another agent, already injected this session,
archived) -> fuse ranks (confidence, decayed by the days since it was last confirmed, is one of
them) -> walk the ranking, checking staleness only for lessons about to be returned, until the
budget or top-k is filled -> count the injections. Defaults (budget, top-k, the task types that
get lessons, archive floor, decay) come from config.toml (store/config.py). Integrations (hooks,
MCP, export) call `recall()` or keep a `Recaller` alive between turns.
"""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reasonlessons import fingerprint, lessons, store
from reasonlessons.constants import DEFAULT_BUDGET, SCOPE_GLOBAL, TASK_TYPES
from reasonlessons.errors import ReasonLessonsError, UsageError
from reasonlessons.recall import rank, render
from reasonlessons.recall.classify import classify
from reasonlessons.recall.counters import Counters, lesson_key
from reasonlessons.recall.index import DocInfo, DocText, LessonIndex, file_changed
from reasonlessons.recall.match import Query, for_agent, match_triggers
from reasonlessons.recall.relevance import TextSearch
from reasonlessons.recall.result import RecalledLesson, RecallResult
from reasonlessons.store import confidence, config, counts
from reasonlessons.store.config import Config
from reasonlessons.store.counts import Record
from reasonlessons.support.tokens import tokenize

if TYPE_CHECKING:
    from reasonlessons.lessons.locations import Locations
    from reasonlessons.lessons.model import Lesson
    from reasonlessons.store.project import Project

__all__ = ["DEFAULT_BUDGET", "DriftCheck", "RecallResult", "RecalledLesson", "Recaller", "recall"]

DriftCheck = Callable[["Lesson"], Sequence[Any]]

MAX_BUDGET = 100_000
MAX_LESSONS = config.DEFAULTS.top_k
DAY = 86_400.0
# Lessons without a matching trigger need this much shared vocabulary, and only a few get in.
MIN_SHARED_TERMS = 2
MAX_TEXT_ONLY = 3
TEXT_ONLY_POOL = 50
MAX_DRIFT_CHECKS = 50
# A huge prompt is read at its head and tail: instructions sit there, pasted logs in between.
PROMPT_HEAD = 48 * 1024
PROMPT_TAIL = 16 * 1024
MAX_QUERY_TERMS = 256


def clip_prompt(prompt: str) -> str:
    if len(prompt) <= PROMPT_HEAD + PROMPT_TAIL:
        return prompt
    return prompt[:PROMPT_HEAD] + "\n" + prompt[-PROMPT_TAIL:]


class Recaller:
    """Recall for one repository; keep one alive across turns to reuse the open index.

    Staleness comes from `drift` when given (tests, callers with their own checker), else from the
    Project's checker, else from a fingerprint Checker made for each call: a Checker memoizes facts
    for its lifetime, so a long-lived Recaller must not keep one across turns.

    The index and the counters live in the local state directory; with `create_state=False` (the
    `recall` command: reading never writes) they are kept there only when it already exists.
    """

    def __init__(
        self, target: Project | Locations, *, drift: DriftCheck | None = None, create_state: bool = True
    ) -> None:
        project = target if hasattr(target, "store") else None
        self.loc: Locations = project.loc if project is not None else target  # type: ignore[union-attr,assignment]
        self.create_state = create_state
        self.index = LessonIndex(self.loc, create_state=create_state)
        self._project: Any = project
        self._given_drift = drift
        self._drift: DriftCheck | None = None
        self._checker: Any = None

    def recall(
        self,
        prompt: str = "",
        *,
        files: Sequence[str] = (),
        cmd: str | None = None,
        budget: int | None = None,
        task_type: str | None = None,
        session: str | None = None,
        now: dt.datetime | None = None,
        record: bool = True,
        agent: str | None = None,
    ) -> RecallResult:
        """The lessons for one turn. `task_type=None` classifies the prompt; unsure means none.

        `budget=None` takes config's `recall.budget`. `agent` (claude-code, codex, reasonix...) is who
        asks: lessons limited to other agents are left out, and so are all limited ones when None."""
        settings = config.load(self.loc)
        budget = settings.budget if budget is None else budget
        if not isinstance(budget, int) or not 1 <= budget <= MAX_BUDGET:
            raise UsageError(f"--budget {budget!r}: use a whole number of tokens from 1 to {MAX_BUDGET}")
        if task_type is not None and task_type not in TASK_TYPES:
            raise UsageError(f"--task-type {task_type!r}: use one of {', '.join(TASK_TYPES)}")
        now = now or dt.datetime.now(dt.UTC)
        text = clip_prompt(prompt or "")
        task = task_type or classify(text, files=len(files), has_cmd=bool(cmd))
        result = RecallResult(task)
        if task is None or task not in settings.task_types:
            return result
        query = Query.build(text, files, cmd, root=str(self.loc.root))
        self.index.ensure()
        if self.index.empty:
            return result
        counters = Counters.load(self.loc.state_dir)
        seen = counters.seen(session)
        for attempt in range(3):
            try:
                chosen, changed = self._select(
                    query, task, now, seen, budget, verify=attempt < 2, settings=settings, agent=agent
                )
            except sqlite3.DatabaseError:
                self.index.reset()  # a damaged cache is rebuilt, never fatal
                continue
            if not changed:
                break
            self.index.ensure(sweep=True)
        else:
            chosen = []
        result.lessons = chosen
        result.warnings.extend(self.index.warnings)
        self.index.warnings.clear()
        if record and chosen:
            self._count(counters, chosen, now=now, session=session, warnings=result.warnings)
        self._save_checker(result.warnings)
        return result

    def _select(
        self,
        query: Query,
        task: str,
        now: dt.datetime,
        seen: set[str],
        budget: int,
        *,
        verify: bool,
        settings: Config = config.DEFAULTS,
        agent: str | None = None,
    ) -> tuple[list[RecalledLesson], bool]:
        """(chosen lessons, False), or ([], True) when a chosen lesson's file changed under us."""
        cands, infos = self._candidates(query, task, now, seen, agent)
        if not cands:
            return [], False
        cands = self._confident(cands, infos, counts.counts(self.loc.state_dir), now, settings)
        chosen: list[RecalledLesson] = []
        used = 0
        for checks, cand in enumerate(rank.fuse(cands)):
            if len(chosen) >= settings.top_k or checks >= MAX_DRIFT_CHECKS:
                break
            info, doc = infos[cand.doc], self.index.text(cand.doc)
            if doc is None:
                continue
            if verify and file_changed(info.path, doc.sig):
                return [], True
            if self._is_stale(info, doc):
                continue
            text = render.lesson_text(doc.description, doc.body)
            cost = rank.estimate_tokens(text)
            if not rank.within_budget(used, cost, budget=budget, taken=len(chosen)):
                break
            chosen.append(
                RecalledLesson(
                    cand.name,
                    cand.scope,
                    text,
                    cost,
                    cand.caution,
                    info.path,
                    cand.score,
                    tuple(cand.reasons),
                )
            )
            used += cost
        return chosen, False

    @staticmethod
    def _confident(
        cands: list[rank.Candidate],
        infos: dict[int, DocInfo],
        records: dict[str, Record],
        now: dt.datetime,
        settings: Config,
    ) -> list[rank.Candidate]:
        """The candidates that are not archived, with the decayed confidence ranking reads."""
        kept = []
        for cand in cands:
            info = infos[cand.doc]
            record = records.get(lesson_key(cand.scope, cand.name)) or Record()
            value = record.confidence(info.prior)
            if confidence.archived(value, settings.archive_floor):
                continue  # its claims were contradicted (reasonlessons/learning/lifecycle.py)
            since = _timestamp(record.last_confirmed or info.recency)
            days = None if since is None else (now.timestamp() - since) / DAY
            cand.confidence = confidence.ranking(value, days, settings.decay_days)
            cand.caution = record.caution
            kept.append(cand)
        return kept

    def _candidates(
        self, query: Query, task: str, now: dt.datetime, seen: set[str], agent: str | None = None
    ) -> tuple[list[rank.Candidate], dict[int, DocInfo]]:
        idx = self.index
        specificity, reasons = match_triggers(idx, query, now=now.timestamp())
        terms = list(dict.fromkeys(tokenize(query.prompt) + tokenize(query.haystack)))[:MAX_QUERY_TERMS]
        text = TextSearch(idx, terms)
        scores = text.scores(specificity)
        infos: dict[int, DocInfo] = {}
        superseded: set[str] = set()
        shadowed: set[str] = set()

        def fetch(docs: list[int]) -> None:
            found = idx.docs(docs)
            infos.update(found)
            names = {info.name for info in found.values()}
            superseded.update(idx.superseded(names))
            shadowed.update(idx.project_names({i.name for i in found.values() if i.scope == SCOPE_GLOBAL}))

        deadline = now.timestamp()

        def live(info: DocInfo) -> bool:
            return not (
                info.inactive
                or info.name in superseded
                or (info.scope == SCOPE_GLOBAL and info.name in shadowed)
                or (info.expires is not None and info.expires <= deadline)
                or task not in info.task_types
                or not for_agent(info.agents, agent)
                or lesson_key(info.scope, info.name) in seen
                or (bool(info.flags) and not self._trusted(info))
            )

        def candidate(doc: int, relevance: float) -> rank.Candidate:
            info = infos[doc]
            cand = rank.Candidate(doc, info.name, info.scope, info.recency)
            cand.specificity = specificity.get(doc)
            cand.relevance = relevance
            cand.reasons = reasons.get(doc, ["text"])
            return cand

        fetch(list(specificity))
        cands = [
            candidate(doc, scores.get(doc, 0.0)) for doc in specificity if doc in infos and live(infos[doc])
        ]
        # Lessons no trigger brought in, best text first: the first few live ones get in (the
        # order is read lazily, so a turn reads only as far as it admits).
        admitted = 0
        pool = text.ranked(exclude=specificity, min_shared=MIN_SHARED_TERMS, limit=TEXT_ONLY_POOL)
        for doc in pool:
            if doc not in infos:
                fetch([doc])
            info = infos.get(doc)
            if info is None or not live(info):
                continue
            cands.append(candidate(doc, text.score_of(doc)))
            admitted += 1
            if admitted >= MAX_TEXT_ONLY:
                break
        return cands, infos

    def _trusted(self, info: DocInfo) -> bool:
        """A flagged lesson is recalled only once a human trusted this very content (trust.py)."""
        trusted = store.trust.trusted_hashes(self.loc, info.scope)
        return trusted.get(store.trust.key(info.scope, info.name)) == info.content

    def _is_stale(self, info: DocInfo, doc: DocText) -> bool:
        """Stale, or a global lesson that does not apply to this repository (fingerprint/applies.py)."""
        lesson = lessons.model.Lesson(meta=doc.meta, body=doc.body, path=Path(info.path), scope=info.scope)
        try:
            if self._drift_check()(lesson):
                return True
            checker = self._checker
            return info.scope == SCOPE_GLOBAL and checker is not None and bool(checker.applies(lesson))
        except (ReasonLessonsError, OSError, ValueError):
            return True  # a lesson whose facts cannot be checked is not vouched for

    def _drift_check(self) -> DriftCheck:
        """The staleness check for this call, built on first use (most turns check few lessons)."""
        if self._drift is None:
            if self._given_drift is not None:
                self._drift = self._given_drift
            elif self._project is not None:
                self._drift = self._project.drift
                self._checker = getattr(self._drift, "__self__", None)
            else:
                self._checker = fingerprint.Checker(self.loc.root, state_dir=self.loc.existing_state_dir())
                self._drift = self._checker.drift
        return self._drift

    def _save_checker(self, warnings: list[str]) -> None:
        """Persist what the checker learned (its stat-keyed cache), then forget it for this call."""
        checker, self._checker, self._drift = self._checker, None, None
        save = getattr(checker, "save", None)
        if callable(save):
            try:
                save()
            except (ReasonLessonsError, OSError) as exc:
                warnings.append(f"fingerprint cache not saved: {exc}")
        close = getattr(checker, "close", None)
        if callable(close) and self._project is None:  # a Project closes its own checker
            close()

    def _count(
        self,
        counters: Counters,
        chosen: list[RecalledLesson],
        *,
        now: dt.datetime,
        session: str | None,
        warnings: list[str],
    ) -> None:
        keys = [lesson_key(c.scope, c.name) for c in chosen]
        tokens = {lesson_key(c.scope, c.name): c.tokens for c in chosen}
        counters.record(keys, now=now, session=session, tokens=tokens)
        if not self.create_state and self.loc.existing_state_dir() is None:
            return  # nothing to count into: reading never creates the state directory
        try:
            self.loc.ensure_state_dir()
            rebuilt = counters.flush()  # one append; the document is read only when it is due
        except (ReasonLessonsError, OSError) as exc:
            warnings.append(f"recall counters not saved: {exc}")
            return
        if rebuilt:
            warnings.append(f"{counters.path} was unreadable; rebuilt it (earlier hit counts are lost)")


def recall(
    target: Project | Locations,
    prompt: str = "",
    *,
    files: Sequence[str] = (),
    cmd: str | None = None,
    budget: int | None = None,
    task_type: str | None = None,
    session: str | None = None,
    now: dt.datetime | None = None,
    drift: DriftCheck | None = None,
    record: bool = True,
    agent: str | None = None,
    create_state: bool = True,
) -> RecallResult:
    """One-shot recall for a repository (see Recaller for keeping state between turns)."""
    return Recaller(target, drift=drift, create_state=create_state).recall(
        prompt,
        files=files,
        cmd=cmd,
        budget=budget,
        task_type=task_type,
        session=session,
        now=now,
        record=record,
        agent=agent,
    )


def _timestamp(value: str | None) -> float | None:
    if not value:
        return None
    try:
        when = dt.datetime.fromisoformat(value)
    except ValueError:
        return None
    return (when if when.tzinfo else when.replace(tzinfo=dt.UTC)).timestamp()
