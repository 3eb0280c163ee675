"""What may leave the result file: real candidates stay out of reports and exports.

A source resume's text, bytes and file name belong to a real person ("JaneDoe_CV.pdf").
Reports, spreadsheets and bundles name a source resume only as "Resume 1", "Resume
2"... and show its text *templated*: every identity slot the app found (name,
pronouns, email, phone, address, links, college) replaced by a placeholder such as
`[FULL_NAME]`. What the model under test saw, the variants, carries synthetic names
and is shown as it is.

Server addresses are kept, but without any user name, password or key-like query
parameter someone may have typed into one.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

MASK = "[redacted]"
_SECRET_PARAMS = re.compile(r"key|token|secret|sig|password|auth", re.IGNORECASE)


def placeholder(kind: str) -> str:
    """`[FULL_NAME]`, `[EMAIL]`... (unknown kinds too: a newer app may add some)."""
    return f"[{kind.upper()}]"


def resume_labels(resume_ids: list[int]) -> dict[int, str]:
    """Stable reader's names for source resumes, by their order in the file."""
    return {rid: f"Resume {i}" for i, rid in enumerate(sorted(resume_ids), start=1)}


def resume_slug(label: str) -> str:
    """'Resume 3' -> 'resume-03' (a file name that sorts)."""
    number = int(label.split()[-1])
    return f"resume-{number:02d}"


def templated(text: str, slots: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """The text with every slot replaced by its placeholder, and the slots' new spans.

    `slots` are as stored in the result file: {"start", "end", "kind", "confidence"}.
    Slots that overlap or run past the text (a damaged record) are masked to the
    end of the overlap rather than skipped, so no original character survives in a
    span the app marked as identity.
    """
    out: list[str] = []
    spans: list[dict[str, Any]] = []
    pos = 0
    length = 0
    for slot in sorted(slots, key=lambda s: (int(s["start"]), int(s["end"]))):
        start, end = max(int(slot["start"]), pos), min(int(slot["end"]), len(text))
        if end <= start:
            continue
        out.append(text[pos:start])
        length += start - pos
        mark = placeholder(str(slot["kind"]))
        spans.append(
            {
                "start": length,
                "end": length + len(mark),
                "kind": str(slot["kind"]),
                "confidence": slot.get("confidence", 1.0),
            }
        )
        out.append(mark)
        length += len(mark)
        pos = end
    out.append(text[pos:])
    return "".join(out), spans


def safe_url(url: str) -> str:
    """`url` without user:password@ and with key-like query values masked."""
    if not url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return MASK
    netloc = parts.netloc
    if "@" in netloc:
        netloc = MASK + "@" + netloc.rsplit("@", 1)[1]
    query = parts.query
    if query:
        pairs = parse_qsl(query, keep_blank_values=True)
        query = urlencode([(k, MASK if _SECRET_PARAMS.search(k) else v) for k, v in pairs])
    return urlunsplit((parts.scheme, netloc, parts.path, query, parts.fragment))
