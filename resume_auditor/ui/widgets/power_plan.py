"""The plan's power: the chance to see an effect of the literature's size, and an offer
to make the audit large enough (issue 25).

Why: an audit too small to see a 10-point gap or a 0.3 SD difference clears the
model by default. Before a run the Test cases step shows each design's simulated
power (workflow/plan.py, stats/power_sim.py) and, when it is short of 80%, offers
the settings that reach it with the resumes there are (repeats at a temperature
that makes them differ, more pools), with the requests, cost and time of the
enlarged audit shown before anything is changed. Every computation runs in the
background: simulating power takes seconds to a minute the first time (it is
cached per size afterwards).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from resume_auditor.ui.plain_words import power_words
from resume_auditor.ui.tasks import run_in_background
from resume_auditor.workflow.plan import (
    Enlargement,
    RunPlan,
    apply_enlargement,
    plan_enlargement,
    plan_run,
)
from resume_auditor.workflow.prepare import study_of

logger = logging.getLogger(__name__)


def sized_plan(path: Path) -> RunPlan:
    """The plan with each design's simulated power (slow the first time: background)."""
    from resume_auditor.store.resultfile import ResultFile

    with ResultFile(path) as result:
        return plan_run(result, study_of(result), simulate=True)


class PowerPlan(QWidget):
    """Power per design, and the offer to enlarge the audit to 80%."""

    enlarged = Signal()  # the settings changed and the cases were built again

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        sizing: Callable[[Path], RunPlan] = sized_plan,
        confirm: Callable[[QWidget, Enlargement], bool] | None = None,
    ) -> None:
        super().__init__(parent)
        self._sizing = sizing
        self._confirm = confirm or _ask
        self._path: Path | None = None
        self._plan: RunPlan | None = None
        self._editable = False
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        self.check_button = QPushButton("Check power…")
        self.check_button.setToolTip(
            "Simulate each design's chance to flag an effect of the literature's size "
            "(a 10-point selection gap, an impact ratio of 0.8, 0.3 SD) through the report's "
            "own tests, and the audit size that gives 80%."
        )
        self.check_button.clicked.connect(self.check)
        self.enlarge_button = QPushButton("Enlarge the audit…")
        self.enlarge_button.setToolTip(
            "Show the settings that reach 80% power with these resumes, with their requests, "
            "cost and time, before changing anything."
        )
        self.enlarge_button.clicked.connect(self.offer)
        self.enlarge_button.hide()
        row.addWidget(self.check_button)
        row.addWidget(self.enlarge_button)
        row.addStretch(1)
        layout.addLayout(row)
        self.text = QLabel("")
        self.text.setWordWrap(True)
        self.text.setAccessibleName("Power and audit size")
        self.text.hide()
        layout.addWidget(self.text)

    def show_audit(self, path: Path, editable: bool) -> None:
        if path != self._path:
            self._plan = None
            self.text.hide()
            self.enlarge_button.hide()
        self._path, self._editable = path, editable

    def check(self) -> None:
        if self._path is None:
            return
        path = self._path
        self.check_button.setEnabled(False)
        self.text.show()
        self.text.setText("Simulating each design's power through the report's tests…")
        run_in_background(lambda: self._sizing(path), self._sized, self._failed, owner=self)

    def _sized(self, plan: RunPlan) -> None:
        self.check_button.setEnabled(True)
        self._plan = plan
        lines = plan.sizing_lines or plan.power
        self.text.setText(power_words("\n".join(lines)) if lines else "No design to size yet.")
        short = any(z.units_needed is None or z.units_needed > z.units_now for z in plan.sizing)
        self.enlarge_button.setVisible(short and self._editable)

    def _failed(self, exc: Exception) -> None:
        self.check_button.setEnabled(True)
        self.enlarge_button.setEnabled(True)
        self.text.setText(f"Could not size the audit: {exc}")

    def offer(self) -> None:
        if self._path is None or self._plan is None:
            return
        path, sizing = self._path, self._plan.sizing
        self.enlarge_button.setEnabled(False)
        self.text.setText(self.text.text() + "\nCounting the enlarged audit's requests and cost…")
        run_in_background(
            lambda: plan_enlargement(path, sizing), self._offered, self._failed, owner=self
        )

    def _offered(self, found: Enlargement | None) -> None:
        self.enlarge_button.setEnabled(True)
        if found is None or self._path is None:
            self.text.setText(
                self.text.text()
                + "\nNothing the app can change reaches 80%: add source resumes (see above)."
            )
            return
        if not self._confirm(self, found):
            return
        path = self._path
        self.enlarge_button.setEnabled(False)

        def done(_notes: Any) -> None:
            self.enlarge_button.hide()
            self.enlarge_button.setEnabled(True)
            self.text.setText(
                power_words("The audit was enlarged: " + "; ".join(found.changes) + ".")
            )
            self.enlarged.emit()

        run_in_background(lambda: apply_enlargement(path, found), done, self._failed, owner=self)


def _ask(parent: QWidget, found: Enlargement) -> bool:
    answer = QMessageBox.question(
        parent,
        "Enlarge the audit",
        power_words("\n\n".join(found.lines()))
        + "\n\nChange the settings and build the test cases again?",
    )
    return answer == QMessageBox.StandardButton.Yes
