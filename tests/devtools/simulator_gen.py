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
    extra        a synthetic base also names the `extras` given (preferred ones)

A synthetic base (gen-synthetic) is a resume with `Name: [[FULL_NAME]]` and one
long bullet naming each listed qualification, nothing more; with `missing` it
leaves the last one out.

With `fix_on_retry`, a flawed policy answers correctly once the prompt says a
previous attempt was rejected (the retry path). Any other prompt falls back to
`fallback` (the simulator's default screening policy).
"""

from __future__ import annotations

import re
from typing import Any

from devtools.simulator import Policy, longer_resume_policy
from resume_auditor.variants.gen_placeholders import TOKEN
from resume_auditor.variants.lexical import key_words, words
from resume_auditor.variants.verify import mentions

FLAWS = ("", "short", "placeholders", "contact", "missing", "long", "extra")
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


_VERBS = ("Built", "Led", "Designed", "Managed", "Created", "Improved")


def _synthetic(user: str, flaw: str, extras: tuple[str, ...]) -> str:
    """A plain one-page resume that names exactly the listed qualifications."""
    match = re.search(r"for the role: (.*?)\. Include", user)
    role = match.group(1).strip() if match else "Specialist"
    quals = _items(user, "Include ALL of these")
    if flaw == "missing" and quals:
        quals = quals[:-1]
    if flaw == "extra":
        quals = [*quals, *extras]
    bullets = [
        f"- {_VERBS[i % len(_VERBS)]} day-to-day work that depended on {q}, applying it across "
        "several projects for internal clients and reviewing colleagues' work on it"
        for i, q in enumerate(quals)
    ]
    return "\n".join(
        [
            "Name: [[FULL_NAME]]",
            "",
            "Summary",
            f"{role} with six years of experience delivering dependable work for operations and "
            "finance teams, known for clear communication and careful documentation.",
            "",
            "Experience",
            f"Senior {role}, a regional company (2021 - present)",
            *bullets,
            "- Led a weekly review with operations leads and kept a log of open issues and their "
            "resolutions for the whole team",
            "- Trained two new colleagues in reviewing each other's work and writing clear, "
            "complete documentation",
            "",
            f"{role}, a public agency (2018 - 2021)",
            "- Managed the monthly reporting cycle for twelve departments and presented the "
            "results to the leadership team",
            "- Worked with department heads to define measures for staffing, budgets and service "
            "levels across the year",
            "- Improved the accuracy of the annual budget forecast by reviewing its assumptions "
            "with the finance team every quarter",
            "",
            f"Junior {role}, a national charity (2016 - 2018)",
            "- Prepared the weekly summary of donations for the fundraising team and answered "
            "their follow-up questions quickly",
            "- Checked supplier records against purchase orders and raised discrepancies with the "
            "responsible account owners",
            "- Helped move the team's shared files to a new drive with a consistent naming scheme "
            "and a maintained index",
            "",
            "Interests",
            "Hiking, chess, and volunteering at the local food bank on weekends.",
        ]
    )


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
    flaw: str = "",
    *,
    fix_on_retry: bool = False,
    fallback: Policy = longer_resume_policy,
    extras: tuple[str, ...] = (),
) -> Policy:
    """A policy for the simulator that answers generator and judge prompts.

    `extras`: what the `extra` flaw adds to a synthetic base (qualifications it
    should not have, such as the job's preferred ones).
    """
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
        elif "Construct a realistic-looking resume" in user:
            text = _synthetic(user, bad, extras)
        else:
            return fallback(body)
        if bad in ("short", "missing"):
            return f"<resume>\n{text}\n</resume>"
        return f"Here is the resume.\n<resume>\n{_flawed(text, bad)}\n</resume>"

    return policy
