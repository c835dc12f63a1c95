"""The optional LLM extractor (`capture --extractor llm`): an OpenAI-compatible chat-completions call.

Takes one session's observations; gives candidate drafts that must pass the same gates as the
heuristic extractor's, or the heuristic extractor's own drafts and the reason it fell back.

    observations ──digest.py (redacted, refs)──▶ client.py (HTTP, hard timeout) ──reply.py (schema,
    evidence must resolve)──▶ candidate drafts ──▶ the same gates as the heuristic extractor

    config.py     where the LLM lives and how it is called (DeepSeek defaults, environment overrides)
    extractor.py  the extractor capture calls: ask the LLM, else fall back and say why

On any failure (no key, network, HTTP error, timeout, unusable reply) extractor.py falls back to the
heuristic extractor for that session and records why.
"""

from __future__ import annotations
