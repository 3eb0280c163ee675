"""The Run page's "Models in this audit": every model asked the same test cases.

A recruiter comparing models runs each on the same cases, one run per model, each
resumable on its own. This list shows them (the study's models, `[model]` and
`[[models]]`, and any other model run on this audit), how far each got, and lets the
user pick one into the model picker; with "then the next one" ticked, the page starts
the next unfinished model when one finishes. "Start all models" runs them at the same
time, and each line then shows its model's progress (`show_progress`). Each model
is one run, so pausing, a budget or closing the app loses nothing of any of them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QCheckBox, QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from resume_auditor.domain.study import ModelSpec, StudyConfig
from resume_auditor.runner import RunState, RunStatus
from resume_auditor.store.runs import RunRecord

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class ListedModel:
    """A model of the audit: run already (`run_id`) or only named by the study."""

    provider: str
    base_url: str
    model: str
    prompt: str | None = None  # the run's prompt (None: the study's)
    run_id: int | None = None
    answered: int = 0

    @property
    def key(self) -> tuple[str, str, str]:
        base = "" if self.provider == "local" else self.base_url.rstrip("/")
        return (self.provider, base, self.model)

    def text(self) -> str:
        name = f"{self.model} ({self.provider})" if self.provider != "local" else self.model
        if self.run_id is None:
            return f"{name}: not started"
        prompt = f", prompt {self.prompt}" if self.prompt else ""
        if not self.answered:
            return f"{name}: not started (run {self.run_id}{prompt})"
        return f"{name}: {self.answered:,} answered (run {self.run_id}{prompt})"


STATE_WORDS = {
    RunState.STARTING: "starting",
    RunState.RUNNING: "running",
    RunState.PAUSED: "paused",
    RunState.CANCELLED: "stopped, resumable",
    RunState.FINISHED: "finished",
    RunState.STOPPED: "stopped",
}


def progress_text(item: ListedModel, status: RunStatus) -> str:
    """A model's line while it runs with the others: how far, and in what state."""
    name = f"{item.model} ({item.provider})" if item.provider != "local" else item.model
    state = STATE_WORDS[status.state]
    if status.state is RunState.PAUSED and status.budget_reached:
        state = "paused at the budget"
    failed = f", {status.failed:,} failed" if status.failed else ""
    return (
        f"{name}: {status.done:,} of {status.total:,} answered{failed}, {state} (run {item.run_id})"
    )


def key_of(spec: ModelSpec) -> tuple[str, str, str]:
    """A model's place in the list (the bundled model has no address)."""
    return ListedModel(spec.provider, spec.base_url, spec.model).key


def listed_models(
    study: StudyConfig, runs: list[RunRecord], answered: dict[int, int]
) -> list[ListedModel]:
    """The audit's runs in order, then the study's models that have no run yet."""
    out = [
        ListedModel(r.provider, r.base_url, r.model, r.prompt_id, r.id, answered.get(r.id, 0))
        for r in runs
        if r.purpose == "audit"
    ]
    have = {m.key for m in out}
    for spec in study.models:
        item = ListedModel(spec.provider, spec.base_url, spec.model)
        if item.key not in have:
            have.add(item.key)
            out.append(item)
    return out


def as_spec(item: ListedModel, like: ModelSpec) -> ModelSpec:
    return ModelSpec(
        item.provider, item.base_url, item.model, like.temperature, like.max_tokens, like.seed
    )


class ModelList(QWidget):
    """`chosen` when the user picks a model of the list into the picker."""

    chosen = Signal(object)  # ListedModel

    def __init__(self) -> None:
        super().__init__()
        self.setAccessibleName("Models in this audit")
        self.label = QLabel("Models in this audit (the same test cases; one run each)")
        self.list = QListWidget()
        self.list.setAccessibleName("Models in this audit")
        self.list.setToolTip(
            "Each model answers the same test cases in its own run, resumable on its own. "
            "Pick one to run or resume it; to add a model, choose it above and press Start. "
            "The Results page compares every model of the audit."
        )
        self.list.itemActivated.connect(self._picked)
        self.list.itemClicked.connect(self._picked)
        self.chain = QCheckBox("When a model finishes, start the next one")
        self.chain.setToolTip(
            "Run every model of the list in turn. A paid run still asks before it starts; "
            "a pause, a cancel or the budget stops the chain."
        )
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.addWidget(self.label)
        layout.addWidget(self.list)
        layout.addWidget(self.chain)
        self.models: list[ListedModel] = []

    def set_models(self, models: list[ListedModel], current: tuple[str, str, str]) -> None:
        self.models = models
        self.list.clear()
        for m in models:
            item = QListWidgetItem(m.text())
            item.setData(Qt.ItemDataRole.UserRole, m)
            self.list.addItem(item)
            if m.key == current:
                self.list.setCurrentItem(item)
        lines = max(1, min(len(models), 4))
        self.list.setFixedHeight(self.list.sizeHintForRow(0) * lines + 6 if models else 30)
        self.setVisible(bool(models))
        self.chain.setVisible(len(models) > 1)

    def show_progress(self, statuses: dict[int, RunStatus]) -> None:
        """Each running model's progress on its line (several models at once); the
        reason a run stopped or paused is its line's tooltip."""
        for row in range(self.list.count()):
            item = self.list.item(row)
            listed = item.data(Qt.ItemDataRole.UserRole)
            status = statuses.get(listed.run_id) if listed.run_id is not None else None
            if status is None:
                continue
            item.setText(progress_text(listed, status))
            item.setToolTip(status.message or "")

    def next_after(self, current: tuple[str, str, str]) -> ListedModel | None:
        """The model listed after `current` (None: it is the last)."""
        keys = [m.key for m in self.models]
        if current not in keys:
            return None
        i = keys.index(current)
        return self.models[i + 1] if i + 1 < len(self.models) else None

    def _picked(self, item: QListWidgetItem) -> None:
        self.chosen.emit(item.data(Qt.ItemDataRole.UserRole))


__all__ = ["ListedModel", "ModelList", "as_spec", "key_of", "listed_models", "progress_text"]
