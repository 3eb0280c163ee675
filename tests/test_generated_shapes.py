"""The same resume and posting in hundreds of real-world shapes (tests/devtools/shapes.py).

Each shape is written by a real producer (plain text, Markdown, HTML, WeasyPrint PDF,
python-docx Word) and read back through the app's own loader; the truth is what was
written in. For resumes: the name is found, and every place the name, email, phone,
address, link and each personal detail (birth date, gender, nationality, marital
status, father's name) stands in the text lies inside an identity slot, so none can
reach the model. For postings: the checklist holds exactly the required and the
preferred items, each of its kind. The failures are listed by shape, so a reader
sees which shapes break, not only how many.
"""

from __future__ import annotations

import pytest
from devtools.identity_truth import letters, score_file
from devtools.shapes import (
    POSTING_PRODUCERS,
    RESUME_PRODUCERS,
    normalise,
    posting_shapes,
    render_posting,
    render_resume,
    resume_shapes,
)

from resume_auditor.documents.extract import analyse_job, analyse_resume
from resume_auditor.documents.load import load_bytes


def _covered(text: str, slots: list[tuple[int, int]], value: str) -> bool:
    """True if every non-space character of every place `value` stands is in a slot."""
    cover = [False] * len(text)
    for start, end in slots:
        for i in range(start, end):
            cover[i] = True
    at = text.find(value)
    while at >= 0:
        if not all(cover[i] for i in range(at, at + len(value)) if not text[i].isspace()):
            return False
        at = text.find(value, at + 1)
    return True


def _resume_problems(producer: str) -> tuple[int, list[str]]:
    shapes = resume_shapes((producer,))
    problems = []
    for shape in shapes:
        name, data, truth = render_resume(shape)
        doc = load_bytes(data, name)
        result = analyse_resume(doc)
        score = score_file(name, result.template, truth.as_dict())
        wrong = list(score.misses)
        # the name found must be the candidate's; in a band read across three cells it
        # may carry a word of the address beside it ("Hoan Nguyễn Thị Mai"), which is
        # then replaced too: what matters is that the whole name is
        found = letters(score.found_name or "")
        if not score.name_right and not (found and letters(truth.name) in found):
            wrong.append(f"name found {score.found_name!r}")
        spans = [(s.start, s.end) for s in result.template.slots]
        for value in truth.personal:
            if not _covered(doc.text, spans, value):
                wrong.append(f"personal detail {value!r} left")
        if wrong:
            problems.append(f"{shape.id}: {wrong}")
    return len(shapes), problems


@pytest.mark.parametrize("producer", RESUME_PRODUCERS)
def test_every_resume_shape_keeps_no_real_detail(producer: str) -> None:
    total, problems = _resume_problems(producer)
    print(f"{producer}: {total - len(problems)} of {total} resume shapes pass")
    assert total >= 60
    assert problems == []


@pytest.mark.parametrize("producer", POSTING_PRODUCERS)
def test_every_posting_shape_gives_its_checklist(producer: str) -> None:
    shapes = posting_shapes((producer,))
    problems = []
    for shape in shapes:
        name, data, truth = render_posting(shape)
        extraction = analyse_job(load_bytes(data, name))
        job = extraction.job
        if extraction.doubts:  # a right checklist must not be called into doubt
            problems.append(f"{shape.id}: doubted {extraction.doubts}")
        found = {(q.kind.value, normalise(q.text)) for q in job.qualifications}
        want = {("required", normalise(t)) for t in truth["required"]}
        want |= {("preferred", normalise(t)) for t in truth["preferred"]}
        if found != want:
            problems.append(
                f"{shape.id}: missed {sorted(want - found)}, extra {sorted(found - want)}"
            )
    print(f"{producer}: {len(shapes) - len(problems)} of {len(shapes)} posting shapes pass")
    assert len(shapes) == 60
    assert problems == []


def test_the_shapes_are_many_and_distinct() -> None:
    resumes = resume_shapes()
    postings = posting_shapes()
    assert len({s.id for s in resumes}) == len(resumes) >= 1000
    assert len({s.id for s in postings}) == len(postings) >= 300
    # each value of each dimension is met by every producer
    for producer in RESUME_PRODUCERS:
        mine = [s for s in resumes if s.producer == producer]
        assert {s.contact for s in mine} == {"left", "right", "centred", "table", "sidebar", "row"}
        assert {s.personal for s in mine} == {"none", "one_line", "lines"}
        assert {s.name for s in mine} == {"header", "label"}
