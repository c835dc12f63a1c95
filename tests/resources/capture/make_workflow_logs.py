"""Regenerate the workflow logs of this folder: `python tests/resources/capture/make_workflow_logs.py`.

Hand-made Claude Code and Codex sessions (no third-party content) in four ecosystems, each pinning
capture's workflow observations: commit gates, loops, fixes named by an error, setup steps, where a
command must run, git facts, the agents' tool rules, subagents in every layout, commands whose result
comes later (background tasks, Codex unified exec) and paths from other machines. The repositories
they are captured into are `../repos/capture-<ecosystem>/`. See README.md next to this file.
"""

# ruff: noqa: E501  (log data reads best one record per line)
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent


def _dump(lines: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n" for obj in lines)


class Claude:
    """A Claude Code transcript built turn by turn (the shapes of CLI 2.1, tests/resources/logs/)."""

    def __init__(self, session: str, cwd: str, *, sidechain: bool = False) -> None:
        self.session, self.cwd, self.sidechain = session, cwd, sidechain
        self.lines: list[dict[str, Any]] = []
        self.n = 0

    def _line(self, kind: str, message: dict[str, Any] | None = None, **extra: Any) -> None:
        self.n += 1
        line: dict[str, Any] = {
            "parentUuid": self.lines[-1]["uuid"] if self.lines else None,
            "isSidechain": self.sidechain,
            "userType": "external",
            "cwd": extra.pop("cwd", self.cwd),
            "sessionId": self.session,
            "version": "2.1.39",
            "type": kind,
            "uuid": f"{self.session[:8]}-{self.n:04d}",
            "timestamp": f"2026-05-06T10:{self.n // 60:02d}:{self.n % 60:02d}.000Z",
        }
        if message is not None:
            line["message"] = message
        line.update(extra)
        self.lines.append(line)

    def user(self, text: str) -> None:
        self._line("user", {"role": "user", "content": text})

    def say(self, text: str, stop: str = "end_turn") -> None:
        self._line(
            "assistant", _assistant(self.n, [{"type": "text", "text": text}], stop), requestId=f"req_{self.n}"
        )

    def tool(
        self,
        name: str,
        args: dict[str, Any],
        output: str,
        error: bool = False,
        *,
        result: Any = None,
        cwd: str | None = None,
    ) -> str:
        call_id = f"toolu_{self.session[:4]}{'s' if self.sidechain else ''}{self.n:04d}"
        use = {"type": "tool_use", "id": call_id, "name": name, "input": args}
        self._line(
            "assistant",
            _assistant(self.n, [use], "tool_use"),
            requestId=f"req_{self.n}",
            **({"cwd": cwd} if cwd else {}),
        )
        block = {"type": "tool_result", "tool_use_id": call_id, "content": output, "is_error": error}
        extra = {"toolUseResult": result} if result is not None else {}
        self._line("user", {"role": "user", "content": [block]}, **extra, **({"cwd": cwd} if cwd else {}))
        return call_id

    def bash(self, command: str, output: str = "", code: int = 0, *, cwd: str | None = None) -> str:
        text = output if code == 0 else f"Exit code {code}\n{output}"
        return self.tool("Bash", {"command": command}, text, code != 0, cwd=cwd)

    def progress(self, agent: str, name: str, args: dict[str, Any], output: str, error: bool = False) -> None:
        """A subagent's call relayed in the parent's file (`agent_progress`, CLI 2.1)."""
        call_id = f"toolu_{agent}{self.n:04d}"
        use = {"type": "tool_use", "id": call_id, "name": name, "input": args}
        result = {"tool_use_id": call_id, "type": "tool_result", "content": output, "is_error": error}
        for kind, content in (("assistant", [use]), ("user", [result])):
            inner = {
                "type": kind,
                "timestamp": "2026-05-06T10:00:00.000Z",
                "message": {"role": kind, "content": content},
            }
            self._line("progress", data={"message": inner, "type": "agent_progress", "agentId": agent})

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(_dump(self.lines), encoding="utf-8")


def _assistant(n: int, content: list[dict[str, Any]], stop: str) -> dict[str, Any]:
    return {
        "id": f"msg_{n}",
        "type": "message",
        "role": "assistant",
        "model": "claude-sonnet-4",
        "content": content,
        "stop_reason": stop,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }


def _task(c: Claude, agent: str, prompt: str, answer: str) -> None:
    c.tool(
        "Task",
        {"description": "explore", "prompt": prompt, "subagent_type": "Explore"},
        [
            {"type": "text", "text": answer},
            {
                "type": "text",
                "text": f"agentId: {agent} (for resuming to continue this agent's work if needed)",
            },
        ],
        result={"status": "completed", "prompt": prompt, "agentId": agent, "totalToolUseCount": 2},
    )


GATE = "Pre-commit validation failed:\\n\\n[{tag}] {message}\\n\\nFix these issues before committing."


def elixir_commit() -> None:
    """Elixir, Claude Code, started in a `.claude/worktrees/<name>` checkout: a commit gate (a hook's
    message with literal `\\n` escapes, `Run 'mix format' to fix`), a `[DIALYZER]` rejection retried
    three times (`--no-verify` included) until `mix dialyzer` was run, and `mix test`."""
    root = "/home/dev/src/shop/.claude/worktrees/otel-tracing"
    c = Claude("aaaa1111-0000-4000-8000-000000000001", root)
    c.user("add tracing to the checkout controller")
    c.tool("Read", {"file_path": f"{root}/lib/shop/checkout.ex"}, "     1→defmodule Shop.Checkout do")
    c.tool(
        "Edit",
        {
            "file_path": f"{root}/lib/shop/checkout.ex",
            "old_string": "def run(cart) do",
            "new_string": 'def run(cart) do\n    Tracer.with_span "checkout" do',
        },
        f"The file {root}/lib/shop/checkout.ex has been updated successfully.",
    )
    c.bash(
        "mix test",
        "Running ExUnit with seed: 4242, max_cases: 8\n\n........\nFinished in 0.4 seconds\n8 tests, 0 failures",
    )
    commit = 'git add -A && git commit -m "feat: trace checkout"'
    c.bash(commit, GATE.format(tag="FORMAT", message="Code is not formatted.\\nRun 'mix format' to fix."), 1)
    c.bash("mix format")
    c.bash(commit, "[shop 1a2b3c4] feat: trace checkout\n 2 files changed, 14 insertions(+)")
    c.tool(
        "Edit",
        {
            "file_path": f"{root}/lib/shop/checkout.ex",
            "old_string": "{:ok, span}",
            "new_string": "{:ok, _span}",
        },
        "The file has been updated successfully.",
    )
    dialyzer = GATE.format(
        tag="DIALYZER",
        message="Finding suitable PLTs\\nlib/shop/checkout.ex:12:pattern_match\\nThe pattern can never match the type.",
    )
    second = 'git add -A && git commit -m "fix: span pattern"'
    c.bash(second, dialyzer, 1)
    c.tool(
        "Edit",
        {"file_path": f"{root}/lib/shop/checkout.ex", "old_string": "{:ok, _span}", "new_string": "_span"},
        "The file has been updated successfully.",
    )
    c.bash(second, dialyzer, 1)
    c.bash('git add -A && git commit --no-verify -m "fix: span pattern"', dialyzer, 1)
    c.bash("mix dialyzer", "Total errors: 1, Skipped: 0\nlib/shop/checkout.ex:12:pattern_match")
    c.tool(
        "Edit",
        {"file_path": f"{root}/lib/shop/checkout.ex", "old_string": "_span", "new_string": "span_ctx"},
        "The file has been updated successfully.",
    )
    c.bash("mix dialyzer", "Total errors: 0, Skipped: 0\ndone (passed successfully)")
    c.bash("mix test --seed 0 2>&1 | tail -3", "Finished in 0.4 seconds\n8 tests, 0 failures")
    c.bash(second, "[shop 5d6e7f8] fix: span pattern\n 1 file changed, 1 insertion(+)")
    c.say("Tracing added and committed.")
    c.write(HERE / "claude-code" / "elixir-commit.jsonl")


def elixir_setup() -> None:
    """Elixir, Claude Code, in a git worktree checkout elsewhere on disk: `mix test` fails on an
    unfetched dependency and says to run `mix deps.get`; a generated migration needs
    `MIX_ENV=test mix ecto.migrate`; Edit refuses a stale `old_string`; a subagent kept in
    `<session>/subagents/agent-<id>.jsonl` is refused a Read over the token limit."""
    root = "/home/dev/worktrees/shop-orders"
    session = "aaaa2222-0000-4000-8000-000000000002"
    c = Claude(session, root)
    c.user("add an orders table with a status column")
    c.tool(
        "Edit",
        {
            "file_path": f"{root}/mix.exs",
            "old_string": '{:jason, "~> 1.4"}',
            "new_string": '{:jason, "~> 1.4"},\n      {:ecto_enum, "~> 1.4"}',
        },
        "The file has been updated successfully.",
    )
    c.bash(
        "mix test",
        'Unchecked dependencies for environment test:\n* ecto_enum (Hex package)\n  the dependency is not available, run "mix deps.get"\n** (Mix) Can\'t continue due to errors on dependencies',
        1,
    )
    c.bash("mix deps.get", "Resolving Hex dependencies...\n  ecto_enum 1.4.0")
    c.bash("mix test", "8 tests, 0 failures")
    _task(c, "f00d1", "Find how orders are stored", "Orders live in lib/shop/orders.ex.")
    c.bash(
        "mix ecto.gen.migration add_order_status",
        "* creating priv/repo/migrations/20260506100000_add_order_status.exs",
    )
    c.tool(
        "Write",
        {
            "file_path": f"{root}/priv/repo/migrations/20260506100000_add_order_status.exs",
            "content": "defmodule Shop.Repo.Migrations.AddOrderStatus do\n  use Ecto.Migration\nend\n",
        },
        "File created successfully",
    )
    c.bash(
        "MIX_ENV=test mix ecto.migrate",
        "== Running 20260506100000 Shop.Repo.Migrations.AddOrderStatus.change/0 forward\n== Migrated in 0.0s",
    )
    c.tool(
        "Edit",
        {
            "file_path": f"{root}/lib/shop/orders.ex",
            "old_string": "field :total, :integer",
            "new_string": "field :total, :integer\n    field :status, :string",
        },
        "<tool_use_error>String to replace not found in file.\nString: field :total, :integer</tool_use_error>",
        True,
    )
    c.tool(
        "Read",
        {"file_path": f"{root}/lib/shop/orders.ex"},
        '     1→defmodule Shop.Orders do\n     2→  schema "orders" do\n     3→    field :total_cents, :integer',
    )
    c.tool(
        "Edit",
        {
            "file_path": f"{root}/lib/shop/orders.ex",
            "old_string": "field :total_cents, :integer",
            "new_string": "field :total_cents, :integer\n    field :status, :string",
        },
        "The file has been updated successfully.",
    )
    c.bash("mix test test/shop/orders_test.exs", "3 tests, 0 failures")
    c.say("Added the status column.")
    c.write(HERE / "claude-code" / "elixir-setup.jsonl")
    agent = Claude(session, root, sidechain=True)
    agent.user("Find how orders are stored")
    agent.tool(
        "Read",
        {"file_path": f"{root}/lib/shop/orders.ex"},
        "<tool_use_error>File content (85812 tokens) exceeds maximum allowed tokens (25000). Please use offset and limit parameters to read specific portions of the file, or use the GrepTool to search for specific content.</tool_use_error>",
        True,
    )
    agent.tool(
        "Read",
        {"file_path": f"{root}/lib/shop/orders.ex", "offset": 1, "limit": 200},
        "     1→defmodule Shop.Orders do",
    )
    agent.say("Orders live in lib/shop/orders.ex.")
    agent.write(HERE / "claude-code" / "elixir-setup" / "subagents" / "agent-f00d1.jsonl")


def _codex_line(kind: str, payload: dict[str, Any], n: int) -> dict[str, Any]:
    return {"timestamp": f"2026-05-07T08:{n // 60:02d}:{n % 60:02d}.000Z", "type": kind, "payload": payload}


def go_codex() -> None:
    """Go, Codex CLI on Windows: unified exec (`Process running with session ID N`, then
    `write_stdin` polls) for `go test ./...`, which says to run `go mod tidy`; `make lint` failing the
    same way three times; `apply_patch` refused for stale context; `main..HEAD` unknown (the default
    branch is `master`)."""
    session = "bbbb3333-0000-4000-8000-000000000003"
    root = "C:\\Users\\dev\\src\\svc"
    lines: list[dict[str, Any]] = []

    def add(kind: str, payload: dict[str, Any]) -> None:
        lines.append(_codex_line(kind, payload, len(lines)))

    def call(name: str, args: dict[str, Any], output: str, call_id: str) -> None:
        add(
            "response_item",
            {"type": "function_call", "name": name, "arguments": json.dumps(args), "call_id": call_id},
        )
        add("response_item", {"type": "function_call_output", "call_id": call_id, "output": output})

    def exec_(cmd: str, output: str, code: int, call_id: str) -> None:
        call(
            "exec_command",
            {"cmd": cmd, "workdir": root},
            f"Chunk ID: {call_id}\nWall time: 0.5 seconds\nProcess exited with code {code}\nOriginal token count: 9\nOutput:\n{output}",
            call_id,
        )

    add("session_meta", {"id": session, "cwd": root, "originator": "codex_cli_rs", "cli_version": "0.98.0"})
    add("event_msg", {"type": "task_started"})
    add("event_msg", {"type": "user_message", "message": "add a /health endpoint"})
    call(
        "exec_command",
        {"cmd": "go test ./...", "workdir": root, "yield_time_ms": 1000},
        "Chunk ID: a1\nWall time: 1.0 seconds\nProcess running with session ID 41\nOriginal token count: 3\nOutput:\n",
        "c1",
    )
    call(
        "write_stdin",
        {"session_id": 41, "chars": "", "yield_time_ms": 30000},
        "Chunk ID: a2\nWall time: 5.0 seconds\nProcess running with session ID 41\nOriginal token count: 2\nOutput:\ncompiling...\n",
        "c2",
    )
    call(
        "write_stdin",
        {"session_id": 41, "chars": ""},
        "Chunk ID: a3\nWall time: 2.0 seconds\nProcess exited with code 1\nOriginal token count: 20\nOutput:\ngo: updates to go.mod needed; to update it:\n\tgo mod tidy\n",
        "c3",
    )
    exec_("go mod tidy", "go: finding module for package github.com/go-chi/chi/v5", 0, "c4")
    call(
        "exec_command",
        {"cmd": "go test ./...", "workdir": root},
        "Chunk ID: b1\nWall time: 1.0 seconds\nProcess running with session ID 42\nOriginal token count: 1\nOutput:\n",
        "c5",
    )
    call(
        "write_stdin",
        {"session_id": 42, "chars": ""},
        "Chunk ID: b2\nWall time: 3.0 seconds\nProcess exited with code 0\nOriginal token count: 8\nOutput:\nok  \texample.com/svc\t0.31s\n",
        "c6",
    )
    lint = "handlers.go:14:2: Error return value of `w.Write` is not checked (errcheck)\nmake: *** [Makefile:4: lint] Error 1"
    for n in range(3):
        exec_("make lint", lint, 2, f"l{n}")
    add(
        "response_item",
        {
            "type": "custom_tool_call",
            "name": "apply_patch",
            "input": "*** Begin Patch\n*** Update File: handlers.go\n@@\n-\tw.Write(body)\n+\t_, _ = w.Write(body)\n*** End Patch",
            "call_id": "p1",
        },
    )
    add(
        "response_item",
        {
            "type": "custom_tool_call_output",
            "call_id": "p1",
            "output": json.dumps(
                {
                    "output": f"apply_patch verification failed: Failed to find expected lines in {root}\\handlers.go:\n\tw.Write(body)",
                    "metadata": {"exit_code": 1, "duration_seconds": 0.0},
                }
            ),
        },
    )
    exec_("sed -n '10,20p' handlers.go", "\tw.Write(payload)", 0, "c7")
    add(
        "response_item",
        {
            "type": "custom_tool_call",
            "name": "apply_patch",
            "input": "*** Begin Patch\n*** Update File: handlers.go\n@@\n-\tw.Write(payload)\n+\t_, _ = w.Write(payload)\n*** End Patch",
            "call_id": "p2",
        },
    )
    add(
        "response_item",
        {
            "type": "custom_tool_call_output",
            "call_id": "p2",
            "output": json.dumps(
                {
                    "output": "Success. Updated the following files:\nM handlers.go",
                    "metadata": {"exit_code": 0, "duration_seconds": 0.0},
                }
            ),
        },
    )
    exec_(
        "git log --oneline main..HEAD",
        "fatal: ambiguous argument 'main..HEAD': unknown revision or path not in the working tree.\nUse '--' to separate paths from revisions, like this:",
        128,
        "g1",
    )
    exec_("git log --oneline master..HEAD", "3f2e1d0 add health endpoint", 0, "g2")
    add(
        "response_item",
        {
            "type": "message",
            "role": "assistant",
            "content": [
                {
                    "type": "output_text",
                    "text": "Added /health; `make lint` still reports errcheck in handlers.go.",
                }
            ],
        },
    )
    add("event_msg", {"type": "task_complete"})
    folder = HERE / "codex"
    folder.mkdir(exist_ok=True)
    (folder / f"rollout-2026-05-07T08-00-00-{session}.jsonl").write_text(_dump(lines), encoding="utf-8")


def web_claude() -> None:
    """TypeScript, Claude Code in Git Bash on Windows (`/c/Users/...`): `node build.js` fails at the
    root and passes in `assets/`; the app in `todo-app/` type-checks with
    `npx tsc --noEmit --skipLibCheck`; its tests run in the background (`BashOutput` reports them);
    `git add` refuses a tracked file under the ignored `dist/`; a subagent's turns are inline
    (`isSidechain`) and relayed (`agent_progress`); its Write is refused before a Read."""
    root = "/c/Users/dev/web"
    session = "cccc4444-0000-4000-8000-000000000004"
    c = Claude(session, root)
    c.user("fix the asset build and the todo app types")
    c.bash(
        "node build.js",
        '✘ [ERROR] Could not resolve "js/app.js"\n\n    build.js:3:16:\n      3 │   entryPoints: ["js/app.js"],',
        1,
    )
    c.bash("cd assets && node build.js", "  dist/app.js  12.1kb\n⚡ Done in 21ms")
    c.bash("cd todo-app && npx tsc --noEmit --skipLibCheck", "", 0, cwd=root)
    c.bash(
        "npm test",
        "Command running in background with ID: bg7x2. Output is being written to: /tmp/claude-1000/tasks/bg7x2.output",
        cwd=f"{root}/todo-app",
    )
    c.tool(
        "BashOutput",
        {"bash_id": "bg7x2"},
        "<status>completed</status>\n\n<exit_code>0</exit_code>\n\n<stdout>\n Test Files  3 passed (3)\n      Tests  9 passed (9)\n</stdout>",
        cwd=f"{root}/todo-app",
    )
    c.tool(
        "Task",
        {
            "description": "write the changelog",
            "prompt": "Add a changelog line",
            "subagent_type": "general-purpose",
        },
        "Done.",
        result={"status": "completed", "agentId": "beef2"},
    )
    side = Claude(session, root, sidechain=True)
    side.user("Add a changelog line")
    side.tool(
        "Write",
        {"file_path": f"{root}/CHANGELOG.md", "content": "- fixed the asset build\n"},
        "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>",
        True,
    )
    side.tool("Read", {"file_path": f"{root}/CHANGELOG.md"}, "     1→# Changelog")
    side.tool(
        "Write",
        {"file_path": f"{root}/CHANGELOG.md", "content": "# Changelog\n- fixed the asset build\n"},
        "The file has been updated successfully.",
    )
    c.lines.extend(side.lines)
    c.progress("beef3", "Grep", {"pattern": "entryPoints"}, "assets/build.js")
    c.bash(
        "git add assets/js/app.js dist/app.css",
        'The following paths are ignored by one of your .gitignore files:\ndist\nhint: Use -f if you really want to add them.\nhint: Turn this message off by running\nhint: "git config advice.addIgnoredFile false"',
        1,
    )
    c.bash(
        "git add assets/js/app.js && git add -f dist/app.css && git commit -m 'fix: asset entry point'",
        "[main 9a8b7c6] fix: asset entry point",
    )
    c.say("The build runs from assets/; dist/app.css is committed with -f.")
    c.write(HERE / "claude-code" / "web-workdir.jsonl")


def python_setup() -> None:
    """Python, Claude Code: a dependency added to pyproject.toml needs `uv sync` before the tests; an
    Alembic migration needs `alembic upgrade head`; `uv run ruff check .` and `uv run pytest` run
    before both commits; `main` is unknown and `git branch -a` lists `master`. A subagent kept beside
    the transcript (`agent-<id>.jsonl`) hits a refusal that teaches nothing (a directory read)."""
    root = "/Users/dev/code/api"
    session = "dddd5555-0000-4000-8000-000000000005"
    c = Claude(session, root)
    c.user("call the billing service with httpx")
    c.tool(
        "Edit",
        {
            "file_path": f"{root}/pyproject.toml",
            "old_string": "dependencies = [",
            "new_string": 'dependencies = [\n    "httpx>=0.27",',
        },
        "The file has been updated successfully.",
    )
    c.bash(
        "uv run pytest -q",
        "ImportError while importing test module 'tests/test_billing.py'.\nE   ModuleNotFoundError: No module named 'httpx'\n1 error in 0.12s",
        2,
    )
    c.bash("uv sync", "Resolved 12 packages in 3ms\nInstalled 2 packages in 4ms\n + httpx==0.27.2")
    c.bash("uv run pytest -q", "6 passed in 0.31s")
    c.bash("uv run ruff check .", "All checks passed!")
    c.bash("git commit -am 'feat: billing client'", "[main 1111111] feat: billing client")
    _task(c, "c0de3", "Look at the migrations", "There are two migrations in migrations/versions.")
    c.tool(
        "Write",
        {"file_path": f"{root}/migrations/versions/0003_add_invoices.py", "content": "revision = '0003'\n"},
        "File created successfully",
    )
    c.bash(
        "uv run alembic upgrade head",
        "INFO  [alembic.runtime.migration] Running upgrade 0002 -> 0003, add invoices",
    )
    c.bash("uv run pytest -q", "8 passed in 0.35s")
    c.bash("uv run ruff check .", "All checks passed!")
    c.bash("git commit -am 'feat: invoices table'", "[main 2222222] feat: invoices table")
    c.bash("git diff --stat main", "fatal: ambiguous argument 'main': unknown revision or path not in the working tree.", 128)
    c.bash("git branch -a", "* feat/billing\n  master\n  remotes/origin/HEAD -> origin/master\n  remotes/origin/master")
    c.say("Billing client and invoices table added.")
    c.write(HERE / "claude-code" / "python-setup.jsonl")
    agent = Claude(session, root, sidechain=True)
    agent.user("Look at the migrations")
    agent.tool(
        "Read",
        {"file_path": f"{root}/migrations/versions"},
        "EISDIR: illegal operation on a directory, read",
        True,
    )
    agent.tool("Glob", {"pattern": "migrations/versions/*.py"}, f"{root}/migrations/versions/0001_init.py")
    agent.say("There are two migrations in migrations/versions.")
    agent.write(HERE / "claude-code" / "agent-c0de3.jsonl")


def build_loop() -> None:
    """TypeScript, Claude Code: `npm run build` in `todo-app/` fails four times with the same
    TypeError while `| tail` hides its exit code, then passes after the cause is fixed: a loop."""
    root = "/home/dev/web"
    c = Claude("ffff7777-0000-4000-8000-000000000007", root)
    c.user("the todo list page crashes at build time")
    error = "> todo-app@0.1.0 build\n> tsc && vite build\n\nTypeError: Cannot read properties of undefined (reading 'map')\n    at renderList (src/list.ts:14:22)"
    for n in range(4):
        c.bash("cd todo-app && npm run build 2>&1 | tail -20", error)
        c.tool("Edit", {"file_path": f"{root}/todo-app/src/list.ts", "old_string": f"items{n}", "new_string": f"items{n + 1}"}, "The file has been updated successfully.")
    c.tool("Read", {"file_path": f"{root}/todo-app/src/store.ts"}, "     1→export const store = { items: undefined };")
    c.tool("Edit", {"file_path": f"{root}/todo-app/src/store.ts", "old_string": "items: undefined", "new_string": "items: []"}, "The file has been updated successfully.")
    c.bash("cd todo-app && npm run build 2>&1 | tail -20", "vite v5.4.0 building for production...\n✓ built in 412ms")
    c.say("The store now starts with an empty list; the build passes.")
    c.write(HERE / "claude-code" / "build-loop.jsonl")


def quiet() -> None:
    """Nothing worth a lesson: a refused tool, one harness error, a failing test fixed by editing the
    code (three failures with assertions), `git push` needing an upstream. Capture stays silent."""
    root = "/home/dev/src/quiet"
    c = Claude("eeee6666-0000-4000-8000-000000000006", root)
    c.user("the parser drops empty fields")
    c.tool("Read", {"file_path": f"{root}/src"}, "EISDIR: illegal operation on a directory, read", True)
    for n in range(3):
        c.bash(
            "pytest tests/test_parser.py -q",
            f"F\nFAILED tests/test_parser.py::test_empty - AssertionError: assert ['a'] == ['a', '']\n1 failed in 0.0{n}s",
            1,
        )
        c.tool(
            "Edit",
            {
                "file_path": f"{root}/src/parser.py",
                "old_string": f"split(',', {n})",
                "new_string": f"split(',', {n + 1})",
            },
            "The file has been updated successfully.",
        )
    c.bash(
        "git push",
        "fatal: The current branch fix has no upstream branch.\nTo push the current branch and set the remote as upstream, use\n\n    git push --set-upstream origin fix\n",
        128,
    )
    c.bash("git push --set-upstream origin fix", "branch 'fix' set up to track 'origin/fix'.")
    c.tool(
        "Bash",
        {"command": "rm -rf build"},
        "The user doesn't want to proceed with this tool use. The tool use was rejected.",
        True,
    )
    c.say("I changed the split; the test still fails, please advise.")
    c.write(HERE / "claude-code" / "quiet.jsonl")


def main() -> None:
    elixir_commit()
    elixir_setup()
    go_codex()
    web_claude()
    python_setup()
    build_loop()
    quiet()


if __name__ == "__main__":
    main()
