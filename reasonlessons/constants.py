"""Names, locations, versions and exit codes: the one place they are spelled."""

from __future__ import annotations

import re

TYPE_CHECKING = False  # as typing.TYPE_CHECKING (mypy reads it so), without importing typing: ~3 ms a turn
if TYPE_CHECKING:
    from typing import Final

APP_NAME: Final = "reasonlessons"

# Directory layout (docs/concepts.md#scopes).
REASONIX_DIR: Final = ".reasonix"
LESSONS_DIR: Final = "lessons"
CANDIDATES_DIR: Final = "_candidates"
# Where `prune` moves lessons it retires, inside a scope directory; never read as lessons.
ARCHIVE_DIR: Final = "_archive"
# Local, git-ignored state lives in one folder so a single .gitignore covers it.
STATE_DIR: Final = "state"
LESSON_SUFFIX: Final = ".md"
# Settings beside the lessons of a scope (docs/learning.md#configuration); not a lesson file.
CONFIG_FILE: Final = "config.toml"

ENV_HOME: Final = "REASONIX_HOME"
DEFAULT_HOME_DIRNAME: Final = ".reasonix"

NAME_RE: Final = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")

# Lesson files larger than this are refused unread: lessons are a few lines of advice.
MAX_LESSON_BYTES: Final = 256 * 1024

# Version of every JSON state document we own; bumped on incompatible changes.
STATE_SCHEMA_VERSION: Final = 1

SCOPE_PROJECT: Final = "project"
SCOPE_GLOBAL: Final = "global"
SCOPE_CANDIDATE: Final = "candidate"
SCOPES: Final = (SCOPE_PROJECT, SCOPE_GLOBAL, SCOPE_CANDIDATE)

STATUS_ACTIVE: Final = "active"
STATUS_STALE: Final = "stale"
STATUS_EXPIRED: Final = "expired"
STATUS_SUPERSEDED: Final = "superseded"
STATUS_DEPRECATED: Final = "deprecated"

TASK_TYPES: Final = ("code-gen", "exploration", "qa", "other")

# Agents a lesson may be limited to (`agents: [claude-code]`): a name, or a glob over names
# (`reasonix*`). Recall and every integration pass theirs; `agent_family` folds format versions.
AGENTS: Final = ("claude-code", "codex", "reasonix", "aider", "swe-agent", "cursor")
AGENT_RE: Final = re.compile(r"^[a-z*][a-z0-9*?._-]{0,63}$")

# Recall's token budget (tokens estimated as characters/4) when the caller gives none: the CLI, the
# library and the Claude Code hook.
DEFAULT_BUDGET: Final = 200

# Exit codes (docs/concepts.md#exit-codes).
EXIT_OK: Final = 0
EXIT_ERROR: Final = 1
EXIT_USAGE: Final = 2
EXIT_STALE: Final = 3
EXIT_INTERRUPTED: Final = 130
