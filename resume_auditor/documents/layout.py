"""A reading order for a page's text runs, columns included.

Lines are runs whose baselines agree, read left to right, top to bottom. A page
is read as two columns when a gutter exists: a position where many runs start
(the right column's margin) with text on both sides over a shared height band
and almost nothing crossing it. Then everything above the band is read first,
the band's left column next and its right column after, and whatever lies
below last; a run that spans the gutter inside the band (a full-width heading)
splits the band there. This keeps each column's sections whole, where reading
straight across would interleave "EXPERIENCE" with "SKILLS" line by line.

Dates aligned to the right margin of a one-column resume also start at a shared
position; they are told apart by the long lines that cross their "gutter" and
by how little text they hold.

Pages with rotated text fall back to pypdf's own content-stream order.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from collections import Counter
from dataclasses import dataclass

from resume_auditor.documents.pdfruns import WORD_GAP_EM, PageRuns, Run

# A right column must hold at least this share of the characters in its band (and
# the left column too); right-aligned dates in a one-column resume hold far less.
MIN_COLUMN_SHARE = 0.15
# Runs crossing the gutter inside the band, as a share of the runs there.
MAX_CROSSING_SHARE = 0.1
MIN_COLUMN_LINES = 3
# A light column is a sidebar when fewer of its lines than this share have a partner
# on the same baseline across the gutter.
SIDEBAR_MAX_PAIRED = 0.5
# Runs on one line further apart than this (in ems) are separate groups: a column
# gap, a tab stop, a right-aligned date.
CHUNK_GAP_EM = 1.0
# Columns are looked for inside columns this many levels deep (grids in a column).
MAX_NESTING = 3


@dataclass(frozen=True)
class Placed:
    """Where a run's text ended up in the page text."""

    start: int
    end: int
    run: Run


def _overlaps(run: Run, line: list[Run]) -> bool:
    """Whether `run` lies above or below some run of `line` rather than beside it."""
    slack = 0.1 * run.size
    return any(r.x < run.end - slack and run.x < r.end - slack for r in line)


def _lines(runs: list[Run]) -> list[list[Run]]:
    """Runs grouped into lines by baseline, top to bottom, each line left to right.

    A line's baseline is that of its largest text, so a superscript ("1st"), a
    lowered letter (the E of LaTeX) or a small symbol joins the line it sits on.
    """
    ordered = sorted(runs, key=lambda r: (-r.y, r.x))
    lines: list[list[Run]] = []
    base_y = 0.0
    base_size = 0.0
    for run in ordered:
        if lines:
            small = min(max(base_size, 1.0), max(run.size, 1.0))
            big = max(base_size, run.size, 1.0)
            # same size: within 0.45 of it; a smaller run *beside* bigger text (not
            # under it, like a subtitle under a name): within 0.45 of the bigger
            beside = small < 0.85 * big and not _overlaps(run, lines[-1])
            if abs(base_y - run.y) <= 0.45 * (big if beside else small):
                lines[-1].append(run)
                if run.size > base_size:
                    base_y, base_size = run.y, run.size
                continue
        lines.append([run])
        base_y, base_size = run.y, run.size
    return [sorted(line, key=lambda r: r.x) for line in lines]


def _line_count(runs: list[Run]) -> int:
    return len(_lines(runs))


def _chars(runs: list[Run]) -> int:
    return sum(len(r.text.strip()) for r in runs)


@dataclass(frozen=True)
class _Split:
    gutter: float
    band_bottom: float
    band_top: float
    score: int


