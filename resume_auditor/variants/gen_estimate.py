"""What writing the qualification variants will cost, before a generator is asked.

The plan before a run states the audit's own requests and cost; when the study names
a generator model (any provider: the model under test, another key's model, a local
OpenAI-compatible server) the variants it writes are paid too, so the plan says
what they take: the texts `gen_plan` would ask for on every usable resume (a
completed base, c+ and c- per k, the reworded copies), one generator request each
and, with `judge`, one judge request each, from one attempt (every check passes)
to `max_attempts` (every retry used). Tokens are approximate (the resume's length
in the provider's characters per token, plus the instructions), so the cost is too;
a model without a known price says so rather than guessing.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from resume_auditor.domain.generation import GenerationSpec
from resume_auditor.domain.job import Job
from resume_auditor.domain.study import ModelSpec
from resume_auditor.runner.prices import PriceTable
from resume_auditor.runner.tokens import approx_tokens
from resume_auditor.variants.gen_plan import completion_task, variant_tasks

logger = logging.getLogger(__name__)

INSTRUCTIONS_TOKENS = 450  # the gen-* presets' instructions and rules, roughly
JUDGE_TOKENS_PER_ITEM = 12  # "N: yes" per qualification, and the question's line


@dataclass(frozen=True)
class GenEstimate:
    generators: tuple[str, ...]  # "provider:model"
    texts: int
    requests_low: int  # every text passes at its first attempt
    requests_high: int  # every text uses every attempt
    input_tokens: int  # first attempts
    output_tokens: int
    cost_low: float | None  # dollars; None: a generator has no known price
    cost_high: float | None
    free: bool  # every generator is local or self-hosted

    def line(self) -> str:
        who = ", ".join(self.generators)
        if self.free:
            cost = "no cost (a local or self-hosted model)"
        elif self.cost_low is None or self.cost_high is None:
            cost = "cost unknown (no price for this model in the price table)"
        else:
            cost = f"about ${self.cost_low:.2f}, up to ${self.cost_high:.2f} if every retry is used"
        return (
            f"Qualification variants by {who}: {self.texts} text(s), {self.requests_low} to "
            f"{self.requests_high} request(s), about {self.input_tokens:,} input and "
            f"{self.output_tokens:,} output tokens; {cost}."
        )


def estimate_generation(
    resumes: list[tuple[int, str]],
    job: Job,
    spec: GenerationSpec,
    seed: int,
    prices: PriceTable,
) -> GenEstimate | None:
    """The cost of writing the variants of `resumes` ((id, text) pairs); None without
    a generator. Texts already stored are not subtracted: this is the first run's cost."""
    if not spec.generators:
        return None
    low = high = texts = 0
    cost_low: float | None = 0.0
    cost_high: float | None = 0.0
    tokens_in = tokens_out = 0
    for resume_id, text in resumes:
        tasks = [completion_task(resume_id, text, job, spec, seed)]
        tasks += variant_tasks(resume_id, text, job, spec, seed)
        for task in tasks:
            if task is None:
                continue
            texts += 1
            model = spec.generators[task.generator]
            judge = spec.judge_model or model
            gen_in = approx_tokens(text, model.provider) + INSTRUCTIONS_TOKENS
            gen_in += sum(approx_tokens(c, model.provider) for c in task.changes)
            gen_out = approx_tokens(text, model.provider)
            calls = [(model, gen_in, gen_out)]
            if spec.judge and task.judge_items:
                items = len(task.judge_items)
                judge_in = approx_tokens(text, judge.provider) + INSTRUCTIONS_TOKENS
                calls.append((judge, judge_in + JUDGE_TOKENS_PER_ITEM * items, 4 * items))
            for who, tin, tout in calls:
                low += 1
                high += spec.max_attempts
                tokens_in += tin
                tokens_out += tout
                one = _cost(prices, who, tin, tout)
                cost_low = None if cost_low is None or one is None else cost_low + one
                cost_high = (
                    None
                    if cost_high is None or one is None
                    else cost_high + one * spec.max_attempts
                )
    models = [*spec.generators, *([spec.judge_model] if spec.judge_model else [])]
    return GenEstimate(
        tuple(dict.fromkeys(f"{g.provider}:{g.model}" for g in spec.generators)),
        texts,
        low,
        high,
        tokens_in,
        tokens_out,
        cost_low,
        cost_high,
        all(prices.is_free(m.provider) for m in models),
    )


def _cost(prices: PriceTable, model: ModelSpec, tokens_in: int, tokens_out: int) -> float | None:
    if prices.is_free(model.provider):
        return 0.0
    price = prices.lookup(model.provider, model.model)
    if price is None:
        return None
    return PriceTable.cost_of(price, (tokens_in, tokens_out, 0, 0))
