"""What the extractor needs to know about where a session ran: the repo, the session's cwd, and how
to turn log locations and quoted output into text fit for a committed lesson."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from reasonlessons.capture.extract.fingerprints import RepoFacts
from reasonlessons.safety.redact import anonymize_paths
from reasonlessons.sessions.edits import relative

_REF = re.compile(r"^(.*?)([:#]\d+)?$", re.DOTALL)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


@dataclass
class SessionPlace:
    """Where one session ran: agent, session id, repository facts and the agent's cwd, and how to
    map the paths it logged to ones fit for a committed lesson."""

    agent: str
    session: str
    facts: RepoFacts
    cwd: str | None = None
    _files: dict[str, str] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def root(self) -> Path:
        return self.facts.root

    @property
    def base(self) -> str:
        """The session's cwd relative to the repo root, as a prefix (`todo-app/`), '' at the root."""
        if not self.cwd:
            return ""
        rel = relative(self.cwd, (str(self.root),))
        return f"{rel}/" if rel else ""

    def directory(self, workdir: str | None) -> str:
        """Where a command ran, relative to the repository root (`todo-app/web/`), '' at the root."""
        parts = [p for p in (self.base + (workdir or "").strip()).replace("\\", "/").split("/") if p]
        if not parts or any(p == ".." or ":" in p for p in parts) or (workdir or "").startswith(("/", "~")):
            return ""
        return "/".join(p for p in parts if p != ".") + "/" if any(p != "." for p in parts) else ""

    def clean(self, text: str) -> str:
        """Quoted output made safe to commit: repo/cwd paths relative, home dirs as `~`, one line."""
        for prefix in sorted({p for p in (self.cwd, str(self.root)) if p}, key=len, reverse=True):
            text = text.replace(prefix.rstrip("/\\") + "/", "").replace(prefix.rstrip("/\\") + "\\", "")
        text = _CONTROL.sub(" ", anonymize_paths(text))
        return " ".join(text.split())[:300]

    def ref(self, raw_ref: str) -> str:
        """A log location without absolute paths: repo-relative inside the repo, else the file name."""
        match = _REF.match(raw_ref)
        path, suffix = (match.group(1), match.group(2) or "") if match else (raw_ref, "")
        rel = self._files.get(path)
        if rel is None:  # a session's refs are lines of one or two files: work each file out once
            rel = relative(path, (str(self.root),)) if Path(path).is_absolute() else path
            if rel is None or rel.startswith(".."):
                rel = re.split(r"[\\/]", path)[-1]
            self._files[path] = rel
        return anonymize_paths(rel + suffix)

    def evidence(self, *raw_refs: str) -> list[dict[str, str]]:
        """Evidence entries ({agent, session, ref}) for log locations, without repeats."""
        out: list[dict[str, str]] = []
        for raw in raw_refs:
            if not raw:
                continue
            entry = {"agent": self.agent, "session": self.session, "ref": self.ref(raw)}
            if entry not in out:
                out.append(entry)
        return out