def _find_gutter(runs: list[Run], page: PageRuns) -> _Split | None:
    cand = [r for r in runs if r.upright and r.text.strip() and r.hidden is None]
    if len(cand) < 2 * MIN_COLUMN_LINES:
        return None
    lo, hi = page.left + 0.2 * page.width, page.left + 0.8 * page.width
    starts = Counter(round(r.x) for r in cand if lo < r.x < hi)
    best: _Split | None = None
    tried: set[int] = set()
    for x, _count in starts.most_common():
        if x in tried or sum(starts[x + d] for d in (-2, -1, 0, 1, 2)) < MIN_COLUMN_LINES:
            continue
        tried.update(range(x - 2, x + 3))
        gutter = x - 2.5
        right = [r for r in cand if r.x >= gutter]
        band_bottom = min(r.y for r in right) - 2
        band_top = max(r.y + r.size for r in right) + 2
        in_band = [r for r in cand if r.x < gutter and band_bottom <= r.y <= band_top]
        left = [r for r in in_band if not _crosses(r, gutter)]
        crossing = [r for r in in_band if _crosses(r, gutter)]
        total = _chars(left) + _chars(right)
        if (
            _line_count(right) < MIN_COLUMN_LINES
            or _line_count(left) < MIN_COLUMN_LINES
            or len(crossing) > MAX_CROSSING_SHARE * (len(left) + len(right))
        ):
            continue
        if min(_chars(left), _chars(right)) < MIN_COLUMN_SHARE * total and not _sidebar(
            left, right
        ):
            continue
        score = min(_chars(left), _chars(right))
        # the columns start where both have text: a title set to the right under a
        # full-width name belongs to the header above them
        band_top = min(band_top, max(r.y + r.size for r in left) + 2)
        if best is None or score > best.score:
            best = _Split(gutter, band_bottom, band_top, score)
    return best


def _paired_share(side: list[Run], other: list[Run]) -> float:
    """The share of `side`'s lines that have text of `other` on the same baseline."""
    lines = _lines(side)
    if not lines:
        return 0.0
    bases = sorted(r.y for r in other)
    paired = 0
    for line in lines:
        y, tolerance = line[0].y, 0.3 * max(line[0].size, 1.0)
        at = bisect.bisect_left(bases, y - tolerance)
        if at < len(bases) and bases[at] <= y + tolerance:
            paired += 1
    return paired / len(lines)


def _sidebar(left: list[Run], right: list[Run]) -> bool:
    """A light column beside a heavy one is a sidebar, not labels or dates.

    Right-aligned dates, and labels or dates in a left margin, sit on the baseline of
    the entry they belong to: read across, each line is right. A sidebar's lines
    (contact, skills) keep their own spacing, so most of them have no partner on
    the other side, and reading across would interleave unrelated text.
    """
    light, heavy = (left, right) if _chars(left) < _chars(right) else (right, left)
    if _line_count(light) <= MIN_COLUMN_LINES:
        return False
    return _paired_share(light, heavy) < SIDEBAR_MAX_PAIRED


def _crosses(run: Run, gutter: float) -> bool:
    # the width is estimated, so forgive a run that seems to overshoot a little
    return run.x + 0.9 * run.width > gutter + 2


def _groups(runs: list[Run], page: PageRuns) -> list[list[Run]]:
    """Runs in reading-order groups; each group is read as a single column."""
    split = _find_gutter(runs, page)
    if split is None:
        return [runs]
    # A left column longer than the right one runs on below the band, down to the
    # first line that spans the gutter (a full-width footer), which ends both columns.
    spanning_below = [
        r.y
        for r in runs
        if r.y < split.band_bottom and r.x < split.gutter and _crosses(r, split.gutter)
    ]
    bottom = max(spanning_below) + 0.01 if spanning_below else -float("inf")
    above = [r for r in runs if r.y > split.band_top]
    below = [r for r in runs if r.y < bottom]
    band = [r for r in runs if bottom <= r.y <= split.band_top]
    crossing = sorted(
        (r for r in band if r.x < split.gutter and _crosses(r, split.gutter)),
        key=lambda r: -r.y,
    )
    cut_ids = {id(r) for r in crossing}
    segments: list[list[Run]] = [[] for _ in range(len(crossing) + 1)]
    cut_lines: list[list[Run]] = [[c] for c in crossing]
    for run in band:
        if id(run) in cut_ids:
            continue
        same = [i for i, c in enumerate(crossing) if abs(c.y - run.y) <= 0.45 * max(c.size, 1)]
        if same:
            cut_lines[same[0]].append(run)
        else:
            segments[sum(1 for c in crossing if c.y > run.y)].append(run)
    groups: list[list[Run]] = [above] if above else []
    for index, segment in enumerate(segments):
        groups.append([r for r in segment if r.x < split.gutter])
        groups.append([r for r in segment if r.x >= split.gutter])
        if index < len(cut_lines):
            groups.append(cut_lines[index])
    if below:
        groups.append(below)
    return [g for g in groups if g]


