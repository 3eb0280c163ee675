"""The benchmarks' oracle finds the same variant texts in a prompt as a plain search.

Why: `Oracle.shown` reads a prompt once through an index of the texts' first
characters instead of searching it once per variant text (with thousands of texts
at a recommended audit size the search, not the app, was the cost of an audit).
The power and calibration figures rest on it answering exactly as before: the same
texts found, at the same places, longest first, one inside another found as itself.
"""

from __future__ import annotations

import random
from typing import Any

from devtools.simulator_policies import PREFIX, Oracle


def _plain(oracle: Oracle, user: str) -> list[tuple[int, float, str]]:
    """The search the index replaced, text by text, longest first."""
    found: list[tuple[int, float, str]] = []
    taken: list[tuple[int, int]] = []
    for text, source, kind, k, group, name in oracle.texts:
        at = user.find(text)
        while at >= 0 and any(a <= at < b for a, b in taken):
            at = user.find(text, at + 1)
        if at < 0:
            continue
        taken.append((at, at + len(text)))
        found.append((at, oracle.quality(source, kind, k, group), name))
    return sorted(found)


def _texts(rng: random.Random) -> list[tuple[str, int, str, int, str, str]]:
    words = ["Python", "SQL", "led", "a team", "of", "analysts", "Tableau", "Excel", "and", "\n"]
    out = []
    for source in range(rng.randint(2, 6)):
        body = " ".join(rng.choice(words) for _ in range(rng.randint(3, 60)))
        for j, name in enumerate(rng.sample(["Ann Lee", "Bo Diaz", "Cy Ng", "Di Roy"], 3)):
            kind = rng.choice(["base", "more", "less"])
            text = f"{name}\n{body}" if rng.random() < 0.8 else body[: rng.randint(1, 40)]
            group = rng.choice(["black_woman", "white_man", ""])
            out.append((text.strip() or "x", source, kind, j % 2, group, name))
    return out


def test_the_index_finds_what_a_plain_search_finds() -> None:
    rng = random.Random(7)
    checked = 0
    for _ in range(300):
        texts = _texts(rng)
        oracle = Oracle(list(texts), seed=1, effects={"black_woman": -0.3})
        shown = rng.sample(texts, rng.randint(0, min(4, len(texts))))
        # prompts as the presets write them, texts repeated, nested and back to back
        parts = [
            rng.choice(["Resume 1: ", "Resume A:\n", "", "Job description: x\n"]) + t[0]
            for t in shown
        ]
        if shown and rng.random() < 0.3:
            parts.append(shown[0][0])
        user = rng.choice(["", "\n\n", " "]).join(parts)
        assert oracle.shown(user) == _plain(oracle, user)
        checked += any(len(t[0]) < PREFIX for t in shown)
    assert checked  # short texts (under the index's prefix) were among them


def test_an_audit_gets_the_same_answers_in_any_order_of_its_requests() -> None:
    """Each request's noise comes from its text and how many times that text was asked
    before, not from one generator in arrival order: a concurrent runner sending the same
    requests in another order gets the same answers to each prompt (its repeats may swap
    among themselves), so a calibration seed gives the same audit every time."""
    from collections import Counter

    rng = random.Random(3)
    texts = [
        (f"{name}\nPython SQL and Tableau, {i} years", i, kind, 1, "", name)
        for i, (name, kind) in enumerate(
            [("Ann Lee", "base"), ("Bo Diaz", "more"), ("Cy Ng", "less"), ("Di Roy", "base")]
        )
    ]
    prompts = [
        f"Which fits better? ABSTAIN if equal.\nResume 1: {a[0]}\n\nResume 2: {b[0]}"
        for a in texts
        for b in texts
        if a is not b
    ]
    requests: list[dict[str, Any]] = [
        {"messages": [{"role": "user", "content": p}]} for p in prompts for _ in range(5)
    ]

    def answers(order: list[dict[str, Any]], seed: int = 9) -> Counter[tuple[str, str]]:
        oracle = Oracle(list(texts), seed=1, noise_seed=seed, noise=1.5)
        return Counter((str(r["messages"][0]["content"]), oracle(r)) for r in order)

    first = answers(requests)
    shuffled = list(requests)
    rng.shuffle(shuffled)
    assert answers(shuffled) == first
    assert len({a for _, a in first}) == 3  # first, second and abstain all given: noisy
    assert answers(requests, seed=10) != first  # another noise seed: other answers
