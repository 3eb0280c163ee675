"""Streamed answers: tell a live but slow answer from a dead connection, and read it whole.

A fixed bound on a request's *total* time either cuts a slow reasoning model's
live answer or waits minutes on a connection that died. A streamed answer shows
signs of life (bytes: tokens, a vendor's keep-alive comment or `ping`) while it
is made, so the runner can bound the *silence* instead: the time to the first
byte and the gaps between chunks (`Pulse`, read by `runner/runner.py`).

The stream is read back into the very body the vendor sends without streaming,
so the one reader each wire format already has (`_parse`) reads it: the same
text, finish reason, refusal, usage and notes, and the stored `raw` is that
assembled body. Each vendor's stream:

- OpenAI chat completions (and Azure, OpenRouter, llama.cpp's server, vLLM, Ollama):
  `data: {chunk}` lines with `choices[0].delta.content` / `delta.refusal` and a
  `finish_reason`, then, with `stream_options: {"include_usage": true}`, one
  chunk with empty `choices` and the whole request's `usage`, then
  `data: [DONE]`; with `logprobs`, each chunk carries its tokens' log-probabilities.
  OpenAI documents that an interrupted stream may lack the usage
  chunk: a stream that ends without `[DONE]` is an answer cut off. OpenRouter
  sends `: OPENROUTER PROCESSING` comments while it waits (signs of life, no
  data) and reports an error met mid-answer as a `data:` chunk with `error`.
- Anthropic Messages (`"stream": true`): `message_start` (the message, with
  input usage), `content_block_delta` (`text_delta`), `message_delta` (the stop
  reason and output usage), `message_stop`, `ping` keep-alives, and an `error`
  event for a failure after the stream began.
- Gemini (`:streamGenerateContent?alt=sse`): each `data:` is a whole
  GenerateContentResponse holding the next piece of text; the last carries the
  finish reason and `usageMetadata`. There is no end marker: a stream is whole
  once a candidate has a finish reason (or the prompt was blocked).

Log-probabilities: OpenAI's chunks carry them (`choices[0].logprobs.content`,
the chunk's tokens), so OpenAI and Azure OpenAI stream requests that ask for
them and the pieces are joined. Other vendors do not document them in streams
(or pass them through from upstreams that may not): their requests for
log-probabilities are not streamed. A streamed answer that came without the
log-probabilities asked for proves nothing about the model; that model is asked
plainly from then on.
"""

from __future__ import annotations

import json
import logging
import time
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from resume_auditor.providers.base import ErrorKind, ProviderError
from resume_auditor.providers.errors import ErrorInfo, classify

logger = logging.getLogger(__name__)


@dataclass
class Pulse:
    """Signs of life of one send: when it went out, when anything last arrived.

    The runner puts one in `PULSE` for each send; a provider that streams calls
    `beat()` on every piece that arrives. A send nobody streams never beats, so
    its silence is its whole time, as before streaming.

    Two silences are told apart, because they are of different sizes: the wait for
    the first piece of a streamed answer (`first`: the provider's queue and the
    prompt's reading; the status line and headers may come before it) and the gaps
    between pieces once it writes (`longest_gap`: one token's time, or a keep-alive's
    period). A dead stream mid-answer is then found within what gaps take, not within
    what a first piece takes (runner/latency.py).
    """

    started: float = field(default_factory=time.monotonic)
    last: float = 0.0
    beats: int = 0
    longest_silence: float = 0.0
    streamed: bool = False
    first: float | None = None  # when the first piece of the stream arrived
    longest_gap: float = 0.0  # the longest silence between two pieces after it

    def __post_init__(self) -> None:
        self.last = self.last or self.started

    def beat(self, now: float | None = None) -> None:
        now = time.monotonic() if now is None else now
        self.longest_silence = max(self.longest_silence, now - self.last)
        if self.streamed:  # a piece of the stream (the headers' beat comes before)
            if self.first is None:
                self.first = now
            else:
                self.longest_gap = max(self.longest_gap, now - self.last)
        self.last = now
        self.beats += 1

    @property
    def writing(self) -> bool:
        """The first piece of a streamed answer has arrived."""
        return self.first is not None

    def gap(self) -> float | None:
        """The longest silence between two pieces (None: fewer than two pieces)."""
        return None if self.first is None or self.last <= self.first else self.longest_gap

    def first_wait(self) -> float | None:
        """Seconds from the send to the first piece (None: no piece yet, or unstreamed)."""
        return None if self.first is None else self.first - self.started

    def silence(self, now: float | None = None) -> float:
        """Seconds since anything arrived (since the send, before the first byte)."""
        return (time.monotonic() if now is None else now) - self.last


