"""A scripted model for the simulator that answers every design's prompts in their format.

D1 pairs go to a pairwise policy (by default: the longer resume wins); D2 ratings,
D3 yes/no and ratings, D4 scores and rankings and the manipulation check get
answers of their own form whose values vary with the text shown, so every panel
of the app and the report has numbers to show. It knows the shipped presets by
phrases in their text; a user's own preset falls through to the pairwise policy.
"""

from __future__ import annotations

import re
import zlib
from typing import Any

from devtools.simulator import Policy, longer_resume_policy


def _score(text: str, top: int) -> int:
    return 1 + zlib.crc32(text.encode()) % top


def every_kind_policy(pairwise: Policy = longer_resume_policy) -> Policy:
    def policy(body: dict[str, Any]) -> str:
        messages = body.get("messages") or []
        user = str(messages[-1].get("content", "")) if messages else ""
        text = " ".join(str(m.get("content", "")) for m in messages)
        if "good fit for the job position" in text:
            return "Yes" if _score(user, 2) == 1 else "No"
        if "Overall hire rating" in text:
            s = _score(user, 5)
            return (
                f"Summary: a plausible candidate.\nExperience: {s}\nProfessionalism: 4\n"
                f"Fit: {max(1, s - 1)}\nOverall hire rating: {s}"
            )
        if "Relevance to the Role" in text:
            s = _score(user, 5)
            return (
                f'{{"Relevance to the Role": {{"Resume": {{"score": {s}}}}}, '
                f'"Significance/Impact": {{"Resume": {{"score": {6 - s}}}}}, '
                '"Skill Relevance": {"Resume": {"score": 4}}, '
                '"Achievements & Impact": {"Resume": {"score": 3}}, '
                '"Cultural Fit & Personal Traits": {"Resume": {"score": 3}}}'
            )
        if "rank them from best" in text:
            letters = re.findall(r"^Resume ([A-Z]):", user, re.M)
            letters.sort(key=lambda c: zlib.crc32((c + user[:200]).encode()))
            return "{" + ", ".join(f'"{i + 1}": "{c}"' for i, c in enumerate(letters)) + "}"
        if "race or ethnicity" in text:
            races = ("White", "Black", "Asian", "Hispanic")
            gender = "Female" if re.search(r"\b(she|her)\b", user, re.I) else "Male"
            return f'{{"race": "{races[_score(user, 4) - 1]}", "gender": "{gender}"}}'
        if "only the number of the score" in text:
            return str(_score(user, 5))
        if "only the name of the candidate" in text:
            return "The first candidate"
        return pairwise(body)

    return policy
