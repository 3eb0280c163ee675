"""Generator policies for the provider simulator: a deterministic stand-in generator model.

`generator_policy()` answers the generator presets (gen-*.toml) the way a careful
model would: c+ adds a bullet naming each requested preferred qualification,
c- replaces each line that mentions a removed qualification with a neutral line
of about the same length, a reworded copy swaps verbs, a completion adds the
missing requirements, and a judge answers from a lexical check. Flawed policies
break one rule each so the tests can see the right check catch it:

    short        c+ adds only the bare words (a change under 120 characters)
    placeholders drops the identity placeholders ([[FULL_NAME]]...)
    contact      adds an email and a phone line
    missing      c+ adds nothing, c- removes nothing, completion adds nothing
    long         doubles the resume (length far beyond 10%)

With `fix_on_retry`, a flawed policy answers correctly once the prompt says a
previous attempt was rejected (the retry path). Any other prompt falls back to
`fallback` (the simulator's default screening policy).
"""

from __future__ import annotations

import re
from typing import Any

from resume_auditor.devtools.simulator import Policy, longer_resume_policy
from resume_auditor.variants.gen_placeholders import TOKEN
from resume_auditor.variants.lexical import key_words, words
from resume_auditor.variants.verify import mentions

FLAWS = ("", "short", "placeholders", "contact", "missing", "long")
_FILLER = "- Coordinated weekly planning meetings and kept the shared team documentation current"
_SWAPS = {
    "Led": "Headed",
    "Built": "Developed",
    "Managed": "Oversaw",
    "Worked": "Collaborated",
    "Designed": "Architected",
    "Improved": "Enhanced",
    "Created": "Produced",
    "Developed": "Engineered",
    "Maintained": "Sustained",
}


def _user(body: dict[str, Any]) -> str:
    return str(body["messages"][-1]["content"])


def _resume(user: str) -> str:
    start = user.rfind("<resume>\n")
    end = user.rfind("\n</resume>")
    return user[start + len("<resume>\n") : end] if 0 <= start < end else ""


def _items(user: str, marker: str) -> list[str]:
    """The '- item' or '1. item' lines of the list after the line containing `marker`."""
    lines = user.split("\n")
    out: list[str] = []
    inside = False
    for line in lines:
        if not inside:
            inside = marker in line
            continue
        match = re.match(r"^\s*(?:-|\d+\.)\s+(.*)$", line)
        if not match:
            if out:
                break
            continue
        out.append(match.group(1).strip())
    return out


def _add(resume: str, quals: list[str], flaw: str) -> str:
    if flaw == "missing":
        return resume
    if flaw == "short":
        return resume + "\n" + ", ".join(quals)
    # The first addition is a full bullet (a change of 120+ characters); the rest are
    # short, so the length stays within 10% as the prompt asks.
    lines = [
        f"- Built up hands-on expertise in {q}, applying it across several production "
        "projects and coaching colleagues on it"
        if i == 0
        else f"- Hands-on {q}"
        for i, q in enumerate(quals)
    ]
    return resume.rstrip("\n") + "\n" + "\n".join(lines)


def _remove(resume: str, quals: list[str], flaw: str) -> str:
    if flaw == "missing":
        return resume
    keys = set().union(*(key_words(q) for q in quals)) if quals else set()
    out = []
    for line in resume.split("\n"):
        if keys & set(words(TOKEN.sub(" ", line))) and not TOKEN.search(line):
            out.append(_FILLER[: max(20, len(line))] if flaw != "short" else "")
        else:
            out.append(line)
    return "\n".join(out)


def _reword(resume: str) -> str:
    for old, new in _SWAPS.items():
        resume = re.sub(rf"\b{old}\b", new, resume)
    return resume


def _flawed(text: str, flaw: str) -> str:
    if flaw == "placeholders":
        return TOKEN.sub("the candidate", text)
    if flaw == "contact":
        return text + "\nContact: jane.roe@example.org | (555) 123-4567"
    if flaw == "long":
        return text + "\n" + text.replace("[[", "(").replace("]]", ")")
    return text


def _judge(user: str) -> str:
    resume = user.split("Resume:\n", 1)[-1].split("\n\nQualifications:", 1)[0]
    items = _items(user, "Qualifications:")
    return "\n".join(
        f"{i}: {'yes' if mentions(resume, q) else 'no'}" for i, q in enumerate(items, 1)
    )


def generator_policy(
    flaw: str = "", *, fix_on_retry: bool = False, fallback: Policy = longer_resume_policy
) -> Policy:
    """A policy for the simulator that answers generator and judge prompts."""
    if flaw not in FLAWS:
        raise ValueError(f"unknown flaw {flaw!r}; use one of {FLAWS}")

    def policy(body: dict[str, Any]) -> str:
        user = _user(body)
        bad = "" if fix_on_retry and "previous attempt was rejected" in user else flaw
        if "numbered qualifications" in user:
            return _judge(user)
        resume = _resume(user)
        if "ADDING EXACTLY" in user:
            text = _add(resume, _items(user, "preferred qualification(s):"), bad)
        elif "REMOVING EXACTLY" in user:
            text = _remove(resume, _items(user, "qualification(s):"), bad)
        elif "Reword and restructure" in user:
            text = _reword(resume)
        elif "is missing these" in user:
            text = _add(resume, _items(user, "qualification(s) for the role"), bad)
        else:
            return fallback(body)
        if bad in ("short", "missing"):
            return f"<resume>\n{text}\n</resume>"
        return f"Here is the resume.\n<resume>\n{_flawed(text, bad)}\n</resume>"

    return policy
