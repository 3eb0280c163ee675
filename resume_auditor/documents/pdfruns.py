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
import re
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
    icons: list[str] = field(default_factory=list)  # text pypdf decodes from icon fonts

    @property
    def width(self) -> float:
        return self.right - self.left


@dataclass
class _State:
    """The graphics and text state that `q`/`Q` save and restore."""

    fill: float | None = 0.0  # lightness; black is the initial fill colour
    mode: int = 0  # text render mode
    size: float = 0.0  # Tf size
    font: str = ""  # Tf resource name
    char_space: float = 0.0  # Tc
    word_space: float = 0.0  # Tw
    scale: float = 1.0  # Tz / 100
    leading: float = 0.0  # TL
    rise: float = 0.0  # Ts

    def copy(self) -> _State:
        return _State(**self.__dict__)


@dataclass(frozen=True)
class _Show:
    fill: float | None
    mode: int
    size: float  # effective size


@dataclass
class _Font:
    """What decoding and measuring a font's strings needs, built once per font object."""

    encoding: str | dict[int, str]
    to_unicode: dict[Any, Any]
    widths_by_char: dict[str, float]
    default_width: float
    simple: tuple[int, list[float], float] | None  # /Widths of a single-byte font
    icon: bool  # an icon font: its glyphs are pictures, not letters
    composite: bool  # a Type0 font: codes of two bytes (or more), widths from /W
    # single-byte fonts: (text, width) for each of the 256 codes; composite: by code
    table: list[tuple[str, float]] | None = None
    cache: dict[str, tuple[str, float]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.composite:
            return  # decoded code by code, cached
        first, widths, mean = (
            self.simple if self.simple is not None else (0, [], self.default_width)
        )
        table = []
        for code in range(256):
            if isinstance(self.encoding, dict):
                ch = self.encoding.get(code, chr(code))
            else:
                try:
                    ch = bytes((code,)).decode(self.encoding, "replace")
                except LookupError:
                    ch = chr(code)
            index = code - first
            known = 0 <= index < len(widths)
            width = widths[index] if known else self.widths_by_char.get(ch, mean)
            table.append((self.to_unicode.get(ch, ch), width))
        self.table = table


# Icon fonts draw an envelope, a phone or a logo; their "text" is a glyph name
# ("phone-alt", "linkedin-in"), a private-use code or a stray letter, never words.
ICON_FONT = re.compile(
    r"awesome|fontawesome|fa-(?:solid|regular|brands|light|thin|duotone)|academicons|"
    r"glyphicons|material.?(?:icons|symbols)|ionicons|icomoon|fontello|octicons|"
    r"entypo|typicons|feather|remixicon|bootstrap-icons|tabler-icons|simple-icons|"
    r"devicons?|wingdings|webdings|dingbats|marvosym|fontawesome|\bicons?\b",
    re.IGNORECASE,
)


def is_icon_font(name: str) -> bool:
    """Whether a font's /BaseFont names an icon font (subset prefixes like ABCDEF+ ignored)."""
    return bool(ICON_FONT.search(name.split("+", 1)[-1]))


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


def _cid_widths(font: Any) -> tuple[dict[str, float], float]:
    """A composite font's widths by code (its descendant's /W and /DW)."""
    widths: dict[str, float] = {}
    descendant = font["/DescendantFonts"].get_object()[0].get_object()
    default = float(descendant.get("/DW", 1000))
    spec = list(descendant.get("/W", []) or [])
    i = 0
    while i + 1 < len(spec):
        first = int(spec[i])
        nxt = spec[i + 1].get_object() if hasattr(spec[i + 1], "get_object") else spec[i + 1]
        if isinstance(nxt, list):
            for k, w in enumerate(nxt):
                widths[chr(first + k)] = float(w)
            i += 2
        elif i + 2 < len(spec):
            last, w = int(nxt), float(spec[i + 2])
            for code in range(first, min(last, first + 65536) + 1):
                widths[chr(code)] = w
            i += 3
        else:
            break
    return widths, default


def _core_widths(base_font: str) -> dict[str, float]:
    """Widths by character of one of the 14 standard fonts, which carry no /Widths."""
    try:
        from pypdf._codecs.core_font_metrics import CORE_FONT_METRICS
    except ImportError:
        return {}
    metrics = CORE_FONT_METRICS.get(base_font.lstrip("/").split("+", 1)[-1])
    return dict(metrics.character_widths) if metrics is not None else {}


def _load_font(font: Any) -> _Font | None:
    """A font's encoding and ToUnicode map as pypdf reads them, and its widths."""
    try:
        from pypdf._cmap import get_encoding
    except ImportError:  # a pypdf without it: pypdf's own text is used instead
        return None
    try:
        encoding, to_unicode = get_encoding(font)
        icon = is_icon_font(str(font.get("/BaseFont", "")))
        if str(font.get("/Subtype", "")) == "/Type0":
            widths, default = _cid_widths(font)
            return _Font(encoding, to_unicode, widths, default, None, icon, True)
        simple = _font_widths(font)
        if simple is not None and str(font.get("/Subtype", "")) == "/Type3":
            # Type 3 widths are in glyph space: FontMatrix maps them to text space
            matrix = _floats(list(font.get("/FontMatrix", [0.001, 0, 0, 0.001, 0, 0])))
            factor = 1000.0 * matrix[0] if matrix and matrix[0] else 1.0
            first, values, mean_width = simple
            simple = (first, [v * factor for v in values], mean_width * factor)
        mean = simple[2] if simple is not None else 500.0
        core = {} if simple is not None else _core_widths(str(font.get("/BaseFont", "")))
        return _Font(encoding, to_unicode, core, mean, simple, icon, False)
    except Exception:  # a damaged font dictionary: its text is still in pypdf's own text
        logger.debug("could not read a font", exc_info=True)
        return None


_CONTROL_SPACES = str.maketrans(dict.fromkeys("\t\n\r\x0b\x0c\x85\u2028\u2029", " "))
# A jump inside one TJ array wider than this (in ems) starts a new run: tab stops,
# right-aligned dates and column gaps set with one array are separate pieces of text.
_JUMP_EM = 0.8
# A jump at least this wide (in ems) between glyphs is a word space nobody drew.
WORD_GAP_EM = 0.1


class PageCollector:
    """Collects the runs of one page; pass `before` and `after` to `extract_text`.

    pypdf's own extraction buffers the text of a whole line and reports only where
    it starts, so two columns set on one baseline came back as one run, and words
    placed apart without a space glyph came back glued. Here every string shown is
    decoded with pypdf's reading of its font and measured glyph by glyph, which
    gives each run its true start and end.
    """

    def __init__(
        self, page: PageRuns, resources: Any, fonts: dict[Any, _Font | None] | None = None
    ) -> None:
        self.page = page
        self.state = _State()
        self.stack: list[_State] = []
        self.path_box: list[float] | None = None  # x0, y0, x1, y1 of the current path
        self.dark_areas: list[tuple[float, float, float, float]] = []
        self.fonts: dict[Any, _Font | None] = {} if fonts is None else fonts
        self.tm: _Matrix = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
        self.tlm: _Matrix = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
        # (form matrix x outer cm, resources, saved state) for each form XObject entered
        self.forms: list[tuple[_Matrix, Any, _State, list[_State], _Matrix, _Matrix]] = []
        self.entered: list[bool] = []  # for each Do under way: did it enter a form?
        self.by_name: dict[tuple[int, str], _Font | None] = {}  # (resources, Tf name)
        self.outer: _Matrix = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
        self.resources = resources
        self.xobject_kinds = xobject_kinds(resources)
        self.last_y: float | None = None
        self.decoded = True  # False once a string could not be decoded here

    # -- operators -------------------------------------------------------------------
    def before(self, op: bytes, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        handler = _HANDLERS.get(op)
        if handler is None:
            return
        depth = len(self.forms)
        try:
            handler(self, args, _mult(cm, self.outer) if self.forms else cm, tm)
        except Exception:
            # Whatever goes wrong here, pypdf's own text of the page stays whole.
            logger.debug("could not follow %r on page %d", op, self.page.number, exc_info=True)
            self.decoded = False
        finally:
            if op == b"Do":  # pypdf calls `after` for every Do: pop only what this one pushed
                self.entered.append(len(self.forms) > depth)

    def after(self, op: bytes, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        if op == b"Do" and self.entered and self.entered.pop() and self.forms:
            _, self.resources, self.state, self.stack, self.tm, self.tlm = self.forms.pop()
            self.outer = self.forms[-1][0] if self.forms else [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
            try:
                self.xobject_kinds = xobject_kinds(self.resources)
            except Exception:  # pypdf's own text stays whole whatever happens here
                self.decoded = False

    def _push(self, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        self.stack.append(self.state.copy())

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
        if args:
            self.state.font = str(args[0])

    def _begin_text(self, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        self.tm = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
        self.tlm = list(self.tm)

    def _move(self, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        values = _floats(args[:2])
        if values and len(values) == 2:
            self.tlm = _mult([1.0, 0.0, 0.0, 1.0, values[0], values[1]], self.tlm)
            self.tm = list(self.tlm)

    def _move_leading(self, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        values = _floats(args[:2])
        if values and len(values) == 2:
            self.state.leading = -values[1]
            self._move(args, cm, tm)

    def _matrix(self, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        values = _floats(args[:6])
        if values and len(values) == 6:
            self.tm = values
            self.tlm = list(values)

    def _next_line(self, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        self._move([0.0, -self.state.leading], cm, tm)

    def _show_next(self, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        self._next_line([], cm, tm)
        self._show(args, cm, tm)

    def _show_spaced(self, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        values = _floats(args[:2])
        if values and len(values) == 2:
            self.state.word_space, self.state.char_space = values
        self._next_line([], cm, tm)
        self._show(args[2:], cm, tm)

    def _show(self, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        if args:
            self._show_items([args[0]], cm)

    def _show_array(self, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        if args:
            try:
                self._show_items(list(args[0]), cm)
            except TypeError:
                return

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
        kind = self.xobject_kinds.get(name)
        if kind == "/Image":
            self.page.images += 1
            corners = [_apply(cm, px, py) for px, py in ((0, 0), (1, 0), (0, 1), (1, 1))]
            xs, ys = [c[0] for c in corners], [c[1] for c in corners]
            # An image's colours are unknown: treat it as a possible dark background.
            self.dark_areas.append((min(xs), min(ys), max(xs), max(ys)))
        elif kind == "/Form":
            # pypdf reads the form's content next, with its own matrices starting afresh:
            # remember where the form is drawn and which resources its fonts come from.
            try:
                form = self.resources.get_object()["/XObject"].get_object()[name].get_object()
                matrix = _floats(list(form.get("/Matrix", [1, 0, 0, 1, 0, 0]))) or []
                resources = form.get("/Resources", self.resources)
            except (AttributeError, KeyError, TypeError):
                matrix, resources = [], self.resources
            if len(matrix) != 6:
                matrix = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]
            saved = (self.resources, self.state, self.stack, self.tm, self.tlm)
            self.forms.append((_mult(matrix, cm), *saved))
            self.outer = self.forms[-1][0]
            self.resources = resources
            self.state, self.stack = self.state.copy(), []
            self.xobject_kinds = xobject_kinds(resources)

    # -- text ------------------------------------------------------------------------
    def _current_font(self) -> _Font | None:
        here = (id(self.resources), self.state.font)
        if here in self.by_name:
            return self.by_name[here]
        font = self._look_up_font()
        self.by_name[here] = font
        return font

    def _look_up_font(self) -> _Font | None:
        try:
            fonts = self.resources.get_object()["/Font"].get_object()
            ref = fonts.raw_get(self.state.font)
            # pages share their fonts: read each once per document (direct ones per page)
            key: Any = (ref.idnum, ref.generation) if hasattr(ref, "idnum") else id(ref)
            if key not in self.fonts:
                self.fonts[key] = _load_font(ref.get_object())
            return self.fonts[key]
        except (AttributeError, KeyError, TypeError):
            return None

    @staticmethod
    def _decode(data: Any, font: _Font) -> tuple[str, float, int, int]:
        """(text, advance in glyph units, glyphs, single-byte spaces) of one string."""
        raw = bytes(data) if isinstance(data, bytes) else str(data).encode("latin-1", "replace")
        if font.table is not None:  # a single-byte font: one lookup per code
            table = font.table
            pieces = [table[code] for code in raw]
            spaces = raw.count(32)
        else:
            try:
                chars = raw.decode(str(font.encoding), "surrogatepass")
            except (UnicodeDecodeError, LookupError):
                chars = raw.decode("charmap", "surrogatepass")
            cache = font.cache
            pieces = []
            for ch in chars:
                hit = cache.get(ch)
                if hit is None:
                    hit = (
                        font.to_unicode.get(ch, ch),
                        font.widths_by_char.get(ch, font.default_width),
                    )
                    cache[ch] = hit
                pieces.append(hit)
            spaces = 0
        return "".join(p[0] for p in pieces), sum(p[1] for p in pieces), len(pieces), spaces

    def _show_items(self, items: list[Any], cm: _Matrix) -> None:
        state = self.state
        font = self._current_font()
        if font is None:
            self.decoded = False
            return
        size = state.size
        scale = state.scale
        tx = 0.0  # advance along the text line, in unscaled text space units
        parts: list[str] = []
        start = 0.0
        m = _mult(self.tm, cm)
        em = abs(size) * math.hypot(m[0], m[1]) or 1.0

        def flush(end: float) -> None:
            if parts and "".join(parts).strip():
                self._add_run("".join(parts), m, start, end, size)
            parts.clear()

        for item in items:
            if isinstance(item, (bytes, str)):
                text, width, glyphs, spaces = self._decode(item, font)
                if font.icon:
                    flush(tx)  # the icon's place stays empty: its neighbours stay apart
                    self.page.icons.append(text)
                elif text:
                    if not parts:
                        start = tx
                    parts.append(text)
                advance = width / 1000.0 * size + glyphs * state.char_space
                tx += (advance + spaces * state.word_space) * scale
            else:
                try:
                    shift = -float(item) / 1000.0 * size * scale
                except (TypeError, ValueError):
                    continue
                moved = shift * math.hypot(m[0], m[1])
                if moved > _JUMP_EM * em or moved < -_JUMP_EM * em:
                    flush(tx)
                elif moved > WORD_GAP_EM * em and parts and not parts[-1].endswith(" "):
                    parts.append(" ")
                tx += shift
        flush(tx)
        self.tm = _mult([1.0, 0.0, 0.0, 1.0, tx, 0.0], self.tm)

    def _add_run(self, text: str, m: _Matrix, start: float, end: float, size: float) -> None:
        # a run is one piece of one line: tabs and stray line breaks inside it (Quartz
        # writes "\t\r\u00a0" between words) are word spaces
        text = text.translate(_CONTROL_SPACES)
        rise = self.state.rise
        x, y = _apply(m, start, rise)
        x1, _ = _apply(m, end, rise)
        eff = abs(size) * math.hypot(m[2], m[3])
        tilt = 1e-3 * (abs(m[0]) + abs(m[3]))
        # a slanted (oblique) font shears x by y, but its baseline is still level
        upright = abs(m[1]) <= tilt and m[0] > 0 and m[3] > 0
        width = abs(x1 - x) if upright else abs(end - start) * math.hypot(m[0], m[1])
        newline = self.last_y is None or abs(y - self.last_y) > 0.5 * max(eff, 1.0)
        self.last_y = y
        show = _Show(self.state.fill, self.state.mode, eff)
        hidden, confidence = self._hidden([show], x, y, eff, width)
        self.page.runs.append(
            Run(
                text=text,
                x=x,
                y=y,
                size=eff,
                width=width,
                upright=upright,
                order=len(self.page.runs),
                newline_before=newline,
                hidden=hidden,
                hidden_confidence=confidence,
            )
        )

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


def _text_param(name: str) -> _Handler:
    """A handler for Tc, Tw, Tz, TL or Ts: one number into the text state."""

    def handler(self: PageCollector, args: list[Any], cm: _Matrix, tm: _Matrix) -> None:
        values = _floats(args[:1])
        if values:
            setattr(self.state, name, values[0] / 100 if name == "scale" else values[0])

    return handler


_HANDLERS: dict[bytes, _Handler] = {
    b"Tj": PageCollector._show,
    b"TJ": PageCollector._show_array,
    b"'": PageCollector._show_next,
    b'"': PageCollector._show_spaced,
    b"BT": PageCollector._begin_text,
    b"Td": PageCollector._move,
    b"TD": PageCollector._move_leading,
    b"Tm": PageCollector._matrix,
    b"T*": PageCollector._next_line,
    b"Tc": _text_param("char_space"),
    b"Tw": _text_param("word_space"),
    b"Tz": _text_param("scale"),
    b"TL": _text_param("leading"),
    b"Ts": _text_param("rise"),
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


def collect_page(
    page: Any, number: int, fonts: dict[Any, _Font | None] | None = None
) -> tuple[str, PageRuns, bool]:
    """pypdf's own text for `page`, the runs with placement and visibility, and
    whether every string shown could be decoded here (if not, only pypdf's text is whole).
    """
    box = page.cropbox
    runs = PageRuns(
        number=number,
        left=float(min(box.left, box.right)),
        bottom=float(min(box.bottom, box.top)),
        right=float(max(box.left, box.right)),
        top=float(max(box.bottom, box.top)),
    )
    collector = PageCollector(runs, page.get("/Resources"), fonts)
    text = page.extract_text(
        visitor_operand_before=collector.before, visitor_operand_after=collector.after
    )
    return text or "", runs, collector.decoded
