"""Simulator policies for D5 (Bloomberg's eight-name ranking), each with a known truth.

A D5 request shows one resume copied under several names, each copy as
"Resume A:\\n<the copy, which starts with its name>", and asks for a numbered list of
the candidates' names (resources/prompts/d5-ranking.toml). The server sees only the
request, so the policies find each shown copy's name in its text and the name's group
in the app's own name lists (`variants.names.name_lists()`, where every full name
belongs to one group).

- `D5Policy` ranks the copies by a Plackett-Luce draw: each copy has a weight (its
  group's `weights`, 1 unless planted, times `first_shown` for the copy shown first),
  and the ranking is drawn from those weights. The truth is then known exactly: a
  group's copy is put first with probability weight / sum of weights. Draws are
  seeded from the request's text and how many times that text was seen, so a
  run's answers do not depend on the order the runner sends its requests in.
- `ReplayPolicy` answers with recorded answers of a real model (Bloomberg's GPT-3.5
  rankings, benchmarks/d5_replication.py) group for group, in the model's own words:
  each recorded candidate's name, as the answer wrote it, becomes the name our request
  shows for the same group (`transfer`).

Requests that are not D5 rankings go to a fallback policy.
"""

from __future__ import annotations

import hashlib
import math
import random
import re
import threading
import unicodedata
from collections import Counter, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from rapidfuzz.distance import JaroWinkler

from devtools.simulator import Policy, always
from resume_auditor.prompts import get_preset
from resume_auditor.variants.names import name_lists

PRESET = "d5-ranking"
CLOSE = 0.85  # Jaro-Winkler similarity from which a word is a name re-spelt
_BLOCK = re.compile(r"^Resume ([A-Z]):[ \t]*\n", re.M)
_WORD = re.compile(r"[^\W\d_]+(?:['’`\-][^\W\d_]+)*")


@dataclass(frozen=True)
class Shown:
    """One copy as the request shows it: its label, the name found in it, its group
    ("" when no listed name is in the copy)."""

    label: str
    name: str
    group: str


@cache
def _group_of() -> dict[str, str]:
    """Every listed full name, lower case, to its group key."""
    return {
        f"{e.first} {e.last}".casefold(): group
        for group, entries in name_lists().items()
        for e in entries
    }


@cache
def _names_pattern() -> re.Pattern[str]:
    names = sorted(_group_of(), key=len, reverse=True)
    return re.compile(r"(?<!\w)(" + "|".join(re.escape(n) for n in names) + r")(?!\w)", re.I)


@cache
def _request_pattern() -> re.Pattern[str]:
    """The first line of the preset's user message, its placeholders as wildcards: a
    request is a D5 ranking when its user message starts that way."""
    first = get_preset(PRESET).user.strip().splitlines()[0]
    parts = re.split(r"\{[a-z_]+\}", first)
    return re.compile(r"\s*" + r".+?".join(re.escape(p) for p in parts))


def user_text(body: Mapping[str, Any]) -> str:
    messages = body.get("messages") or []
    return str(messages[-1].get("content", "")) if messages else ""


def is_d5(body: Mapping[str, Any]) -> bool:
    return _request_pattern().match(user_text(body)) is not None


