"""A resume's text with its identity slots and findings marked, and slot editing.

The text is shown with `white-space: pre-wrap`, so every character of the clean
text is one character of the document and a selection maps straight to text
offsets. Right-click a selection to mark it as a kind of identity, or a marked
span to say it is not identity; the page turns that into an undoable edit.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QPoint, Signal
from PySide6.QtWidgets import QMenu, QTextBrowser

from resume_auditor.domain.identity import NAME_KINDS, SLOT_LABELS, SlotKind

SLOT_COLOURS = {
    "name": "#ffe082",  # yellow
    "contact": "#b3e5fc",  # blue
    "pronoun": "#e1bee7",  # purple
    "title": "#c8e6c9",  # green
    "college": "#ffccbc",  # peach
}
HIDDEN_FINDINGS = {"white_text", "tiny_text", "off_page_text", "invisible_text"}


def slot_group(kind: str) -> str:
    try:
        k = SlotKind(kind)
    except ValueError:
        return "contact"
    if k in NAME_KINDS:
        return "name"
    if kind.startswith("pronoun"):
        return "pronoun"
    if k is SlotKind.TITLE:
        return "title"
    if k is SlotKind.COLLEGE:
        return "college"
    return "contact"


def marked_html(text: str, slots: list[dict[str, Any]], findings: list[dict[str, Any]]) -> str:
    """HTML of the text with slots as coloured backgrounds and findings underlined in red."""
    edges = {0, len(text)}
    for item in (*slots, *findings):
        edges.add(max(0, min(len(text), int(item["start"]))))
        edges.add(max(0, min(len(text), int(item["end"]))))
    points = sorted(edges)
    out = ['<div style="white-space: pre-wrap; font-family: sans-serif;">']
    for a, b in zip(points, points[1:], strict=False):
        if a == b:
            continue
        piece = html.escape(text[a:b])
        slot = next((s for s in slots if s["start"] <= a and b <= s["end"]), None)
        found = [f for f in findings if f["start"] <= a and b <= f["end"]]
        style = []
        tips = []
        if slot is not None:
            style.append(f"background-color:{SLOT_COLOURS[slot_group(str(slot['kind']))]}")
            style.append("color:#000")
            kind = _kind(str(slot["kind"]))
            tips.append(SLOT_LABELS.get(kind, str(kind)) if isinstance(kind, SlotKind) else kind)
        if found:
            hidden = any(f["kind"] in HIDDEN_FINDINGS for f in found)
            colour = (
                "#c62828"
                if hidden or any(f["kind"] == "prompt_injection" for f in found)
                else "#e65100"
            )
            style.append(f"text-decoration: underline; text-decoration-color:{colour}")
            style.append(f"border-bottom: 2px solid {colour}; color:{colour}")
            tips.extend(str(f["message"]) for f in found)
        if style:
            tip = html.escape(" — ".join(tips), quote=True)
            out.append(f'<span style="{";".join(style)}" title="{tip}">{piece}</span>')
        else:
            out.append(piece)
    out.append("</div>")
    return "".join(out)


def _kind(kind: str) -> SlotKind | str:
    try:
        return SlotKind(kind)
    except ValueError:
        return kind


class IdentityView(QTextBrowser):
    """Emits mark_requested(start, end, kind) and unmark_requested(start, end)."""

    mark_requested = Signal(int, int, str)
    unmark_requested = Signal(int, int)

    def __init__(self) -> None:
        super().__init__()
        self.editable_slots = True
        self._slots: list[dict[str, Any]] = []

    def show_resume(
        self, text: str, slots: list[dict[str, Any]], findings: list[dict[str, Any]]
    ) -> None:
        self._slots = slots
        self.setHtml(marked_html(text, slots, findings))

    def selected_span(self) -> tuple[int, int]:
        cursor = self.textCursor()
        return cursor.selectionStart(), cursor.selectionEnd()

    def contextMenuEvent(self, event: Any) -> None:  # noqa: N802
        menu = self.build_menu(event.pos())
        menu.exec(event.globalPos())

    def build_menu(self, pos: QPoint) -> QMenu:
        menu = self.createStandardContextMenu(pos)
        if not self.editable_slots:
            return menu
        start, end = self.selected_span()
        if start == end:
            start = end = self.cursorForPosition(pos).position()
        menu.addSeparator()
        if end > start:
            mark = menu.addMenu("Mark the selection as identity")
            for kind, label in SLOT_LABELS.items():
                action = mark.addAction(label)
                action.triggered.connect(
                    lambda _=False, k=kind.value, a=start, b=end: self.mark_requested.emit(a, b, k)
                )
        touching = [s for s in self._slots if s["start"] <= end and start <= s["end"]]
        if touching:
            lo = min(int(s["start"]) for s in touching)
            hi = max(int(s["end"]) for s in touching)
            action = menu.addAction("Not identity: keep this text in every copy")
            action.triggered.connect(lambda _=False: self.unmark_requested.emit(lo, hi))
        return menu
