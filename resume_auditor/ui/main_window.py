"""The main window: the workflow's steps on the left, the current page on the right."""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtCore import QSize, Qt, QTimer
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QUndoStack
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from resume_auditor import APP_NAME
from resume_auditor.domain.study import JobSpec, StudyConfig
from resume_auditor.paths import audits_dir
from resume_auditor.providers.keys import default_store
from resume_auditor.resources import quick_sample_study, sample_study, shipped_sample
from resume_auditor.settings import take_notices
from resume_auditor.store.backup import restore_backup
from resume_auditor.store.errors import AuditDamaged
from resume_auditor.ui import heap
from resume_auditor.ui.app_settings import AppSettings
from resume_auditor.ui.errors import damaged_dialog
from resume_auditor.ui.pages.base import Page
from resume_auditor.ui.pages.job_page import JobPage
from resume_auditor.ui.pages.report_page import ReportPage
from resume_auditor.ui.pages.results_page import ResultsPage
from resume_auditor.ui.pages.resumes_page import ResumesPage
from resume_auditor.ui.pages.run_page import RunPage
from resume_auditor.ui.pages.variants_page import VariantsPage
from resume_auditor.ui.plain_words import plain_words
from resume_auditor.ui.presenter import PresenterWindow
from resume_auditor.ui.run_controller import RunController
from resume_auditor.ui.session import AuditData, Session
from resume_auditor.ui.settings_dialog import SettingsDialog
from resume_auditor.ui.tasks import keep_window_responsive, run_in_background
from resume_auditor.workflow.prepare import fork_audit, new_audit

MARKS = {"done": "✓", "todo": "○", "problem": "⚠"}

logger = logging.getLogger(__name__)


class CurrentPageStack(QStackedWidget):
    """A page stack as tall and wide as the page on show, not as its largest page.

    QStackedWidget asks for the largest minimum (and, with wrapped labels, the largest
    height for a width) of all its pages, so the short Job page scrolled at 1280×800
    because the Run page behind it needed more room.
    """

    def __init__(self) -> None:
        super().__init__()
        self.currentChanged.connect(lambda _i: self.updateGeometry())

    def sizeHint(self) -> QSize:
        page = self.currentWidget()
        return page.sizeHint() if page is not None else super().sizeHint()

    def minimumSizeHint(self) -> QSize:
        page = self.currentWidget()
        return page.minimumSizeHint() if page is not None else super().minimumSizeHint()

    def hasHeightForWidth(self) -> bool:
        page = self.currentWidget()
        return page.hasHeightForWidth() if page is not None else False

    def heightForWidth(self, width: int) -> int:
        page = self.currentWidget()
        if page is None or not page.hasHeightForWidth():
            return -1
        return page.heightForWidth(width)


