"""A settings tab for a design kept as a unit (designs/registry.py), built from its
`Setting` list, so a new design appears on the Test cases step without UI code."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QLabel,
    QLineEdit,
    QSpinBox,
    QWidget,
)

from resume_auditor.designs.base import Design, Setting
from resume_auditor.domain.groups import group_label
from resume_auditor.domain.study import StudyConfig, StudyError


class Choices(QWidget):
    """Check boxes for a setting that takes several of a list: its `offer` in its words
    (D2's rating prompts, a box each, one under the other; values the study names that
    are not offered are kept), else its `choices` (groups by their names)."""

    changed = Signal()

    def __init__(self, setting: Setting) -> None:
        super().__init__()
        grid = QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        tips = dict(setting.tips)
        offered = setting.offer or tuple((c, group_label(c) or c) for c in setting.choices)
        self.boxes: dict[Any, QCheckBox] = {}
        self._order: list[Any] = []
        self._kept: list[Any] = []
        # short words (group names) four to a row; sentences one under the other
        across = 4 if all(len(words) <= 20 for _value, words in offered) else 1
        for i, (value, words) in enumerate(offered):
            cb = QCheckBox(words)
            cb.setToolTip(tips.get(value, setting.help))
            cb.toggled.connect(self.changed)
            self.boxes[value] = cb
            grid.addWidget(cb, i // across, i % across)

    def set_value(self, values: list[Any]) -> None:
        for key, cb in self.boxes.items():
            cb.setChecked(key in values)
        self._order = [v for v in values if v in self.boxes]
        self._kept = [v for v in values if v not in self.boxes]

    def value(self) -> list[Any]:
        """The ticked values in the study's order (the order draws names and groups in:
        a study edited here builds what the same study file builds), new ones after."""
        ticked = [k for k, cb in self.boxes.items() if cb.isChecked()]
        return (
            [v for v in self._order if v in ticked]
            + [k for k in ticked if k not in self._order]
            + self._kept
        )


class DesignForm(QWidget):
    """An "Include" box and one field per setting of `design` shown in the GUI."""

    changed = Signal()

    def __init__(self, design: Design[Any]) -> None:
        super().__init__()
        self.design = design
        form = QFormLayout(self)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        self.on = QCheckBox(design.include)
        self.on.setToolTip(f"Design {design.label}: {design.intro}")
        self.on.toggled.connect(self.changed)
        form.addRow(self.on)
        self.fields: dict[str, QWidget] = {}
        for s in design.settings:
            if not s.gui:
                continue
            field = self._field(s)
            field.setToolTip(s.help)
            self.fields[s.name] = field
            label = QLabel(s.label)
            label.setToolTip(s.help)
            form.addRow(label, field)

    def _field(self, s: Setting) -> QWidget:
        if s.kind == "int":
            box = QSpinBox()
            box.setRange(s.minimum if s.minimum is not None else 0, 100_000)
            box.valueChanged.connect(self.changed)
            return box
        if s.kind == "number":
            number = QDoubleSpinBox()
            number.setDecimals(2)
            number.setSingleStep(0.05)
            low = float(s.minimum) if s.minimum is not None else 0.0
            number.setRange(low, s.maximum if s.maximum is not None else 100_000.0)
            number.valueChanged.connect(self.changed)
            return number
        if s.kind == "bool":
            cb = QCheckBox()
            cb.toggled.connect(self.changed)
            return cb
        if (s.kind == "strs" and (s.choices or s.offer)) or (s.kind == "ints" and s.offer):
            grid = Choices(s)
            grid.changed.connect(self.changed)
            return grid
        if s.kind == "str" and (s.choices or s.offer):
            combo = QComboBox()
            for value, words in s.offer or tuple((c, c) for c in s.choices):
                combo.addItem(words, value)
            combo.currentIndexChanged.connect(self.changed)
            return combo
        line = QLineEdit()
        line.textChanged.connect(self.changed)
        return line

    def fill(self, study: StudyConfig) -> None:
        table = self.design.table(study)
        self.on.setChecked(table is not None)
        values: Mapping[str, Any] = table or {}
        for s in self.design.settings:
            if s.name not in self.fields:
                continue
            value = values.get(s.name, s.default)
            w = self.fields[s.name]
            if isinstance(w, QSpinBox):
                w.setValue(int(value))
            elif isinstance(w, QDoubleSpinBox):
                w.setValue(float(value))
            elif isinstance(w, QCheckBox):
                w.setChecked(bool(value))
            elif isinstance(w, Choices):
                w.set_value([value] if isinstance(value, str | int) else list(value))
            elif isinstance(w, QComboBox):
                if w.findData(value) < 0:  # a preset the study file names: kept
                    w.addItem(str(value), value)
                w.setCurrentIndex(w.findData(value))
            elif isinstance(w, QLineEdit):
                w.setText(str(value))

    def values(self, study: StudyConfig) -> dict[str, Any]:
        """The design's table: what the study had (settings not shown stay) and the fields."""
        out = dict(self.design.table(study) or {})
        for name, w in self.fields.items():
            if isinstance(w, QSpinBox):
                out[name] = w.value()
            elif isinstance(w, QDoubleSpinBox):
                out[name] = round(w.value(), 2)
            elif isinstance(w, QCheckBox):
                out[name] = w.isChecked()
            elif isinstance(w, Choices):
                out[name] = w.value()
            elif isinstance(w, QComboBox):
                out[name] = str(w.currentData())
            elif isinstance(w, QLineEdit):
                out[name] = w.text()
        return out

    def apply(self, study: StudyConfig) -> dict[str, Any] | None:
        """The design's settings table for `study`, or None when it is not included."""
        return self.values(study) if self.on.isChecked() else None

    def problem(self, study: StudyConfig) -> str:
        """Why these settings cannot be used, in the design's own words ('' if they can)."""
        if not self.on.isChecked():
            return ""
        try:
            probe = self.design.with_table(study, self.values(study))
            self.design.spec(probe)
        except StudyError as exc:
            return f"{self.design.title}: {exc}"
        return ""
