"""Simulator policies with a known truth: a group-blind screener, with or without bias.

The null-calibration benchmark (benchmarks/null_calibration.py) needs a model
whose answers provably ignore every group signal, answered through the real path
(HTTP, answer reading, store, metrics, report flags). A policy that reads the
resume text cannot promise that: names and pronouns change its length, and the
signals D4 adds are lines of text. So this policy is an oracle: it is told which
stored variant each resume text is (`Oracle.from_variants`) and answers from the
variant's source resume and qualification level only:

    quality = u[source resume] + step * k (c+) or - step * k (c-)
    latent  = quality + noise (normal, sd `noise`), drawn per request

plus, optionally, `position_bias` added to the first-shown candidate's latent
(pairwise and ranking prompts) and `effects[group]` added to a group's quality
(the planted effect for power). With no effect planted, every fairness metric's
truth is its null value (gap 0, impact ratio 1, RABBI 0, rank (n+1)/2), so every
flag raised is a false alarm and every interval can be checked for covering it.

Answers are in the formats of the shipped presets (the same phrases
simulator_kinds.every_kind_policy recognises).
"""

from __future__ import annotations

import hashlib
import math
import re
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from resume_auditor.domain.case import Variant

PREFIX = 32  # characters of a variant text that index it (Oracle.shown)


