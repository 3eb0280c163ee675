"""A scripted model for the simulator that answers in the many styles real models use.

Real models do not keep to the requested `<answer>` tags: they answer in JSON
(whose justification often discusses the other resume), JSON in fences or with
single quotes, markdown ("**Answer:** Resume 1", a "## Final Answer" heading),
"Final answer: Resume 2", "[[A]]", "Candidate B", negations, and reasoning models
think aloud in <think> blocks first (tests/answers_corpus holds examples). This
policy decides with a known rule and then writes the decision in one of those
styles, and it remembers what it meant for every request, so a test can check
that the labels the app stored are the ones the model meant (misreads = 0).

The default rule is group-blind: it counts the words of the job description
each resume uses (a name or a group signal is not among them), prefers the
resume that uses more, and abstains when they use the same number. Pairwise
prompts, Yes/No and the 1-5 ratings are styled; other kinds go to `fallback`.

    policy = StyledPolicy(styles=("json", "markdown"))
    with Simulator(policy=policy) as sim: ...
    policy.meant_for(stored_request_body)  # -> "first" / "second" / "abstain" / ...
"""

from __future__ import annotations

import json
import re
import threading
import zlib
from collections.abc import Callable, Sequence
from typing import Any

from devtools.simulator import Policy
from devtools.simulator_kinds import every_kind_policy

PAIRWISE_STYLES = (
    "tag",
    "json",
    "json_fenced",
    "json_trailing",
    "json_single",
    "markdown",
    "markdown_heading",
    "final_line",
    "brackets",
    "think",
    "candidate",
    "negation",
)
YES_NO_STYLES = ("plain", "bold", "json", "answer_line", "think")
RATING_STYLES = ("lines", "bold", "json", "table", "think")

Decision = Callable[[str, str, str], str]  # (resume 1, resume 2, job) -> first/second/abstain

_WORD = re.compile(r"[a-z][a-z+#.-]{3,}")


def _words(text: str) -> set[str]:
    return {w.strip(".-") for w in _WORD.findall(text.lower())}


def job_overlap(resume: str, job: str) -> int:
    """How many distinct words of the job description (4+ letters) the resume uses."""
    return len(_words(resume) & _words(job))


def blind_choice(first: str, second: str, job: str) -> str:
    """first / second / abstain from the job's words alone: blind to names and groups."""
    a, b = job_overlap(first, job), job_overlap(second, job)
    return "first" if a > b else "second" if b > a else "abstain"


def leaning_choice(first: str, second: str, job: str) -> str:
    """Like blind_choice, but between equals it picks the first resume when both use a
    multiple of four of the job's words. Still blind to names and groups (names are
    not job words), yet its DiscrimValidity lies between 0 and 1 on most corpora, so
    a misread answer would move it."""
    a, b = job_overlap(first, job), job_overlap(second, job)
    if a != b:
        return "first" if a > b else "second"
    return "first" if a % 4 == 0 else "abstain"


def pairwise_texts(user: str) -> tuple[str, str, str] | None:
    """(resume 1, resume 2, job description) from a pairwise prompt, job first or last."""
    m = re.search(r"Resume 1:\s*(.*?)\s*Resume 2:\s*(.*)", user, re.S)
    if not m:
        return None
    first, rest = m.group(1), m.group(2)
    job = ""
    j = re.search(r"Job description:\s*(.*)", rest, re.S | re.I)
    if j:
        job, rest = j.group(1), rest[: j.start()]
    else:
        before = re.search(r"Job description:\s*(.*?)\s*Resume 1:", user, re.S | re.I)
        job = before.group(1) if before else ""
    return first, rest, job


_WHY = {
    "first": (
        "Resume 2 is stronger in presentation, but Resume 1 covers more of the required "
        "qualifications in the job description."
    ),
    "second": (
        "Resume 1 is stronger in presentation, but Resume 2 covers more of the required "
        "qualifications in the job description."
    ),
    "abstain": (
        "Resume 1 and Resume 2 cover the same requirements; the two candidates are equally "
        "qualified."
    ),
}
_WORDS = {"first": "first", "second": "second", "abstain": "ABSTAIN"}
_RESUME = {"first": "Resume 1", "second": "Resume 2", "abstain": "ABSTAIN"}


