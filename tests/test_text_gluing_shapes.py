"""Words stay apart in PDFs from real producers, whatever the font and spacing.

Unseen resumes came back with words glued after an "m" ("teamlead", "fromCabinet",
issue 23). The generator (tests/devtools/shapes.py, glue shapes) sets a text full of
such pairs through WeasyPrint (always) and, where installed, Chromium, LibreOffice and
pdfLaTeX, in several fonts, left-aligned and justified, with letter and word spacing;
every pair must come back apart and none glued.
"""

from __future__ import annotations

import re

import pytest
from devtools.shapes import (
    GlueShape,
    glue_pairs,
    glue_producer_available,
    render_glue,
)

from resume_auditor.documents.load import load_bytes

CASES = [
    GlueShape("weasyprint", "DejaVu Serif"),
    GlueShape("weasyprint", "Nimbus Sans"),
    GlueShape("weasyprint", "URW Bookman"),
    GlueShape("chromium", "Liberation Serif"),
    GlueShape("libreoffice", "Carlito"),
    GlueShape("pdflatex", "times"),
]


@pytest.mark.parametrize("shape", CASES, ids=lambda s: s.id)
def test_word_pairs_come_back_apart(shape: GlueShape) -> None:
    if not glue_producer_available(shape.producer):
        pytest.skip(f"{shape.producer} is not installed")
    name, data, copies = render_glue(shape)
    flat = " ".join(load_bytes(data, name).text.split())
    for pair in glue_pairs():
        first, second = pair.split(" ")
        assert not re.search(rf"\b{first}{second}\b", flat), pair
    apart = sum(
        min(copies, len(re.findall(rf"\b{a}[\s,.:]+{b}\b", flat)))
        for a, b in (p.split(" ") for p in glue_pairs())
    )
    # LaTeX hyphenates at a line's end ("manage-" / "ment"): a pair cut so is not glued
    assert apart >= (0.98 if shape.producer == "pdflatex" else 1.0) * copies * len(glue_pairs())
