"""A `/lesson` writ in a prompt, recorded as a candidate the moment it is submitted.

A writ is the user's own intent: it bypasses the tool-call gate, but not redaction (fail closed:
a writ whose text cannot be made clean is not written). The Claude Code hook calls this on a
prompt that holds one, so the agent hears "recorded candidate lesson `<name>`" in that very turn;
capturing the session later finds the same writ and only adds its evidence. Writs an agent writes
in its replies are captured with the session and confirmed on the next prompt (capture/notices.py).
"""

from __future__ import annotations

from reasonlessons.capture import gates
from reasonlessons.capture.extract.context import SessionPlace
from reasonlessons.capture.extract.fingerprints import RepoFacts
from reasonlessons.capture.extract.heuristic import writ
from reasonlessons.capture.reduce.messages import writs
from reasonlessons.capture.reduce.observations import Writ
from reasonlessons.capture.writer import CandidateWriter
from reasonlessons.safety.redact import redact
from reasonlessons.store.project import Project

WRITTEN = "written"


def record_prompt(project: Project, text: str, *, agent: str, session: str, ref: str) -> list[str]:
    """Write the writs in one prompt as candidates; the names written (or already saying so)."""
    found = writs(text)
    if not found:
        return []
    place = SessionPlace(agent, session or "prompt", RepoFacts(project.loc.root))
    writer = CandidateWriter(project)
    names: list[str] = []
    for title, body in found:
        draft = writ(Writ(redact(title).text, redact(body).text, ref), place)
        if draft is None:
            continue
        kept, _ = gates.prepare([draft])
        for item in kept:
            outcome = writer.offer(item)
            if outcome.action in (WRITTEN, "updated", "unchanged"):
                names.append(outcome.name)
    writer.flush()
    return list(dict.fromkeys(names))
