"""Clean-up of extracted text, and the map from clean characters back to raw ones."""

from __future__ import annotations

import random

import pytest

from resume_auditor.documents.cleanup import clean_line, clean_text, clean_with_origin


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("e\ufb03cient \ufb01le", "efficient file"),  # ligatures
        ("rÃ©sumÃ© â€¢ Python", "résumé • Python"),  # UTF-8 read as cp1252
        ("Phoneï¼š(555) 010-0000", "Phone:(555) 010-0000"),  # full-width colon, garbled
        ("ZoÃ« NÃºÃ±ez", "Zoë Núñez"),
        ("Â Jane", "Jane"),  # no-break space, garbled
        ("\uf0e0 jane@example.com", "jane@example.com"),  # icon font glyph
        ("Jane\u00a0Doe\u2003Analyst", "Jane Doe Analyst"),
        ("soft\u00adware", "software"),
        ("\u2022 Led the team", "- Led the team"),
        ("\u25cfLed the team", "- Led the team"),
        ("\u2013 Led the team", "- Led the team"),
        ("2019 \u2013 2021", "2019 \u2013 2021"),  # a dash inside a line stays
        ("O\u2019Neil \u201cquoted\u201d", "O\u2019Neil \u201cquoted\u201d"),  # quotes kept
        ("R&amp;D lead", "R&D lead"),
        ("\u00e2\u20ac\u0153calm\u00e2\u20ac\x00,", "\u201ccalm\u201d,"),  # a lost byte
        ("   spaced    out   ", "spaced out"),
    ],
)
def test_clean_line(raw: str, clean: str) -> None:
    assert clean_line(raw) == clean


def test_hyphenation_joins_words_but_keeps_real_hyphens() -> None:
    raw = (
        "Led the develop-\nment of a tool\n"
        "A self-\nmotivated analyst\n"
        "Python-\nbased pipelines\n"
        "Ends with a dash -\nnext line\n"
        "Grade A-\nStudent\n"
    )
    assert clean_text(raw) == (
        "Led the development of a tool\n"
        "A self-motivated analyst\n"
        "Python-based pipelines\n"
        "Ends with a dash -\nnext line\n"
        "Grade A-\nStudent\n"
    )


def test_blank_runs_collapse_and_text_ends_with_one_newline() -> None:
    assert clean_text("\n\n\nA\r\n\r\n\r\n\r\nB\rC\f") == "A\n\nB\nC\n"
    assert clean_text(" \n\t\n") == ""


def test_clean_text_is_idempotent_on_messy_input() -> None:
    rng = random.Random(7)
    pieces = ["Jane", "Ã©", "\ufb01", " ", "  ", "\n", "\n\n\n", "-\n", "\u2022 ", "\uf0b7", "x-"]
    for _ in range(200):
        raw = "".join(rng.choice(pieces) for _ in range(rng.randint(1, 40)))
        once = clean_text(raw)
        assert clean_text(once) == once, repr(raw)


def test_origin_maps_every_clean_character_back() -> None:
    raw = "Â Jane\u00a0Doe\n\n\n\u2022 Led the develop-\nment of e\ufb03cient tools\n"
    cleaned = clean_with_origin(raw)
    assert cleaned.text == "Jane Doe\n\n- Led the development of efficient tools\n"
    origin = list(cleaned.origin)
    assert len(origin) == len(cleaned.text) + 1 and origin == sorted(origin)
    # unchanged characters map to themselves
    for word in ("Jane", "Led the develop", "ment of e", "cient tools"):
        i = cleaned.text.index(word)
        j = raw.index(word)
        assert origin[i : i + len(word)] == list(range(j, j + len(word)))


def test_origin_span_carries_raw_spans_over() -> None:
    raw = "SKILLS\nPython  SQL\n\u2022 hidden   words here\nPython SQL\n"
    cleaned = clean_with_origin(raw)
    start = raw.index("hidden")
    end = raw.index("here") + 4
    span = cleaned.span(start, end)
    assert span is not None
    assert cleaned.text[span[0] : span[1]] == "hidden words here"
    # a span that is only whitespace maps to nothing
    gap = raw.index("  SQL")
    assert cleaned.span(gap, gap + 2) is None


def test_long_lines_are_mapped_without_a_slow_diff() -> None:
    raw = ("word\u00a0" * 2000) + "\n"
    cleaned = clean_with_origin(raw)
    assert cleaned.text == ("word " * 2000).rstrip() + "\n"
    assert list(cleaned.origin) == sorted(cleaned.origin)
