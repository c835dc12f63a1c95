"""The optional LLM extractor (`capture --extractor llm`): an OpenAI-compatible chat-completions call.

    observations ──digest.py (redacted, refs)──▶ client.py (HTTP, hard timeout) ──reply.py (schema,
    evidence must resolve)──▶ candidate drafts ──▶ the same gates as the heuristic extractor

On any failure (no key, network, HTTP error, timeout, unusable reply) extractor.py falls back to the
heuristic extractor for that session and records why.
"""

from __future__ import annotations
