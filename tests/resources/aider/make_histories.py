"""Make genuine Aider chat histories with the real `aider-chat`, driven by a scripted local model.

    python -m tests.resources.aider.make_histories --aider /path/to/venv/bin/aider

Install aider in its own virtual environment (`python -m venv /tmp/aider && /tmp/aider/bin/pip install
aider-chat==0.86.2`), never the project's. This script builds a small Python project (`textkit`)
in a temporary git repository, starts the loopback model of tests/aidermock.py, and runs four aider
sessions in it, answering aider's prompts as a user would. Aider writes
`.aider.chat.history.md` itself; the script copies it here as `textkit.aider.chat.history.md`, with
the project's final files under `textkit/`, and checks that every scripted reply was used in step.

What the sessions hold (README.md has the list): a SEARCH block that does not match and its fix,
`/run pytest -q` failing then `python -m pytest -q` passing, a lint loop, `/test` failing then
passing, a commit, `/undo` with the user's correction, an invalid command, several commands in one
message, the same `pytest` mistake again, and a udiff hunk failing until the reflections run out.
"""

from __future__ import annotations

import argparse
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

from tests.aidermock import ModelScript, Reply, serve

HERE = Path(__file__).resolve().parent
MODEL = "openai/mock-coder"
FENCE = "```"

SLUG_PY = '''"""Turn titles into URL slugs."""

import re

_NON_WORD = re.compile(r"[^a-z0-9]+")


def slugify(text: str) -> str:
    """Lower-case `text` and join its words with dashes."""
    return _NON_WORD.sub("-", text.lower()).strip("-")
'''
INIT_PY = '''"""Small text helpers."""

from textkit.slug import slugify

__all__ = ["slugify"]
'''
TEST_PY = """from textkit.slug import slugify


def test_slugify_joins_words():
    assert slugify("Hello, World!") == "hello-world"
"""
EXAMPLE = '`slugify("Hi there")` is `"hi-there"`'
README = "# textkit\n\nSmall text helpers: `slugify`.\n"


def block(path: str, search: str, replace: str, lang: str = "python") -> str:
    """One SEARCH/REPLACE block as aider's diff format wants it."""
    return f"{path}\n{FENCE}{lang}\n<<<<<<< SEARCH\n{search}=======\n{replace}>>>>>>> REPLACE\n{FENCE}\n"


SIGNATURE = "def slugify(text: str) -> str:\n"
SLUGIFY = '''def slugify(text: str) -> str:
    """Lower-case `text` and join its words with dashes."""
    return _NON_WORD.sub("-", text.lower()).strip("-")
'''
WORD_COUNT = '''

def word_count(text: str) -> int:
    """The number of words in `text`."""
    return len(text.split())
'''
TRUNCATE = '''

def truncate(text: str, limit: int) -> str:
    """`text` cut at a word boundary to at most `limit` characters, ending with an ellipsis."""
    if len(text) <= limit:
        return text
    cut = text[: limit - len(ELLIPSIS)].rsplit(" ", 1)[0]
    return cut + ELLIPSIS
'''
SLUG_TEST = """def test_slugify_joins_words():
    assert slugify("Hello, World!") == "hello-world"
"""


@dataclass
class Session:
    """One aider launch: its extra arguments, what the user types, and the model's replies."""

    args: list[str]
    inputs: list[str]
    replies: list[Reply] = field(default_factory=list)
    commits: list[str] = field(default_factory=list)


