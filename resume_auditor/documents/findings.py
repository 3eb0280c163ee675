"""Things in a document the user should see before any run.

A finding marks a span of the clean text with a kind, a confidence and a plain
message. Findings never change the text: hidden text, instructions addressed to
an AI and explicit demographic mentions are shown to the user, who decides
whether to keep them (keeping an injection attempt is itself a test worth running).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class FindingKind(StrEnum):
    PROMPT_INJECTION = "prompt_injection"  # instructions addressed to an AI
    WHITE_TEXT = "white_text"  # text drawn in white (or nearly) on a light page
    TINY_TEXT = "tiny_text"  # text too small to read (under MIN_VISIBLE_PT)
    OFF_PAGE_TEXT = "off_page_text"  # text placed outside the visible page
    INVISIBLE_TEXT = "invisible_text"  # PDF render mode 3 / Word "hidden" text
    DEMOGRAPHIC_MENTION = "demographic_mention"  # "Society of Women Engineers"
    # A PDF page whose words or reading order two readers disagree on: check it.
    UNSURE_TEXT = "unsure_text"


HIDDEN_KINDS = frozenset(
    {
        FindingKind.WHITE_TEXT,
        FindingKind.TINY_TEXT,
        FindingKind.OFF_PAGE_TEXT,
        FindingKind.INVISIBLE_TEXT,
    }
)

FINDING_LABELS: dict[FindingKind, str] = {
    FindingKind.PROMPT_INJECTION: "instruction to an AI",
    FindingKind.WHITE_TEXT: "white text",
    FindingKind.TINY_TEXT: "tiny text",
    FindingKind.OFF_PAGE_TEXT: "text outside the page",
    FindingKind.INVISIBLE_TEXT: "invisible text",
    FindingKind.DEMOGRAPHIC_MENTION: "demographic mention",
    FindingKind.UNSURE_TEXT: "text to check against the PDF",
}


@dataclass(frozen=True)
class Finding:
    start: int
    end: int
    kind: FindingKind
    message: str
    confidence: float = 1.0
    page: int | None = None  # 1-based page number, when the document has pages
    category: str = ""  # e.g. "race", "gender" for demographic mentions

    def __post_init__(self) -> None:
        if not 0 <= self.start < self.end:
            raise ValueError(f"bad finding span {self.start}..{self.end}")

    def to_json(self, text: str | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {
            "start": self.start,
            "end": self.end,
            "kind": self.kind.value,
            "confidence": round(self.confidence, 3),
            "message": self.message,
        }
        if self.page is not None:
            out["page"] = self.page
        if self.category:
            out["category"] = self.category
        if text is not None:
            out["text"] = text[self.start : self.end]
        return out


def merge_adjacent(findings: list[Finding], text: str) -> list[Finding]:
    """Join findings of the same kind and page separated only by whitespace."""
    out: list[Finding] = []
    for f in sorted(findings, key=lambda f: (f.start, f.end)):
        if out:
            prev = out[-1]
            same = prev.kind is f.kind and prev.page == f.page and prev.category == f.category
            if same and f.start >= prev.end and not text[prev.end : f.start].strip():
                out[-1] = Finding(
                    prev.start,
                    max(prev.end, f.end),
                    prev.kind,
                    prev.message,
                    max(prev.confidence, f.confidence),
                    prev.page,
                    prev.category,
                )
                continue
        out.append(f)
    return out