def _nested_groups(runs: list[Run], page: PageRuns, depth: int) -> list[list[Run]]:
    """Groups within groups: a grid of cells inside the right column is read cell by cell."""
    groups = _groups(runs, page)
    if depth <= 1 or len(groups) == 1:
        return groups
    out: list[list[Run]] = []
    for group in groups:
        out.extend(_nested_groups(group, page, depth - 1))
    return out


def _stream_order(runs: list[Run]) -> list[list[Run]]:
    lines: list[list[Run]] = []
    for run in sorted(runs, key=lambda r: r.order):
        if not lines or run.newline_before:
            lines.append([run])
        else:
            lines[-1].append(run)
    return lines


def _tracking(line: list[Run]) -> float:
    """Extra space set between letters (CSS letter-spacing), in ems, or 0.

    Measured between glyphs drawn one by one; most such pairs sit inside words, so
    the median is the letter spacing and word gaps stand out above it.
    """
    gaps = [
        max(0.0, b.x - a.end) / max(min(a.size, b.size), 1.0)
        for a, b in zip(line, line[1:], strict=False)
        if len(a.text) == 1 and len(b.text) == 1 and -0.5 * a.size < b.x - a.end < a.size
    ]
    if len(gaps) < 4:
        return 0.0
    gaps.sort()
    median = gaps[len(gaps) // 2]
    # letter spacing is even: most gaps sit at the median; ragged gaps are words
    even = sum(1 for g in gaps if abs(g - median) <= 0.04) >= 0.6 * len(gaps)
    return median if even else 0.0


def _glue(previous: Run, run: Run, tracking: float = 0.0) -> str:
    """What goes between two runs of one word group: a space or nothing.

    The glyphs' own positions decide: a gap of a good part of a space is a word
    break even when no space glyph was drawn (Chrome, Skia, LaTeX set words apart
    this way), and letters set close together are one word however many pieces
    the PDF drew them in.
    """
    if previous.text.endswith(" ") or run.text.startswith(" "):
        return ""
    gap = run.x - previous.end
    return " " if gap > (WORD_GAP_EM + tracking) * min(previous.size, run.size) else ""


def _chunks(line: list[Run]) -> list[tuple[Run, list[tuple[int, Run]]]]:
    """A line's runs merged into word groups: (group as one run, [(offset, run)]).

    Runs closer than a column gap belong to one group; a hidden run is never
    merged with visible text, so its finding keeps its own span.
    """
    out: list[tuple[Run, list[tuple[int, Run]]]] = []
    text: list[str] = []
    parts: list[tuple[int, Run]] = []
    first: Run | None = None
    last: Run | None = None
    length = 0

    def close() -> None:
        if first is None or last is None:
            return
        joined = "".join(text)
        out.append(
            (
                Run(
                    text=joined,
                    x=first.x,
                    y=first.y,
                    size=max(r.size for _, r in parts),
                    width=max(last.end, first.end) - first.x,
                    upright=True,
                    order=min(r.order for _, r in parts),
                    newline_before=False,
                    hidden=first.hidden,
                    hidden_confidence=max(r.hidden_confidence for _, r in parts),
                ),
                list(parts),
            )
        )

    tracking = _tracking(line)
    for run in line:
        if last is not None and first is not None:
            if (
                run.text == last.text
                and abs(run.x - last.x) < min(0.3 * run.width, 0.08 * run.size)
                and abs(run.y - last.y) < 0.08 * run.size
            ):
                continue  # drawn twice a hair apart to look bold: read once
            gap = run.x - last.end
            same = run.hidden == first.hidden
            if same and -0.5 * run.size < gap < CHUNK_GAP_EM * min(run.size, last.size):
                glue = _glue(last, run, tracking)
                text.append(glue + run.text)
                parts.append((length + len(glue), run))
                length += len(glue) + len(run.text)
                last = run if run.end >= last.end else last
                continue
            close()
        first = last = run
        text = [run.text]
        parts = [(0, run)]
        length = len(run.text)
    close()
    return out


def _join_line(
    line: list[Run],
    parts: dict[int, list[tuple[int, Run]]],
    out: list[str],
    placed: list[Placed],
    pos: int,
) -> int:
    for index, chunk in enumerate(line):
        text = chunk.text.strip() if index == 0 else " " + chunk.text.strip()
        lead = len(chunk.text) - len(chunk.text.lstrip()) - (1 if index else 0)
        out.append(text)
        for offset, run in parts.get(id(chunk), [(0, chunk)]):
            start = pos + offset - lead
            placed.append(Placed(start, start + len(run.text.rstrip()), run))
        pos += len(text)
    return pos


def page_text(page: PageRuns) -> tuple[str, list[Placed], bool]:
    """(text, where each run went, read as two columns?) for one page.

    Pages with rotated text give ("", [], False): the caller keeps pypdf's text.
    """
    runs = [r for r in page.runs if r.text.strip()]
    if not runs:
        return "", [], False
    upright = sum(1 for r in runs if r.upright)
    if upright < 0.8 * len(runs):
        return "", [], False
    parts: dict[int, list[tuple[int, Run]]] = {}
    chunks: list[Run] = []
    for line in _lines([r for r in runs if r.upright]):
        for chunk, pieces in _chunks(line):
            chunks.append(chunk)
            parts[id(chunk)] = pieces
    groups = _nested_groups(chunks, page, MAX_NESTING)
    columns = len(groups) > 1
    turned = [r for r in runs if not r.upright]
    if turned:  # a few rotated lines (a vertical label): last, in drawing order
        groups.append(turned)
    out: list[str] = []
    placed: list[Placed] = []
    pos = 0
    for index, group in enumerate(groups):
        if index:
            out.append("\n\n")  # a blank line between column blocks keeps sections apart
            pos += 2
        lines = _lines(group) if group[0].upright else _stream_order(group)
        for number, line in enumerate(lines):
            if number:
                out.append("\n")
                pos += 1
            pos = _join_line(line, parts, out, placed, pos)
    return "".join(out), placed, columns


# -- checking a page's layout against pypdf's own reading -------------------------------

_EDGE = re.compile(r"^[\W_]+|[\W_]+$")
_CAMEL_GLUE = re.compile(r"[a-z]{3}[A-Z][a-z]{2}")
# The layout may drop this share of pypdf's letters (faux bold drawn twice, icons)
# before its reading is taken to have lost text.
MAX_LOST_CHARS = 0.02
# Below this share of pypdf's words found whole, the two readings disagree on words.
MIN_WORD_AGREEMENT = 0.97
# A reading this share of whose words look glued or broken is visibly worse.
CLEARLY_ODD = 0.02


@dataclass(frozen=True)
class Verdict:
    """Which reading of a page to keep, and how far the two agree."""

    keep_layout: bool
    agreement: float  # share of pypdf's words found whole in the layout's text
    lost_chars: float  # share of pypdf's letters missing from the layout's text
    sure: bool  # no need to ask the user to check the page


def words(text: str) -> list[str]:
    """Normalised word tokens, punctuation at the edges dropped."""
    out = []
    for raw in unicodedata.normalize("NFKC", text).split():
        raw = raw.replace("\u00ad", "-")
        token = _EDGE.sub("", raw)
        if token and raw.endswith("-") and token[-1:].isalpha():
            token += "-"  # a word hyphenated at the end of a line: its second half follows
        # pictographs, private-use codes and pilcrows come from icon fonts
        junk = any(unicodedata.category(c) in ("Co", "So", "Cn") or c == "\u00b6" for c in token)
        if token and not junk:
            out.append(token)
    return out


def _alnum(tokens: list[str]) -> Counter[str]:
    """Letters and digits of a reading; spacing and punctuation do not count."""
    counts = Counter("".join(tokens))
    for ch in [c for c in counts if not c.isalnum()]:
        del counts[ch]
    return counts


def _without_icons(tokens: list[str], icons: list[str]) -> list[str]:
    drop = Counter(w for icon in icons for w in words(icon))
    out = []
    for token in tokens:
        if drop[token] > 0:
            drop[token] -= 1
            continue
        out.append(token)
    return out


def _once(tokens: list[str], laid: set[str]) -> list[str]:
    """Text drawn twice to look bold, read once: pypdf gives "Markdown Markdown" or
    "MarkdownMarkdown" where the layout reads "Markdown"."""
    out: list[str] = []
    for token in tokens:
        half = len(token) // 2
        if len(token) % 2 == 0 and token[:half] == token[half:] and token[:half] in laid:
            token = token[:half]
        if out and token == out[-1]:
            continue
        out.append(token)
    return out


def _agreement(plain: list[str], laid: list[str]) -> float:
    """Share of `plain` tokens found whole in `laid`, pieces of one word counted whole."""
    if not plain:
        return 1.0
    pool = Counter(laid)
    found = [False] * len(plain)
    for i, token in enumerate(plain):
        if i and token == plain[i - 1] and found[i - 1]:
            found[i] = True  # drawn twice (faux bold): pypdf reads it twice
        elif pool[token] > 0:
            pool[token] -= 1
            found[i] = True
    for i in range(len(plain)):
        if found[i]:
            continue
        for width in range(min(12, len(plain) - i), 1, -1):
            window = plain[i : i + width]
            if any(found[i : i + width]) or not _broken(window):
                continue
            for whole in ("".join(w.rstrip("-") for w in window), "".join(window)):
                if pool[whole] > 0:
                    pool[whole] -= 1
                    for k in range(i, i + width):
                        found[k] = True
                    break
            if found[i]:
                break
    return sum(found) / len(plain)


def _broken(pieces: list[str]) -> bool:
    """Whether pieces look like one word cut up ("JA R E D", "sub-" "missions"), not
    whole words run together."""
    if len(pieces) == 2 and pieces[0].endswith("-"):
        return True
    return sum(1 for p in pieces if len(p) > 2) <= 1


def _oddness(tokens: list[str]) -> float:
    """How glued or broken a reading looks: long camel-case joins and stray letters."""
    if not tokens:
        return 0.0
    odd = 0
    for token in tokens:
        stray = len(token) == 1 and token.isalpha() and token not in "aAI"
        glued = (len(token) >= 20 and token.isalpha()) or _CAMEL_GLUE.search(token)
        if stray or glued:
            odd += 1
    return odd / len(tokens)


def compare_readings(layout: str, plain: str, icons: list[str]) -> Verdict:
    """Compare the layout's reading of a page with pypdf's plain reading.

    pypdf reads in content-stream order, which is wrong for some layouts but never
    loses a glyph, so it is the check on the layout: if the layout lost letters,
    pypdf's text is kept; if the two agree letter for letter but cut words
    differently, the one that looks less glued or broken is kept (the layout's on
    a tie, for its reading order). Text drawn in icon fonts is left out of both.
    """
    if not icons and Counter(layout.split()) == Counter(plain.split()):
        return Verdict(True, 1.0, 0.0, True)  # the same words, perhaps in another order
    laid_words = words(layout)
    plain_words = _once(_without_icons(words(plain), icons), set(laid_words))
    want = _alnum(plain_words)
    total = sum(want.values())
    lost = sum((want - _alnum(laid_words)).values()) / total if total else 0.0
    agreement = _agreement(plain_words, laid_words)
    if lost > MAX_LOST_CHARS:
        return Verdict(False, agreement, lost, False)
    if agreement >= MIN_WORD_AGREEMENT:
        return Verdict(True, agreement, lost, True)
    laid_odd, plain_odd = _oddness(laid_words), _oddness(plain_words)
    # pypdf's words visibly glued ("Bethechangethatyou") where the layout's are not
    clearly = plain_odd >= CLEARLY_ODD and laid_odd <= 0.5 * plain_odd
    return Verdict(laid_odd <= plain_odd, agreement, lost, clearly)