def sessions() -> list[Session]:
    first = Session(
        args=["textkit/slug.py", "tests/test_slug.py"],
        inputs=[
            "add a function `word_count(text)` to textkit/slug.py that returns the number of words",
            "/run pytest -q",
            "What's wrong? Fix",
            "great, now add a test for word_count to tests/test_slug.py",
            "/run python -m pytest -q",
        ],
        replies=[
            Reply(
                "word_count",
                "I'll add `word_count` after `slugify`.\n\n"
                + block(
                    "textkit/slug.py",
                    "def slugify(text):\n    return text.lower()\n",
                    "def slugify(text):\n    return text.lower()\n" + WORD_COUNT,
                ),
            ),
            Reply(
                "SearchReplaceNoExactMatch",
                "Sorry, here is the block matching the current file.\n\n"
                + block("textkit/slug.py", SLUGIFY, SLUGIFY + WORD_COUNT),
            ),
            Reply(
                "What's wrong? Fix",
                "The tests cannot import the package: `ModuleNotFoundError: No module named 'textkit'`.\n"
                "Plain `pytest` puts `tests/` on `sys.path`, not the project root, so `textkit` is not "
                "importable. Run the tests as a module, which adds the current directory:\n\n"
                f"{FENCE}bash\npython -m pytest -q\n{FENCE}\n",
            ),
            Reply(
                "word_count to tests",
                block(
                    "tests/test_slug.py",
                    "from textkit.slug import slugify\n",
                    "from textkit.slug import slugify, word_count\n",
                )
                + "\n"
                + block(
                    "tests/test_slug.py",
                    SLUG_TEST,
                    SLUG_TEST + '\n\ndef test_word_count():\n    assert word_count("one two  three") == 3\n',
                ),
            ),
        ],
        commits=["feat: add word_count to count the words of a text", "test: cover word_count"],
    )
    second = Session(
        args=["textkit/slug.py", "textkit/__init__.py", "tests/test_slug.py"],
        inputs=[
            "add `truncate(text, limit)` to textkit/slug.py: cut at a word boundary and end with an ellipsis",
            "add a test for truncate to tests/test_slug.py",
            "/test python -m pytest -q",
            "/test python -m pytest -q",
            "rename slugify to make_slug everywhere",
            "/undo",
            "no, keep the public name `slugify`: other packages import it from `textkit`. "
            "Put new helpers in `textkit/helpers.py` instead",
        ],
        replies=[
            Reply(
                "truncate",
                block("textkit/slug.py", WORD_COUNT.lstrip("\n"), WORD_COUNT.lstrip("\n") + TRUNCATE),
            ),
            Reply(
                "Fix any errors below",
                "`ELLIPSIS` is not defined; I'll define it next to `_NON_WORD`.\n\n"
                + block(
                    "textkit/slug.py",
                    '_NON_WORD = re.compile(r"[^a-z0-9]+")\n',
                    '_NON_WORD = re.compile(r"[^a-z0-9]+")\nELLIPSIS = "..."\n',
                ),
            ),
            Reply(
                "test for truncate",
                block(
                    "tests/test_slug.py",
                    "from textkit.slug import slugify, word_count\n",
                    "from textkit.slug import slugify, truncate, word_count\n",
                )
                + "\n"
                + block(
                    "tests/test_slug.py",
                    '    assert word_count("one two  three") == 3\n',
                    '    assert word_count("one two  three") == 3\n\n\n'
                    "def test_truncate_cuts_at_a_word():\n"
                    '    assert truncate("hello big world", 10) == "hello\u2026"\n',
                ),
            ),
            Reply(
                "I ran this command",
                "The test expects a single ellipsis character `\u2026`, but `ELLIPSIS` is three dots.\n\n"
                + block("textkit/slug.py", 'ELLIPSIS = "..."\n', 'ELLIPSIS = "\u2026"\n'),
            ),
            Reply(
                "make_slug",
                block("textkit/slug.py", SIGNATURE, SIGNATURE.replace("slugify", "make_slug"))
                + "\n"
                + block(
                    "textkit/__init__.py",
                    'from textkit.slug import slugify\n\n__all__ = ["slugify"]\n',
                    'from textkit.slug import make_slug\n\n__all__ = ["make_slug"]\n',
                )
                + "\n"
                + block(
                    "tests/test_slug.py",
                    "from textkit.slug import slugify, truncate, word_count\n",
                    "from textkit.slug import make_slug, truncate, word_count\n",
                )
                + "\n"
                + block(
                    "tests/test_slug.py",
                    '    assert slugify("Hello, World!") == "hello-world"\n',
                    '    assert make_slug("Hello, World!") == "hello-world"\n',
                ),
            ),
            Reply(
                "keep the public name",
                "Understood: `slugify` stays the public name, and new helpers will go in "
                "`textkit/helpers.py`.",
            ),
        ],
        commits=[
            "feat: add truncate to cut text at a word boundary",
            "fix: define ELLIPSIS for truncate",
            "test: cover truncate",
            "fix: use a single ellipsis character in truncate",
            "refactor: rename slugify to make_slug",
        ],
    )
    third = Session(
        args=["textkit/slug.py", "tests/test_slug.py"],
        inputs=[
            "/grep slugify",
            "/run grep -rn slugify textkit",
            "{\n/find ELLIPSIS\n/replace ELLIPSIS ELLIPSIS_CHAR\n}",
            "/run pytest -q",
            "What's wrong? Fix",
        ],
        replies=[
            Reply(
                "What's wrong? Fix",
                "Same as before: `ModuleNotFoundError: No module named 'textkit'` because plain "
                "`pytest` does not put the project root on `sys.path`. Run it as a module:\n\n"
                f"{FENCE}bash\npython -m pytest -q\n{FENCE}\n",
            ),
        ],
    )
    bad_hunk = (
        f"{FENCE}diff\n--- textkit/slug.py\n+++ textkit/slug.py\n@@ ... @@\n def slugify(text):\n"
        '-    return text.lower()\n+    """Slug of `text`: `slugify("Hi there")` is `"hi-there"`."""\n'
        f"+    return text.lower()\n{FENCE}\n"
    )
    good_hunk = (
        f"{FENCE}diff\n--- textkit/slug.py\n+++ textkit/slug.py\n@@ ... @@\n"
        " def slugify(text: str) -> str:\n"
        '-    """Lower-case `text` and join its words with dashes."""\n'
        f'+    """Lower-case `text` and join its words with dashes: {EXAMPLE}."""\n'
        f'     return _NON_WORD.sub("-", text.lower()).strip("-")\n{FENCE}\n'
    )
    fourth = Session(
        args=["--edit-format", "udiff", "textkit/slug.py"],
        inputs=[
            "add an example to the docstring of slugify",
            "/drop textkit/slug.py",
            "/add textkit/slug.py",
            "the file is back in the chat: edit its current content exactly",
        ],
        replies=[
            Reply("docstring", "Here is the change:\n\n" + bad_hunk),
            Reply("UnifiedDiffNoMatch", "Let me try again:\n\n" + bad_hunk),
            Reply("UnifiedDiffNoMatch", "Once more:\n\n" + bad_hunk),
            Reply("UnifiedDiffNoMatch", "Trying again:\n\n" + bad_hunk),
            Reply("current content exactly", good_hunk),
        ],
        commits=["docs: add an example to the slugify docstring"],
    )
    return [first, second, third, fourth]


