"""Probabilities of an answer's label from token log-probabilities.

When a model gives them, the probability it put on each possible answer at the
point where it wrote its answer is a finer measurement than the one word it
chose (Chen et al. 2024, Section 3.2: score = sum of normalised P(label) x value).
We find the token where the label was written, read that token's top
alternatives, and add up the probability of every spelling of each label
(" Yes", "Yes", "yes"; " first", "first"; the first piece "AB" of "ABSTAIN").
Neither label among the alternatives means "missing", never a guess.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from resume_auditor.providers.base import TokenLogprob

_STRIP = " \t\n\"'*`<>()[]{}:.,!"


def _norm(token: str) -> str:
    return token.strip(_STRIP).lower()


def _label_of(token: str, forms: Mapping[str, Sequence[str]]) -> str | None:
    """The one label whose spelling starts with this token's text, if exactly one."""
    piece = _norm(token)
    if not piece:
        return None
    hits = {
        label
        for label, spellings in forms.items()
        for spelling in spellings
        if spelling.lower().startswith(piece) or piece == spelling.lower()
    }
    return next(iter(hits)) if len(hits) == 1 else None


def token_index_at(logprobs: Sequence[TokenLogprob], text: str, char_pos: int) -> int | None:
    """The token covering character `char_pos` of `text`, when the tokens spell the text."""
    joined = "".join(t.token for t in logprobs)
    if not joined or joined.rstrip() != text[: len(joined)].rstrip():
        return None
    offset = 0
    for i, tok in enumerate(logprobs):
        end = offset + len(tok.token)
        if offset <= char_pos < end:
            return i
        offset = end
    return None


def last_label_token(
    logprobs: Sequence[TokenLogprob], forms: Mapping[str, Sequence[str]]
) -> int | None:
    """The last token that writes (the start of) one of the labels."""
    for i in range(len(logprobs) - 1, -1, -1):
        if _label_of(logprobs[i].token, forms) is not None:
            return i
    return None


def distribution(
    token: TokenLogprob, forms: Mapping[str, Sequence[str]]
) -> dict[str, float] | None:
    """{label: probability} at one token, normalised over the labels; None if none seen."""
    mass: dict[str, float] = dict.fromkeys(forms, 0.0)
    seen: set[str] = set()
    alternatives = list(token.top)
    if token.token not in {t for t, _ in alternatives}:
        alternatives.append((token.token, token.logprob))
    for text, logprob in alternatives:
        label = _label_of(text, forms)
        if label is None or text in seen:
            continue
        seen.add(text)
        mass[label] += math.exp(logprob)
    total = sum(mass.values())
    if total <= 0:
        return None
    return {label: value / total for label, value in mass.items()}


def label_probabilities(
    logprobs: Sequence[TokenLogprob] | None,
    text: str,
    char_pos: int | None,
    forms: Mapping[str, Sequence[str]],
) -> tuple[dict[str, float], float] | None:
    """(distribution over labels, probability mass the labels got) where the answer
    was written; None without log-probabilities or when no label is among them."""
    if not logprobs:
        return None
    index = None if char_pos is None else token_index_at(logprobs, text, char_pos)
    if index is None or _label_of(logprobs[index].token, forms) is None:
        index = last_label_token(logprobs, forms)
    if index is None:
        return None
    token = logprobs[index]
    dist = distribution(token, forms)
    if dist is None:
        return None
    raw = sum(
        math.exp(lp) for t, lp in {*token.top, (token.token, token.logprob)} if _label_of(t, forms)
    )
    return dist, min(1.0, raw)


def expected_value(dist: Mapping[str, float], values: Mapping[str, float]) -> float:
    """Sum of P(label) x value (e.g. a 1-5 rating's expected value, or P(Yes))."""
    return float(sum(p * values[label] for label, p in dist.items() if label in values))
