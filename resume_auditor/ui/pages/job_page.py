"""Job: the job description and its checklist of qualifications."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QSplitter, QTreeWidget, QTreeWidgetItem

from resume_auditor.ui.pages.base import Page
from resume_auditor.ui.session import AuditData

TYPE_LABELS = {
    "hard_skill": "Hard skill",
    "soft_skill": "Soft skill",
    "education": "Education",
    "experience": "Years of experience",
    "certification": "Certification",
    "unknown": "—",
}


class JobPage(Page):
    title = "1. Job"
    next_label = "Next: the resumes →"

    def __init__(self) -> None:
        super().__init__(
            "The job you are hiring for, and the qualifications read from it. Required ones "
            "decide who is qualified; preferred ones make a candidate stronger. Less-qualified "
            "test copies remove a required qualification."
        )
        self.job_title = QLabel("")
        self.job_title.setStyleSheet("font-size: 13pt;")
        self.body.addWidget(self.job_title)
        split = QSplitter(Qt.Orientation.Horizontal)
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setAccessibleName("Job description text")
        self.quals = QTreeWidget()
        self.quals.setHeaderLabels(["Qualification", "Type"])
        self.quals.setAccessibleName("Qualifications checklist")
        self.quals.setColumnWidth(0, 420)
        split.addWidget(self.text)
        split.addWidget(self.quals)
        split.setSizes([450, 550])
        self.body.addWidget(split, 1)

    def show_audit(self, data: AuditData) -> None:
        job = data.job
        self.job_title.setText(job.title)
        self.text.setPlainText(job.text)
        self.quals.clear()
        for label, items in (("Required", job.required), ("Preferred", job.preferred)):
            top = QTreeWidgetItem([f"{label} ({len(items)})", ""])
            for q in items:
                child = QTreeWidgetItem([q.text, TYPE_LABELS.get(q.qtype.value, q.qtype.value)])
                child.setToolTip(0, q.text)
                top.addChild(child)
            self.quals.addTopLevelItem(top)
            top.setExpanded(True)

    def status(self, data: AuditData | None) -> str:
        return "done" if data and data.job.required else "todo"
