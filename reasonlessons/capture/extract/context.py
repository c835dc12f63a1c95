"""What the extractor needs to know about where a session ran: the repo, the session's cwd, and how
to turn log locations and quoted output into text fit for a committed lesson.

A session may have run on another machine or in another checkout of the repository: a Windows path
(`C:\\Users\\me\\proj\\todo-app`) or its Git Bash form (`/c/Users/me/proj/todo-app`), a Claude Code
worktree (`<repo>/.claude/worktrees/<name>/`), a `git worktree` or a clone in `/tmp`. Its checkout
root is found from the cwd (the part under it that exists in the repository is the sub-project it
ran in), paths under that root become repository-relative, and any other absolute path is cut down
to the repository path it names or to its file name: no lesson carries a path of someone's machine.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from reasonlessons.capture.extract.fingerprints import RepoFacts
from reasonlessons.safety.redact import anonymize_paths
from reasonlessons.sessions.edits import relative

_REF = re.compile(r"^(.*?)([:#]\d+)?$", re.DOTALL)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_WORKTREE = re.compile(r"^(.*?/\.claude/worktrees/[^/]+)(?:/(.*))?$")
_DRIVE = re.compile(r"^([A-Za-z]):(?=/|$)")
# Absolute paths of a machine: homes, temp and volume folders, Windows drives, Git Bash drives.
_MACHINE_PATH = re.compile(
    r"(?<![\w/.~-])(?:[A-Za-z]:[\\/]|/(?:[a-z]/)?(?:home|Users|tmp|private|var|mnt|opt|root|srv|Volumes|workspaces?|"
    r"usr/local|data|builds?)/|~/)[^\s\"'`<>|;,()\[\]{}]*"
)
_MANIFESTS = (
    "package.json", "go.mod", "pyproject.toml", "Cargo.toml", "mix.exs", "Gemfile", "composer.json",
    "setup.py", "pom.xml", "build.gradle", "build.gradle.kts", "deno.json", "Makefile", "tsconfig.json",
)  # fmt: skip


def canonical(path: str) -> str:
    """One spelling of a path for comparing: `/` separators, `C:` as `/c`, no trailing slash."""
    text = path.replace("\\", "/")
    text = _DRIVE.sub(lambda m: "/" + m.group(1).lower(), text)
    if re.match(r"^/[A-Za-z]/", text):
        text = text[:2].lower() + text[2:]
    return text.rstrip("/") or "/"


def checkout(cwd: str, root: Path, is_dir: Callable[[str], bool]) -> tuple[str, str]:
    """(the session's checkout root, its cwd relative to it as a prefix such as `todo-app/`).

    The cwd under the repository itself, or in a Claude Code worktree of it, maps directly; a cwd
    elsewhere (another machine, a `git worktree`, a clone) is placed by the longest tail of it that
    is a project directory of the repository (one holding a manifest), else it is the root.
    """
    here = canonical(cwd)
    worktree = _WORKTREE.match(here)
    if worktree is not None:
        return worktree.group(1), _prefix(worktree.group(2) or "")
    home = canonical(str(root))
    if here == home or here.startswith(home + "/"):
        return home, _prefix(here[len(home) + 1 :])
    parts = [p for p in here.split("/") if p]
    for start in range(1, len(parts)):
        tail = "/".join(parts[start:])
        if is_dir(tail) and any(_has_file(root, f"{tail}/{m}") for m in _MANIFESTS):
            return "/" + "/".join(parts[:start]), tail + "/"
    return here, ""


def _has_file(root: Path, rel: str) -> bool:
    return (root / rel).is_file()


def _prefix(rel: str) -> str:
    rel = rel.strip("/")
    return f"{rel}/" if rel and ".." not in rel.split("/") else ""


@dataclass
class SessionPlace:
    """Where one session ran: agent, session id, repository facts and the agent's cwd, and how to
    map the paths it logged to ones fit for a committed lesson."""

    agent: str
    session: str
    facts: RepoFacts
    cwd: str | None = None
    _files: dict[str, str] = field(default_factory=dict, init=False, repr=False, compare=False)
    _place: tuple[str, str] | None = field(default=None, init=False, repr=False, compare=False)

    @property
    def root(self) -> Path:
        return self.facts.root

    @property
    def base(self) -> str:
        """The session's cwd relative to the repo root, as a prefix (`todo-app/`), '' at the root."""
        return self._checkout()[1]

    def _checkout(self) -> tuple[str, str]:
        if self._place is None:
            self._place = checkout(self.cwd, self.root, self.facts.is_dir) if self.cwd else ("", "")
        return self._place

    def directory(self, workdir: str | None) -> str:
        """Where a command ran, relative to the repository root (`todo-app/web/`), '' at the root."""
        parts = [p for p in (self.base + (workdir or "").strip()).replace("\\", "/").split("/") if p]
        if not parts or any(p == ".." or ":" in p for p in parts) or (workdir or "").startswith(("/", "~")):
            return ""
        return "/".join(p for p in parts if p != ".") + "/" if any(p != "." for p in parts) else ""

    def clean(self, text: str) -> str:
        """Quoted output made safe to commit: paths repository-relative (or cut to the repository path
        or file name they name), home dirs as `~`, one line."""
        if "/" in text or "\\" in text:
            text = _MACHINE_PATH.sub(lambda m: self.local(m.group(0)), self._relative(text))
        text = _CONTROL.sub(" ", anonymize_paths(text))
        return " ".join(text.split())[:300]

    def _relative(self, text: str) -> str:
        """Paths under the checkout root (or the repository) made repository-relative."""
        roots = {r for r in (self._checkout()[0], str(self.root)) if r and r != "/"}
        for found in sorted(roots, key=len, reverse=True):
            for form in _spellings(found):
                text = text.replace(form + "/", "")
                if form + "\\" in text:  # a Windows path: the rest of it gets `/` too
                    pattern = re.escape(form + "\\") + r"([^\s\"'`<>|]*)"
                    text = re.sub(pattern, lambda m: m.group(1).replace("\\", "/"), text)
        return text

    def local(self, path: str) -> str:
        """An absolute path of some machine as the repository path it names, else its file name."""
        parts = [p for p in canonical(path).split("/") if p]
        for start in range(1, len(parts)):
            tail = "/".join(parts[start:])
            if self.facts.is_file(tail) or self.facts.is_dir(tail):
                return tail
        return parts[-1] if parts and parts[-1] not in ("~", "") else "…"

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


def _spellings(root: str) -> list[str]:
    """A checkout root as logs spell it: as found, POSIX, Git Bash (`/c/...`) and Windows (`C:\\...`)."""
    forms = {root.rstrip("/\\"), canonical(root)}
    drive = re.match(r"^/([a-z])(/.*)?$", canonical(root))
    if drive is not None:
        rest = drive.group(2) or ""
        for letter in (drive.group(1), drive.group(1).upper()):
            forms.add(f"{letter}:{rest}")
            forms.add(f"{letter}:{rest.replace('/', chr(92))}")
    return sorted(forms, key=len, reverse=True)
