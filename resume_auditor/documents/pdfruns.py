"""Text runs of a PDF page with where, how big and in what colour they are drawn.

pypdf's text extraction calls `visitor_text` with each run of text it decodes and
the matrices that place it, and `visitor_operand_before` with every content
stream operator. From the operators we follow what pypdf does not: the fill
colour (`g`, `rg`, `k`, `sc`, `scn` under `q`/`Q`), the text render mode (`Tr`;
3 is invisible) and the areas painted before the text (a dark box behind white
text makes it visible). That is enough to tell white, tiny, invisible and
off-page text from what a reader sees, and gives the positions the layout step
needs for a reading order.

A run's colour is taken from the show operators (`Tj`, `TJ`, `'`, `"`) pypdf
consumed since the previous run; when those disagree the run is counted as
hidden if any of them was, with a lower confidence.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from resume_auditor.documents.findings import FindingKind

logger = logging.getLogger(__name__)

# Text smaller than this (in points, after scaling) cannot be read on paper or screen.
MIN_VISIBLE_PT = 2.5
# Fill lightness (0 black .. 1 white) at or above which text counts as white.
WHITE_LEVEL = 0.93
# A painted area at most this light behind white text makes the text visible.
DARK_BACKGROUND = 0.75
_SHOW_OPS = frozenset({b"Tj", b"TJ", b"'", b'"'})
_FILL_OPS = frozenset({b"f", b"F", b"f*", b"B", b"B*", b"b", b"b*"})
_Matrix = list[float]


def _mult(m: _Matrix, n: _Matrix) -> _Matrix:
    return [
        m[0] * n[0] + m[1] * n[2],
        m[0] * n[1] + m[1] * n[3],
        m[2] * n[0] + m[3] * n[2],
        m[2] * n[1] + m[3] * n[3],
        m[4] * n[0] + m[5] * n[2] + n[4],
        m[4] * n[1] + m[5] * n[3] + n[5],
    ]


def _apply(m: _Matrix, x: float, y: float) -> tuple[float, float]:
    return x * m[0] + y * m[2] + m[4], x * m[1] + y * m[3] + m[5]


def _floats(args: list[Any]) -> list[float] | None:
    try:
        return [float(a) for a in args]
    except (TypeError, ValueError):
        return None


def lightness(components: list[float]) -> float | None:
    """0 (black) .. 1 (white) for a gray, RGB or CMYK fill; None if unknown."""
    c = [min(1.0, max(0.0, v)) for v in components]
    if len(c) == 1:
        return c[0]
    if len(c) == 3:
        return 0.299 * c[0] + 0.587 * c[1] + 0.114 * c[2]
    if len(c) == 4:
        k = c[3]
        r, g, b = ((1 - c[0]) * (1 - k), (1 - c[1]) * (1 - k), (1 - c[2]) * (1 - k))
        return 0.299 * r + 0.587 * g + 0.114 * b
    return None


@dataclass(frozen=True)
class Run:
    """One piece of text as pypdf decoded it, placed on the page."""

    text: str
    x: float  # baseline start, default user space (points)
    y: float
    size: float  # effective font size in points
    width: float  # estimated advance width in points
    upright: bool  # not rotated or mirrored
    order: int  # position in the content stream
    newline_before: bool  # pypdf saw a line break before it
    hidden: FindingKind | None = None
    hidden_confidence: float = 0.0

    @property
    def end(self) -> float:
        return self.x + self.width


@dataclass
class PageRuns:
    number: int  # 1-based
    left: float
    bottom: float
    right: float
    top: float
    runs: list[Run] = field(default_factory=list)
    images: int = 0

    @property
    def width(self) -> float:
        return self.right - self.left


@dataclass
class _State:
    fill: float | None = 0.0  # lightness; black is the initial fill colour
    mode: int = 0  # text render mode
    size: float = 0.0  # Tf size


@dataclass(frozen=True)
class _Show:
    fill: float | None
    mode: int
    size: float  # effective size


def _font_widths(font: Any) -> tuple[int, list[float], float] | None:
    """(first char, widths, mean width) from a simple font's /Widths, if it has them."""
    try:
        widths = font.get("/Widths")
        first = font.get("/FirstChar")
        if widths is None or first is None:
            return None
        values = [float(w) for w in widths.get_object()]
        positive = [w for w in values if w > 0]
        if not positive:
            return None
        return int(first), values, sum(positive) / len(positive)
    except (AttributeError, TypeError, ValueError, KeyError):
        return None


