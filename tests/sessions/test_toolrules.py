from __future__ import annotations

import pytest

from reasonlessons.sessions import toolrules
from reasonlessons.sessions.toolrules import EDIT_MUST_MATCH, NO_SUCH_COMMAND, ONE_COMMAND_PER_MESSAGE

SEARCH_FAILED = (
    "## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in src/a.ts\n"
    "<<<<<<< SEARCH\nimport { A } from './a';\n=======\nimport { B } from './b';\n>>>>>>> REPLACE\n"
)
UDIFF_FAILED = (
    "UnifiedDiffNoMatch: hunk failed to apply!\n\nsrc/a.py does not contain lines that match the diff "
    "you provided!\n\nsrc/a.py does not contain these 2 exact lines in a row:\n```\ndef a():\n    pass\n```"
)


@pytest.mark.parametrize(
    ("tool", "text", "args", "rule"),
    [
        ("edit", SEARCH_FAILED, {"file_path": "src/a.ts"}, EDIT_MUST_MATCH),
        ("edit", UDIFF_FAILED, {"file_path": "src/a.py"}, EDIT_MUST_MATCH),
        ("edit", "Failed to apply edit to src/a.py", {}, EDIT_MUST_MATCH),
        ("aider", "Invalid command: /grep", {"command": "/grep x"}, NO_SUCH_COMMAND),
        ("aider", "Ambiguous command: /t, /test, /tokens", {"command": "/t"}, NO_SUCH_COMMAND),
        ("aider", "Invalid command: /find", {"command": "/find a\n/replace a b"}, ONE_COMMAND_PER_MESSAGE),
        ("aider", "Error creating file /add", {"command": "/add a\n/add b"}, ONE_COMMAND_PER_MESSAGE),
        ("aider", "Error creating file x: [Errno 13]", {"command": "/add x"}, None),
        ("edit", "permission denied", {"file_path": "a"}, None),
        ("shell", "Invalid command: /grep", {"command": "/grep"}, None),
    ],
)
def test_each_refusal_teaches_its_rule(tool: str, text: str, args: dict[str, str], rule: object) -> None:
    assert toolrules.match("aider", tool, text, args) is rule


def test_rules_hold_only_for_their_agent() -> None:
    assert toolrules.match("claude-code", "edit", SEARCH_FAILED, {"file_path": "src/a.ts"}) is None


def test_examples_say_what_was_refused() -> None:
    assert toolrules.example(EDIT_MUST_MATCH, SEARCH_FAILED, {}) == "import { A } from './a';"
    assert toolrules.example(EDIT_MUST_MATCH, UDIFF_FAILED, {}) == "def a():"
    assert toolrules.example(NO_SUCH_COMMAND, "Invalid command: /grep", {}) == "/grep"
    several = {"command": "/add src/a.ts\n/add src/b.ts"}
    assert toolrules.example(ONE_COMMAND_PER_MESSAGE, "Error", several) == "/add + /add"
