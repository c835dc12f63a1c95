"""A loopback OpenAI-compatible chat model for driving the real Reasonix binary (tests/reasonixrun.py).

Reasonix streams (`"stream": true`, server-sent events) and sends other requests beside the agent's
own (titles, classifiers: no `tools`). The model is scripted by prompt: `plan(marker, *steps)` makes
every conversation whose first real user message contains `marker` take `steps` in order, a step
being a shell command (`bash(...)`, run through Reasonix's `bash` tool) or a final text; once the
steps are used up it answers "Done.". The step is chosen from the request alone (how many assistant
messages follow the user's), so concurrent or repeated runs need no server state. Every request is
kept, in order, for the tests to read what reached the model.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "mock-model"


@dataclass(frozen=True)
class Step:
    command: str | None = None
    text: str | None = None


def bash(command: str) -> Step:
    return Step(command=command)


def say(text: str) -> Step:
    return Step(text=text)


@dataclass
class MockModel:
    """The script, and every request received (method, path, JSON body)."""

    plans: list[tuple[str, tuple[Step, ...]]] = field(default_factory=list)
    received: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    base_url: str = ""

    def plan(self, marker: str, *steps: Step) -> None:
        self.plans.append((marker, steps))

    def chats(self, since: int = 0) -> list[dict[str, Any]]:
        """The agent's chat requests (those that offer tools) received from index `since` on."""
        with self.lock:
            return [r["body"] for r in self.received[since:] if r["body"].get("tools")]

    def reply(self, body: dict[str, Any]) -> Step:
        messages = body.get("messages") or []
        if not body.get("tools"):
            return say("ok")
        users = [i for i, m in enumerate(messages) if m.get("role") == "user"]
        prompt = " ".join(_text(messages[i]) for i in users)
        done = sum(1 for m in messages[users[-1] :] if m.get("role") == "assistant") if users else 0
        for marker, steps in self.plans:
            if marker in prompt:
                return steps[done] if done < len(steps) else say("Done.")
        return say("Done.")


def _text(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return " ".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return content if isinstance(content, str) else ""


def _chunks(step: Step, call: int) -> list[dict[str, Any]]:
    base = {
        "id": f"chatcmpl-{call}",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": MODEL,
    }
    if step.command is not None:
        tool = {
            "index": 0,
            "id": f"call_{call}",
            "type": "function",
            "function": {"name": "bash", "arguments": json.dumps({"command": step.command})},
        }
        delta: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [tool]}
        finish = "tool_calls"
    else:
        delta, finish = {"role": "assistant", "content": step.text}, "stop"
    usage = {"prompt_tokens": 1000, "completion_tokens": 20, "total_tokens": 1020}
    return [
        {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": finish}]},
        {**base, "choices": [], "usage": usage},
    ]


@contextmanager
def serve() -> Iterator[MockModel]:
    """A MockModel answering on 127.0.0.1 until the block ends (`base_url` ends in /v1)."""
    model = MockModel()
    calls = [0]

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self) -> None:
            self._send(
                200, "application/json", json.dumps({"data": [{"id": MODEL, "object": "model"}]}).encode()
            )

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
            with model.lock:
                model.received.append({"path": self.path, "body": body})
                calls[0] += 1
                call = calls[0]
            step = model.reply(body)
            if body.get("stream"):
                data = b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in _chunks(step, call))
                self._send(200, "text/event-stream", data + b"data: [DONE]\n\n")
                return
            message: dict[str, Any] = {"role": "assistant", "content": step.text or ""}
            doc = {
                "id": f"chatcmpl-{call}",
                "object": "chat.completion",
                "model": MODEL,
                "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105},
            }
            self._send(200, "application/json", json.dumps(doc).encode())

        def _send(self, status: int, kind: str, data: bytes) -> None:
            try:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:
                pass  # Reasonix went away mid-answer

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    model.base_url = f"http://127.0.0.1:{httpd.server_address[1]}/v1"
    try:
        yield model
    finally:
        httpd.shutdown()
        httpd.server_close()
