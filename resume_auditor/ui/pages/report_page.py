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

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices, QShowEvent
from PySide6.QtWidgets import (
    QFileDialog,
    QGridLayout,
    QGroupBox,
    QLabel,
    QProgressBar,
    QPushButton,
    QTextBrowser,
)

from resume_auditor.designs.registry import DESIGNS
from resume_auditor.report.html import field_text
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


def _page_html(document: Any) -> str:
    designs = design_blocks_html(document)
    return verdict_html(document) + (
        f"<hr><h2>Ratings by group, candidate pools, scores and rankings</h2>{designs}"
        if designs
        else ""
    )


# The sections shown: every registry design's but those page 1 sums up (its heading
# names its label).
_BELOW = [d for d in DESIGNS if not d.on_page_one]
_DESIGN_TAGS = (*(f"Design {d.label}" for d in _BELOW), *(f"({d.label})" for d in _BELOW))


def design_blocks_html(document: Any) -> str:
    """The report's registry designs' sections as plain tables a QTextBrowser
    renders ('' when none).

    The same blocks and the same number formatting as the HTML report, so the app
    and the filed report cannot disagree.
    """
    blocks = [b for b in document.fairness if any(tag in b.heading for tag in _DESIGN_TAGS)]
    parts: list[str] = []
    for block in blocks:
        parts.append(f"<h3>{html.escape(block.heading)}</h3>")
        parts += [f"<p>{html.escape(p)}</p>" for p in block.intro if p]
        for table in block.tables:
            parts.append(
                f"<p><b>{html.escape(table.title)}</b></p>"
                '<table border="0" cellspacing="0" cellpadding="3">'
                "<tr><th align=left>What</th><th align=right>Value</th>"
                "<th align=right>95% CI</th><th align=right>n</th>"
                + ("<th align=right>p (adjusted)</th>" if table.has_p else "")
                + "<th align=left>Note</th></tr>"
            )
            for row in table.rows:
                m = row.metric
                colour = "#c62828" if m.get("flag") else "inherit"
                cells = [field_text(m, "value"), field_text(m, "ci"), field_text(m, "n")]
                if table.has_p:
                    cells.append(field_text(m, "p_adjusted"))
                note = " ".join(str(m.get(k) or "") for k in ("note", "flag") if m.get(k))
                parts.append(
                    f'<tr style="color:{colour}"><td>{html.escape(row.label)}</td>'
                    + "".join(f"<td align=right>{html.escape(c)}</td>" for c in cells)
                    + f"<td>{html.escape(note)}</td></tr>"
                )
            parts.append("</table>")
        parts += [f"<p>{html.escape(p)}</p>" for p in block.after if p]
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
        self._due = False  # numbers to compute when the page is next shown
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
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.busy_bar = QProgressBar()
        self.busy_bar.setRange(0, 0)  # one step of unknown length
        self.busy_bar.setTextVisible(False)
        self.busy_bar.hide()
        self.body.addWidget(self.verdict, 1)
        self.body.addWidget(box)
        self.body.addWidget(self.busy_bar)
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
        """The report's numbers, in the background; while the page is hidden, only noted
        as due: building the report runs every design's tests and the comparison of the
        models again, which at 5 models x 10,000 answers held the Results page's
        comparison back by seconds when both started as the audit opened."""
        if self._data is None:
            return
        if not self.isVisible():
            self._due = True
            return
        self._due = False
        path = self._data.path
        run_id = self._data.runs[-1].id if self._data.runs else None
        self.verdict.setHtml("<p>Computing the report's numbers…</p>")
        run_in_background(
            lambda: _page_html(report_document(path, run_id)),
            self.verdict.setHtml,
            lambda exc: self.verdict.setHtml(
                f"<p>Could not build the report: {html.escape(str(exc))}</p>"
            ),
            owner=self,
        )

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        if self._due:
            self.refresh()

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
        out: Path = target
        path = self._data.path
        run_id = self._data.runs[-1].id if self._data.runs else None
        what = {
            "html": "the report (HTML)",
            "view": "the report (HTML)",
            "pdf": "the report (PDF)",
            "xlsx": "the data (Excel)",
            "csv": "the data (CSV files)",
            "bundle": "the bundle",
        }[kind]
        self.message.setText(
            f"Writing {what}… On a big audit this takes up to a minute. It cannot stop "
            "midway; the rest of the app stays usable meanwhile."
        )
        self.busy_bar.show()
        for button in self.buttons.values():
            button.setEnabled(False)

        def done(written: list[Any]) -> None:
            self.busy_bar.hide()
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
            self.busy_bar.hide()
            for button in self.buttons.values():
                button.setEnabled(True)
            self.message.setText(f"Could not write: {exc}")

        options: dict[str, Any] = {option: out}  # html, pdf, xlsx, csv_dir or bundle
        run_in_background(lambda: write_report(path, run_id, **options), done, failed, owner=self)

    def status(self, data: AuditData | None) -> str:
        return "done" if data and data.answered else "todo"