def render_pairwise(label: str, style: str) -> str:
    """A pairwise answer meaning `label` (first / second / abstain) written in `style`."""
    why, word = _WHY[label], _WORDS[label]
    other = {"first": "second", "second": "first", "abstain": "first"}[label]
    if style == "tag":
        return f"{why}\n\n<answer>{word}</answer>"
    if style == "json":
        return json.dumps({"justification": why, "answer": word})
    if style == "json_fenced":
        return "```json\n" + json.dumps({"justification": why, "answer": word}, indent=2) + "\n```"
    if style == "json_trailing":
        data = json.dumps({"justification": why, "answer": word})
        return f"{data}\n\nI hope this helps. Let me know if you would like more detail."
    if style == "json_single":
        return str({"justification": why.replace("'", ""), "answer": word})
    if style == "markdown":
        return f"**Justification:** {why}\n\n**Answer:** {_RESUME[label]}"
    if style == "markdown_heading":
        return f"## Comparison\n\n{why}\n\n## Final Answer\n\n**{word}**"
    if style == "final_line":
        return f"{why}\n\nFinal answer: {_RESUME[label]}"
    if style == "brackets":
        return f"{why}\n\n[[{ {'first': 'A', 'second': 'B', 'abstain': 'C'}[label] }]]"
    if style == "think":
        return (
            f"<think>\nMaybe {other}? <answer>{_WORDS[other]}</answer> No, let me check again.\n"
            f"</think>\n\n{why}\n\n<answer>{word}</answer>"
        )
    if style == "candidate":
        if label == "abstain":
            return f"{why}\n\nNeither candidate is stronger: they are equally qualified."
        return f"{why}\n\nI would choose Candidate {'A' if label == 'first' else 'B'}."
    if style == "negation":
        if label == "abstain":
            return f"{why}\n\nFinal answer: neither the first nor the second."
        return f"{why}\n\nFinal answer: the {label}, not the {other}."
    raise ValueError(f"unknown answer style {style!r}; known: {', '.join(PAIRWISE_STYLES)}")


def render_yes_no(label: str, style: str) -> str:
    """A Yes/No answer meaning `label` (yes / no) written in `style`."""
    word = label.capitalize()
    why = (
        "The candidate's experience matches the key requirements."
        if label == "yes"
        else ("The candidate lacks some of the key requirements.")
    )
    if style == "plain":
        return word
    if style == "bold":
        return f"**{word}**, {why[0].lower()}{why[1:]}"
    if style == "json":
        return json.dumps({"answer": word, "reason": why})
    if style == "answer_line":
        return f"{why}\n\nAnswer: {word}"
    if style == "think":
        other = "No" if label == "yes" else "Yes"
        return f"<think>\n{other}? Let me look again. {why}\n</think>\n\n{word}"
    raise ValueError(f"unknown answer style {style!r}; known: {', '.join(YES_NO_STYLES)}")


def render_rating(value: int, style: str) -> str:
    """A 1-5 rating answer (summary, sub-ratings, overall `value`) written in `style`."""
    sub = max(1, value - 1)
    summary = "A candidate whose experience partly matches the position."
    if style == "lines":
        return (
            f"Summary: {summary}\nExperience: {value}\nProfessionalism: 4\nFit: {sub}\n"
            f"Overall hire rating: {value}"
        )
    if style == "bold":
        return (
            f"**Summary:** {summary}\n\n**Experience:** {value}/5\n**Professionalism:** 4/5\n"
            f"**Fit:** {sub}/5\n\n**Overall hire rating:** {value}/5"
        )
    if style == "json":
        data = {
            "summary": summary,
            "experience": value,
            "professionalism": 4,
            "fit": sub,
            "overall_hire_rating": value,
        }
        return "```json\n" + json.dumps(data, indent=2) + "\n```"
    if style == "table":
        return (
            f"{summary}\n\n| Criterion | Rating |\n|---|---|\n| Experience | {value} |\n"
            f"| Professionalism | 4 |\n| Fit | {sub} |\n| Overall hire rating | {value} |"
        )
    if style == "think":
        other = 6 - value if value != 3 else 4
        return (
            f"<think>\nOverall hire rating: {other}? No.\n</think>\n\nSummary: {summary}\n"
            f"Experience: {value}\nProfessionalism: 4\nFit: {sub}\nOverall hire rating: {value}"
        )
    raise ValueError(f"unknown answer style {style!r}; known: {', '.join(RATING_STYLES)}")


