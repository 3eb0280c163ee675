"""A small PDF writer for the sample study and the document test corpus.

Text is set in the PDF standard fonts (Helvetica, Helvetica-Bold), which every
reader has and pypdf extracts, with widths from the AFM metrics matplotlib ships.
It can place text anywhere (two columns, white or tiny text, text off the page)
and draw grey images with no text layer, which is what a scanned page looks like.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

FONTS = {
    "regular": ("F1", "Helvetica", "phvr8a.afm"),
    "bold": ("F2", "Helvetica-Bold", "phvb8a.afm"),
}
LETTER = (612.0, 792.0)


@cache
def _widths(afm_name: str) -> dict[int, float]:
    import matplotlib

    path = Path(matplotlib.get_data_path()) / "fonts" / "afm" / afm_name
    widths: dict[int, float] = {}
    for line in path.read_text(encoding="latin-1").splitlines():
        if not line.startswith("C "):
            continue
        parts = dict(p.strip().split(" ", 1) for p in line.split(";") if " " in p.strip())
        code = int(parts.get("C", "-1"))
        if code >= 0 and "WX" in parts:
            widths[code] = float(parts["WX"])
    return widths


def _encode(text: str) -> bytes:
    return text.encode("cp1252", errors="replace")


def text_width(text: str, size: float, weight: str = "regular") -> float:
    widths = _widths(FONTS[weight][2])
    return sum(widths.get(b, 556.0) for b in _encode(text)) * size / 1000.0


def _escape(data: bytes) -> bytes:
    return data.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")


def wrap(text: str, width: float, size: float, weight: str = "regular") -> list[str]:
    lines: list[str] = []
    current = ""
    for word in text.split():
        candidate = f"{current} {word}".strip()
        if current and text_width(candidate, size, weight) > width:
            lines.append(current)
            current = word
        else:
            current = candidate
    if current:
        lines.append(current)
    return lines


@dataclass
class Page:
    width: float
    height: float
    ops: list[bytes] = field(default_factory=list)
    images: list[tuple[int, int, bytes]] = field(default_factory=list)

    def text(
        self,
        x: float,
        y: float,
        text: str,
        size: float = 10.0,
        weight: str = "regular",
        color: tuple[float, float, float] = (0, 0, 0),
    ) -> None:
        font = FONTS[weight][0]
        r, g, b = color
        self.ops.append(
            b"BT %.3f %.3f %.3f rg /%s %.2f Tf %.2f %.2f Td (%s) Tj ET"
            % (r, g, b, font.encode(), size, x, y, _escape(_encode(text)))
        )

    def paragraph(
        self,
        x: float,
        y: float,
        width: float,
        text: str,
        size: float = 10.0,
        leading: float | None = None,
        weight: str = "regular",
        indent: str = "",
    ) -> float:
        """Wrapped text from the top at y; returns the y below it."""
        leading = leading or size * 1.3
        indent_w = text_width(indent, size, weight)
        for i, line in enumerate(wrap(text, width - indent_w, size, weight)):
            if i == 0:
                self.text(x, y, indent + line, size, weight)
            else:
                self.text(x + indent_w, y, line, size, weight)
            y -= leading
        return y

    def line(self, x1: float, y1: float, x2: float, y2: float, gray: float = 0.6) -> None:
        self.ops.append(b"%.3f G 0.6 w %.2f %.2f m %.2f %.2f l S" % (gray, x1, y1, x2, y2))

    def image(
        self, x: float, y: float, w: float, h: float, px_w: int, px_h: int, gray_pixels: bytes
    ) -> None:
        """A grey image (one byte a pixel) drawn at x, y with size w x h."""
        if len(gray_pixels) != px_w * px_h:
            raise ValueError("pixel data does not match the image size")
        name = len(self.images)
        self.images.append((px_w, px_h, gray_pixels))
        self.ops.append(b"q %.2f 0 0 %.2f %.2f %.2f cm /Im%d Do Q" % (w, h, x, y, name))


class PdfDoc:
    def __init__(self, size: tuple[float, float] = LETTER, title: str = "") -> None:
        self.size = size
        self.title = title
        self.pages: list[Page] = []

    def page(self) -> Page:
        page = Page(*self.size)
        self.pages.append(page)
        return page

    def to_bytes(self, compress: bool = True) -> bytes:
        objects: list[bytes] = []

        def add(obj: bytes) -> int:
            objects.append(obj)
            return len(objects)

        def stream(data: bytes, extra: bytes = b"") -> bytes:
            if compress:
                data = zlib.compress(data)
                extra += b" /Filter /FlateDecode"
            return b"<< /Length %d%s >>\nstream\n" % (len(data), extra) + data + b"\nendstream"

        catalog = add(b"")  # filled below
        pages_id = add(b"")
        font_ids = {
            key: add(
                b"<< /Type /Font /Subtype /Type1 /BaseFont /%s /Encoding /WinAnsiEncoding >>"
                % base.encode()
            )
            for key, (_, base, _) in FONTS.items()
        }
        fonts = b" ".join(b"/%s %d 0 R" % (FONTS[k][0].encode(), i) for k, i in font_ids.items())
        kids = []
        for page in self.pages:
            image_refs = []
            for n, (w, h, pixels) in enumerate(page.images):
                img = add(
                    stream(
                        pixels,
                        b" /Type /XObject /Subtype /Image /Width %d /Height %d "
                        b"/ColorSpace /DeviceGray /BitsPerComponent 8" % (w, h),
                    )
                )
                image_refs.append(b"/Im%d %d 0 R" % (n, img))
            content = add(stream(b"\n".join(page.ops)))
            xobjects = b" /XObject << %s >>" % b" ".join(image_refs) if image_refs else b""
            kids.append(
                add(
                    b"<< /Type /Page /Parent %d 0 R /MediaBox [0 0 %.2f %.2f] "
                    b"/Resources << /Font << %s >>%s >> /Contents %d 0 R >>"
                    % (pages_id, page.width, page.height, fonts, xobjects, content)
                )
            )
        objects[pages_id - 1] = b"<< /Type /Pages /Kids [%s] /Count %d >>" % (
            b" ".join(b"%d 0 R" % k for k in kids),
            len(kids),
        )
        objects[catalog - 1] = b"<< /Type /Catalog /Pages %d 0 R >>" % pages_id
        info = add(
            b"<< /Title (%s) /Producer (Resume Auditor pdfgen) >>" % _escape(_encode(self.title))
        )

        out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
        offsets = []
        for number, obj in enumerate(objects, start=1):
            offsets.append(len(out))
            out += b"%d 0 obj\n" % number + obj + b"\nendobj\n"
        xref = len(out)
        out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
        for off in offsets:
            out += b"%010d 00000 n \n" % off
        out += b"trailer\n<< /Size %d /Root %d 0 R /Info %d 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
            len(objects) + 1,
            catalog,
            info,
            xref,
        )
        return bytes(out)