TITLE_CASE = '''

def title_case(text: str) -> str:
    """`text` with the first letter of each word upper-cased."""
    return " ".join(word.capitalize() for word in text.split())
'''
PLAN = (
    "Add a function `title_case(text)` to textkit/slug.py, after `slugify`: split the text on "
    "whitespace, capitalize each word and join the words with single spaces. Give it a docstring."
)


def architect_sessions() -> list[Session]:
    """Two more launches over a fresh textkit: architect/editor, then whole files and `/undo`s."""
    architect = Session(
        args=[
            "--edit-format",
            "architect",
            "--editor-model",
            MODEL,
            "--editor-edit-format",
            "editor-diff",
            "textkit/slug.py",
        ],  # fmt: skip
        inputs=[
            "add a `title_case(text)` helper to textkit/slug.py",
            "/run python -m pytest -q",
            "/undo",
        ],
        replies=[
            Reply("title_case", PLAN),
            Reply(
                "Add a function `title_case(text)`",
                block(
                    "textkit/slug.py", "def slugify(text):\n    return text.lower()\n", SLUGIFY + TITLE_CASE
                ),
            ),
            Reply("SearchReplaceNoExactMatch", block("textkit/slug.py", SLUGIFY, SLUGIFY + TITLE_CASE)),
        ],
        commits=["feat: add title_case"],
    )
    whole = Session(
        args=["--edit-format", "whole", "textkit/slug.py"],
        inputs=[
            "/undo",
            "add `word_count(text)` to textkit/slug.py",
            "/run python -m pytest -q",
        ],
        replies=[
            Reply(
                "word_count", "textkit/slug.py\n" + FENCE + "python\n" + SLUG_PY + WORD_COUNT + FENCE + "\n"
            )
        ],
        commits=["feat: add word_count"],
    )
    return [architect, whole]


SETS = {
    "textkit": (sessions, "textkit.aider.chat.history.md", "textkit"),
    "architect": (architect_sessions, "architect.aider.chat.history.md", None),
}


def make_project(root: Path) -> None:
    (root / "textkit").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "textkit" / "slug.py").write_text(SLUG_PY)
    (root / "textkit" / "__init__.py").write_text(INIT_PY)
    (root / "tests" / "test_slug.py").write_text(TEST_PY)
    (root / "README.md").write_text(README)
    git = ["git", "-c", "user.name=Dev", "-c", "user.email=dev@example.invalid"]
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-q", "-m", "textkit: slugify"], cwd=root, check=True)


