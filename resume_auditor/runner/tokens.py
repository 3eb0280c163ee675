"""Counting tokens before a request is sent, approximately and on purpose.

Each vendor uses its own tokenizer and none of them ships with the app (OpenAI's
would download its vocabulary at first use). For English prose a token is about
four characters for OpenAI and Gemini models and a little less for Claude; the
estimate before a run says it is an approximation, and spend during a run comes
from the usage the server reports, never from this.
"""

from __future__ import annotations

import math
from typing import Any

# Characters per token for English resumes and job descriptions, per provider.
CHARS_PER_TOKEN = {
    "openai": 4.0,
    "azure": 4.0,
    "openrouter": 4.0,
    "gemini": 4.0,
    "anthropic": 3.5,
    "local": 3.6,
    "openai-compatible": 3.8,
}
MESSAGE_OVERHEAD = 8  # role markers and separators around a system + user turn


def approx_tokens(text: str, provider: str) -> int:
    return math.ceil(len(text) / CHARS_PER_TOKEN.get(provider, 4.0))


def body_input_tokens(body: dict[str, Any], provider: str) -> int:
    """Approximate prompt tokens of a stored request body."""
    text = str(body.get("system", "")) + str(body.get("user", ""))
    return approx_tokens(text, provider) + MESSAGE_OVERHEAD
