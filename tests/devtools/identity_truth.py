"""Score the identity finder against hand-made truth for real resume files.

Each resume `NAME.pdf` / `NAME.docx` has a `NAME.truth.json` beside it with the
identity a reader sees on the page: name, email, phone, address, links,
colleges (shared/data/resumes-dev/SOURCES.md). Two figures come out:

- name precision and recall: a found name (the first full-name slot) is right
  when its letters equal the truth's (case and spacing aside: "J A R E D
  R I C H A R D S" is "Jared Richards");
- identity recall over all fields: a truth value counts as found when every
  place it occurs in the app's text lies inside identity slots (a detail left
  in one place still reaches the model). For the address and colleges, only
  the first place counts: the same city or university recurs as an employer's
  location or an employer, which the app keeps on purpose. Values that do not occur in the text
  at all (a link only in a PDF annotation, an image-only page) cannot be found
  by reading the text; they are counted apart, as "not in the text".

Used by benchmarks/extract_identity.py and tests/test_identity_realcorpus.py.
"""

from __future__ import annotations

import json
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from resume_auditor.domain.identity import Template

FIELDS = ("name", "email", "phone", "address", "links", "colleges")
FIRST_PLACE_ONLY = frozenset({"address", "colleges"})


def letters(text: str) -> str:
    """Lower-case letters and digits only: what two spellings of a name share."""
    return "".join(c for c in unicodedata.normalize("NFC", text).casefold() if c.isalnum())


def _value_pattern(field_name: str, value: str) -> re.Pattern[str]:
    """A value as it may occur in extracted text: spacing free, case free."""
    core = value.strip()
    prefix = ""
    if field_name == "links":
        core = re.sub(r"^(?:https?://)?(?:www\.)?", "", core).rstrip("/")
        prefix = r"(?:https?://)?(?:www\.)?"
    chars = [re.escape(c) for c in core if not c.isspace()]
    body = r"\s*".join(chars)
    return re.compile(rf"(?<![\w]){prefix}{body}(?![\w])", re.IGNORECASE)


@dataclass
class FieldScore:
    found: int = 0  # every occurrence inside slots
    missed: int = 0  # occurs in the text, at least once outside slots
    absent: int = 0  # does not occur in the text


@dataclass
class FileScore:
    file: str
    truth_name: str | None
    found_name: str | None
    name_right: bool
    fields: dict[str, FieldScore] = field(default_factory=dict)
    misses: list[str] = field(default_factory=list)


@dataclass
class CorpusScore:
    files: list[FileScore] = field(default_factory=list)

    def _count(self, which: str) -> int:
        return sum(1 for f in self.files if getattr(f, which))

    @property
    def names_found(self) -> int:
        return sum(1 for f in self.files if f.found_name is not None)

    @property
    def names_true(self) -> int:
        return sum(1 for f in self.files if f.truth_name)

    @property
    def names_right(self) -> int:
        return sum(1 for f in self.files if f.name_right)

    @property
    def name_precision(self) -> float:
        return self.names_right / self.names_found if self.names_found else 1.0

    @property
    def name_recall(self) -> float:
        return self.names_right / self.names_true if self.names_true else 1.0

    def by_field(self) -> dict[str, FieldScore]:
        out = {k: FieldScore() for k in FIELDS}
        for f in self.files:
            for k, s in f.fields.items():
                out[k].found += s.found
                out[k].missed += s.missed
                out[k].absent += s.absent
        return out

    @property
    def identity_recall(self) -> float:
        """Share of the truth values present in the text that are wholly inside slots."""
        totals = self.by_field().values()
        found = sum(s.found for s in totals)
        present = found + sum(s.missed for s in totals)
        return found / present if present else 1.0


def load_truth(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def truth_values(truth: dict[str, Any]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for key in FIELDS:
        value = truth.get(key)
        values = value if isinstance(value, list) else [value]
        out.extend((key, v) for v in values if isinstance(v, str) and v.strip())
    return out


def score_file(filename: str, template: Template, truth: dict[str, Any]) -> FileScore:
    text = template.text
    covered = [False] * (len(text) + 1)
    for slot in template.slots:
        for i in range(slot.start, slot.end):
            covered[i] = True
    found_name = template.original_name()
    truth_name = truth.get("name") or None
    right = (
        found_name is not None
        and truth_name is not None
        and letters(found_name) == letters(str(truth_name))
    )
    score = FileScore(filename, truth_name, found_name, right)
    for key, value in truth_values(truth):
        fs = score.fields.setdefault(key, FieldScore())
        spots = list(_value_pattern(key, value).finditer(text))
        if key in FIRST_PLACE_ONLY:
            spots = spots[:1]
        if not spots:
            fs.absent += 1
            continue
        leaked = [
            m
            for m in spots
            if not all(covered[i] for i in range(m.start(), m.end()) if not text[i].isspace())
        ]
        if leaked:
            fs.missed += 1
            score.misses.append(f"{key}: {value!r} left at {leaked[0].start()}")
        else:
            fs.found += 1
    return score


def resume_files(folder: Path) -> list[tuple[Path, Path]]:
    """(document, truth) pairs in `folder`, sorted by name."""
    out = []
    for truth in sorted(folder.glob("*.truth.json")):
        stem = truth.name[: -len(".truth.json")]
        for ext in (".pdf", ".docx"):
            doc = truth.with_name(stem + ext)
            if doc.exists():
                out.append((doc, truth))
                break
    return out


def score_corpus(folder: Path) -> CorpusScore:
    from resume_auditor.documents.errors import DocumentError
    from resume_auditor.documents.extract import analyse_resume
    from resume_auditor.documents.load import load_file
    from resume_auditor.domain.identity import Template

    result = CorpusScore()
    for doc, truth_path in resume_files(folder):
        truth = load_truth(truth_path)
        try:
            template = analyse_resume(load_file(doc)).template
        except DocumentError:
            template = Template("")  # unreadable (image-only): nothing can be found
        result.files.append(score_file(doc.name, template, truth))
    return result
