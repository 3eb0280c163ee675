"""Stopping a cell early once its estimate is precise enough (optional).

A cell is a group of requests that estimate one proportion — for D1, how often
the model picks the right candidate (or abstains on an equal pair) for one kind
of pair between two groups. Once the 95% interval of that proportion, clustered
by source resume as the statistics compute it (stats.intervals), is narrower
than the width the user set, the cell's remaining requests are skipped (marked,
never sent, and put back by `ResultFile.unskip`). A cell is never closed before
every source resume in it has been answered at least once and `min_answers` have
come in: stopping on a lucky first resume would bias the estimate.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

from resume_auditor.prompts import INVALID
from resume_auditor.runner.events import Answer
from resume_auditor.stats.intervals import clustered_proportion
from resume_auditor.store.resultfile import PendingRequest, ResultFile

Outcome = Callable[[str, dict[str, Any], dict[str, Any]], bool | None]


def expected_label(label: str, parsed: dict[str, Any], context: dict[str, Any]) -> bool | None:
    """Success when the answer is the label the case's truth calls for (context 'expect')."""
    expect = context.get("expect")
    if expect is None or label == INVALID:
        return None
    return bool(label == expect)


class EarlyStop:
    def __init__(
        self,
        width: float,
        *,
        outcome: Outcome = expected_label,
        min_answers: int = 20,
        level: float = 0.95,
    ) -> None:
        if not 0 < width < 1:
            raise ValueError("the interval width for an early stop should be between 0 and 1")
        self.width = width
        self._outcome = outcome
        self._min = min_answers
        self._level = level
        self._clusters: dict[str, set[Any]] = defaultdict(set)
        self._results: dict[str, list[tuple[bool, Any]]] = defaultdict(list)
        self._closed: dict[str, str] = {}

    def load(self, store: ResultFile, run_id: int) -> None:
        """Every cell's source resumes, and the answers it already has."""
        for cell, context, label, parsed in store.cell_requests(run_id):
            cluster = context.get("cluster")
            self._clusters[cell].add(cluster)
            if label is not None:
                self._add(cell, label, parsed, context)
        for cell in list(self._results):
            self._check(cell)

    def _add(self, cell: str, label: str, parsed: dict[str, Any], context: dict[str, Any]) -> None:
        success = self._outcome(label, parsed, context)
        if success is not None:
            self._results[cell].append((success, context.get("cluster")))

    def observe(self, req: PendingRequest, answer: Answer) -> None:
        if not req.cell:
            return
        self._add(req.cell, answer.value, answer.parsed, req.context)
        self._check(req.cell)

    def _check(self, cell: str) -> None:
        if cell in self._closed:
            return
        results = self._results[cell]
        if len(results) < self._min:
            return
        if {c for _, c in results} != self._clusters[cell]:
            return
        estimate = clustered_proportion(
            [s for s, _ in results], [str(c) for _, c in results], self._level
        )
        if estimate.low is None or estimate.high is None:
            return
        if estimate.high - estimate.low < self.width:
            self._closed[cell] = (
                f"Early stop: {cell} is known to within ±{(estimate.high - estimate.low) / 2:.1%} "
                f"({estimate.value:.0%} of {len(results)} answers) — narrower than the "
                f"{self.width:.0%} you set."
            )

    def closed(self, cell: str) -> str | None:
        """Why `cell` needs no more answers, or None while it still does."""
        return self._closed.get(cell)
