"""OpenAI's own API: chat completions at api.openai.com with a Bearer key.

Differs from a generic OpenAI-compatible server in three ways: the token limit
is `max_completion_tokens` (reasoning models reject `max_tokens`), the model
list mixes in embedding/speech/image models that cannot screen a resume, and
reasoning models (o-series, gpt-5) refuse temperature and log-probabilities.
"""

from __future__ import annotations

import re

from resume_auditor.providers.openai_compat import OpenAICompatProvider

DEFAULT_BASE_URL = "https://api.openai.com/v1"

# Model ids that cannot answer a chat turn.
_NOT_CHAT = re.compile(
    r"embedding|whisper|tts|dall-e|davinci|babbage|moderation|^gpt-image|transcribe|"
    r"realtime|audio|^sora|search-api|computer-use"
)


class OpenAIProvider(OpenAICompatProvider):
    wire = "openai"
    provider_id = "openai"
    max_tokens_field = "max_completion_tokens"
    default_base_url = DEFAULT_BASE_URL

    display_name = "OpenAI"
    streams_logprobs = True  # documented in the streamed chunks

    async def list_models(self) -> list[str]:
        return [m for m in await super().list_models() if not _NOT_CHAT.search(m)]
