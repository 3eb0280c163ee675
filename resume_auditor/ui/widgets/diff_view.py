"""Two resumes side by side, with what differs between them highlighted."""

from __future__ import annotations

import difflib
import html

from PySide6.QtWidgets import QHBoxLayout, QLabel, QTextBrowser, QVBoxLayout, QWidget

ADDED = "background-color: #fff59d; color: #000;"


def _highlight(words: list[str], changed: set[int]) -> str:
    out = []
    for i, w in enumerate(words):
        text = html.escape(w)
        out.append(f'<span style="{ADDED}">{text}</span>' if i in changed else text)
    return "".join(out).replace("\n", "<br>")


def diff_html(a: str, b: str) -> tuple[str, str]:
    """HTML for each side, with the words that differ marked."""
    import re

    wa = re.split(r"(\s+)", a)
    wb = re.split(r"(\s+)", b)
    matcher = difflib.SequenceMatcher(a=wa, b=wb, autojunk=False)
    ca: set[int] = set()
    cb: set[int] = set()
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            ca.update(i for i in range(i1, i2) if wa[i].strip())
            cb.update(j for j in range(j1, j2) if wb[j].strip())
    return _highlight(wa, ca), _highlight(wb, cb)


class DiffView(QWidget):
    def __init__(self) -> None:
        super().__init__()
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.left_title = QLabel("Candidate A")
        self.right_title = QLabel("Candidate B")
        self.left = QTextBrowser()
        self.right = QTextBrowser()
        for title, view in ((self.left_title, self.left), (self.right_title, self.right)):
            col = QVBoxLayout()
            title.setStyleSheet("font-weight: 600;")
            title.setWordWrap(True)  # a long file name wraps instead of widening the page
            col.addWidget(title)
            col.addWidget(view)
            layout.addLayout(col)

    def show_pair(self, title_a: str, text_a: str, title_b: str, text_b: str) -> None:
        self.left_title.setText(title_a)
        self.right_title.setText(title_b)
        self.left_title.setToolTip(title_a)
        self.right_title.setToolTip(title_b)
        left, right = diff_html(text_a, text_b)
        self.left.setHtml(f'<div style="font-family: sans-serif;">{left}</div>')
        self.right.setHtml(f'<div style="font-family: sans-serif;">{right}</div>')
