"""Unexpected errors in the app: a dialog for the user, the details in a log file.

Without this, an exception in a slot or a worker thread only printed a traceback
to a terminal the user never sees, and the window went on showing stale numbers.
Now every uncaught exception (UI thread: `sys.excepthook`; other threads:
`threading.excepthook`) is written to a rotating log in the platform's log folder
and shown in one dialog that says what happened and what to do, with a "Copy
details" button for a bug report. Qt's own warnings go to the same log.

The dialog never shows a stack trace; the log and the copied details have it.
"""

from __future__ import annotations

import logging
import logging.handlers
import os
import platform
import sys
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

import platformdirs
from PySide6.QtCore import QObject, Qt, QtMsgType, Signal, qInstallMessageHandler
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from resume_auditor import APP_NAME, __version__
from resume_auditor.store.backup import backup_time
from resume_auditor.store.errors import SQLITE_VERSION, AuditDamaged, StoreDatabaseError

logger = logging.getLogger(__name__)

LOG_NAME = "resume-auditor.log"
_MAX_BYTES = 1_000_000
_BACKUPS = 3


def log_dir() -> Path:
    """The platform's log folder (beside the data folder when RESUME_AUDITOR_DATA_DIR is set)."""
    override = os.environ.get("RESUME_AUDITOR_DATA_DIR")
    path = (
        Path(override) / "logs"
        if override
        else Path(platformdirs.user_log_dir("resume-auditor", appauthor=False))
    )
    path.mkdir(parents=True, exist_ok=True)
    return path


def log_file() -> Path:
    return log_dir() / LOG_NAME


def setup_logging() -> Path:
    """Send the app's log (INFO and up) to a rotating file; its path."""
    target = log_file()
    root = logging.getLogger()
    for handler in root.handlers:
        if (
            isinstance(handler, logging.handlers.RotatingFileHandler)
            and Path(handler.baseFilename) == target.resolve()
        ):
            return target
    handler = logging.handlers.RotatingFileHandler(
        target, maxBytes=_MAX_BYTES, backupCount=_BACKUPS, encoding="utf-8"
    )
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.setLevel(logging.INFO)
    root.addHandler(handler)
    if root.level > logging.INFO or root.level == logging.NOTSET:
        root.setLevel(logging.INFO)
    return target


def summary(exc: BaseException) -> tuple[str, str]:
    """(what happened, what the user can do) for an unexpected exception."""
    if isinstance(exc, StoreDatabaseError):
        return (
            f"The audit file could not be read or written ({exc}).",
            "Every answer recorded before this is in the file. The window may now show "
            "old numbers: reopen the audit (File > Open recent). If the app then says the "
            "file is damaged, it offers the last good copy.",
        )
    if isinstance(exc, MemoryError):
        return (
            "The app ran out of memory.",
            "Close other programs, or split the audit into smaller ones, and try again.",
        )
    if isinstance(exc, OSError):
        return (
            f"A file or network operation failed: {exc.strerror or exc}.",
            "Check that the disk is not full and the file is where it was, then try again.",
        )
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return (
        f"Something went wrong inside the app ({type(exc).__name__}"
        + (f": {text[:200]}" if text else "")
        + ").",
        "Your audit is saved as you go. Try the last step again; if it happens again, "
        "please report it with the details (Copy details).",
    )


def details(
    exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None, where: str
) -> str:
    """What a bug report needs: versions, where it happened and the traceback."""
    lines = [
        f"{APP_NAME} {__version__}",
        f"Python {platform.python_version()} on {platform.platform()}",
        f"SQLite {SQLITE_VERSION}",
        f"Thread: {where}",
        "",
        *traceback.format_exception(exc_type, exc, tb),
    ]
    return "\n".join(line.rstrip("\n") for line in lines)


class ErrorDialog(QDialog):
    """One unexpected error: what happened, what to do, where the log is, Copy details."""

    def __init__(
        self, happened: str, todo: str, detail_text: str, log: Path, parent: QWidget | None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"{APP_NAME}: something went wrong")
        self.setModal(True)
        self.detail_text = detail_text
        self.more = 0
        layout = QVBoxLayout(self)
        self.happened = QLabel(f"<b>{_escape(happened)}</b>")
        self.todo = QLabel(todo)
        self.log_label = QLabel(f"The details are saved in the log: {log}")
        self.more_label = QLabel("")
        self.more_label.hide()
        for label in (self.happened, self.todo, self.log_label, self.more_label):
            label.setWordWrap(True)
            label.setTextInteractionFlags(label.textInteractionFlags() | _selectable())
            layout.addWidget(label)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        self.copy_button = QPushButton("Copy details")
        self.copy_button.setToolTip("Copies the technical details, to paste into a bug report.")
        self.copy_button.clicked.connect(self.copy_details)
        self.close_button = QPushButton("Close")
        self.close_button.setDefault(True)
        self.close_button.clicked.connect(self.accept)
        buttons.addWidget(self.copy_button)
        buttons.addWidget(self.close_button)
        layout.addLayout(buttons)
        self.setMinimumWidth(520)

    def copy_details(self) -> None:
        QApplication.clipboard().setText(self.detail_text)
        self.copy_button.setText("Copied")

    def add_more(self) -> None:
        """Another error arrived while this one is shown: count it, don't stack dialogs."""
        self.more += 1
        self.more_label.setText(
            f"{self.more} more error(s) happened since; the log has each of them."
        )
        self.more_label.show()


