"""A loopback OpenAI-compatible model for driving the real `aider-chat` (tests/resources/aider/).

Aider talks to it through litellm like to any OpenAI-compatible endpoint. Replies are scripted:
the main model's in order, each checked against what the last user message must contain, so the
script and the conversation cannot drift apart silently; commit-message requests (the weak model)
take the next scripted commit message. Only the generator script uses this module; the test suite
reads the histories it produced and never needs aider.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

COMMIT_PROMPT = "one-line Git commit messages"


@dataclass
class Reply:
    """One answer of the main model, given when the last user message contains `expect`."""

    expect: str
    content: str


@dataclass
class ModelScript:
    """What the model answers, and what went wrong (a reply out of step with the conversation)."""

    replies: list[Reply] = field(default_factory=list)
    commits: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    requests: int = 0

    def answer(self, body: dict[str, Any]) -> str:
        messages = body.get("messages") or []
        system = " ".join(str(m.get("content")) for m in messages if m.get("role") == "system")
        if COMMIT_PROMPT in system:
            if self.commits:
                return self.commits.pop(0)
            self.errors.append("a commit message was asked for but none is scripted")
            return "chore: update files"
        last = next((m for m in reversed(messages) if m.get("role") == "user"), {})
        text = _text(last.get("content"))
        if not self.replies:
            self.errors.append(f"no reply scripted for: {text[:200]!r}")
            return "I have nothing more to add."
        reply = self.replies.pop(0)
        if reply.expect not in text:
            self.errors.append(f"expected {reply.expect!r} in the user message, got {text[:300]!r}")
        return reply.content


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return ""


def _completion(content: str, body: dict[str, Any]) -> dict[str, Any]:
    prompt = sum(len(_text(m.get("content"))) for m in body.get("messages") or []) // 4
    completion = max(1, len(content) // 4)
    return {
        "id": "chatcmpl-mock",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": body.get("model", "mock"),
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


@contextmanager
def serve(script: ModelScript) -> Iterator[str]:
    """The base URL (`http://127.0.0.1:<port>/v1`) of the model, running until the block ends."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            script.requests += 1
            data = json.dumps(_completion(script.answer(body), body)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # model listings: nothing to list
            data = b'{"object": "list", "data": []}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    finally:
        httpd.shutdown()
        httpd.server_close()
