"""Is this file a resume at all? Refuse secrets; warn about unlikely resumes.

Whatever is listed as a resume is sent to the model under test, often a vendor's
server. A study file that lists `~/.ssh/id_rsa` or a `.env` file must not send it,
so files that hold secrets are refused before they are read any further: hidden
files and folders (`.ssh`, `.env`), private keys and certificates, KEY=VALUE
settings files, text with API-key shapes, and files with no document type.
Refusals say why; the refused file's bytes are not kept anywhere.

Then, for a readable document, plain signals (section headings, year ranges,
contact details; for a job: requirements language): a text with none of them is
refused as "not a resume"; with few, a warning, and the user may keep the file
(an unusual resume is still a resume).
"""

from __future__ import annotations

import re
from pathlib import PurePath

from resume_auditor.documents.contact import EMAIL
from resume_auditor.documents.errors import DocProblem, DocumentError
from resume_auditor.documents.sections import EDUCATION, EXPERIENCE, find_sections

RESUME_SUFFIXES = frozenset({".pdf", ".docx", ".txt", ".md", ".markdown", ".text"})
# Folders whose files are credentials or settings, never documents.
SECRET_DIRS = frozenset(
    {".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".password-store", ".git"}
)
_KEY_MATERIAL = re.compile(
    rb"-----BEGIN [A-Z0-9 ]*(?:PRIVATE KEY|CERTIFICATE|PGP [A-Z ]+)-----"
    rb"|^(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-\S+|sk-ssh-\S+) AAAA"
    rb"|PuTTY-User-Key-File",
    re.MULTILINE,
)
# Shapes of API keys and tokens: OpenAI/Anthropic/OpenRouter, Google, GitHub, Slack, AWS.
_TOKEN_SHAPES = re.compile(
    r"\bsk-(?:ant-|or-|proj-)?[A-Za-z0-9_\-]{20,}"
    r"|\bAIza[0-9A-Za-z_\-]{30,}"
    r"|\bgh[pousr]_[A-Za-z0-9]{30,}"
    r"|\bxox[abpr]-[A-Za-z0-9\-]{10,}"
    r"|\bAKIA[0-9A-Z]{16}\b"
)
_ASSIGNMENT = re.compile(r"^\s*(?:export\s+)?[A-Za-z_][A-Za-z0-9_.\-]*\s*=")
_SECRET_ASSIGNMENT = re.compile(
    r"^\s*(?:export\s+)?[A-Za-z0-9_.\-]*(?:KEY|SECRET|TOKEN|PASSWORD|PASSWD|PWD)[A-Za-z0-9_]*\s*=",
    re.IGNORECASE | re.MULTILINE,
)
_PDF_OR_ZIP = (b"%PDF", b"PK\x03\x04")


class RefusedFile(DocumentError):
    """A file that must not be sent to a model (it may hold a secret); not kept either."""

    def __init__(self, message: str) -> None:
        super().__init__(DocProblem.UNSUPPORTED, message)


def secret_problem(filename: str, data: bytes) -> str | None:
    """Why a file listed as a resume or job must not be read and sent, or None.

    `filename` may be a path: a file in a hidden folder such as `.ssh` is refused.
    """
    path = PurePath(filename)
    name = path.name
    hidden = [part for part in path.parts[:-1] if part in SECRET_DIRS]
    if hidden:
        return (
            f"{name} is in the {hidden[-1]} folder, which holds keys and settings, not "
            "documents. It was not read or sent."
        )
    if name.startswith("."):
        return (
            f"{name} is a hidden file (its name starts with a dot), such as a settings or "
            "key file, not a document. It was not read or sent."
        )
    head = data[:65536]
    if _KEY_MATERIAL.search(head):
        return f"{name} holds a private key or certificate. It was not read or sent."
    suffix = path.suffix.lower()
    magic = data.lstrip()[:4]
    if suffix not in RESUME_SUFFIXES and not magic.startswith(_PDF_OR_ZIP):
        kind = f"'{suffix}' files are" if suffix else "a file with no type (.pdf, .docx...) is"
        return f"{name}: {kind} not documents this app reads. Use PDF, DOCX, TXT or MD."
    if not magic.startswith(_PDF_OR_ZIP):
        text = head.decode("utf-8", errors="replace")
        lines = [
            line
            for line in _without_front_matter(text).splitlines()
            if line.strip() and not line.lstrip().startswith(("#", ";", "//"))
        ]
        assignments = sum(bool(_ASSIGNMENT.match(line)) for line in lines)
        if _SECRET_ASSIGNMENT.search(text) or (assignments >= 2 and assignments * 2 >= len(lines)):
            return (
                f"{name} looks like a settings file (NAME=value lines), which may hold "
                "passwords or keys, not a resume. It was not read or sent."
            )
    return None


_FENCE = re.compile(r"\A\ufeff?\s*(\+\+\+|---)[ \t]*\r?\n.*?^\1[ \t]*$", re.S | re.M)


def _without_front_matter(text: str) -> str:
    """A Markdown page without its front matter (Hugo's TOML ``+++``, Jekyll's YAML
    ``---``): its ``key = value`` lines describe the page; they are not settings. A
    secret-named key in it is still caught (the whole text is searched for those)."""
    fence = _FENCE.match(text)
    return text[fence.end() :] if fence else text


def token_problem(text: str, filename: str) -> str | None:
    """Why a document's text must not be sent: it holds something shaped like an API key."""
    if _TOKEN_SHAPES.search(text):
        return (
            f"{filename} contains what looks like an API key or access token. It was not "
            "sent; remove the key from the file if it really is a resume."
        )
    return None


def check_not_secret(filename: str, data: bytes) -> None:
    """Raise RefusedFile if the file may hold a secret (see `secret_problem`)."""
    problem = secret_problem(filename, data)
    if problem:
        raise RefusedFile(problem)


# Digit-bounded, not word-bounded: in Japanese or Chinese a year runs into the next
# character ("2018年"), which \b does not separate.
_YEARS = re.compile(r"(?<!\d)(?:19[5-9]\d|20[0-4]\d)(?!\d)")
_PHONE_LIKE = re.compile(
    r"\(?\d{3}\)?[ .\-]\d{3}[ .\-]\d{4}|\+\d[\d \-]{7,}|(?<!\d)\d{2,4}-\d{2,4}-\d{3,4}(?!\d)"
)
_LOOSE_EMAIL = re.compile(r"[\w.+\-]+@[\w\-]+(?:\.[\w\-]+)*\.[A-Za-z]{2,}")
_RESUME_WORDS = re.compile(
    r"\b(experience|education|skills|employment|projects|university|college|bachelor|master|"
    r"degree|intern(?:ship)?|managed|led|developed|built|responsible for)\b",
    re.IGNORECASE,
)
_JOB_WORDS = re.compile(
    r"\b(requirements?|qualifications?|responsibilities|you will|you'll|we are looking|"
    r"we're looking|the role|this role|apply|benefits|salary|equal opportunity|preferred|"
    r"must have|nice to have|job description|about (?:us|the team)|duties|what you(?:'|’)ll do|"
    r"job (?:summary|title|type|location)|position|hiring|candidates?)\b",
    re.IGNORECASE,
)
MIN_RESUME_CHARS = 200


def resume_signals(text: str) -> int:
    """How many of five plain signs of a resume `text` shows (0-5)."""
    sections = find_sections(text)
    signals = 0
    signals += any(EXPERIENCE.search(s.heading) for s in sections)
    signals += any(EDUCATION.search(s.heading) for s in sections)
    signals += len(_YEARS.findall(text)) >= 2
    signals += bool(EMAIL.search(text) or _LOOSE_EMAIL.search(text) or _PHONE_LIKE.search(text))
    signals += len(_RESUME_WORDS.findall(text)) >= 3
    return int(signals)


def resume_refusal(text: str, filename: str = "This file") -> str | None:
    """Why a readable document is refused as a resume, or None.

    Refused: text with an API-key shape, and text with none of the signs of a
    resume (no Experience or Education heading, no dates, no contact details,
    no resume words), which is a settings file, code or notes rather than an
    unusual resume.
    """
    problem = token_problem(text, filename)
    if problem:
        return problem
    if resume_signals(text) == 0:
        return (
            f"{filename} is not a resume: it has no Experience or Education section, no "
            "dates, no contact details and none of the words resumes use. It was not sent."
        )
    return None


def resume_warnings(text: str, filename: str = "This file") -> list[str]:
    """Plain warnings if `text` does not look like a resume (empty list if it does)."""
    signals = resume_signals(text)
    job_like = len(_JOB_WORDS.findall(text))
    out = []
    if len("".join(text.split())) < MIN_RESUME_CHARS:
        out.append(
            f"{filename} is very short ({len(text.split())} words) for a resume. "
            "Check that the whole resume was read."
        )
    if signals <= 1:
        out.append(
            f"{filename} does not look like a resume: no Experience or Education section, "
            "few dates, no contact details. Check that it is the right file; you can keep it."
        )
    elif job_like >= 5 and job_like > len(_RESUME_WORDS.findall(text)):
        out.append(
            f"{filename} reads more like a job description than a resume. Check that it "
            "is the right file; you can keep it."
        )
    return out


def job_warnings(text: str, filename: str = "The job description") -> list[str]:
    """Plain warnings if `text` does not look like a job description."""
    if len(_JOB_WORDS.findall(text)) >= 2:
        return []
    if len(_RESUME_WORDS.findall(text)) >= 5 and (EMAIL.search(text) or _YEARS.search(text)):
        return [
            f"{filename} reads more like a resume than a job description. Check that it is "
            "the right file; you can keep it."
        ]
    return [
        f"{filename} does not mention requirements, qualifications or responsibilities. "
        "Check that it is the right text; you can keep it."
    ]