def _selectable() -> Qt.TextInteractionFlag:
    return Qt.TextInteractionFlag.TextSelectableByMouse


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class ErrorReporter(QObject):
    """Installs the hooks; shows errors from any thread on the UI thread."""

    _arrived = Signal(object, object, object, str)

    def __init__(self, parent_window: Callable[[], QWidget | None] | None = None) -> None:
        super().__init__()
        self.parent_window = parent_window or (lambda: None)
        self.dialog: ErrorDialog | None = None
        self.shown = 0
        self._arrived.connect(self._show)
        self._previous: tuple[object, object] | None = None

    def install(self) -> None:
        self._previous = (sys.excepthook, threading.excepthook)
        sys.excepthook = self.handle
        threading.excepthook = self._thread_hook
        qInstallMessageHandler(_qt_message)

    def uninstall(self) -> None:
        if self._previous is not None:
            sys.excepthook, threading.excepthook = self._previous  # type: ignore[assignment]
            self._previous = None
        qInstallMessageHandler(None)

    def _thread_hook(self, args: threading.ExceptHookArgs) -> None:
        if args.exc_type is SystemExit or args.exc_value is None:
            return
        where = args.thread.name if args.thread is not None else "a worker thread"
        self.handle(args.exc_type, args.exc_value, args.exc_traceback, where)

    def handle(
        self,
        exc_type: type[BaseException],
        exc: BaseException,
        tb: TracebackType | None,
        where: str = "",
    ) -> None:
        """Log the error and ask the UI thread to show it (safe from any thread)."""
        if issubclass(exc_type, KeyboardInterrupt):
            QApplication.quit()
            return
        where = where or threading.current_thread().name
        logger.error(
            "unexpected error in %s", where, exc_info=(exc_type, exc, tb)
        )  # the log keeps the traceback; the user sees a message
        self._arrived.emit(exc_type, exc, tb, where)

    def _show(
        self,
        exc_type: type[BaseException],
        exc: BaseException,
        tb: TracebackType | None,
        where: str,
    ) -> None:
        self.shown += 1
        if self.dialog is not None and self.dialog.isVisible():
            self.dialog.add_more()
            return
        happened, todo = summary(exc)
        self.dialog = ErrorDialog(
            happened, todo, details(exc_type, exc, tb, where), log_file(), self.parent_window()
        )
        self.dialog.open()


def _qt_message(mode: QtMsgType, context: object, message: str) -> None:
    level = {
        QtMsgType.QtDebugMsg: logging.DEBUG,
        QtMsgType.QtInfoMsg: logging.INFO,
        QtMsgType.QtWarningMsg: logging.WARNING,
        QtMsgType.QtCriticalMsg: logging.ERROR,
        QtMsgType.QtFatalMsg: logging.CRITICAL,
    }.get(mode, logging.WARNING)
    logging.getLogger("qt").log(level, "%s", message)


def damaged_dialog(parent: QWidget | None, exc: AuditDamaged) -> bool | None:
    """Ask whether to restore the last good copy of a damaged audit.

    True when the user chose to restore it; None when there is no copy or they
    declined (the damaged file stays as it is either way until they choose).
    """
    from PySide6.QtWidgets import QMessageBox

    box = QMessageBox(parent)
    box.setIcon(QMessageBox.Icon.Warning)
    box.setWindowTitle("Damaged audit file")
    name = Path(exc.path).name
    if not exc.backup:
        box.setText(f"{name} is damaged and cannot be opened.")
        box.setInformativeText(
            "There is no backup of it yet (the app keeps one from before each run and from "
            "when an audit is closed). If you have a bundle (.zip) of it, open that instead."
        )
        box.setStandardButtons(QMessageBox.StandardButton.Close)
        box.exec()
        return None
    when = backup_time(exc.path) or "earlier"
    box.setText(f"{name} is damaged and cannot be opened.")
    box.setInformativeText(
        f"The app kept a good copy of it from {when}. Restoring it puts that copy in place; "
        "answers recorded after it are not in it. The damaged file is kept beside it, "
        "renamed, in case it is needed."
    )
    restore = box.addButton("Restore the last good copy", QMessageBox.ButtonRole.AcceptRole)
    box.addButton(QMessageBox.StandardButton.Cancel)
    box.setDefaultButton(restore)
    box.exec()
    return True if box.clickedButton() is restore else None
