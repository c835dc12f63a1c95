"""Where the LLM lives and how it is called: defaults for DeepSeek, overridable by environment."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from reasonlessons.errors import UsageError

DEFAULT_BASE_URL = "https://api.deepseek.com"
DEFAULT_MODEL = "deepseek-v4-flash"
DEFAULT_TIMEOUT = 30.0
MAX_OUTPUT_TOKENS = 600

ENV_BASE_URL = "REASONLESSONS_LLM_BASE_URL"
ENV_MODEL = "REASONLESSONS_LLM_MODEL"
ENV_API_KEY = "REASONLESSONS_LLM_API_KEY"
ENV_TIMEOUT = "REASONLESSONS_LLM_TIMEOUT"
ENV_DEEPSEEK_KEY = "DEEPSEEK_API_KEY"


@dataclass(frozen=True)
class LLMConfig:
    base_url: str = DEFAULT_BASE_URL
    model: str = DEFAULT_MODEL
    api_key: str | None = None
    timeout: float = DEFAULT_TIMEOUT
    max_tokens: int = MAX_OUTPUT_TOKENS

    @property
    def endpoint(self) -> str:
        """`<base>/chat/completions`, accepting a base given with or without `/v1`."""
        return self.base_url.rstrip("/") + "/chat/completions"

    @property
    def deepseek(self) -> bool:
        host = urlsplit(self.base_url).hostname or ""
        return host.endswith("deepseek.com") or self.model.startswith("deepseek")

    def __repr__(self) -> str:  # never show the key
        return f"LLMConfig(base_url={self.base_url!r}, model={self.model!r}, timeout={self.timeout})"


def from_env(env: Mapping[str, str]) -> LLMConfig:
    """The configuration from REASONLESSONS_LLM_* (DEEPSEEK_API_KEY as the key's fallback)."""
    base = env.get(ENV_BASE_URL) or DEFAULT_BASE_URL
    scheme = urlsplit(base).scheme
    if scheme not in ("http", "https"):
        raise UsageError(f"{ENV_BASE_URL}={base!r}: use an http(s) URL such as {DEFAULT_BASE_URL}")
    raw_timeout = env.get(ENV_TIMEOUT)
    try:
        timeout = float(raw_timeout) if raw_timeout else DEFAULT_TIMEOUT
    except ValueError:
        raise UsageError(f"{ENV_TIMEOUT}={raw_timeout!r}: use a number of seconds") from None
    if not 0 < timeout <= 600:
        raise UsageError(f"{ENV_TIMEOUT}={raw_timeout!r}: use a number of seconds from 0 to 600")
    key = env.get(ENV_API_KEY) or env.get(ENV_DEEPSEEK_KEY) or None
    return LLMConfig(base, env.get(ENV_MODEL) or DEFAULT_MODEL, key, timeout)
