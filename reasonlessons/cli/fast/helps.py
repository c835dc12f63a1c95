"""What every command's `--help` says besides its options: one line saying what it does, an example,
and its exit codes. One table for both front ends (Typer's epilog, argparse's epilog), so every
`--help` reads the same way; tests/cli/test_help.py checks each command has its entry.

Strings only: the per-turn fast paths import this when they build their argparse parser.
"""

from __future__ import annotations

from typing import TypedDict

# A summary fits one line of an 80-column `--help`, indented.
MAX_SUMMARY = 74


class Help:
    """The help of one command: `summary` (one line), `examples` (command lines), `exits`."""

    __slots__ = ("summary", "examples", "exits")

    def __init__(self, summary: str, examples: tuple[str, ...], exits: str) -> None:
        self.summary = summary
        self.examples = examples
        self.exits = exits

    def epilog(self) -> str:
        """Examples and exit codes, laid out the same by Click (its `\\b` keeps the lines) and argparse."""
        label = "Example:" if len(self.examples) == 1 else "Examples:"
        lines = "\n".join(f"  {example}" for example in self.examples)
        return f"\b\n{label}\n{lines}\n\n\b\nExit codes: {self.exits}"

    def plain_epilog(self) -> str:
        return self.epilog().replace("\b\n", "")


_USAGE = "2 usage error"
_REPO = "2 usage error (also outside a repository)"

