"""No page widens the window past a 1280×800 screen, in any tab or state; presenter covers it.

A 1280-pixel window once grew to 1345 when Results → "Pair by pair" was opened: one
page's content asked for more room than the screen has, and Qt widened the window to
give it. Pages now sit in a scroll area, so a page that needs more room scrolls inside
the window. The presenter asks the window manager for full screen and, where one
ignores that, covers the screen itself.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot
from report_fixtures import copy_audit

from resume_auditor.ui.main_window import MainWindow


@pytest.fixture(scope="module")
def answered(sample_audit: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A file copy of the answered sample audit, for the window to open."""
    return copy_audit(sample_audit, tmp_path_factory.mktemp("fits") / "sample.audit")


def test_every_page_and_results_tab_fits_1280_by_800(
    qtbot: QtBot, window: MainWindow, answered: Path
) -> None:
    window.resize(1280, 800)
    with qtbot.waitSignal(window.session.loaded, timeout=60000):
        window.open_path(answered)
    for index in range(len(window.pages)):
        window.show_page(index)
        qtbot.wait(50)
        hint = window.minimumSizeHint()
        assert hint.width() <= 1280 and hint.height() <= 800, (index, hint)
        assert window.width() <= 1280, (index, window.width())
    page = window.results_page
    window.show_page(window.pages.index(page))
    for tab in range(page.tabs.count()):
        page.tabs.setCurrentIndex(tab)
        qtbot.wait(50)
        hint = window.minimumSizeHint()
        assert hint.width() <= 1280, (page.tabs.tabText(tab), hint)
    # whatever a page holds (a long unwrapped sentence, a wide table), the window keeps
    # its size and the page scrolls
    wide = QWidget()
    wide.setMinimumWidth(3000)
    page.layout().addWidget(wide)
    qtbot.wait(50)
    assert window.minimumSizeHint().width() <= 1280
    assert window.width() <= 1280


def test_presenter_covers_the_screen_when_the_window_manager_does_not(
    qtbot: QtBot, window: MainWindow
) -> None:
    presenter: Any = window.open_presenter(full_screen=False)
    presenter.resize(619, 533)  # what a window manager that ignores full screen gave
    qtbot.wait(50)
    presenter._ensure_covers_screen()  # noqa: SLF001 - the check showFullScreen schedules
    screen = presenter.screen().geometry()
    qtbot.waitUntil(lambda: presenter.geometry().contains(screen), timeout=5000)
    assert presenter.covered_by_hand
    presenter.close()


def test_a_short_page_does_not_scroll_because_a_taller_page_is_behind_it(
    qtbot: QtBot, window: MainWindow, answered: Path
) -> None:
    """The stack is as tall as the page on show: the Job page once scrolled at 1280×800
    only because the Run page, hidden behind it, needed more height for its width."""
    window.resize(1280, 800)
    window.show()
    with qtbot.waitSignal(window.session.loaded, timeout=60000):
        window.open_path(answered)
    run = window.run_page
    tall = QWidget()
    tall.setMinimumHeight(3000)
    run.layout().addWidget(tall)
    window.show_page(window.pages.index(run))
    qtbot.waitUntil(lambda: window.stack_scroll.verticalScrollBar().maximum() > 0, timeout=5000)
    window.show_page(window.pages.index(window.job_page))
    qtbot.waitUntil(lambda: window.stack_scroll.verticalScrollBar().maximum() == 0, timeout=5000)
    assert window.stack.height() <= window.stack_scroll.viewport().height()