class MainWindow(QMainWindow):
    def __init__(self) -> None:
        super().__init__()
        self.setWindowTitle(APP_NAME)
        self.resize(1280, 800)
        heap.tune()
        self.session = Session()
        self._shown_path: Path | None = None
        self._shown_generation = 0
        self.controller = RunController(self)
        self.settings = AppSettings()
        self.settings.restore_window(self)
        self.presenter: PresenterWindow | None = None
        self.undo = QUndoStack(self)

        self.job_page = JobPage(self.session, self.undo)
        self.resumes_page = ResumesPage(self.session, self.undo)
        self.variants_page = VariantsPage(self.session, self.undo)
        self.run_page = RunPage(self.controller, self.session)
        self.results_page = ResultsPage(self.session)
        self.report_page = ReportPage(self.session)
        self.pages: list[Page] = [
            self.job_page,
            self.resumes_page,
            self.variants_page,
            self.run_page,
            self.results_page,
            self.report_page,
        ]

        self.steps = QListWidget()
        self.steps.setFixedWidth(190)
        self.steps.setAccessibleName("Workflow steps")
        self.stack = CurrentPageStack()
        for page in self.pages:
            self.stack.addWidget(page)
            self.steps.addItem(QListWidgetItem(page.title))
            page.next_requested.connect(self._next)
        self.steps.currentRowChanged.connect(self._go)
        # What the window shows while an audit opens or closes: what is happening, a
        # busy bar, and Cancel (or "Close now" while a closing audit is backed up).
        self.placeholder = QLabel("Opening…")
        self.placeholder.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.placeholder.setWordWrap(True)
        self.busy_bar = QProgressBar()
        self.busy_bar.setRange(0, 0)  # a long step whose length is not known
        self.busy_bar.setMaximumWidth(420)
        self.busy_bar.setTextVisible(False)
        self.cancel_button = QPushButton("Cancel")
        self.cancel_button.setToolTip("Stop opening; the audit that was open stays open.")
        self.cancel_button.clicked.connect(self._cancel_busy)
        self.waiting = QWidget()
        waiting = QVBoxLayout(self.waiting)
        waiting.addStretch(1)
        waiting.addWidget(self.placeholder)
        waiting.addWidget(self.busy_bar, 0, Qt.AlignmentFlag.AlignHCenter)
        waiting.addWidget(self.cancel_button, 0, Qt.AlignmentFlag.AlignHCenter)
        waiting.addStretch(1)
        self.stack.addWidget(self.waiting)
        # a page's work deferred while another page was shown (Page.entered)
        self.stack.currentChanged.connect(self._entered)
        self._quitting = False
        self._really_close = False

        # One sentence on what to do next, while a shipped sample is open.
        self.next_hint = QLabel("")
        self.next_hint.setWordWrap(True)
        self.next_hint.setAccessibleName("What to do next")
        self.quick_button = QPushButton("Run the quick demo")
        self.quick_button.setToolTip(
            "Opens the quick demo (a handful of cases per design) and starts it on the free "
            "demonstration model; the first verdicts appear within a minute."
        )
        self.quick_button.clicked.connect(self._run_quick_demo)
        self.hint_bar = QFrame()
        self.hint_bar.setObjectName("nextHint")
        self.hint_bar.setStyleSheet(
            "QFrame#nextHint { background: #e8f1fb; color: #102a43;"
            " border: 1px solid #9cc0e6; border-radius: 4px; }"
        )
        hint_row = QHBoxLayout(self.hint_bar)
        hint_row.addWidget(self.next_hint, 1)
        hint_row.addWidget(self.quick_button)
        self.hint_bar.hide()
        self._start_when_loaded = False

        central = QWidget()
        layout = QHBoxLayout(central)
        layout.addWidget(self.steps)
        right = QVBoxLayout()
        right.addWidget(self.hint_bar)
        # No page may widen the window past the screen: a page whose content needs more
        # room than the window has scrolls inside it instead (a long unwrapped sentence or
        # a wide table once pushed a 1280-pixel window to 1345).
        self.stack_scroll = QScrollArea()
        self.stack_scroll.setWidgetResizable(True)
        self.stack_scroll.setFrameShape(QFrame.Shape.NoFrame)
        self.stack_scroll.setWidget(self.stack)
        right.addWidget(self.stack_scroll, 1)
        layout.addLayout(right, 1)
        self.setCentralWidget(central)

        self._menus()
        self.session.loaded.connect(self._loaded)
        self.session.failed.connect(self._failed)
        self.session.damaged.connect(self._damaged)
        self.session.busy.connect(self._busy)
        self.session.cancelled.connect(self._open_cancelled)
        self.session.closed.connect(self._audit_closed)
        self.run_page.answers_recorded.connect(self.results_page.schedule_refresh)
        self.run_page.run_finished.connect(self._run_finished)
        self.results_page.updated.connect(self._results_updated)
        self.statusBar().showMessage("Ready")
        # A settings file found damaged (by any thread) is set aside and said here.
        self._notice_timer = QTimer(self)
        self._notice_timer.setInterval(2000)
        self._notice_timer.timeout.connect(self._show_settings_notices)
        self._notice_timer.start()
        self._show_settings_notices()
        keep_window_responsive()
        # The OS keyring's backend is found on first use (loading keyring's plugins:
        # 150 ms): here, off the UI thread, before an audit's pages ask for a key's
        # status on it as the audit opens.
        run_in_background(
            lambda: default_store().backend,
            lambda _backend: None,
            lambda exc: logger.info("keyring not looked up early: %s", exc),
            owner=self,
        )

    def _show_settings_notices(self) -> None:
        notices = take_notices()
        if not notices:
            return
        box = QMessageBox(QMessageBox.Icon.Warning, APP_NAME, "\n\n".join(notices), parent=self)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.setModal(False)
        box.show()

    def _menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        new_action = QAction("&New audit…", self)
        new_action.setShortcut(QKeySequence.StandardKey.New)
        new_action.triggered.connect(self._new_dialog)
        open_action = QAction("&Open study or audit…", self)
        open_action.setShortcut(QKeySequence.StandardKey.Open)
        open_action.triggered.connect(self._open_dialog)
        self.recent_menu = file_menu.addMenu("Open &recent")
        self.recent_menu.aboutToShow.connect(self._fill_recent)
        sample_action = QAction("Open the &sample study", self)
        sample_action.triggered.connect(lambda: self.open_path(sample_study()))
        quick_action = QAction("Open the &quick demo", self)
        quick_action.triggered.connect(lambda: self.open_path(quick_sample_study()))
        copy_action = QAction("Save a &copy as…", self)
        copy_action.setShortcut(QKeySequence.StandardKey.SaveAs)
        copy_action.setToolTip("Every change is saved as you go; this writes a second copy.")
        copy_action.triggered.connect(self._save_copy)
        fork_action = QAction("New audit &from this one…", self)
        fork_action.setToolTip("Same job, resumes and settings; no answers yet, so you can edit.")
        fork_action.triggered.connect(self._fork)
        quit_action = QAction("&Quit", self)
        quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        quit_action.triggered.connect(self.close)
        file_menu.insertAction(self.recent_menu.menuAction(), new_action)
        file_menu.insertAction(self.recent_menu.menuAction(), open_action)
        for action in (sample_action, quick_action, copy_action, fork_action):
            file_menu.addAction(action)
        file_menu.addSeparator()
        settings_action = QAction("&Settings…", self)
        settings_action.setShortcut(QKeySequence.StandardKey.Preferences)
        settings_action.triggered.connect(self.open_settings)
        file_menu.addAction(settings_action)
        file_menu.addSeparator()
        file_menu.addAction(quit_action)
        self.audit_actions = [copy_action, fork_action]

        edit_menu = self.menuBar().addMenu("&Edit")
        undo_action = self.undo.createUndoAction(self, "&Undo")
        undo_action.setShortcut(QKeySequence.StandardKey.Undo)
        redo_action = self.undo.createRedoAction(self, "&Redo")
        redo_action.setShortcut(QKeySequence.StandardKey.Redo)
        edit_menu.addAction(undo_action)
        edit_menu.addAction(redo_action)

        view_menu = self.menuBar().addMenu("&View")
        presenter = QAction("&Presenter mode", self)
        presenter.setShortcut(QKeySequence("F11"))
        presenter.setToolTip("Full screen, large type: verdicts and charts as they arrive.")
        presenter.triggered.connect(self.open_presenter)
        view_menu.addAction(presenter)
        for i, page in enumerate(self.pages):
            go = QAction(page.title, self)
            go.setShortcut(QKeySequence(f"Alt+{i + 1}"))
            go.triggered.connect(lambda _=False, n=i: self.show_page(n))
            view_menu.addAction(go)

        help_menu = self.menuBar().addMenu("&Help")
        doctor = QAction("&Check this computer…", self)
        doctor.triggered.connect(self.open_doctor)
        help_menu.addAction(doctor)
        about = QAction("&About and licences", self)
        about.triggered.connect(self._about)
        help_menu.addAction(about)

    def _fill_recent(self) -> None:
        self.recent_menu.clear()
        recent = self.settings.recent()
        if not recent:
            empty = self.recent_menu.addAction("(none yet)")
            empty.setEnabled(False)
        for path in recent:
            action = self.recent_menu.addAction(str(path))
            action.triggered.connect(lambda _=False, p=path: self.open_path(p))

    def _new_dialog(self) -> None:
        name, ok = QInputDialog.getText(self, "New audit", "A name for this audit:")
        if not ok or not name.strip():
            return
        default = audits_dir() / (
            "".join(c if c.isalnum() or c in "-_ " else "_" for c in name).strip() + ".audit"
        )
        path, _ = QFileDialog.getSaveFileName(
            self, "Save the new audit as", str(default), "Audits (*.audit)"
        )
        if not path:
            return
        target = Path(path) if path.endswith(".audit") else Path(path + ".audit")
        try:
            new_audit(
                target,
                StudyConfig(name=name.strip(), seed=_new_seed(), job=JobSpec(title=""), resumes=()),
            )
        except Exception as exc:  # plain message, never a traceback
            QMessageBox.warning(self, APP_NAME, f"Could not create the audit: {exc}")
            return
        self.open_path(target)

    def _save_copy(self) -> None:
        if self.session.path is None:
            return
        path, _ = QFileDialog.getSaveFileName(
            self,
            "Save a copy as",
            str(self.session.path.with_name(self.session.path.stem + "-copy.audit")),
            "Audits (*.audit)",
        )
        if not path:
            return
        try:
            self.session.db().copy_to(path)
        except Exception as exc:
            QMessageBox.warning(self, APP_NAME, f"Could not save the copy: {exc}")
            return
        self.statusBar().showMessage(f"Saved a copy as {path}")

    def _fork(self) -> None:
        if self.session.path is None:
            return
        path, _ = QFileDialog.getSaveFileName(
            self,
            "New audit from this one",
            str(self.session.path.with_name(self.session.path.stem + "-2.audit")),
            "Audits (*.audit)",
        )
        if not path:
            return
        try:
            fork_audit(self.session.path, path)
        except Exception as exc:
            QMessageBox.warning(self, APP_NAME, f"Could not create the audit: {exc}")
            return
        self.open_path(path)

    # -- opening -------------------------------------------------------------------------

    def open_path(self, path: str | Path) -> None:
        if self.controller.running:
            QMessageBox.information(
                self, APP_NAME, "A run is in progress. Cancel it before opening another audit."
            )
            return
        self.session.open_file(path)

    def _open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self,
            "Open",
            "",
            "Studies, audits and bundles (*.toml *.audit *.zip);;All files (*)",
        )
        if path:
            self.open_path(path)

    def _busy(self, message: str) -> None:
        self.placeholder.setText(message)
        self.busy_bar.show()
        self.cancel_button.show()
        self.stack.setCurrentWidget(self.waiting)
        self.statusBar().showMessage(message)

    def _entered(self, _index: int) -> None:
        page = self.stack.currentWidget()
        if isinstance(page, Page):
            page.entered()

    def _go(self, row: int) -> None:
        """Show a step's page, unless an audit is opening or closing: the waiting view,
        with its Cancel, stays until that ends (the list takes focus, and with it row 0,
        as the window first shows)."""
        if (self.session.opening or self._quitting) and self.stack.currentWidget() is self.waiting:
            return
        self.stack.setCurrentIndex(row)

    def _cancel_busy(self) -> None:
        if self._quitting:  # backing up before quitting: the user would rather not wait
            self.session.closed.disconnect(self._audit_closed)
            self._quitting = False
            self._really_close = True
            self.close()
            return
        self.session.cancel_open()

    def _open_cancelled(self, message: str) -> None:
        self._start_when_loaded = False
        if self.session.data is not None:
            self.stack.setCurrentIndex(max(0, self.steps.currentRow()))
            self.statusBar().showMessage(message, 10000)
            return
        self._show_message(message + " Use File → Open to choose an audit.")
        self.statusBar().showMessage(message)

    def _show_message(self, message: str) -> None:
        self.placeholder.setText(message)
        self.busy_bar.hide()
        self.cancel_button.hide()
        self.stack.setCurrentWidget(self.waiting)

    def _failed(self, message: str) -> None:
        self._failed_view(message)
        QMessageBox.warning(self, APP_NAME, message)

    def _damaged(self, exc: AuditDamaged) -> None:
        """A damaged audit file: say so, and offer the last good copy when there is one."""
        self._failed_view(str(exc))
        choice = damaged_dialog(self, exc)
        if choice is None:
            return
        try:
            aside = restore_backup(exc.path)
        except Exception as err:  # plain message, never a traceback
            QMessageBox.warning(self, APP_NAME, f"Could not restore the last good copy: {err}")
            return
        QMessageBox.information(
            self,
            APP_NAME,
            f"The last good copy is back in place. The damaged file is kept as {aside.name}.",
        )
        self.open_path(exc.path)

    def _failed_view(self, message: str) -> None:
        self._show_message(f"Could not open this audit.\n\n{message}")
        self.statusBar().showMessage("Could not open the audit")

    def _loaded(self, data: AuditData) -> None:
        if data.generation != self._shown_generation:
            heap.settle()  # a newly read audit: freeze it out of the collector's walks
        self._shown_generation = data.generation
        reopened = data.path == self._shown_path
        self._shown_path = data.path
        if not reopened:
            self.settings.add_recent(data.path)
        for action in self.audit_actions:
            action.setEnabled(True)
        for page in self.pages:
            page.show_audit(data)
        self.setWindowTitle(f"{data.study.name} — {APP_NAME}")
        self.statusBar().showMessage(f"Audit file: {data.path}")
        if not reopened and data.notes:  # after the file name, which would hide it at once
            self.statusBar().showMessage(plain_words(data.notes[0]), 15000)
        self._update_steps(data)
        self._show_next_hint(data)
        if self._start_when_loaded and shipped_sample(data.study.name) == "quick":
            self._start_when_loaded = False
            self.steps.setCurrentRow(self.pages.index(self.run_page))
            if self.run_page.start_button.isEnabled():
                self.run_page.start_button.click()
            return
        if reopened:  # a refresh of the same audit: stay on the page the user is on
            self.stack.setCurrentIndex(max(0, self.steps.currentRow()))
            return
        self.steps.setCurrentRow(0)
        self.stack.setCurrentIndex(0)

    def _show_next_hint(self, data: AuditData) -> None:
        kind = shipped_sample(data.study.name, [r.sha256 for r in data.resumes])
        if kind == "full" and not data.answered:
            self.next_hint.setText(
                "This is a ready-made sample audit: a fictional job and four fictional resumes, "
                "to be judged by a free demonstration model on this computer. Next: press "
                "<b>Run the quick demo</b> to watch its verdicts arrive, or load your own job "
                "description on page 1."
            )
            self.quick_button.show()
        elif kind == "quick":
            self.next_hint.setText(
                "The quick demo: a handful of cases per design, to show what the app does, not "
                "an audit of any model. Watch the answers arrive on page 4; the numbers fill in "
                "on page 5. File → Open the sample study has the full sample."
            )
            self.quick_button.hide()
        else:
            self.hint_bar.hide()
            return
        self.hint_bar.show()

    def _run_quick_demo(self) -> None:
        self._start_when_loaded = True
        self.open_path(quick_sample_study())

    def _update_steps(self, data: AuditData | None) -> None:
        for i, page in enumerate(self.pages):
            mark = MARKS.get(page.status(data), "○")
            self.steps.item(i).setText(f"{mark}  {page.title}")

    def _results_updated(self) -> None:
        """Only the Results step's mark can change when answers arrive."""
        index = self.pages.index(self.results_page)
        mark = MARKS.get(self.results_page.status(self.session.data), "○")
        self.steps.item(index).setText(f"{mark}  {self.results_page.title}")

    def _run_finished(self) -> None:
        self.session.refresh_runs()

    def _next(self) -> None:
        row = self.steps.currentRow()
        if row < len(self.pages) - 1:
            self.steps.setCurrentRow(row + 1)

    def show_page(self, index: int) -> None:
        self.steps.setCurrentRow(index)

    def open_settings(self) -> SettingsDialog:
        dialog = SettingsDialog(self)
        dialog.finished.connect(lambda _r: self._settings_closed())
        dialog.open()
        return dialog

    def _settings_closed(self) -> None:
        self.run_page.picker._refresh()  # noqa: SLF001 - key status may have changed
        self.results_page.refresh()  # thresholds may have changed

    def open_presenter(self, full_screen: bool = True) -> PresenterWindow:
        if self.presenter is None:
            self.presenter = PresenterWindow(self.controller, self.results_page)
        if full_screen:
            self.presenter.showFullScreen()
        else:
            self.presenter.show()
        self.presenter.raise_()
        return self.presenter

    def _about(self) -> None:
        from resume_auditor.ui.help_dialogs import AboutDialog

        AboutDialog(self).exec()

    def open_doctor(self) -> QDialog:
        """Help → Check this computer: the self-check, non-modal, filled as it runs."""
        from resume_auditor.ui.help_dialogs import DoctorDialog

        dialog = DoctorDialog(self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.show()
        dialog.start()
        return dialog

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802
        self.job_page.save_now()
        if self.controller.running:
            answer = QMessageBox.question(
                self,
                APP_NAME,
                "A run is in progress. Every answer so far is saved; you can resume later. "
                "Stop the run and quit?",
            )
            if answer != QMessageBox.StandardButton.Yes:
                event.ignore()
                return
        self.controller.shutdown()
        self.settings.save_window(self)
        if self.session.holds_audit and not self._really_close:
            # The backup of a big audit takes seconds: made in a worker while the
            # window says so; the window closes when it is done.
            event.ignore()
            self._quitting = True
            name = self.session.path.name if self.session.path else "the audit"
            self._busy(
                f"Backing up {name} before closing… A backup cannot stop midway; if you close "
                "now, the previous backup is kept."
            )
            self.cancel_button.setText("Close now")
            self.cancel_button.setToolTip("Close without waiting; the previous backup is kept.")
            for action in self.audit_actions:
                action.setEnabled(False)
            self.session.close_audit_in_background()
            return
        if self.presenter is not None:
            self.presenter.close()
        event.accept()

    def _audit_closed(self) -> None:
        if self._quitting:
            self._quitting = False
            self._really_close = True
            self.close()


def _new_seed() -> int:
    import secrets

    return secrets.randbelow(1_000_000_000)