@dataclass
class Oracle:
    """Which variant a resume text is, and the planted truth about it."""

    texts: list[tuple[str, int, str, int, str, str]]  # text, source, kind, k, group, name
    seed: int = 0
    spread: float = 0.7  # sd of the source resumes' quality
    step: float = 1.0  # quality per qualification added or removed
    noise: float = 1.0  # sd of the per-request noise
    position_bias: float = 0.0  # added to the first-shown candidate's latent
    effects: Mapping[str, float] = field(default_factory=dict)  # group -> quality shift
    abstain_band: float = 0.6  # |latent difference| under this: the pair is called equal
    # the per-request noise's own seed (None: `seed`): two models of one audit share the
    # resumes' quality (from `seed`) and answer with their own noise
    noise_seed: int | None = None
    _asked: dict[bytes, int] = field(init=False, repr=False)  # request text -> times asked
    _local: threading.local = field(init=False, repr=False)  # this request's noise
    _quality: dict[int, float] = field(init=False, repr=False)
    _lock: threading.Lock = field(init=False, repr=False)
    _starts: dict[str, list[int]] = field(init=False, repr=False)
    _short: list[int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._asked = {}
        self._local = threading.local()
        sources = sorted({t[1] for t in self.texts})
        base = np.random.default_rng(self.seed + 1).normal(0.0, self.spread, len(sources))
        self._quality = {s: float(q) for s, q in zip(sources, base, strict=True)}
        self._lock = threading.Lock()
        # longest first, so a text that contains another is found as itself
        self.texts.sort(key=lambda t: -len(t[0]))
        # Each text indexed by its first PREFIX characters: a prompt is then read once
        # (a dict look-up per position) instead of searched once per variant text, which
        # made the oracle, not the app, the cost of a large audit (thousands of texts)
        self._starts = {}
        self._short = []
        for i, t in enumerate(self.texts):
            if len(t[0]) >= PREFIX:
                self._starts.setdefault(t[0][:PREFIX], []).append(i)
            elif t[0]:
                self._short.append(i)

    @classmethod
    def from_variants(cls, variants: Iterable[Variant], **kwargs: Any) -> Oracle:
        texts = [
            (v.text.strip(), v.resume_id, v.kind.value, v.k, v.group or "", v.name or "")
            for v in variants
        ]
        return cls(texts, **kwargs)

    def quality(self, source: int, kind: str, k: int, group: str) -> float:
        q = self._quality.get(source, 0.0) + float(self.effects.get(group, 0.0))
        if kind == "more":
            q += self.step * k
        elif kind == "less":
            q -= self.step * k
        return q

    def shown(self, user: str) -> list[tuple[int, float, str]]:
        """(position in the prompt, quality, name) of every variant text in `user`, in order.

        Longest text first, each at its first occurrence that does not start inside a
        text already found (a text that contains another is found as itself)."""
        where: dict[int, list[int]] = {}
        for at in range(len(user) - PREFIX + 1):
            for i in self._starts.get(user[at : at + PREFIX], ()):
                if user.startswith(self.texts[i][0], at):
                    where.setdefault(i, []).append(at)
        for i in self._short:
            at = user.find(self.texts[i][0])
            while at >= 0:
                where.setdefault(i, []).append(at)
                at = user.find(self.texts[i][0], at + 1)
        found: list[tuple[int, float, str]] = []
        taken: list[tuple[int, int]] = []
        for i in sorted(where):
            text, source, kind, k, group, name = self.texts[i]
            at = next((x for x in where[i] if not any(a <= x < b for a, b in taken)), -1)
            if at < 0:
                continue
            taken.append((at, at + len(text)))
            found.append((at, self.quality(source, kind, k, group), name))
        return sorted(found)

    def draw(self, size: int = 1) -> np.ndarray:
        """This request's noise (`__call__` sets its generator)."""
        return np.asarray(self._local.rng.normal(0.0, self.noise, size))

    def _generator(self, text: str) -> np.random.Generator:
        """The noise of a request, from its text and how many times that text was asked
        before: the same audit gets the same noise whatever order a concurrent runner
        sends its requests in (repeats of one prompt only swap draws among themselves,
        which changes no sum by source resume). Drawn from one generator in arrival
        order, two runs of one seed gave different audits."""
        key = hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest()
        with self._lock:
            nth = self._asked.get(key, 0)
            self._asked[key] = nth + 1
        seed = self.seed if self.noise_seed is None else self.noise_seed
        return np.random.default_rng([seed, int.from_bytes(key, "big"), nth])

    def __call__(self, body: dict[str, Any]) -> str:
        messages = body.get("messages") or []
        user = str(messages[-1].get("content", "")) if messages else ""
        text = " ".join(str(m.get("content", "")) for m in messages)
        self._local.rng = self._generator(text)
        shown = self.shown(user)
        qualities = [q for _, q, _ in shown] or [0.0]
        latent = qualities[0] + float(self.draw()[0])
        if "good fit for the job position" in text:
            return "Yes" if latent > 0 else "No"
        if "Overall hire rating" in text:
            s = _five(latent)
            return (
                f"Summary: a plausible candidate.\nExperience: {s}\nProfessionalism: {s}\n"
                f"Fit: {s}\nOverall hire rating: {s}"
            )
        if "Relevance to the Role" in text:
            d = [_five(qualities[0] + float(e)) for e in self.draw(5)]
            return (
                f'{{"Relevance to the Role": {{"Resume": {{"score": {d[0]}}}}}, '
                f'"Significance/Impact": {{"Resume": {{"score": {d[1]}}}}}, '
                f'"Skill Relevance": {{"Resume": {{"score": {d[2]}}}}}, '
                f'"Achievements & Impact": {{"Resume": {{"score": {d[3]}}}}}, '
                f'"Cultural Fit & Personal Traits": {{"Resume": {{"score": {d[4]}}}}}}}'
            )
        if "rank them from best" in text:
            return self._ranking(user, shown)
        if "race or ethnicity" in text:
            return _perceived(user)
        if "only the number of the score" in text:
            return str(_five(latent))
        if "only the name of the candidate" in text:
            return self._pairwise_name(shown)
        if len(shown) >= 2:
            return self._pairwise(text, shown)
        return "Scripted answer. <answer>ABSTAIN</answer>"

    def _pairwise(self, text: str, shown: list[tuple[int, float, str]]) -> str:
        e = self.draw(2)
        first = shown[0][1] + float(e[0]) + self.position_bias
        second = shown[1][1] + float(e[1])
        can_abstain = "ABSTAIN" in text
        if can_abstain and abs(first - second) < self.abstain_band:
            return "They meet the same requirements. <answer>ABSTAIN</answer>"
        if first >= second:
            return "Resume 1 fits better. <answer>first</answer>"
        return "Resume 2 fits better. <answer>second</answer>"

    def _pairwise_name(self, shown: list[tuple[int, float, str]]) -> str:
        if len(shown) < 2:
            return "The first candidate"
        e = self.draw(2)
        first = shown[0][1] + float(e[0]) + self.position_bias
        second = shown[1][1] + float(e[1])
        return shown[0][2] if first >= second else shown[1][2]

    def _ranking(self, user: str, shown: list[tuple[int, float, str]]) -> str:
        letters = re.findall(r"^Resume ([A-Z]):", user, re.M)
        n = len(letters)
        if n == 0 or len(shown) != n:
            return "{}"
        e = self.draw(n)
        bonus = [self.position_bias * (n - 1 - i) / max(n - 1, 1) for i in range(n)]
        latent = [shown[i][1] + float(e[i]) + bonus[i] for i in range(n)]
        order = sorted(range(n), key=lambda i: -latent[i])
        return "{" + ", ".join(f'"{r + 1}": "{letters[i]}"' for r, i in enumerate(order)) + "}"


def _five(latent: float) -> int:
    """A 1-5 rating from a latent score centred on 3."""
    return int(min(5, max(1, math.floor(3.5 + latent))))


def _perceived(user: str) -> str:
    gender = "Female" if re.search(r"\b(she|her)\b", user, re.I) else "Male"
    return f'{{"race": "Unclear", "gender": "{gender}"}}'


@dataclass
class ValidityOracle:
    """A pairwise screener with a planted validity: on an unequal pair it picks the
    candidate who states more qualifications with probability `p_correct` (else the
    other one, never abstaining); on an equal pair it abstains.

    Which text is which comes from the stored variants, as for `Oracle`: a c+ text
    stands k above its base, a c- text k below, whatever construction made it. So
    an audit's CriterionValidity has the known truth `p_correct` on every pair type,
    k and construction (benchmarks/planted_validity.py).
    """

    texts: list[tuple[str, int, str, int, str, str]]
    p_correct: float = 0.8
    seed: int = 0
    _oracle: Oracle = field(init=False, repr=False)
    _rng: np.random.Generator = field(init=False, repr=False)
    _lock: threading.Lock = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._oracle = Oracle(list(self.texts), seed=self.seed, spread=0.0)
        self._rng = np.random.default_rng(self.seed)
        self._lock = threading.Lock()

    @classmethod
    def from_variants(cls, variants: Iterable[Variant], **kwargs: Any) -> ValidityOracle:
        texts = [
            (v.text.strip(), v.resume_id, v.kind.value, v.k, v.group or "", v.name or "")
            for v in variants
        ]
        return cls(texts, **kwargs)

    def __call__(self, body: dict[str, Any]) -> str:
        messages = body.get("messages") or []
        user = str(messages[-1].get("content", "")) if messages else ""
        shown = self._oracle.shown(user)
        if len(shown) < 2:
            return "Scripted answer. <answer>ABSTAIN</answer>"
        first, second = shown[0][1], shown[1][1]
        if first == second:
            return "They meet the same requirements. <answer>ABSTAIN</answer>"
        with self._lock:
            right = bool(self._rng.random() < self.p_correct)
        pick_first = (first > second) == right
        if pick_first:
            return "Resume 1 fits better. <answer>first</answer>"
        return "Resume 2 fits better. <answer>second</answer>"


@dataclass
class ByModel:
    """Each model of the request (`body["model"]`) answered by its own policy: several
    models of one audit against one loopback server (benchmarks/compare_calibration.py)."""

    policies: Mapping[str, Callable[[dict[str, Any]], str]]

    def __call__(self, body: dict[str, Any]) -> str:
        return self.policies[str(body.get("model"))](body)