# The pulse of the send the current task makes (set by the runner; None: not watched,
# and then nothing is streamed).
PULSE: ContextVar[Pulse | None] = ContextVar("resume_auditor_pulse", default=None)


def cut_off(provider: str) -> ProviderError:
    return ProviderError(
        ErrorKind.MALFORMED,
        f"{provider}'s streamed answer ended before it was complete (cut off); trying again.",
    )


class StreamReader:
    """Reads one vendor's server-sent events into the body it sends unstreamed."""

    def __init__(self, provider: str, secret: str | None) -> None:
        self.provider = provider
        self.secret = secret
        self.done = False
        self._event = ""
        self._data: list[str] = []

    def feed_line(self, line: str) -> None:
        """One line of the event stream (without its line break)."""
        if not line:  # a blank line ends an event
            if self._data:
                self._dispatch(self._event or "message", "\n".join(self._data))
            self._event, self._data = "", []
            return
        if line.startswith(":"):  # a comment: a keep-alive
            return
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)

    def close(self) -> dict[str, Any]:
        """The assembled body once the stream has ended; a stream cut short raises."""
        if self._data:  # the last event without its blank line
            self._dispatch(self._event or "message", "\n".join(self._data))
            self._data = []
        if not self.done:
            raise cut_off(self.provider)
        return self.body()

    def _json(self, data: str) -> Any:
        try:
            return json.loads(data)
        except ValueError as exc:
            raise ProviderError(
                ErrorKind.MALFORMED,
                f"{self.provider} sent a streamed piece that is not valid JSON; trying again.",
            ) from exc

    def _dispatch(self, event: str, data: str) -> None:
        raise NotImplementedError

    def body(self) -> dict[str, Any]:
        raise NotImplementedError


class OpenAIStreamReader(StreamReader):
    """Chat-completion chunks, assembled into a chat completion."""

    def __init__(self, provider: str, secret: str | None) -> None:
        super().__init__(provider, secret)
        self.head: dict[str, Any] = {}
        self.text: list[str] = []
        self.refusal: list[str] = []
        self.finish: str | None = None
        self.usage: dict[str, Any] | None = None
        self.error: dict[str, Any] | None = None
        self.choice_error: dict[str, Any] | None = None
        self.logprobs: list[Any] | None = None

    def _dispatch(self, event: str, data: str) -> None:
        if data.strip() == "[DONE]":
            self.done = True
            return
        chunk = self._json(data)
        if not isinstance(chunk, dict):
            return
        if isinstance(chunk.get("error"), dict):  # an error met mid-answer (OpenRouter, vLLM)
            self.error = chunk["error"]
            self.done = True
            return
        for key in ("id", "model", "system_fingerprint", "provider", "created"):
            if chunk.get(key) and key not in self.head:
                self.head[key] = chunk[key]
        if isinstance(chunk.get("usage"), dict):
            self.usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta") or {}
            if isinstance(delta.get("content"), str):
                self.text.append(delta["content"])
            if isinstance(delta.get("refusal"), str):
                self.refusal.append(delta["refusal"])
            block = choice.get("logprobs")
            if isinstance(block, dict) and isinstance(block.get("content"), list):
                self.logprobs = (self.logprobs or []) + block["content"]
            if choice.get("finish_reason"):
                self.finish = str(choice["finish_reason"])
            if isinstance(choice.get("error"), dict):
                self.choice_error = choice["error"]

    def body(self) -> dict[str, Any]:
        if self.error is not None:
            return {"error": self.error}
        if self.finish is None and self.choice_error is None:
            raise cut_off(self.provider)  # [DONE] without a finished choice
        message: dict[str, Any] = {"role": "assistant", "content": "".join(self.text)}
        if self.refusal:
            message["refusal"] = "".join(self.refusal)
            if not self.text:
                message["content"] = None
        choice: dict[str, Any] = {"index": 0, "message": message, "finish_reason": self.finish}
        if self.choice_error is not None:
            choice["error"] = self.choice_error
        if self.logprobs is not None:
            choice["logprobs"] = {"content": self.logprobs}
        out: dict[str, Any] = {**self.head, "object": "chat.completion", "choices": [choice]}
        if self.usage is not None:
            out["usage"] = self.usage
        return out


