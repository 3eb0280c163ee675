"""Render the sample study's resumes (resources/sample/src/*.md) to PDF.

Run: PYTHONPATH=tests python -m devtools.sample [resources/sample]

The people are fictional, written for this project. The markup is tiny:
`# Name`, the contact line under it, `## Section`, `### Role | dates`, `- bullet`,
and plain paragraphs. The output is deterministic, so a test can check that the
committed PDFs are what this code renders.
"""

from __future__ import annotations

import sys
from pathlib import Path

from devtools.pdfgen import Page, PdfDoc, text_width

MARGIN = 54.0
BOTTOM = 60.0


class _Writer:
    def __init__(self, title: str) -> None:
        self.doc = PdfDoc(title=title)
        self.page: Page = self.doc.page()
        self.y = self.page.height - MARGIN
        self.width = self.page.width - 2 * MARGIN

    def need(self, height: float) -> None:
        if self.y - height < BOTTOM:
            self.page = self.doc.page()
            self.y = self.page.height - MARGIN

    def name(self, text: str) -> None:
        self.page.text(MARGIN, self.y - 14, text, 20, "bold")
        self.y -= 30

    def contact(self, text: str) -> None:
        self.y = self.page.paragraph(MARGIN, self.y, self.width, text, 9.5, 12)
        self.y -= 6

    def section(self, text: str) -> None:
        self.need(40)
        self.y -= 6
        self.page.text(MARGIN, self.y, text.upper(), 11, "bold")
        self.page.line(MARGIN, self.y - 4, MARGIN + self.width, self.y - 4)
        self.y -= 18

    def role(self, text: str) -> None:
        self.need(30)
        title, _, dates = text.partition("|")
        self.page.text(MARGIN, self.y, title.strip(), 10.5, "bold")
        if dates.strip():
            w = text_width(dates.strip(), 9.5)
            self.page.text(MARGIN + self.width - w, self.y, dates.strip(), 9.5)
        self.y -= 14

    def bullet(self, text: str) -> None:
        self.need(26)
        self.y = self.page.paragraph(
            MARGIN + 8, self.y, self.width - 8, text, 10, 13, indent="\u2022 "
        )
        self.y -= 2

    def para(self, text: str) -> None:
        self.need(26)
        self.y = self.page.paragraph(MARGIN, self.y, self.width, text, 10, 13)
        self.y -= 4


def render_resume(markup: str, title: str = "Resume") -> bytes:
    w = _Writer(title)
    lines = markup.strip().splitlines()
    after_name = False
    for raw in lines:
        line = raw.rstrip()
        if not line:
            continue
        if line.startswith("# "):
            w.name(line[2:].strip())
            after_name = True
            continue
        if after_name and not line.startswith("#"):
            w.contact(line)
            after_name = False
            continue
        after_name = False
        if line.startswith("## "):
            w.section(line[3:].strip())
        elif line.startswith("### "):
            w.role(line[4:].strip())
        elif line.startswith("- "):
            w.bullet(line[2:].strip())
        else:
            w.para(line.strip())
    return w.doc.to_bytes()


def build(sample_dir: Path) -> list[Path]:
    out_dir = sample_dir / "resumes"
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for src in sorted((sample_dir / "src").glob("*.md")):
        pdf = out_dir / (src.stem + ".pdf")
        pdf.write_bytes(render_resume(src.read_text(encoding="utf-8"), title=src.stem))
        written.append(pdf)
    return written


def main(argv: list[str]) -> int:
    sample_dir = Path(argv[1]) if len(argv) > 1 else Path("resources/sample")
    for path in build(sample_dir):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
