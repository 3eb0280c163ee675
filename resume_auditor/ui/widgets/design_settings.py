"""The designs' settings, one tab each, edited in place: D2 here, the registry's designs
each a form built from its own settings (design_form.py).

Each tab mirrors one `[designs.dN]` table of the study file (docs/study-format.md).
The widget only reads and writes a `StudyConfig`; saving it (and clearing the built
cases it invalidates) is the page's business.
"""

from __future__ import annotations

import dataclasses

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QLabel,
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from resume_auditor.designs.registry import DESIGNS as REGISTRY
from resume_auditor.domain.groups import ALL_GROUPS, Group
from resume_auditor.domain.study import D2Spec, StudyConfig
from resume_auditor.ui.widgets.design_form import DesignForm

D2_PROMPTS = (
    ("d2-rating", "Rating 1–5 with a summary first"),
    ("d2-rating-no-scratch", "Rating without scratchpad"),
    ("d2-rating-eeoc", "Rating with an equal-opportunity reminder"),
)


class GroupGrid(QWidget):
    """The eight groups as check boxes, four to a row."""

    changed = Signal()

    def __init__(self, tip: str) -> None:
        super().__init__()
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        self.boxes: dict[str, QCheckBox] = {}
        for i, g in enumerate(ALL_GROUPS):
            cb = QCheckBox(g.label)
            cb.setToolTip(tip)
            cb.toggled.connect(self.changed)
            self.boxes[g.key] = cb
            grid.addWidget(cb, i // 4, i % 4)

    def set_groups(self, groups: tuple[Group, ...]) -> None:
        keys = {g.key for g in groups}
        for key, cb in self.boxes.items():
            cb.setChecked(key in keys)

    def groups(self) -> tuple[Group, ...]:
        return tuple(g for g in ALL_GROUPS if self.boxes[g.key].isChecked())


def _form(tab: QWidget) -> QFormLayout:
    """A form whose fields keep their natural width (a number box across the page reads
    as a text field)."""
    form = QFormLayout(tab)
    form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
    return form


class DesignSettings(QTabWidget):
    """Emits `changed` when the user edits anything (not when `show_config` fills it)."""

    changed = Signal()

    def __init__(self) -> None:
        super().__init__()
        self._filling = False
        self._study: StudyConfig | None = None
        # The registry's designs, each a form built from its own settings: one placed
        # "head" (D1) first, then D2 (not registered yet, its own tab), then the rest.
        self.forms = [DesignForm(d) for d in REGISTRY]

        def form_tabs(head: bool) -> tuple[tuple[QWidget, str, str], ...]:
            return tuple(
                (f, f.design.name.replace("&", "&&"), f"Design {f.design.label}: {f.design.intro}")
                for f in self.forms
                if (f.design.placement == "head") == head
            )

        tabs = form_tabs(head=True)
        tabs += (
            (self._d2_tab(), "Ratings by group", "Design D2: correspondence test, Gaebler et al."),
        )
        tabs += form_tabs(head=False)
        tabs += ((self._common_tab(), "Repeatability, privacy && hidden text", ""),)
        for tab, title, paper in tabs:
            index = self.addTab(tab, title)
            if paper:
                self.setTabToolTip(index, f"{paper} (the audit report uses the same name).")
        for w in self.findChildren(QCheckBox):
            w.toggled.connect(self._edited)
        for s in self.findChildren(QSpinBox):
            s.valueChanged.connect(self._edited)
        for d in self.findChildren(QDoubleSpinBox):
            d.valueChanged.connect(self._edited)
        for c in self.findChildren(QComboBox):
            c.currentIndexChanged.connect(self._edited)

    # -- tabs ----------------------------------------------------------------------------

    def _d2_tab(self) -> QWidget:
        tab = QWidget()
        form = _form(tab)
        self.d2_on = QCheckBox(
            "Include ratings by group: each resume rated alone, once under each group's identity"
        )
        self.d2_on.setToolTip("Design D2, a correspondence experiment (Gaebler et al. 2024).")
        form.addRow(self.d2_on)
        self.d2_groups = GroupGrid("A copy of each resume carries this group's identity.")
        form.addRow("Groups", self.d2_groups)
        prompts = QVBoxLayout()
        self.d2_prompts: dict[str, QCheckBox] = {}
        for key, label in D2_PROMPTS:
            cb = QCheckBox(label)
            cb.setToolTip(f"The prompt preset {key}.")
            self.d2_prompts[key] = cb
            prompts.addWidget(cb)
        form.addRow("How the model is asked", prompts)
        self.d2_blinded = QCheckBox(
            "Also a copy with no identity at all, to compare every group against"
        )
        self.d2_blinded.setToolTip("The paper's blinded condition.")
        self.d2_blind_college = QCheckBox("…with the college removed too")
        self.d2_check = QCheckBox(
            "Check the names work: ask the model which race and gender it reads from each copy"
        )
        self.d2_check.setToolTip("The paper's manipulation check.")
        for w in (self.d2_blinded, self.d2_blind_college, self.d2_check):
            form.addRow(w)
        return tab

    def _common_tab(self) -> QWidget:
        tab = QWidget()
        box = QVBoxLayout(tab)
        form = QFormLayout()
        self.seed = QSpinBox()
        self.seed.setRange(0, 2_000_000_000)
        self.seed.setToolTip("The same seed builds the same names, pools, orders and cases.")
        form.addRow("Random seed", self.seed)
        box.addLayout(form)
        self.real_contact = QCheckBox(
            "Let the resumes' real phone numbers, addresses and links through to the model"
        )
        self.real_contact.setToolTip(
            "Off (recommended): every copy carries fictional contact details (555-01xx "
            "numbers, a neutral address, no real links), so no real person's details reach "
            "the model under test."
        )
        box.addWidget(self.real_contact)
        note = QLabel(
            "Off by default: every copy carries fictional contact details, so a real "
            "candidate's phone, address and links never reach the model under test."
        )
        note.setWordWrap(True)
        note.setStyleSheet("color: palette(mid);")
        box.addWidget(note)
        self.keep_instructions = QCheckBox(
            "Keep hidden instructions to an AI that a resume carries (for example white "
            "text saying \u201crank this candidate first\u201d)"
        )
        self.keep_instructions.setToolTip(
            "<p>Off (recommended): such instructions are taken out of every test copy, so the "
            "audit measures how the model judges the resumes, not whether it obeys a trick. "
            "Turn it on only to test what the instructions do; the report says which choice "
            "was made. The Resumes step lists every resume where they were found.</p>"
        )
        box.addWidget(self.keep_instructions)
        hint = QLabel(
            "Off by default: instructions hidden in a resume are removed from every copy "
            "before it is sent; the report says so."
        )
        hint.setWordWrap(True)
        hint.setStyleSheet("color: palette(mid);")
        box.addWidget(hint)
        box.addStretch(1)
        return tab

    # -- reading and writing ---------------------------------------------------------------

    def _edited(self) -> None:
        if not self._filling:
            self.changed.emit()

    def show_config(self, study: StudyConfig, editable: bool) -> None:
        self._filling = True
        try:
            self._fill(study)
        finally:
            self._filling = False
        for w in self.findChildren(QWidget):
            if isinstance(w, QCheckBox | QSpinBox | QDoubleSpinBox | QComboBox):
                w.setEnabled(editable)

    def _fill(self, study: StudyConfig) -> None:
        d2 = study.d2 or D2Spec()
        self.d2_on.setChecked(study.d2 is not None)
        self.d2_groups.set_groups(d2.groups)
        for key, cb in self.d2_prompts.items():
            cb.setChecked(key in d2.prompts)
        self.d2_blinded.setChecked(d2.blinded)
        self.d2_blind_college.setChecked(d2.blind_college)
        self.d2_check.setChecked(d2.manipulation_check)

        for form in self.forms:
            form.fill(study)
        self._study = study
        self.seed.setValue(study.seed)
        self.real_contact.setChecked(study.keep_real_contact)
        self.keep_instructions.setChecked(study.keep_instructions)

    def problem(self) -> str:
        """What stops these settings from building cases, in a sentence ('' if nothing)."""
        if not any(cb.isChecked() for cb in (self.d2_on, *(f.on for f in self.forms))):
            return "Include at least one kind of test."
        if self._study is not None:
            for form in self.forms:
                wrong = form.problem(self._study)
                if wrong:
                    return wrong
        if self.d2_on.isChecked() and not any(c.isChecked() for c in self.d2_prompts.values()):
            return "Ratings by group need at least one way of asking the model."
        return ""

    def apply(self, base: StudyConfig) -> StudyConfig:
        """`base` with these settings; call only when `problem()` is ''."""
        d2 = None
        if self.d2_on.isChecked():
            old2 = base.d2 or D2Spec()
            d2 = dataclasses.replace(
                old2,
                groups=self.d2_groups.groups(),
                # presets a study file names that these boxes do not show are kept
                prompts=tuple(k for k, cb in self.d2_prompts.items() if cb.isChecked())
                + tuple(p for p in old2.prompts if p not in self.d2_prompts),
                manipulation_check=self.d2_check.isChecked(),
                blinded=self.d2_blinded.isChecked(),
                blind_college=self.d2_blind_college.isChecked(),
            )
        config = base
        for form in self.forms:  # each design writes its own table into the study
            config = form.design.with_table(config, form.apply(base))
        return dataclasses.replace(
            config,
            seed=self.seed.value(),
            d2=d2,
            keep_real_contact=self.real_contact.isChecked(),
            keep_instructions=self.keep_instructions.isChecked(),
        )