class AnthropicStreamReader(StreamReader):
    """Messages stream events, assembled into a message."""

    def __init__(self, provider: str, secret: str | None) -> None:
        super().__init__(provider, secret)
        self.message: dict[str, Any] = {}
        self.blocks: dict[int, dict[str, Any]] = {}
        self.usage: dict[str, Any] = {}
        self.stop: str | None = None

    def _dispatch(self, event: str, data: str) -> None:
        item = self._json(data)
        if not isinstance(item, dict):
            return
        kind = str(item.get("type") or event)
        if kind == "message_start" and isinstance(item.get("message"), dict):
            self.message = dict(item["message"])
            self.usage.update(self.message.get("usage") or {})
        elif kind == "content_block_start" and isinstance(item.get("content_block"), dict):
            self.blocks[int(item.get("index", 0))] = dict(item["content_block"])
        elif kind == "content_block_delta" and isinstance(item.get("delta"), dict):
            delta = item["delta"]
            block = self.blocks.setdefault(int(item.get("index", 0)), {"type": "text", "text": ""})
            if delta.get("type") == "text_delta":
                block["text"] = str(block.get("text", "")) + str(delta.get("text", ""))
        elif kind == "message_delta":
            delta = item.get("delta") or {}
            if delta.get("stop_reason"):
                self.stop = str(delta["stop_reason"])
            # usage in message_delta is cumulative: the last one is the whole answer's
            self.usage.update({k: v for k, v in (item.get("usage") or {}).items() if v is not None})
        elif kind == "message_stop":
            self.done = True
        elif kind == "error":
            err = item.get("error") or {}
            etype = str(err.get("type") or "")
            status = {"overloaded_error": 529, "rate_limit_error": 429, "api_error": 500}.get(
                etype, 500
            )
            raise classify(
                ErrorInfo(status, str(err.get("message") or ""), type=etype),
                self.provider,
                secret=self.secret,
            )

    def body(self) -> dict[str, Any]:
        content = [self.blocks[i] for i in sorted(self.blocks)]
        return {**self.message, "content": content, "stop_reason": self.stop, "usage": self.usage}


class GeminiStreamReader(StreamReader):
    """GenerateContentResponse pieces, assembled into one."""

    def __init__(self, provider: str, secret: str | None) -> None:
        super().__init__(provider, secret)
        self.last: dict[str, Any] = {}
        self.parts: list[dict[str, Any]] = []
        self.finish: str | None = None
        self.usage: dict[str, Any] | None = None
        self.feedback: dict[str, Any] | None = None

    def _dispatch(self, event: str, data: str) -> None:
        item = self._json(data)
        if isinstance(item, list):  # a front end that frames the pieces as a JSON array
            for piece in item:
                self._take(piece)
        else:
            self._take(item)

    def _take(self, item: Any) -> None:
        if not isinstance(item, dict):
            return
        if isinstance(item.get("error"), dict):
            err = item["error"]
            code = err.get("code")
            raise classify(
                ErrorInfo(
                    code if isinstance(code, int) and code >= 400 else 500,
                    str(err.get("message") or ""),
                    type=str(err.get("status") or ""),
                ),
                self.provider,
                secret=self.secret,
            )
        self.last = item
        if isinstance(item.get("usageMetadata"), dict):
            self.usage = item["usageMetadata"]
        feedback = item.get("promptFeedback")
        if isinstance(feedback, dict) and feedback.get("blockReason"):
            self.feedback = feedback
            self.done = True
        for cand in item.get("candidates") or []:
            if not isinstance(cand, dict) or cand.get("index", 0) != 0:
                continue
            for part in (cand.get("content") or {}).get("parts") or []:
                if isinstance(part, dict):
                    self.parts.append(part)
            if cand.get("finishReason"):
                self.finish = str(cand["finishReason"])
                self.done = True

    def body(self) -> dict[str, Any]:
        out = {k: v for k, v in self.last.items() if k not in ("candidates", "usageMetadata")}
        if self.feedback is not None and self.finish is None:
            out["promptFeedback"] = self.feedback
            out["candidates"] = []
        else:
            out["candidates"] = [
                {
                    "content": {"role": "model", "parts": _merge_parts(self.parts)},
                    "finishReason": self.finish,
                    "index": 0,
                }
            ]
        if self.usage is not None:
            out["usageMetadata"] = self.usage
        return out


def _merge_parts(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Consecutive text pieces of the same kind (thought or answer) joined into one part."""
    merged: list[dict[str, Any]] = []
    for part in parts:
        if "text" not in part:
            merged.append(part)
            continue
        thought = bool(part.get("thought"))
        if merged and "text" in merged[-1] and bool(merged[-1].get("thought")) == thought:
            merged[-1] = {**merged[-1], "text": str(merged[-1]["text"]) + str(part["text"])}
        else:
            merged.append(dict(part))
    return merged


READERS: dict[str, type[StreamReader]] = {
    "openai": OpenAIStreamReader,
    "anthropic": AnthropicStreamReader,
    "gemini": GeminiStreamReader,
}
