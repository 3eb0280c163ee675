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

from collections import Counter
from dataclasses import dataclass

from resume_auditor.documents.pdfruns import PageRuns, Run

# A right column must hold at least this share of the characters in its band (and
# the left column too); right-aligned dates in a one-column resume hold far less.
MIN_COLUMN_SHARE = 0.15
# Runs crossing the gutter inside the band, as a share of the runs there.
MAX_CROSSING_SHARE = 0.1
MIN_COLUMN_LINES = 3


@dataclass(frozen=True)
class Placed:
    """Where a run's text ended up in the page text."""

    start: int
    end: int
    run: Run


def _lines(runs: list[Run]) -> list[list[Run]]:
    """Runs grouped into lines by baseline, top to bottom, each line left to right."""
    ordered = sorted(runs, key=lambda r: (-r.y, r.x))
    lines: list[list[Run]] = []
    base_y = 0.0
    for run in ordered:
        if lines:
            ref = min(max(lines[-1][0].size, 1.0), max(run.size, 1.0))
            if abs(base_y - run.y) <= 0.45 * ref:
                lines[-1].append(run)
                continue
        lines.append([run])
        base_y = run.y
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
            or min(_chars(left), _chars(right)) < MIN_COLUMN_SHARE * total
        ):
            continue
        score = min(_chars(left), _chars(right))
        if best is None or score > best.score:
            best = _Split(gutter, band_bottom, band_top, score)
    return best


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


def _stream_order(runs: list[Run]) -> list[list[Run]]:
    lines: list[list[Run]] = []
    for run in sorted(runs, key=lambda r: r.order):
        if not lines or run.newline_before:
            lines.append([run])
        else:
            lines[-1].append(run)
    return lines


def _join_line(line: list[Run], out: list[str], placed: list[Placed], pos: int) -> int:
    previous: Run | None = None
    for run in line:
        text = run.text
        if previous is None:
            text = text.lstrip()
        elif run.order == previous.order + 1:
            # pypdf itself decided whether a space separates consecutive runs
            if text[:1].isspace():
                text = " " + text.lstrip()
        else:
            text = " " + text.lstrip()
        lead = len(text) - len(text.lstrip())
        out.append(text)
        if text.strip():
            placed.append(Placed(pos + lead, pos + len(text.rstrip()), run))
        pos += len(text)
        previous = run
    return pos


def page_text(page: PageRuns) -> tuple[str, list[Placed], bool]:
    """(text, where each run went, read as two columns?) for one page."""
    runs = [r for r in page.runs if r.text.strip()]
    if not runs:
        return "", [], False
    upright = sum(1 for r in runs if r.upright)
    if upright < 0.8 * len(runs):
        groups_lines = [_stream_order(runs)]
        columns = False
    else:
        groups = _groups(runs, page)
        columns = len(groups) > 1
        groups_lines = [_lines(g) for g in groups]
    out: list[str] = []
    placed: list[Placed] = []
    pos = 0
    for index, lines in enumerate(groups_lines):
        if index:
            out.append("\n\n")  # a blank line between column blocks keeps sections apart
            pos += 2
        for number, line in enumerate(lines):
            if number:
                out.append("\n")
                pos += 1
            pos = _join_line(line, out, placed, pos)
    return "".join(out), placed, columns
