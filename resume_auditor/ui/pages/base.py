"""What every page has: a heading, a line on what to do here, and a 'next' button."""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from resume_auditor.ui.session import AuditData


class Page(QWidget):
    next_requested = Signal()
    title = "Page"
    next_label = ""

    def __init__(self, intro: str) -> None:
        super().__init__()
        self.outer = QVBoxLayout(self)
        heading = QLabel(self.title)
        heading.setStyleSheet("font-size: 16pt; font-weight: 600;")
        heading.setAccessibleName(self.title)
        self.intro = QLabel(intro)
        self.intro.setWordWrap(True)
        self.outer.addWidget(heading)
        self.outer.addWidget(self.intro)
        self.body = QVBoxLayout()
        self.outer.addLayout(self.body, 1)
        if self.next_label:
            row = QHBoxLayout()
            row.addStretch(1)
            self.next_button = QPushButton(self.next_label)
            self.next_button.clicked.connect(self.next_requested)
            row.addWidget(self.next_button)
            self.outer.addLayout(row)

    def show_audit(self, data: AuditData) -> None:  # overridden
        pass

    def entered(self) -> None:
        """This page became the one the window shows: work it put off while another
        page was shown (`isHidden()` in the window's stack) is done now. At an audit's
        opening every page is given the audit; the ones nobody looks at should not
        take the interpreter from the one on show."""

    def status(self, data: AuditData | None) -> str:
        """'done', 'todo' or 'problem' for the navigation list."""
        return "todo"
