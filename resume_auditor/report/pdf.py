"""The PDF report: the HTML report laid out for print by WeasyPrint.

One source for both: the PDF is the same HTML document, so the two can never
disagree. WeasyPrint needs the Pango text library from the operating system
(Debian/Ubuntu: libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0); without it
the PDF cannot be made and the message says so, while the HTML still can.
"""

from __future__ import annotations

import contextlib
import io
import logging

logger = logging.getLogger(__name__)

#: The Debian/Ubuntu packages WeasyPrint loads at import (checked on a bare Debian 12).
PANGO_PACKAGES = ("libpango-1.0-0", "libpangoft2-1.0-0", "libharfbuzz-subset0")


class PdfUnavailable(RuntimeError):
    """The PDF engine cannot run here; the message says what to install."""


def html_to_pdf(html: str) -> bytes:
    banner = io.StringIO()
    try:
        # Without Pango, WeasyPrint prints a banner to stdout before raising; it would
        # land above our message (and in the middle of `--json` output), so hold it.
        with contextlib.redirect_stdout(banner):
            import weasyprint
    except (ImportError, OSError) as exc:  # OSError: the Pango library is missing
        logger.debug("WeasyPrint could not load: %s %s", exc, banner.getvalue().strip())
        raise PdfUnavailable(
            "The PDF report needs WeasyPrint and the Pango text library. "
            "On Debian or Ubuntu, install it, then write the PDF again:\n\n"
            "    sudo apt-get install " + " ".join(PANGO_PACKAGES) + "\n\n"
            f"On macOS: brew install pango. The HTML report works without it. ({exc})"
        ) from exc
    # WeasyPrint reports CSS it does not support at WARNING; those are layout details,
    # not problems with the report.
    logging.getLogger("weasyprint").setLevel(logging.ERROR)
    logging.getLogger("fontTools").setLevel(logging.ERROR)
    data = weasyprint.HTML(string=html, base_url=None).write_pdf()
    if not isinstance(data, bytes):  # pragma: no cover - write_pdf() without a target returns bytes
        raise PdfUnavailable("The PDF engine returned no document.")
    return data
