"""One chat-completions request over the standard library, under a hard deadline.

No SDK: a POST with a JSON body, temperature 0, at most MAX_OUTPUT_TOKENS, JSON output requested,
and DeepSeek's thinking switched off (its models think by default). The deadline covers connecting,
sending and every read: a server that trickles bytes is cut off when the time is up.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Any

from reasonlessons.capture.extract.llm.config import LLMConfig
from reasonlessons.errors import ReasonLessonsError

MAX_REPLY_BYTES = 512 * 1024
_CHUNK = 16 * 1024


class LLMError(ReasonLessonsError):
    """The LLM could not be used for this session (the caller falls back to the heuristic extractor)."""


def request_body(config: LLMConfig, messages: list[dict[str, str]]) -> dict[str, Any]:
    body: dict[str, Any] = {
        "model": config.model,
        "messages": messages,
        "temperature": 0,
        "max_tokens": config.max_tokens,
        "response_format": {"type": "json_object"},
        "stream": False,
    }
    if config.deepseek:
        body["thinking"] = {"type": "disabled"}
    return body


def chat(config: LLMConfig, messages: list[dict[str, str]]) -> str:
    """The assistant message text of one completion; LLMError saying what went wrong otherwise."""
    if not config.api_key:
        raise LLMError("no API key: set REASONLESSONS_LLM_API_KEY (or DEEPSEEK_API_KEY)")
    data = json.dumps(request_body(config, messages)).encode("utf-8")
    request = urllib.request.Request(
        config.endpoint,
        data=data,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json",
            "Authorization": f"Bearer {config.api_key}",
        },
    )
    deadline = time.monotonic() + config.timeout
    raw = _send(request, deadline, config.timeout)
    try:
        doc = json.loads(raw)
        content = doc["choices"][0]["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise LLMError("the reply is not a chat-completions response") from None
    if not isinstance(content, str) or not content.strip():
        raise LLMError("the reply has no message content")
    return content


def _send(request: urllib.request.Request, deadline: float, timeout: float) -> bytes:
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            chunks: list[bytes] = []
            size = 0
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise LLMError(f"no complete reply within {timeout:g}s")
                _set_timeout(response, left)
                chunk = response.read1(_CHUNK) if hasattr(response, "read1") else response.read(_CHUNK)
                if not chunk:
                    return b"".join(chunks)
                size += len(chunk)
                if size > MAX_REPLY_BYTES:
                    raise LLMError(f"the reply is larger than {MAX_REPLY_BYTES} bytes")
                chunks.append(chunk)
    except urllib.error.HTTPError as exc:
        retry = exc.headers.get("Retry-After") if exc.headers else None
        hint = f" (rate limited; retry after {retry}s)" if exc.code == 429 and retry else ""
        raise LLMError(f"HTTP {exc.code} {exc.reason}{hint}") from None
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, TimeoutError) or "timed out" in str(reason):
            raise LLMError(f"no reply within {timeout:g}s") from None
        raise LLMError(f"cannot reach the LLM: {reason}") from None
    except TimeoutError:
        raise LLMError(f"no complete reply within {timeout:g}s") from None
    except OSError as exc:
        raise LLMError(f"connection failed: {exc}") from None


def _set_timeout(response: object, seconds: float) -> None:
    """Bound the next socket read by what is left of the deadline."""
    sock = getattr(getattr(getattr(response, "fp", None), "raw", None), "_sock", None)
    if sock is not None:
        sock.settimeout(max(seconds, 0.01))
