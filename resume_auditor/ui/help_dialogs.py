"""Help menu windows: About (with every licence the app carries) and Check this computer.

The licences are shown, not just linked: a frozen copy of the app given to a colleague
must carry Qt's LGPL notice, llama.cpp's MIT notice and the bundled model's licence,
and a user offline cannot follow a link. The self-check runs the same checks as
``resume-auditor doctor`` (workflow/doctor.py) in the background, one line per check
as each finishes, so the window never freezes while the bundled model starts.
"""

from __future__ import annotations

import logging
from importlib import metadata

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QPlainTextEdit,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from resume_auditor import __version__
from resume_auditor.resources import resource
from resume_auditor.ui.tasks import run_in_background
from resume_auditor.workflow.doctor import Check, format_check, run_checks

logger = logging.getLogger(__name__)

APP_LICENCE = "Apache License 2.0"


def _field(meta: metadata.PackageMetadata, key: str) -> str:
    try:
        return str(meta[key] or "")
    except KeyError:  # newer Pythons raise for a missing field
        return ""


def package_licences() -> list[tuple[str, str, str]]:
    """(name, version, licence) of every installed Python package, from its own metadata."""
    rows: dict[str, tuple[str, str, str]] = {}
    for dist in metadata.distributions():
        meta = dist.metadata
        name = _field(meta, "Name")
        if not name or name.lower() in rows:
            continue
        licence = _field(meta, "License-Expression") or _field(meta, "License")
        if not licence or len(licence) > 80:  # some packages paste the whole text here
            classifiers = [
                c.split("::")[-1].strip()
                for c in meta.get_all("Classifier") or []
                if c.startswith("License ::")
            ]
            licence = ", ".join(classifiers) or (licence.splitlines()[0][:80] if licence else "")
        rows[name.lower()] = (name, dist.version, licence or "not stated")
    return sorted(rows.values(), key=lambda r: r[0].lower())


def notices_text() -> str:
    """The third-party notices file, then the table of installed packages' licences."""
    try:
        text = resource("THIRD_PARTY_NOTICES.md").read_text(encoding="utf-8")
    except OSError:
        text = "(The third-party notices file is missing from this installation.)"
    lines = [text.rstrip(), "", "## Python packages installed with the app", ""]
    lines += [f"- {name} {version}: {licence}" for name, version, licence in package_licences()]
    return "\n".join(lines) + "\n"


class AboutDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("About Resume Auditor")
        layout = QVBoxLayout(self)
        intro = QLabel(
            f"<b>Resume Auditor</b> {__version__}<br>Audits a language model's resume "
            "screening for validity and fairness before it screens real candidates.<br><br>"
            f"Licensed under the {APP_LICENCE}. Methods: Castleman et al. (2025), Gaebler et "
            "al. (2024), Chen et al. (2025), Wen et al. (FAIRE). Name lists: Bloomberg "
            "Graphics (2024, Apache-2.0), US Census 2010 surnames, SSA baby names, Tzioumis "
            "(2018).<br><br><b>Licences of the software and data it includes:</b>"
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.notices = QTextBrowser(self)
        self.notices.setMarkdown(notices_text())
        self.notices.setOpenExternalLinks(True)
        layout.addWidget(self.notices, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(720, 560)


class _CheckRelay(QObject):
    checked = Signal(object)


class DoctorDialog(QDialog):
    """Runs the self-check in the background; each result appears as it comes."""

    def __init__(self, parent: QWidget | None = None, skip: frozenset[str] = frozenset()) -> None:
        super().__init__(parent)
        self.skip = skip
        self.setWindowTitle("Check this computer")
        layout = QVBoxLayout(self)
        self.status = QLabel(
            "Checking the window, the OS keyring, the PDF engine and the bundled model "
            "(a few seconds; the model is started and asked one short question)…"
        )
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.output = QPlainTextEdit(self)
        self.output.setReadOnly(True)
        layout.addWidget(self.output, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close, self)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.results: list[Check] = []
        self.checks_done = False
        self._relay = _CheckRelay(self)
        self._relay.checked.connect(self._add)
        self.resize(720, 420)

    def start(self) -> None:
        relay = self._relay
        self.checks_done = False

        def work() -> int:
            count = 0
            for check in run_checks(self.skip):
                relay.checked.emit(check)  # queued to the UI thread
                count += 1
            return count

        run_in_background(work, self._finished, self._failed, owner=self)

    def _add(self, check: Check) -> None:
        self.results.append(check)
        self.output.appendPlainText(format_check(check))

    def _finished(self, _count: object) -> None:
        self.checks_done = True
        failed = [c.name for c in self.results if c.status.value == "failed"]
        warned = [c.name for c in self.results if c.status.value == "warning"]
        if failed:
            self.status.setText(
                "Something does not work here: " + ", ".join(failed) + ". Each line says how "
                "to fix it."
            )
        elif warned:
            self.status.setText(
                "Everything needed works; read the notes on " + ", ".join(warned) + "."
            )
        else:
            self.status.setText("Everything works on this computer.")

    def _failed(self, exc: Exception) -> None:
        logger.error("self-check failed: %r", exc)
        self.status.setText(f"The check itself failed: {exc}")