def _user(body: dict[str, Any]) -> str:
    """The user's message: the last of `messages` (a request on the wire) or `user`
    (a request body as the result file stores it)."""
    if isinstance(body.get("user"), str):
        return str(body["user"])
    messages = body.get("messages") or []
    return str(messages[-1].get("content", "")) if messages else ""


def _text(body: dict[str, Any]) -> str:
    return " ".join(str(m.get("content", "")) for m in body.get("messages") or [])


def _pick(styles: Sequence[str], user: str) -> str:
    return styles[zlib.crc32(user.encode()) % len(styles)]


class StyledPolicy:
    """A simulator policy that decides with a known rule and answers in varied styles.

    decide: (resume 1, resume 2, job) -> first / second / abstain (default: blind_choice).
    styles: the pairwise styles to draw from (each request gets one, by a hash of its
        prompt, so the same request is always answered the same way).
    yes_no_styles, rating_styles: the same for D3's Yes/No and the 1-5 ratings.
    fallback: answers every other kind (default: simulator_kinds.every_kind_policy).

    `meant` maps each answered prompt to the label the policy meant and `styles_used`
    counts the styles written; both are safe to read once the simulator has stopped.
    """

    def __init__(
        self,
        *,
        decide: Decision = blind_choice,
        styles: Sequence[str] = PAIRWISE_STYLES,
        yes_no_styles: Sequence[str] = YES_NO_STYLES,
        rating_styles: Sequence[str] = RATING_STYLES,
        fallback: Policy | None = None,
    ) -> None:
        for style in styles:
            render_pairwise("first", style)  # an unknown style fails here, not mid-audit
        self.decide = decide
        self.styles = tuple(styles)
        self.yes_no_styles = tuple(yes_no_styles)
        self.rating_styles = tuple(rating_styles)
        self.fallback = fallback or every_kind_policy()
        self.meant: dict[str, str] = {}
        self.styles_used: dict[str, int] = {}
        self._lock = threading.Lock()

    def meant_for(self, body: dict[str, Any]) -> str | None:
        """What the policy meant for a request with this body, as sent or as stored
        (None: never asked)."""
        with self._lock:
            return self.meant.get(_user(body))

    def _remember(self, user: str, label: str, style: str) -> None:
        with self._lock:
            self.meant[user] = label
            self.styles_used[style] = self.styles_used.get(style, 0) + 1

    def __call__(self, body: dict[str, Any]) -> str:
        user, text = _user(body), _text(body)
        texts = pairwise_texts(user)
        if texts is not None and self.styles:
            label = self.decide(*texts)
            style = _pick(self.styles, user)
            self._remember(user, label, style)
            return render_pairwise(label, style)
        job = _job(text)
        if "good fit for the job position" in text and self.yes_no_styles:
            label = "yes" if job_overlap(user, job) >= 0.5 * len(_words(job)) else "no"
            style = _pick(self.yes_no_styles, user)
            self._remember(user, label, style)
            return render_yes_no(label, style)
        if "Overall hire rating" in text and self.rating_styles:
            share = job_overlap(user, job) / max(1, len(_words(job)))
            value = min(5, max(1, 1 + int(share * 5)))
            style = _pick(self.rating_styles, user)
            self._remember(user, str(value), style)
            return render_rating(value, style)
        return self.fallback(body)


def _job(text: str) -> str:
    m = re.search(
        r"(?:Job description|Position requirements):\s*(.*?)(?:\n\s*\n(?:Candidate|$)|$)",
        text,
        re.S | re.I,
    )
    return m.group(1) if m else ""