def shims(folder: Path) -> None:
    """`python` and `pytest` for the shell aider runs: this interpreter, which has pytest."""
    folder.mkdir()
    pytest = Path(sys.executable).with_name("pytest")
    for name, argv in (("python", sys.executable), ("pytest", f"{pytest} -p no:cacheprovider")):
        path = folder / name
        path.write_text(f'#!/bin/sh\nexec {argv} "$@"\n')
        path.chmod(0o755)


def answer(question: str) -> str:
    """What the user answers to one of aider's questions: yes to all of them."""
    del question
    return "y"


def run_session(aider: str, root: Path, env: dict[str, str], base: str, meta: Path, session: Session) -> None:
    argv = [
        aider,
        "--model", MODEL, "--weak-model", MODEL, "--openai-api-base", base, "--openai-api-key", "mock",
        "--model-metadata-file", str(meta), "--no-show-model-warnings", "--no-stream", "--no-pretty",
        "--no-fancy-input", "--no-check-update", "--no-show-release-notes", "--analytics-disable",
        "--map-tokens", "1024", "--edit-format", "diff", "--no-detect-urls", *session.args,
    ]  # fmt: skip
    proc = subprocess.Popen(
        argv, cwd=root, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    inputs = deque(session.inputs)
    buffer = b""
    deadline = time.monotonic() + 300
    while proc.poll() is None and time.monotonic() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.4)
        if ready:
            data = os.read(proc.stdout.fileno(), 65536)
            if data:
                buffer += data
                continue
        tail = buffer[-300:].decode("utf-8", "replace")
        if tail.rstrip(" ").endswith(("]:", "]: ")) and tail.endswith(": "):
            proc.stdin.write((answer(tail) + "\n").encode())
            proc.stdin.flush()
            buffer = b""
        elif tail.endswith("> "):
            if inputs:
                proc.stdin.write((inputs.popleft() + "\n").encode())
                proc.stdin.flush()
            else:
                proc.stdin.close()
            buffer = b""
    if proc.poll() is None:
        proc.kill()
        raise SystemExit(f"aider did not finish: {buffer[-2000:].decode('utf-8', 'replace')}")
    if inputs:
        raise SystemExit(f"aider exited with inputs left: {list(inputs)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--aider", required=True, help="the aider executable of its own venv")
    parser.add_argument("--out", type=Path, default=HERE)
    parser.add_argument("--set", choices=sorted(SETS), default="textkit", help="which history to make")
    args = parser.parse_args()
    make_sessions, history, project = SETS[args.set]
    version = subprocess.run([args.aider, "--version"], capture_output=True, text=True, check=True)
    work = Path(tempfile.mkdtemp(prefix="aider-textkit-"))
    try:
        root, home = work / "textkit", work / "home"
        home.mkdir()
        make_project(root)
        shims(work / "bin")
        meta = work / "model-metadata.json"
        meta.write_text(
            json.dumps(
                {
                    MODEL: {
                        "max_input_tokens": 128000,
                        "max_output_tokens": 8192,
                        "input_cost_per_token": 0.000001,
                        "output_cost_per_token": 0.000002,
                        "litellm_provider": "openai",
                        "mode": "chat",
                    }
                }
            )
        )
        env = {
            "PATH": f"{work / 'bin'}:/usr/bin:/bin",
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "PYTHONDONTWRITEBYTECODE": "1",
            "TERM": "dumb",
            "LITELLM_LOCAL_MODEL_COST_MAP": "True",
            "GIT_AUTHOR_NAME": "Dev",
            "GIT_AUTHOR_EMAIL": "dev@example.invalid",
            "GIT_COMMITTER_NAME": "Dev",
            "GIT_COMMITTER_EMAIL": "dev@example.invalid",
        }
        problems: list[str] = []
        for session in make_sessions():
            script = ModelScript(list(session.replies), list(session.commits))
            with serve(script) as base:
                run_session(args.aider, root, env, base, meta, session)
            problems += script.errors
            problems += [f"unused reply: {r.expect!r}" for r in script.replies]
            problems += [f"unused commit message: {c!r}" for c in script.commits]
        if problems:
            print("\n".join(problems), file=sys.stderr)
            return 1
        args.out.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(root / ".aider.chat.history.md", args.out / history)
        if project:
            tree = args.out / project
            shutil.rmtree(tree, ignore_errors=True)
            for rel in ("textkit/slug.py", "textkit/__init__.py", "tests/test_slug.py", "README.md"):
                (tree / rel).parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(root / rel, tree / rel)
        print(f"wrote {args.out / history} with {version.stdout.strip()}")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