def shown(user: str) -> list[Shown]:
    """Each copy in the order shown, with the first listed name written in it."""
    heads = list(_BLOCK.finditer(user))
    out: list[Shown] = []
    for k, head in enumerate(heads):
        end = heads[k + 1].start() if k + 1 < len(heads) else len(user)
        block = user[head.end() : end]
        m = _names_pattern().search(block)
        if m is None:
            first_line = block.strip().splitlines()[0] if block.strip() else ""
            out.append(Shown(head.group(1), first_line.strip(), ""))
        else:
            out.append(Shown(head.group(1), m.group(1), _group_of()[m.group(1).casefold()]))
    return out


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class D5Policy:
    """A ranker with a planted truth (Plackett-Luce over the copies' weights).

    `weights`: group key -> weight (absent: 1); a weight of 3 puts that group's copy
    first three times as often as another's. `first_shown`: the weight's factor for
    the copy shown first (a position preference; 1: none). `preamble`: a line
    written before the list, as GPT-3.5 often did.
    """

    seed: int = 0
    weights: Mapping[str, float] = field(default_factory=dict)
    first_shown: float = 1.0
    preamble: str = ""
    fallback: Policy = field(default_factory=lambda: always("ABSTAIN"))
    _seen: Counter[str] = field(default_factory=Counter, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def top1_truth(self, groups: Sequence[str]) -> dict[str, float]:
        """The chance each group's copy is put first when `groups` are shown in that order."""
        w = self._weights(groups)
        total = sum(w)
        return {g: w[i] / total for i, g in enumerate(groups)}

    def _weights(self, groups: Sequence[str]) -> list[float]:
        w = [float(self.weights.get(g, 1.0)) for g in groups]
        if w:
            w[0] *= self.first_shown
        return w

    def __call__(self, body: dict[str, Any]) -> str:
        if not is_d5(body):
            return self.fallback(body)
        user = user_text(body)
        copies = shown(user)
        if not copies:
            return "I cannot find the resumes to rank."
        key = _digest(user)
        with self._lock:
            self._seen[key] += 1
            seen = self._seen[key]
        rng = random.Random(f"{self.seed}:{key}:{seen}")
        w = self._weights([c.group for c in copies])
        # Gumbel-max: sorting log-weights plus Gumbel noise draws a Plackett-Luce order.
        keys = [math.log(x) - math.log(max(rng.expovariate(1.0), 1e-300)) for x in w]
        order = sorted(range(len(copies)), key=lambda i: -keys[i])
        lines = [f"{r + 1}. {copies[i].name}" for r, i in enumerate(order)]
        head = f"{self.preamble}\n\n" if self.preamble else ""
        return head + "\n".join(lines)


# -- replaying recorded answers group for group ----------------------------------------


@dataclass(frozen=True)
class Recorded:
    """One recorded answer: the names its model was shown (in order), their groups
    (our keys: "black_woman"), and the answer verbatim."""

    id: str
    names: tuple[str, ...]
    groups: tuple[str, ...]
    answer: str


@dataclass(frozen=True)
class Swap:
    """One mention of a recorded name and what it became. `how`: "exact" (written as
    shown), "swapped" (surname first), "initial", "re-spelt" or "short form" (written
    as ours exactly), "part" (a first name or surname alone, written the same way)."""

    said: str
    wrote: str
    group: str
    how: str


@dataclass(frozen=True)
class Transfer:
    """A recorded answer moved onto our names: the text, each mention replaced, and the
    mentions left as they were because they could be two candidates."""

    recorded: Recorded
    text: str
    swaps: tuple[Swap, ...]
    ambiguous: tuple[str, ...]
    ours: Mapping[str, str]


def fold(word: str) -> str:
    """Lower case without accents, apostrophes or hyphens ("O'Connell" -> "oconnell")."""
    bare = "".join(
        ch for ch in unicodedata.normalize("NFKD", word) if not unicodedata.combining(ch)
    )
    return re.sub(r"['’`\-.]", "", bare.casefold())


def _relation(said: str, real: str) -> str | None:
    """How a folded word relates to a folded name part: same, initial, short, close."""
    if said == real:
        return "same"
    if len(said) == 1:
        return "initial" if real.startswith(said) else None
    if len(said) >= 3 and real.startswith(said):
        return "short"
    if len(said) >= 3 and JaroWinkler.normalized_similarity(said, real) >= CLOSE:
        return "close"
    return None


_PAIR_SCORE = {
    ("same", "same"): 0,
    ("initial", "same"): 1,
    ("short", "same"): 1,
    ("close", "same"): 1,
    ("same", "close"): 1,
    ("same", "short"): 1,
    ("same", "initial"): 1,
    ("close", "close"): 2,
    ("short", "close"): 2,
}


def _styled(like: str, ours: str) -> str:
    """`ours` in the letter case of the word it replaces."""
    if len(like) > 1 and like.isupper():
        return ours.upper()
    if like.islower():
        return ours.lower()
    return ours


def _how(rel: tuple[str, str]) -> str:
    if "initial" in rel:
        return "initial"
    if "close" in rel:
        return "re-spelt"
    if "short" in rel:
        return "short form"
    return "exact"


def _capital(word: str) -> bool:
    return word[:1].isupper()


def transfer(recorded: Recorded, ours: Mapping[str, str]) -> Transfer:
    """The recorded answer with each recorded candidate's name replaced by our name of the
    same group (`ours`: group key -> full name "First Last").

    Mentions are found word by word, as a careful reader finds them, in three passes:

    1. a first name followed by a surname (or a surname, a comma and a first name,
       both written the same), each part written the same, as an initial, a short
       form or a close spelling (Jaro-Winkler >= CLOSE), at least one of them the same
       unless both are close; a part may be written as two words ("Sand Eep" for
       SANDEEP) when they join into it exactly;
    2. two capitalised words of which one is a candidate's first name or surname and
       the other no candidate's name ("Desmond Booker" for DESHAWN BOOKER): the
       candidate whose part it is, among those pass 1 did not find (a surname two
       candidates share is settled that way, as a reader does); only the part that
       names the candidate is replaced, the other word is kept as written;
    3. a lone word (not beside another capitalised word) that is the first name or
       surname of exactly one candidate. A lone word spelt close to a name is left
       alone: "Strong" is close to TRUONG, and prose is not a mention.

    A mention that fits two candidates equally is left as written (`ambiguous`). Case
    is kept (UPPER, Title, lower); an initial stays an initial; a re-spelt or
    shortened part is written as ours exactly (`Swap.how` says which).
    """
    text = recorded.answer
    parts = [tuple(fold(w) for w in n.split()) for n in recorded.names]
    target: list[tuple[str, str] | None] = []
    for g in recorded.groups:
        mine = ours.get(g)
        if mine is None:
            target.append(None)
        else:
            first, _, last = mine.partition(" ")
            target.append((first, last))
    words = list(_WORD.finditer(text))
    folded = [fold(w.group(0)) for w in words]
    spans: dict[int, tuple[int, str]] = {}  # first word index -> (words covered, replacement)
    swaps: list[Swap] = []
    ambiguous: list[str] = []
    found: set[int] = set()

    def used(k: int) -> bool:
        return any(a <= k < a + n for a, (n, _) in spans.items())

    def joined(k: int, n: int) -> str | None:
        if k + n > len(words):
            return None
        for j in range(k, k + n - 1):
            between = text[words[j].end() : words[j + 1].start()]
            if re.fullmatch(r"[ \t]*\.?,?[ \t]*", between) is None:
                return None
        return "".join(folded[k : k + n])

    def replace(k: int, n: int, mine: str, rel: str) -> str:
        w = words[k].group(0)
        wrote = _styled(w, mine[0] if rel == "initial" else mine)
        spans[k] = (n, wrote)
        return wrote

    def _beside_capital(k: int) -> bool:
        return (k > 0 and joined(k - 1, 2) is not None and _capital(words[k - 1].group(0))) or (
            joined(k, 2) is not None and _capital(words[k + 1].group(0))
        )

    # Pass 1: first name and surname together.
    k = 0
    while k < len(words) - 1:
        options: list[tuple[int, int, int, int, bool, tuple[str, str]]] = []
        for nf, nl in ((1, 1), (2, 1), (1, 2), (2, 2)):
            f, whole = joined(k, nf), joined(k, nf + nl)
            if f is None or whole is None:
                continue
            last = whole[len(f) :]
            for i, p in enumerate(parts):
                if target[i] is None or len(p) < 2:
                    continue
                for swapped in (False, True) if (nf, nl) == (1, 1) else (False,):
                    a, b = (p[-1], p[0]) if swapped else (p[0], p[-1])
                    ra, rb = _relation(f, a), _relation(last, b)
                    if ra is None or rb is None:
                        continue
                    if (nf == 2 and ra != "same") or (nl == 2 and rb != "same"):
                        continue
                    rel = (rb, ra) if swapped else (ra, rb)
                    score = _PAIR_SCORE.get(rel)
                    if score is None or (swapped and rel != ("same", "same")):
                        continue
                    options.append((score, nf + nl, i, nf, swapped, rel))
        if not options:
            k += 1
            continue
        best = min((s, n) for s, n, *_ in options)
        winners = {o[2] for o in options if (o[0], o[1]) == best}
        size = best[1]
        said = text[words[k].start() : words[k + size - 1].end()]
        if len(winners) > 1:
            ambiguous.append(said)
            k += size
            continue
        _, _, i, nf, swapped, rel = next(o for o in options if (o[0], o[1]) == best)
        t = target[i]
        assert t is not None
        if swapped:
            wrote = f"{replace(k, 1, t[1], rel[1])} {replace(k + 1, 1, t[0], rel[0])}"
            how = "swapped"
        else:
            wrote = f"{replace(k, nf, t[0], rel[0])} {replace(k + nf, size - nf, t[1], rel[1])}"
            how = _how(rel) if size == 2 else "joined"
        swaps.append(Swap(said, wrote, recorded.groups[i], how))
        found.add(i)
        k += size

    # Pass 2: one part the same, the other no candidate's name.
    known = {x for p in parts for x in p}
    for k in range(len(words) - 1):
        if used(k) or used(k + 1) or joined(k, 2) is None:
            continue
        a, b = words[k].group(0), words[k + 1].group(0)
        if not (_capital(a) and _capital(b)) or (folded[k] in known) == (folded[k + 1] in known):
            continue
        if folded[k] in known:  # the first name as written, the surname not a name shown
            who = [i for i, p in enumerate(parts) if p[0] == folded[k] and i not in found]
            at, j = k, 0
        else:
            who = [i for i, p in enumerate(parts) if p[-1] == folded[k + 1] and i not in found]
            at, j = k + 1, 1
        who = [i for i in who if target[i] is not None]
        if len(who) != 1:
            if who:
                ambiguous.append(f"{a} {b}")
            continue
        t = target[who[0]]
        assert t is not None
        mine = replace(at, 1, t[j], "same")
        spans[k + 1 if j == 0 else k] = (1, b if j == 0 else a)  # kept as written
        wrote = f"{mine} {b}" if j == 0 else f"{a} {mine}"
        swaps.append(Swap(f"{a} {b}", wrote, recorded.groups[who[0]], "one part not shown"))
        found.add(who[0])

    # Pass 3: a part alone, not beside another capitalised word (a two-word mention
    # passes 1 and 2 left is not settled by one of its words).
    for k, w in enumerate(words):
        if used(k) or len(folded[k]) < 2 or _beside_capital(k):
            continue
        hits = [(i, j) for i, p in enumerate(parts) for j, x in enumerate(p) if x == folded[k]]
        if len({i for i, _ in hits}) > 1:
            ambiguous.append(w.group(0))
            continue
        if not hits or target[hits[0][0]] is None:
            continue
        i, j = hits[0]
        t = target[i]
        assert t is not None
        wrote = replace(k, 1, t[0] if j == 0 else t[-1], "same")
        swaps.append(Swap(w.group(0), wrote, recorded.groups[i], "part"))

    pieces: list[str] = []
    at = 0
    for k in sorted(spans):
        n, wrote = spans[k]
        pieces.append(text[at : words[k].start()])
        pieces.append(wrote)
        at = words[k + n - 1].end()
    pieces.append(text[at:])
    return Transfer(recorded, "".join(pieces), tuple(swaps), tuple(ambiguous), dict(ours))


class ReplayPolicy:
    """Answers D5 requests with recorded answers, group for group (see `transfer`).

    `schedule` (optional) says which recorded answers the request with a given user
    text gets (`digest(text)` -> indices into `answers`, one per repeat), so that an
    audit's assignment does not depend on the order the runner sends in; a request
    not in it gets the next recorded answer not yet used. Every transfer is kept in
    `log` by the digest of the request's text.
    """

    def __init__(
        self,
        answers: Sequence[Recorded],
        schedule: Mapping[str, Sequence[int]] | None = None,
        fallback: Policy | None = None,
    ) -> None:
        self.answers = list(answers)
        self.fallback = fallback or always("ABSTAIN")
        self._queues = {k: deque(v) for k, v in (schedule or {}).items()}
        scheduled = {i for v in (schedule or {}).values() for i in v}
        self._free = deque(i for i in range(len(self.answers)) if i not in scheduled)
        self._lock = threading.Lock()
        self.log: dict[str, list[Transfer]] = {}
        self.unscheduled = 0

    @staticmethod
    def digest(user: str) -> str:
        return _digest(user)

    def __call__(self, body: dict[str, Any]) -> str:
        if not is_d5(body):
            return self.fallback(body)
        user = user_text(body)
        key = _digest(user)
        with self._lock:
            queue = self._queues.get(key)
            if queue:
                index = queue.popleft()
            elif self._free:
                index = self._free.popleft()
                self.unscheduled += 1
            else:
                return "I have no more answers to give."
        copies = shown(user)
        ours = {c.group: c.name for c in copies if c.group}
        moved = transfer(self.answers[index], ours)
        with self._lock:
            self.log.setdefault(key, []).append(moved)
        return moved.text
