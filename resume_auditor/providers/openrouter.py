"""OpenRouter: many vendors' models behind one OpenAI-shaped API.

Quirks: model ids are `vendor/model`; running out of credits is HTTP 402;
upstream failures can arrive inside an HTTP 200 body; log-probabilities are only
returned if the request insists (`provider.require_parameters`) that it be
routed to an upstream that gives them — and when none does, OpenRouter answers
404 "no endpoints found", which here means "this model has no log-probabilities",
not "no such model". The model list needs no key and says, per model, which
settings it supports; we remember the ones it lacks.
"""

from __future__ import annotations

from typing import Any

from resume_auditor.providers.base import ChatRequest
from resume_auditor.providers.capabilities import (
    LOGPROBS,
    SEED,
    STRUCTURED,
    TEMPERATURE,
    ModelTraits,
    model_traits,
)
from resume_auditor.providers.errors import ErrorInfo
from resume_auditor.providers.openai_compat import OpenAICompatProvider
from resume_auditor.providers.wire import Plan, read_json

DEFAULT_BASE_URL = "https://openrouter.ai/api/v1"
APP_URL = "https://github.com/resume-auditor/resume-auditor"
APP_TITLE = "Resume Auditor"

# OpenRouter's `supported_parameters` names -> our feature names.
_PARAMS = {
    TEMPERATURE: ("temperature",),
    SEED: ("seed",),
    LOGPROBS: ("logprobs", "top_logprobs"),
    STRUCTURED: ("response_format", "structured_outputs"),
}


class OpenRouterProvider(OpenAICompatProvider):
    wire = "openai"
    provider_id = "openrouter"
    default_base_url = DEFAULT_BASE_URL

    display_name = "OpenRouter"

    @classmethod
    def traits_for(cls, model: str) -> ModelTraits:
        vendor = model.split("/", 1)[0].lower() if "/" in model else ""
        if vendor == "anthropic":  # no log-probabilities; OpenRouter takes care of the rest
            return ModelTraits(False, frozenset({LOGPROBS}))
        return model_traits({"openai": "openai", "google": "gemini"}.get(vendor, "other"), model)

    def _headers(self) -> dict[str, str]:
        headers = super()._headers()
        headers["HTTP-Referer"] = APP_URL
        headers["X-Title"] = APP_TITLE
        return headers

    def build_body(self, request: ChatRequest, plan: Plan | None = None) -> dict[str, Any]:
        plan = plan or self.plan(request)
        body = super().build_body(request, plan)
        if plan.logprobs:
            body["provider"] = {"require_parameters": True}
        return body

    def refused_feature(self, info: ErrorInfo, plan: Plan) -> str | None:
        if info.status == 404 and plan.logprobs and "endpoint" in info.message.lower():
            return LOGPROBS
        return super().refused_feature(info, plan)

    async def list_models(self) -> list[str]:
        url = f"{self.base_url}/models"
        response, _ = await self._send("GET", url)
        if response.status_code >= 400:
            raise self.error(response)
        data = read_json(response.content, self.name)
        items = data.get("data", []) if isinstance(data, dict) else []
        ids = []
        lacking: list[tuple[str, str, bool]] = []
        for item in items if isinstance(items, list) else []:
            if not isinstance(item, dict) or not item.get("id"):
                continue
            model = str(item["id"])
            ids.append(model)
            supported = item.get("supported_parameters")
            if isinstance(supported, list):
                names = {str(p) for p in supported}
                lacking.extend(
                    (self.key(model), feature, False)
                    for feature, params in _PARAMS.items()
                    if not names.intersection(params)
                )
        self._caps.set_many(lacking)
        return sorted(set(ids))
