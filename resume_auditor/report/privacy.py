"""What may leave the result file: real candidates stay out of reports and exports.

A source resume's text, bytes and file name belong to a real person ("JaneDoe_CV.pdf").
Reports, spreadsheets and bundles name a source resume only as "Resume 1", "Resume
2"... and show its text *templated*: every identity slot the app found (name,
pronouns, email, phone, address, links, college) replaced by a placeholder such as
`[FULL_NAME]`. What the model under test saw, the variants, carries synthetic names
and is shown as it is.

The model's own words are quoted (examples, the answers table) after `IdentityMask`:
when the model saw a real detail (a name the finder marked but a variant kept, real
contact details let through, a college) it may repeat it, so every identity slot the
finder knows is replaced there too: the real name by "[Resume N]", other details by
their placeholder. The synthetic names the model was shown stay as they are.

Server addresses are kept, but without any user name, password or key-like query
parameter someone may have typed into one.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

if TYPE_CHECKING:
    from resume_auditor.store.parts import AuditReader

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


# Slot kinds whose text names a person; pronouns, titles and initials are not searched
# for in quotes (they are everywhere, and say nothing about who the candidate is).
_NAME_KINDS = frozenset({"full_name", "first_name", "last_name"})
_NOT_QUOTED = frozenset(
    {
        "pronoun_subject",
        "pronoun_object",
        "pronoun_determiner",
        "pronoun_possessive",
        "pronoun_reflexive",
        "title",
        "first_initial",
        "initials",
    }
)
_MIN_TOKEN = 3  # shorter name parts ("Li", "De") would mask ordinary words


def _phrase(text: str) -> str:
    """A regex for `text` with any run of spaces or line breaks where it has one."""
    return r"\s+".join(re.escape(part) for part in text.split())


class IdentityMask:
    """Replaces each real candidate's identity details in a quote.

    `identities` maps a source resume's label ("Resume 2") to its identity slots as
    (original text, kind). Whole details are matched case-insensitively; single
    parts of a name (a surname the model repeats alone) only as written or
    capitalised, and never when they are also part of a synthetic name in `keep`.
    """

    def __init__(
        self, identities: dict[str, list[tuple[str, str]]], keep: Iterable[str] = ()
    ) -> None:
        kept = {token.lower() for name in keep for token in name.split()}
        whole: dict[str, str] = {}  # lowercased original -> replacement
        tokens: dict[str, str] = {}
        for label, slots in identities.items():
            for original, kind in slots:
                text = " ".join(original.split())
                if kind in _NOT_QUOTED or len(text) < _MIN_TOKEN:
                    continue
                if kind in _NAME_KINDS:
                    mark = f"[{label}]"
                    if len(text.split()) > 1 and text.lower() not in kept:
                        whole.setdefault(text.lower(), mark)
                    for token in re.findall(r"[^\W\d_][\w'\-]*", text):
                        if len(token) >= _MIN_TOKEN and token.lower() not in kept:
                            tokens.setdefault(token, mark)
                            tokens.setdefault(token.capitalize(), mark)
                else:
                    whole.setdefault(text.lower(), placeholder(kind))
        self._whole = whole
        self._tokens = tokens
        self._pattern = self._compile()

    def _compile(self) -> re.Pattern[str] | None:
        parts = [f"(?i:{_phrase(text)})" for text in sorted(self._whole, key=len, reverse=True)] + [
            re.escape(token) for token in sorted(self._tokens, key=len, reverse=True)
        ]
        if not parts:
            return None
        return re.compile(r"(?<![\w@.])(?:" + "|".join(parts) + r")(?![\w@])")

    def __call__(self, text: str) -> str:
        if self._pattern is None or not text:
            return text

        def replace(match: re.Match[str]) -> str:
            found = match.group(0)
            key = " ".join(found.split()).lower()
            return self._whole.get(key) or self._tokens.get(found) or "[identity]"

        return self._pattern.sub(replace, text)


def mask_json(value: Any, mask: IdentityMask) -> Any:
    """A parsed JSON value (a raw answer) with every string masked."""
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, dict):
        return {k: mask_json(v, mask) for k, v in value.items()}
    if isinstance(value, list):
        return [mask_json(v, mask) for v in value]
    return value


def identity_mask(result: AuditReader, keep: Iterable[str] | None = None) -> IdentityMask:
    """The mask for an audit: every source resume's identity slots, by its "Resume N" label.

    `keep` defaults to every synthetic name the audit's variants carry.
    """
    records = result.resumes()
    labels = resume_labels([r.id for r in records])
    identities: dict[str, list[tuple[str, str]]] = {}
    for record in records:
        stored = result.resume_template(record.id) or {"slots": []}
        slots = []
        for slot in stored.get("slots", []):
            start, end = int(slot["start"]), int(slot["end"])
            if 0 <= start < end <= len(record.text):
                slots.append((record.text[start:end], str(slot["kind"])))
        identities[labels[record.id]] = slots
    if keep is None:
        keep = {name for name, _, _ in result.variant_labels().values() if name}
    return IdentityMask(identities, keep)
