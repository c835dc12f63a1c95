"""A scripted OpenAI-compatible chat-completions server on loopback, for the LLM extractor tests."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Script:
    """Replies the server gives, in order: (status, body, delay seconds); and what it received."""

    replies: list[tuple[int, str, float]] = field(default_factory=list)
    received: list[dict[str, Any]] = field(default_factory=list)
    headers: list[dict[str, str]] = field(default_factory=list)


@contextmanager
def serve() -> Iterator[tuple[str, Script]]:
    """(base URL, script) of a server running on 127.0.0.1 until the block ends."""
    script = Script()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            script.received.append(json.loads(self.rfile.read(length)))
            script.headers.append(dict(self.headers))
            status, body, delay = script.replies.pop(0) if script.replies else (500, "no reply scripted", 0)
            if delay:
                time.sleep(delay)
            data = body.encode()
            try:
                self.send_response(status)
                if status == 429:
                    self.send_header("Retry-After", "7")
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except OSError:
                pass  # the client gave up (timeout test)

        def log_message(self, *args: Any) -> None:
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", script
    finally:
        httpd.shutdown()
        httpd.server_close()


def completion(content: str) -> str:
    return json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]})