class PageCollector:
    """Collects the runs of one page; pass its two methods to `extract_text`."""

    def __init__(self, page: PageRuns, xobject_kinds: dict[str, str]) -> None:
        self.page = page
        self.xobject_kinds = xobject_kinds
        self.state = _State()
        self.stack: list[_State] = []
        self.pending: list[_Show] = []
        self.path_box: list[float] | None = None  # x0, y0, x1, y1 of the current path
        self.dark_areas: list[tuple[float, float, float, float]] = []
        self.newline = False
        self.widths_cache: dict[int, tuple[int, list[float], float] | None] = {}

    # -- operators -------------------------------------------------------------------
    def before(self, op: bytes, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        handler = _HANDLERS.get(op)
        if handler is not None:
            handler(self, args, cm, tm)

    def _show(self, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        m = _mult(tm, cm)
        scale = math.hypot(m[2], m[3])
        self.pending.append(_Show(self.state.fill, self.state.mode, self.state.size * scale))

    def _push(self, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        self.stack.append(_State(self.state.fill, self.state.mode, self.state.size))

    def _pop(self, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        if self.stack:
            self.state = self.stack.pop()

    def _gray(self, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        values = _floats(args)
        self.state.fill = lightness(values) if values else None

    def _colourspace(self, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        self.state.fill = 0.0  # a new colour space starts at its black/initial colour

    def _sc(self, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        values = _floats([a for a in args if not isinstance(a, str)])
        self.state.fill = lightness(values) if values else None

    def _mode(self, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        values = _floats(args[:1])
        self.state.mode = int(values[0]) if values else 0

    def _font(self, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        values = _floats(args[1:2])
        if values:
            self.state.size = values[0]

    def _grow(self, cm: _Matrix, points: list[tuple[float, float]]) -> None:
        for px, py in points:
            x, y = _apply(cm, px, py)
            if self.path_box is None:
                self.path_box = [x, y, x, y]
            else:
                box = self.path_box
                box[0], box[1] = min(box[0], x), min(box[1], y)
                box[2], box[3] = max(box[2], x), max(box[3], y)

    def _path(self, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        values = _floats(args)
        if values:
            self._grow(cm, list(zip(values[0::2], values[1::2], strict=False)))

    def _rect(self, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        values = _floats(args[:4])
        if values and len(values) == 4:
            x, y, w, h = values
            self._grow(cm, [(x, y), (x + w, y + h), (x, y + h), (x + w, y)])

    def _fill(self, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        box = self.path_box
        fill = self.state.fill
        if box is not None and (fill is None or fill <= DARK_BACKGROUND):
            self.dark_areas.append((box[0], box[1], box[2], box[3]))
        self.path_box = None

    def _end_path(self, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        self.path_box = None

    def _draw(self, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        name = str(args[0]) if args else ""
        if self.xobject_kinds.get(name) == "/Image":
            self.page.images += 1
            corners = [_apply(cm, px, py) for px, py in ((0, 0), (1, 0), (0, 1), (1, 1))]
            xs, ys = [c[0] for c in corners], [c[1] for c in corners]
            # An image's colours are unknown: treat it as a possible dark background.
            self.dark_areas.append((min(xs), min(ys), max(xs), max(ys)))

    # -- text ------------------------------------------------------------------------
    def text(self, text: str, cm: _Matrix, tm: _Matrix, font: Any, font_size: float) -> None:
        if not text:
            return
        if not text.strip():
            if "\n" in text:
                self.newline = True
            return
        shows, self.pending = self.pending, []
        m = _mult(tm, cm)
        size = abs(font_size) * math.hypot(m[2], m[3])
        width = self._width(text.strip(), font) * abs(font_size) * math.hypot(m[0], m[1])
        upright = abs(m[1]) < 1e-6 and abs(m[2]) < 1e-6 and m[0] > 0 and m[3] > 0
        newline = self.newline or text.startswith("\n")
        self.newline = text.endswith("\n")
        x, y = m[4], m[5]
        hidden, confidence = self._hidden(shows, x, y, size, width)
        self.page.runs.append(
            Run(
                text=text.strip("\n"),
                x=x,
                y=y,
                size=size,
                width=width,
                upright=upright,
                order=len(self.page.runs),
                newline_before=newline,
                hidden=hidden,
                hidden_confidence=confidence,
            )
        )

    def _width(self, text: str, font: Any) -> float:
        """Advance width of `text` in text space units per point of font size."""
        key = id(font)
        if key not in self.widths_cache:
            self.widths_cache[key] = _font_widths(font) if font is not None else None
        known = self.widths_cache[key]
        if known is None:
            base = str(font.get("/BaseFont", "")) if font is not None else ""
            mono = "Courier" in base or "Mono" in base
            return len(text) * (0.6 if mono else 0.5)
        first, widths, mean = known
        total = 0.0
        for ch in text:
            index = ord(ch) - first
            total += widths[index] if 0 <= index < len(widths) and widths[index] > 0 else mean
        return total / 1000.0

    def _behind_is_dark(self, x: float, y: float, size: float, width: float) -> bool:
        cx, cy = x + width / 2, y + size / 3
        return any(x0 <= cx <= x1 and y0 <= cy <= y1 for x0, y0, x1, y1 in self.dark_areas)

    def _hidden(
        self, shows: list[_Show], x: float, y: float, size: float, width: float
    ) -> tuple[FindingKind | None, float]:
        page = self.page
        slack = 1.0
        if (
            x > page.right + slack
            or x + max(width, 0.1) < page.left - slack
            or y > page.top + slack
            or y + 0.8 * size < page.bottom - slack
        ):
            return FindingKind.OFF_PAGE_TEXT, 0.95
        if not shows:
            shows = [_Show(self.state.fill, self.state.mode, size)]
        share = 1.0 / len(shows)
        invisible = sum(share for s in shows if s.mode in (3, 7))
        if invisible:
            # Scanned pages with OCR carry an invisible text layer over the image: normal.
            if page.images:
                return None, 0.0
            return FindingKind.INVISIBLE_TEXT, 0.6 + 0.35 * invisible
        tiny = sum(share for s in shows if 0 < s.size < MIN_VISIBLE_PT)
        if 0 < size < MIN_VISIBLE_PT:
            tiny = 1.0
        if tiny:
            return FindingKind.TINY_TEXT, 0.6 + 0.35 * tiny
        white = sum(share for s in shows if s.fill is not None and s.fill >= WHITE_LEVEL)
        if white and not self._behind_is_dark(x, y, size, width):
            return FindingKind.WHITE_TEXT, 0.6 + 0.35 * white
        return None, 0.0


_Handler = Callable[[PageCollector, list[Any], _Matrix, _Matrix], None]
_HANDLERS: dict[bytes, _Handler] = {
    **dict.fromkeys(_SHOW_OPS, PageCollector._show),
    b"q": PageCollector._push,
    b"Q": PageCollector._pop,
    b"g": PageCollector._gray,
    b"rg": PageCollector._gray,
    b"k": PageCollector._gray,
    b"cs": PageCollector._colourspace,
    b"sc": PageCollector._sc,
    b"scn": PageCollector._sc,
    b"Tr": PageCollector._mode,
    b"Tf": PageCollector._font,
    b"m": PageCollector._path,
    b"l": PageCollector._path,
    b"c": PageCollector._path,
    b"v": PageCollector._path,
    b"y": PageCollector._path,
    b"re": PageCollector._rect,
    **dict.fromkeys(_FILL_OPS, PageCollector._fill),
    b"n": PageCollector._end_path,
    b"S": PageCollector._end_path,
    b"s": PageCollector._end_path,
    b"Do": PageCollector._draw,
}


def xobject_kinds(resources: Any) -> dict[str, str]:
    """Name -> subtype ("/Image", "/Form") of a page's XObjects."""
    out: dict[str, str] = {}
    try:
        if resources is not None:
            resources = resources.get_object()
        xobjects = resources.get("/XObject") if resources is not None else None
        if xobjects is None:
            return out
        xobjects = xobjects.get_object()
        for name in xobjects:
            out[str(name)] = str(xobjects[name].get_object().get("/Subtype", ""))
    except (AttributeError, KeyError, TypeError, ValueError):
        logger.debug("could not read the page's XObjects", exc_info=True)
    return out


def collect_page(page: Any, number: int) -> tuple[str, PageRuns]:
    """pypdf's own text for `page` and the runs with their placement and visibility."""
    box = page.cropbox
    runs = PageRuns(
        number=number,
        left=float(min(box.left, box.right)),
        bottom=float(min(box.bottom, box.top)),
        right=float(max(box.left, box.right)),
        top=float(max(box.bottom, box.top)),
    )
    collector = PageCollector(runs, xobject_kinds(page.get("/Resources")))
    text = page.extract_text(visitor_operand_before=collector.before, visitor_text=collector.text)
    return text or "", runs
