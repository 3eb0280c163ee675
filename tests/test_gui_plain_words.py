"""What the pages show is in a recruiter's words and fits a 1280×800 screen.

Reads every label, button, tab, combo item and table header of the pages a user
sets up an audit on (the Results and Run pages have their own tests), the way a
screenshot would show them: no paper shorthand ("(c+, c)", "k = 1", "App. F",
"CriterionValidity", a bare "D1"), and a window that fits 1280×800.
"""

from __future__ import annotations

import re
from pathlib import Path

from PySide6.QtWidgets import (
    QAbstractButton,
    QComboBox,
    QLabel,
    QTableWidget,
    QTabWidget,
    QWidget,
)
from pytestqt.qtbot import QtBot

from resume_auditor.resources import sample_study
from resume_auditor.ui.main_window import MainWindow
from resume_auditor.ui.settings_dialog import SettingsDialog

JARGON = re.compile(
    r"\(c\+|\(c,|\bc[+−-](?=[\s,)/]|$)|\bk ?= ?\d|App\. ?F|CriterionValidity|DiscrimValidity"
    r"|\bD[1-4]\b|\b(?:black|white|asian|hispanic)_(?:wo)?man\b|logprobs|Base URL"
)


def shown_text(root: QWidget) -> list[str]:
    """The words a screenshot of `root` could show (not tooltips, not documents)."""
    out: list[str] = []
    for w in [root, *root.findChildren(QWidget)]:
        if isinstance(w, QLabel | QAbstractButton):
            out.append(w.text())
        elif isinstance(w, QTabWidget):
            out.extend(w.tabText(i) for i in range(w.count()))
        elif isinstance(w, QComboBox):
            out.extend(w.itemText(i) for i in range(w.count()))
        elif isinstance(w, QTableWidget):
            for c in range(w.columnCount()):
                header = w.horizontalHeaderItem(c)
                out.append(header.text() if header else "")
                for r in range(min(w.rowCount(), 200)):
                    item = w.item(r, c)
                    out.append(item.text() if item else "")
    return [t for t in out if t]


def test_setup_pages_speak_plainly(qtbot: QtBot, window: MainWindow) -> None:
    with qtbot.waitSignal(window.session.loaded, timeout=30000):
        window.open_path(sample_study())  # all four designs
    page = window.variants_page
    qtbot.waitUntil(lambda: page.plan_table.rowCount() > 0, timeout=20000)
    dialog = SettingsDialog(window)
    qtbot.addWidget(dialog)
    for root in (
        window.job_page,
        window.resumes_page,
        window.variants_page,
        window.report_page,
        window.hint_bar,
        dialog,
    ):
        bad = [t for t in shown_text(root) if JARGON.search(t)]
        assert not bad, f"{type(root).__name__} shows paper shorthand: {bad[:5]}"
    # the notes the builders write, as the page shows them
    assert window.session.data is not None and window.session.data.notes
    assert not JARGON.search(page.notes.toPlainText()), page.notes.toPlainText()
    # the papers' terms are still there for who wants them, in tooltips
    d1 = next(f for f in page.settings.forms if f.design.key == "d1")
    assert "(c+, c)" in d1.fields["pair_types"].boxes["more_base"].toolTip()  # type: ignore[attr-defined]
    assert "k = 1" in d1.fields["k"].boxes[1].toolTip()  # type: ignore[attr-defined]


def test_the_window_fits_1280_by_800_on_every_setup_page(qtbot: QtBot, window: MainWindow) -> None:
    with qtbot.waitSignal(window.session.loaded, timeout=30000):
        window.open_path(sample_study())
    qtbot.waitUntil(lambda: window.variants_page.plan_table.rowCount() > 0, timeout=20000)
    for index in (0, 1, 2, 5):
        window.show_page(index)
        hint = window.minimumSizeHint()
        assert hint.width() <= 1280 and hint.height() <= 800, (index, hint)


def test_long_resume_names_lose_their_middle_and_keep_a_tooltip(
    qtbot: QtBot, window: MainWindow, tmp_path: Path
) -> None:
    from PySide6.QtCore import Qt

    with qtbot.waitSignal(window.session.loaded, timeout=30000):
        window.open_path(sample_study())
    files = window.resumes_page.files
    assert files.textElideMode() is Qt.TextElideMode.ElideMiddle
    assert files.horizontalScrollBarPolicy() is Qt.ScrollBarPolicy.ScrollBarAlwaysOff
    item = files.item(0)
    assert window.session.data is not None
    assert window.session.data.resumes[0].filename in item.toolTip()
