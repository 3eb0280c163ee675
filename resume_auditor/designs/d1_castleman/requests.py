"""D1's requests: each pair under the run's pairwise preset, in the orders the run asks.

Moved unchanged from workflow/design_requests.py: the same bodies, ukeys
(`pair:<case>:<order>`), cells and order (requests that show the same resume
first run back to back), so the response cache and stored audits match
(tests/test_design_request_bodies.py).
"""

from __future__ import annotations

from resume_auditor.domain.case import Case, Order, Truth, Variant
from resume_auditor.domain.study import ModelSpec, StudyConfig
from resume_auditor.prompts import get_preset
from resume_auditor.prompts.requests import request_body
from resume_auditor.store.requests import RequestSpec

__all__ = ["d1_requests", "expected", "request_body"]


def expected(truth: Truth | None, order: Order) -> str:
    """The answer a valid screener gives: the more qualified one, or abstain."""
    if truth is None or truth is Truth.EQUAL:
        return "abstain"
    shown_first = "a" if order is Order.AB else "b"
    return "first" if truth.value == shown_first else "second"


def d1_requests(
    study: StudyConfig,
    model: ModelSpec,
    job_text: str,
    variants: dict[int, Variant],
    pairs: list[Case],
) -> list[RequestSpec]:
    """D1's pairs under the run's pairwise preset, in the orders the run asks for."""
    preset = get_preset(study.run.prompt)
    orders = [Order.AB, Order.BA] if study.run.orders == "both" else [Order.AB]
    keyed = []
    for pair in pairs:
        pair_id = pair.id or 0
        groups = sorted(g or "" for g in (pair.group_a, pair.group_b))
        cell = f"D1 {pair.kind} pairs, k={pair.k}, {' vs '.join(groups)}"
        if pair.signal != "name":
            cell += f", {pair.signal} signals"
        for order in orders:
            first, second = (
                (pair.variant_a, pair.variant_b)
                if order is Order.AB
                else (pair.variant_b, pair.variant_a)
            )
            body = request_body(
                model, study.run.prompt, job_text, variants[first].text, variants[second].text
            )
            context = {
                "names": [variants[first].name or "", variants[second].name or ""],
                "expect": expected(pair.truth, order),
                "cluster": pair.cluster,
            }
            for rep in range(study.run.repeats):
                spec = RequestSpec(
                    ukey=f"pair:{pair_id}:{order.value}",
                    kind=preset.kind,
                    body=body,
                    variants=(first, second),
                    rep=rep,
                    preset=preset.id,
                    case_id=pair_id,
                    order=order.value,
                    context=context,
                    cell=cell,
                )
                keyed.append(((pair.cluster or 0, first, rep), spec))
    # Requests that show the same resume first run back to back, so a server that
    # caches the prompt prefix (llama.cpp, OpenAI, Anthropic) reuses it.
    keyed.sort(key=lambda kv: kv[0])
    return [spec for _, spec in keyed]
