"""Report: the audit's verdict in plain words, and the files to file or hand over.

The report (HTML and PDF from one source), the data (XLSX, CSV) and the
reproducible bundle are written by `workflow.reporting`, in the background; this
page shows page one's verdict and says what was written and where.
"""

from __future__ import annotations

import html
import tempfile
from pathlib import Path
from typing import Any

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QFileDialog,
    QGridLayout,
    QGroupBox,
    QLabel,
    QPushButton,
    QTextBrowser,
)

from resume_auditor.ui.pages.base import Page
from resume_auditor.ui.session import AuditData, Session
from resume_auditor.ui.tasks import run_in_background
from resume_auditor.workflow.reporting import report_document, write_report

TONE_COLOURS = {"concern": "#c62828", "caution": "#8d6e00", "clear": "#2e7d32", "none": "#555"}


def verdict_html(document: Any) -> str:
    """Page one of the report, in a form a QTextBrowser renders."""
    v = document.verdict
    colour = TONE_COLOURS.get(v.tone, "#555")
    parts = [f'<h2 style="color:{colour}">{html.escape(v.headline)}</h2>']
    if v.preliminary:
        parts.append(f"<p><b>{html.escape(v.preliminary)}</b></p>")
    parts += [f"<p>{html.escape(s)}</p>" for s in v.sentences]
    if v.key_numbers:
        parts.append("<ul>")
        for k in v.key_numbers:
            number = k.value + (f" (95% interval {k.interval})" if k.interval else "")
            colour = "#c62828" if k.flagged else "inherit"
            parts.append(
                f"<li><b>{html.escape(k.title)}</b> — {html.escape(k.question)} "
                f'<span style="color:{colour}">{html.escape(number)}</span>'
                + (f" {html.escape(k.detail)}" if k.detail else "")
                + "</li>"
            )
        parts.append("</ul>")
    if v.flags:
        parts.append("<p><b>Flags</b></p><ul>")
        parts += [f'<li style="color:#c62828">{html.escape(f)}</li>' for f in v.flags]
        parts.append("</ul>")
    return "".join(parts)


class ReportPage(Page):
    title = "6. Report"

    def __init__(self, session: Session) -> None:
        super().__init__(
            "A report a non-expert can file (HTML and PDF), the data an auditor can check "
            "(Excel or CSV), and a bundle that re-opens in this app and recomputes every "
            "number. Source resumes' names and contact details never leave the audit file."
        )
        self.session = session
        self._data: AuditData | None = None
        self.verdict = QTextBrowser()
        self.verdict.setAccessibleName("The report's verdict")
        self.verdict.setOpenExternalLinks(False)
        box = QGroupBox("Save")
        grid = QGridLayout(box)
        self.buttons: dict[str, QPushButton] = {}
        for i, (kind, label, tip) in enumerate(
            (
                ("html", "Report as HTML…", "One self-contained file: opens in any browser."),
                ("pdf", "Report as PDF…", "The same report, paginated, to file or print."),
                ("xlsx", "Data as Excel…", "Every case and answer, the metrics and the failures."),
                ("csv", "Data as CSV…", "The same tables as CSV files in a folder."),
                (
                    "bundle",
                    "Reproducible bundle…",
                    "A zip another copy of the app re-opens and "
                    "recomputes; holds no real identities and no keys.",
                ),
                ("view", "Open the report in a browser", "Writes it to a temporary file."),
            )
        ):
            button = QPushButton(label)
            button.setToolTip(tip)
            button.clicked.connect(lambda _=False, k=kind: self.save(k))
            grid.addWidget(button, i // 3, i % 3)
            self.buttons[kind] = button
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.body.addWidget(self.verdict, 1)
        self.body.addWidget(box)
        self.body.addWidget(self.message)

    def show_audit(self, data: AuditData) -> None:
        self._data = data
        has_answers = data.answered > 0
        for button in self.buttons.values():
            button.setEnabled(has_answers)
        if not has_answers:
            self.verdict.setHtml("<p>No answers yet: run the audit first (page 4).</p>")
            return
        self.refresh()

    def refresh(self) -> None:
        if self._data is None:
            return
        path = self._data.path
        run_id = self._data.runs[-1].id if self._data.runs else None
        run_in_background(
            lambda: verdict_html(report_document(path, run_id)),
            self.verdict.setHtml,
            lambda exc: self.verdict.setHtml(
                f"<p>Could not build the report: {html.escape(str(exc))}</p>"
            ),
            owner=self,
        )

    def save(self, kind: str, target: Path | None = None) -> None:
        """Ask where (unless given), then write in the background."""
        if self._data is None:
            return
        stem = self._data.path.stem
        if target is None:
            if kind == "view":
                target = Path(tempfile.mkdtemp(prefix="resume-auditor-")) / f"{stem}.html"
            elif kind == "csv":
                folder = QFileDialog.getExistingDirectory(self, "Save the CSV files in")
                if not folder:
                    return
                target = Path(folder)
            else:
                suffix = {"html": "html", "pdf": "pdf", "xlsx": "xlsx", "bundle": "zip"}[kind]
                name, _ = QFileDialog.getSaveFileName(
                    self,
                    "Save as",
                    str(
                        self._data.path.with_name(f"{stem}-report.{suffix}")
                        if kind != "bundle"
                        else self._data.path.with_name(f"{stem}-bundle.zip")
                    ),
                    f"*.{suffix}",
                )
                if not name:
                    return
                target = Path(name)
        option = {"view": "html", "csv": "csv_dir"}.get(kind, kind)
        path = self._data.path
        run_id = self._data.runs[-1].id if self._data.runs else None
        self.message.setText("Writing…")
        for button in self.buttons.values():
            button.setEnabled(False)

        def done(written: list[Any]) -> None:
            for button in self.buttons.values():
                button.setEnabled(True)
            lines = []
            for w in written:
                if w.ok:
                    lines.append(f"Saved {w.kind.upper()}: {w.path}")
                else:
                    lines.append(f"Could not write the {w.kind.upper()}: {w.error}")
            self.message.setText("\n".join(lines))
            if kind == "view" and written and written[0].ok:
                QDesktopServices.openUrl(QUrl.fromLocalFile(str(written[0].path)))

        def failed(exc: Exception) -> None:
            for button in self.buttons.values():
                button.setEnabled(True)
            self.message.setText(f"Could not write: {exc}")

        run_in_background(
            lambda: write_report(path, run_id, **{option: target}), done, failed, owner=self
        )

    def status(self, data: AuditData | None) -> str:
        return "done" if data and data.answered else "todo"
