"""Settings: API keys and where each one lives, flag thresholds, the data folder.

Keys are set through a masked field and go to the OS keyring (or this session's
memory when there is none, which the dialog says plainly). Thresholds are saved
to the data folder with the source of each number; the reports print them.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from resume_auditor.providers.keys import KeyStore, default_store, keyring_advice
from resume_auditor.providers.registry import PROVIDERS, provider_info
from resume_auditor.settings.folder import settings_folder
from resume_auditor.settings.thresholds import (
    active_thresholds,
    forget_user_thresholds,
    save_user_thresholds,
    shipped_thresholds,
)
from resume_auditor.stats.thresholds import ThresholdError
from resume_auditor.ui.widgets.model_picker import short_status

# The thresholds in a recruiter's words; the statistics' own names go in the tooltip.
PLAIN_TITLES = {
    "criterion_validity": "Picks the more qualified candidate, at least",
    "discrim_validity": "Treats equal candidates as equal, at least",
    "impact_ratio": "Lowest fair impact ratio (four-fifths rule)",
    "group_gap_alpha": "Chance of a false fairness alarm",
    "position_bias_alpha": "Chance of a false alarm on validity or on favouring the first "
    "candidate",
    "small_cell": "Fewest answers to read a number",
}


class SettingsDialog(QDialog):
    def __init__(self, parent: QWidget | None = None, keys: KeyStore | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.resize(820, 560)
        self.keys = keys or default_store()
        tabs = QTabWidget()
        tabs.addTab(self._keys_tab(), "Models and keys")
        tabs.addTab(self._thresholds_tab(), "Flag thresholds")
        tabs.addTab(self._folder_tab(), "Data folder")
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(tabs)
        layout.addWidget(buttons)

    # -- keys ------------------------------------------------------------------------

    def _keys_tab(self) -> QWidget:
        page = QWidget()
        grid = QGridLayout(page)
        intro = QLabel(
            "Keys are kept in your operating system's keyring, never in a file, a log or an "
            "audit. A key in the provider's environment variable is used for this session. "
            "Keys for servers you reach by address are set on the Run page."
        )
        intro.setWordWrap(True)
        grid.addWidget(intro, 0, 0, 1, 4)
        backend = QLabel(
            f"Keyring: {self.keys.keyring_name()}"
            if self.keys.keyring_available()
            else f"No keyring on this computer: keys are kept in memory until you quit. "
            f"{keyring_advice()}"
        )
        backend.setWordWrap(True)
        grid.addWidget(backend, 1, 0, 1, 4)
        self.key_labels: dict[str, QLabel] = {}
        row = 2
        for info in PROVIDERS:
            if not info.needs_key or info.key_per_base_url:
                continue
            name = QLabel(info.label)
            status = QLabel("")
            status.setWordWrap(True)
            set_button = QPushButton("Set key…")
            set_button.clicked.connect(lambda _=False, p=info.id: self._set_key(p))
            delete_button = QPushButton("Remove")
            delete_button.clicked.connect(lambda _=False, p=info.id: self._delete_key(p))
            grid.addWidget(name, row, 0)
            grid.addWidget(status, row, 1)
            grid.addWidget(set_button, row, 2)
            grid.addWidget(delete_button, row, 3)
            self.key_labels[info.id] = status
            row += 1
        self.key_message = QLabel("")
        self.key_message.setWordWrap(True)
        grid.addWidget(self.key_message, row, 0, 1, 4)
        grid.setColumnStretch(1, 1)
        grid.setRowStretch(row + 1, 1)
        self._refresh_keys()
        return page

    def _refresh_keys(self) -> None:
        for provider, label in self.key_labels.items():
            status = self.keys.status(provider)
            label.setText(short_status(status, True))
            label.setToolTip(status.message)

    def _set_key(self, provider: str) -> None:
        info = provider_info(provider)
        key, ok = QInputDialog.getText(
            self, "API key", f"Paste your {info.label} API key:", QLineEdit.EchoMode.Password
        )
        if ok and key.strip():
            status = self.keys.set(provider, key.strip())
            self._refresh_keys()
            self.key_message.setText(status.message)

    def _delete_key(self, provider: str) -> None:
        status = self.keys.delete(provider)
        self._refresh_keys()
        self.key_message.setText(status.message)

    # -- thresholds --------------------------------------------------------------------

    def _thresholds_tab(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        intro = QLabel(
            "A number that crosses one of these is flagged in the results and the report, "
            "which list the thresholds they used and where each comes from. If you change a "
            "value, say where your number comes from."
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        grid = QGridLayout()
        self.threshold_fields: dict[str, tuple[QDoubleSpinBox, QPlainTextEdit]] = {}
        try:
            current = active_thresholds()
        except ThresholdError as exc:
            layout.addWidget(QLabel(f"{exc}\nThe shipped thresholds are shown instead."))
            current = shipped_thresholds()
        grid.addWidget(QLabel("<b>Flag a number when it crosses</b>"), 0, 0)
        grid.addWidget(QLabel("<b>Value</b>"), 0, 1)
        grid.addWidget(QLabel("<b>Where the number comes from</b>"), 0, 2)
        line = self.fontMetrics().lineSpacing()
        for row, t in enumerate(current, start=1):
            title = QLabel(PLAIN_TITLES.get(t.key, t.title))
            title.setWordWrap(True)
            title.setToolTip(f"{t.title}: {t.meaning}")
            spin = QDoubleSpinBox()
            spin.setRange(t.minimum, t.maximum)
            spin.setDecimals(0 if t.maximum > 1 else 2)
            spin.setSingleStep(1 if t.maximum > 1 else 0.01)
            spin.setValue(t.value)
            spin.setToolTip(f"{t.title}: {t.meaning}")
            # two wrapped lines: a source is a sentence, and a one-line field cut it off
            source = QPlainTextEdit(t.source)
            source.setTabChangesFocus(True)
            source.setFixedHeight(2 * line + 14)
            source.setAccessibleName(f"Source of {PLAIN_TITLES.get(t.key, t.title)}")
            grid.addWidget(title, row, 0)
            grid.addWidget(spin, row, 1, Qt.AlignmentFlag.AlignTop)
            grid.addWidget(source, row, 2)
            self.threshold_fields[t.key] = (spin, source)
        grid.setColumnStretch(0, 2)
        grid.setColumnStretch(2, 5)
        layout.addLayout(grid)
        buttons = QHBoxLayout()
        save = QPushButton("Save thresholds")
        save.clicked.connect(self.save_thresholds)
        reset = QPushButton("Back to the shipped ones")
        reset.clicked.connect(self._reset_thresholds)
        self.threshold_message = QLabel("")
        self.threshold_message.setWordWrap(True)
        buttons.addWidget(save)
        buttons.addWidget(reset)
        buttons.addWidget(self.threshold_message, 1)
        layout.addLayout(buttons)
        layout.addStretch(1)
        return page

    def save_thresholds(self) -> None:
        values = {
            k: (spin.value(), src.toPlainText().strip())
            for k, (spin, src) in self.threshold_fields.items()
        }
        try:
            path = save_user_thresholds(values)
        except ThresholdError as exc:
            self.threshold_message.setText(str(exc))
            return
        except OSError as exc:
            self.threshold_message.setText(f"Your thresholds could not be saved: {exc}")
            return
        self.threshold_message.setText(f"Saved in {path}. Results use them from now on.")

    def _reset_thresholds(self) -> None:
        try:
            kept = forget_user_thresholds()
        except OSError as exc:
            self.threshold_message.setText(f"Your thresholds file could not be moved: {exc}")
            return
        for t in shipped_thresholds():
            spin, source = self.threshold_fields[t.key]
            spin.setValue(t.value)
            source.setPlainText(t.source)
        self.threshold_message.setText(
            "Back to the shipped thresholds."
            + (f" Yours are kept in {kept}." if kept is not None else "")
        )

    # -- data folder -------------------------------------------------------------------

    def _folder_tab(self) -> QWidget:
        page = QWidget()
        layout = QVBoxLayout(page)
        folder = settings_folder()
        text = QLabel(
            f"Audits you create, your settings, the shared answer cache and the record of which "
            f"models accept which settings live in:\n{folder}\n\nSet RESUME_AUDITOR_DATA_DIR "
            "before starting the app to use another folder."
        )
        text.setWordWrap(True)
        text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        open_button = QPushButton("Open the folder")
        open_button.clicked.connect(
            lambda: QDesktopServices.openUrl(QUrl.fromLocalFile(str(folder)))
        )
        layout.addWidget(text)
        layout.addWidget(open_button)
        layout.addStretch(1)
        return page