HELPS = {
    "add": Help(
        "Write a lesson by hand, recording its fingerprint now.",
        (
            'reasonlessons add testing -d "Test runner" -f package.json#scripts.test -f tests/ '
            "--file-trigger 'tests/**' --body \"- npm test\"",
        ),
        f"0 added; 1 error (the name is taken in that scope); {_USAGE} (a fingerprint entry names nothing)",
    ),
    "capture": Help(
        "Read agent session logs and write new candidate lessons.",
        ("reasonlessons capture", "reasonlessons capture ~/.reasonix/sessions/ --json"),
        f"0 captured (also: nothing new); 1 a named log is missing or unreadable (the others are still "
        f"captured); {_USAGE}",
    ),
    "sources": Help(
        "List this repository's session logs that capture finds, and where from.",
        ("reasonlessons sources --json",),
        f"0 listed (also: none found); 1 error; {_REPO}",
    ),
    "list": Help(
        "List lessons with their scope and status.",
        ("reasonlessons list --scope candidates --json",),
        f"0 listed; 1 error; {_REPO}",
    ),
    "show": Help(
        "Show one lesson, and what drifted if it is stale.",
        ("reasonlessons show testing --json",),
        f"0 shown; 1 no such lesson; {_REPO}",
    ),
    "promote": Help(
        "Move a candidate into the project scope (or the global one).",
        ("reasonlessons promote testing", "reasonlessons promote --auto --after 7d"),
        f"0 promoted (also: nothing to promote); 1 no such candidate, or a different lesson has the name; "
        f"{_USAGE}",
    ),
    "reject": Help(
        "Drop a candidate and remember it, so capture does not propose it again.",
        ("reasonlessons reject noisy-idea",),
        f"0 rejected; 1 no such candidate; {_USAGE}",
    ),
    "rm": Help(
        "Delete a promoted lesson (candidates are rejected instead).",
        ("reasonlessons rm testing",),
        f"0 removed; 1 no such lesson; {_USAGE}",
    ),
    "prune": Help(
        "Archive expired, deactivated, long-stale, dead, duplicate, unused lessons.",
        ("reasonlessons prune --dry-run", "reasonlessons prune --scope all --unused-after 60d"),
        f"0 done (also: nothing to prune); 1 error; {_REPO}",
    ),
    "search": Help(
        "Find lessons whose name, description, body or triggers hold the words.",
        ('reasonlessons search "vitest watch" --json',),
        f"0 searched (also: no match); 1 error; {_REPO}",
    ),
    "deprecate": Help(
        "Mark a lesson deprecated, optionally naming the lesson that replaces it.",
        ("reasonlessons deprecate old-test-runner --by test-runner",),
        f"0 deprecated; 1 no such lesson; {_USAGE}",
    ),
    "merge": Help(
        "Combine two lessons into one; the old names become its supersedes.",
        ("reasonlessons merge vitest-runner test-command --into testing",),
        f"0 merged; 1 no such lesson, or the new name is taken; {_USAGE}",
    ),
    "untrigger": Help(
        "Remove one trigger (glob, command pattern or keyword) from a lesson.",
        ("reasonlessons untrigger testing 'lib/**' --kind files",),
        f"0 removed; 1 no such lesson; {_USAGE} (also: the lesson has no such trigger)",
    ),
    "edit": Help(
        "Change a lesson in place: text, fingerprint, triggers, task types, expiry.",
        ("reasonlessons edit testing --keyword vitest --expires 90d",),
        f"0 edited (also: nothing to change); 1 no such lesson, or it would duplicate another; {_USAGE}",
    ),
    "validate": Help(
        "Check every lesson and lint the library; each finding has a stable code.",
        ("reasonlessons validate --json",),
        f"0 no errors (warnings allowed); 1 errors found; {_REPO}",
    ),
    "trust": Help(
        "Let recall hand a flagged lesson to agents, after you read it.",
        ("reasonlessons trust testing",),
        f"0 trusted (or revoked); 1 no such lesson; {_USAGE}",
    ),
    "recall": Help(
        "Print the fresh, relevant lessons for a task, within a token budget.",
        ('reasonlessons recall "add a test for peek" --file tests/queue.test.ts --json',),
        f"0 ok (also when nothing is recalled); 1 error; {_REPO}",
    ),
    "stale": Help(
        "List the stale lessons and why: each drifted entry, was → now.",
        ("reasonlessons stale --check",),
        f"0 nothing stale (or no --check); 3 with --check: a lesson is stale; 1 error; {_REPO}",
    ),
    "refresh": Help(
        "Re-record a lesson's fingerprint after a human confirmed it still holds.",
        ("reasonlessons refresh testing", "reasonlessons refresh --all --dry-run"),
        "0 refreshed (also: nothing to do, --dry-run); 1 error, or you answered no; 2 usage error (also "
        "outside a repository, a malformed entry, or more than one lesson without a terminal or --yes)",
    ),
    "watch": Help(
        "Keep staleness live and capture sessions as they end, until Ctrl-C.",
        ("reasonlessons watch --json",),
        f"0 stopped (Ctrl-C, SIGTERM); 1 error (another daemon watches this repository); {_USAGE}; "
        "130 a second Ctrl-C",
    ),
    "hook": Help(
        "Answer one agent hook: lessons, loop warnings, capture at session end.",
        (
            'echo \'{"hook_event_name": "UserPromptSubmit", "prompt": "add a test"}\' | '
            "reasonlessons hook claude-code",
        ),  # fmt: skip
        "0 always, also on internal errors (the agent is never blocked); 1 usage error (never 2, which "
        "Claude Code reads as block)",
    ),
    "install": Help(
        "Add the reasonlessons hooks to an agent's settings, keeping the rest.",
        ("reasonlessons install claude-code --local", "reasonlessons install reasonix"),
        f"0 installed or removed (also: nothing changed); 1 the settings' hooks are not the documented "
        f"shape; {_USAGE}",
    ),
    "uninstall": Help(
        "Remove the reasonlessons hooks from an agent's settings; the rest stays.",
        ("reasonlessons uninstall claude-code",),
        f"0 removed (also: nothing to remove); 1 the settings' hooks are not the documented shape; {_USAGE}",
    ),
    "export": Help(
        "Write fresh lessons for Reasonix, or as AIP-11, Claude or Cursor rules.",
        ("reasonlessons export reasonix --json", "reasonlessons export claude-rules"),
        f"0 written (also: nothing changed); 1 error (the target is a file); {_USAGE}",
    ),
    "import": Help(
        "Import lessons from AIP-11, agentsmesh, Claude Code or Cursor rules.",
        ("reasonlessons import cursor-rules .cursor/rules/ --json",),
        f"0 imported; 1 the input has problems (nothing written, each one listed); {_USAGE}",
    ),
    "stats": Help(
        "Whether lessons pay their way: hits, outcomes, tokens cold vs warm.",
        ("reasonlessons stats --json",),
        f"0 ok; 1 error; {_REPO}",
    ),
    "replay": Help(
        "Show on this repository's history what the lessons would have caught.",
        ("reasonlessons replay", "reasonlessons replay --agent aider --since 2025-01-31 --json"),
        f"0 replayed (also: no sessions); 1 error; {_REPO} (a --since that is not a date)",
    ),
    "revive": Help(
        "Restore a lesson the learning loop archived (confidence below the floor).",
        ("reasonlessons revive testing",),
        f"0 revived (also: it was not archived); 1 no such lesson; {_USAGE}",
    ),
    "mcp": Help(
        "Serve the lessons as MCP tools over stdio.",
        ("reasonlessons mcp --repo .",),
        f"0 the client closed the connection; 1 error (the MCP SDK is not installed); {_USAGE}",
    ),
}


class CommandHelp(TypedDict):
    help: str
    epilog: str


def typer_help(name: str) -> CommandHelp:
    """`help` and `epilog` for Typer's `app.command(...)`."""
    found = HELPS[name]
    return {"help": found.summary, "epilog": found.epilog()}
