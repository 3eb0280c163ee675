"""Identity on real resume files (shared/data/resumes-dev): names right, details found.

The thresholds are what the finder achieves on the development corpus, so a
regression fails; the figures and every miss are printed (pytest -s) and come
from the same scorer as benchmarks/extract_identity.py. The corpus lives
outside the project; these tests skip when it is absent.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
from devtools.identity_truth import CorpusScore, score_corpus

from tests.shared_data import corpus_dir


@cache
def _score(folder: Path) -> CorpusScore:
    return score_corpus(folder)


def _corpus() -> CorpusScore:
    score = _score(corpus_dir("resumes-dev"))
    for f in score.files:
        print(f"{f.file}: truth {f.truth_name!r}, found {f.found_name!r}; missed {f.misses}")
    return score


def test_no_heading_or_skill_is_taken_for_a_name() -> None:
    score = _corpus()
    wrong = [(f.file, f.found_name) for f in score.files if f.found_name and not f.name_right]
    assert wrong == []
    assert score.name_precision == 1.0


def test_names_are_found() -> None:
    score = _corpus()
    # one file is an image-only PDF: no text, so no name can be read from it
    assert score.name_recall >= 0.95, score.name_recall


def test_identity_recall_over_all_fields() -> None:
    score = _corpus()
    by = score.by_field()
    assert by["email"].missed == 0
    assert by["name"].found >= 0.95 * (by["name"].found + by["name"].missed)
    assert score.identity_recall >= 0.88, score.identity_recall


def test_placeholder_names_are_replaced_like_names() -> None:
    score = _corpus()
    placeholders = [f for f in score.files if f.truth_name == "YOUR NAME HERE"]
    if not placeholders:
        pytest.skip("no placeholder-name resume in this corpus")
    assert all(f.name_right for f in placeholders)
