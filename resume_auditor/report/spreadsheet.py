"""Cases, judgments and metrics as CSV files and as one XLSX workbook.

Spreadsheets run formulas: a cell that starts with "=", "+", "-" or "@" is code to
Excel and LibreOffice, and a model's justification (or a resume's injected text)
can start with one. The XLSX writes every text as text, so nothing is changed.
CSV has no such type, so free-text columns of the CSV files get a leading
apostrophe on a cell that starts with one of these characters (OWASP's advice for
CSV injection); the bundle keeps the exact text.
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

import pandas as pd
from openpyxl import Workbook
from openpyxl.cell import WriteOnlyCell
from openpyxl.cell.cell import ILLEGAL_CHARACTERS_RE
from openpyxl.styles import Font
from openpyxl.utils import get_column_letter

from resume_auditor.report.atomic import write_atomic, write_bytes_atomic

XLSX_CELL_LIMIT = 32767
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
TEXT_COLUMNS = frozenset(
    {
        "differs",
        "name_a",
        "name_b",
        "justification",
        "title",
        "flag",
        "note",
        "reading",
        "error",
        "parsed",
    }
)


def _csv_safe(value: Any) -> Any:
    if isinstance(value, str) and value.startswith(FORMULA_START):
        return "'" + value
    return value


def csv_bytes(frame: pd.DataFrame) -> bytes:
    out = frame.copy()
    for column in out.columns:
        if column in TEXT_COLUMNS:
            out[column] = out[column].map(_csv_safe)
    buffer = io.StringIO()
    out.to_csv(buffer, index=False, quoting=csv.QUOTE_NONNUMERIC, lineterminator="\n")
    return buffer.getvalue().encode("utf-8")


def write_csv_dir(frames: dict[str, pd.DataFrame], directory: str | Path) -> list[Path]:
    """One `<name>.csv` per frame in `directory` (created if needed), each written whole."""
    directory = Path(directory)
    if directory.exists() and not directory.is_dir():
        raise NotADirectoryError(f"{directory} is a file, not a folder.")
    return [
        write_bytes_atomic(directory / f"{name}.csv", csv_bytes(f)) for name, f in frames.items()
    ]


def _cell_value(value: Any) -> Any:
    """A value openpyxl stores as it is: NaN/NA as empty, text cleaned of illegal characters."""
    if value is None or value is pd.NA:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item") and not isinstance(value, str):  # numpy scalars
        value = value.item()
    if isinstance(value, str):
        value = ILLEGAL_CHARACTERS_RE.sub("", value)
        if len(value) > XLSX_CELL_LIMIT:
            value = value[: XLSX_CELL_LIMIT - 40] + " … [cut: see the CSV or the bundle]"
    return value


def _sheet(wb: Workbook, title: str, frame: pd.DataFrame, widths: dict[str, int]) -> None:
    ws = wb.create_sheet(title)
    ws.freeze_panes = "A2"
    for i, column in enumerate(frame.columns, start=1):
        ws.column_dimensions[get_column_letter(i)].width = widths.get(column, 14)
    bold = Font(bold=True)
    header = []
    for column in frame.columns:
        cell = WriteOnlyCell(ws, value=str(column))
        cell.font = bold
        header.append(cell)
    ws.append(header)
    for row in frame.itertuples(index=False, name=None):
        cells: list[Any] = []
        for value in row:
            value = _cell_value(value)
            if isinstance(value, str) and value.startswith("="):
                # openpyxl would store it as a formula: a typed cell keeps it text
                cell = WriteOnlyCell(ws, value=value)
                cell.data_type = "s"
                value = cell
            cells.append(value)
        ws.append(cells)


WIDTHS = {
    "differs": 50,
    "justification": 70,
    "reading": 70,
    "note": 40,
    "flag": 40,
    "title": 34,
    "metric": 40,
    "error": 60,
    "name_a": 22,
    "name_b": 22,
    "model_version": 24,
    "received_at": 26,
}


def write_xlsx(
    path: str | Path, about: list[tuple[str, str]], frames: dict[str, pd.DataFrame]
) -> Path:
    """A workbook: an About sheet, then one sheet per frame (sheet name -> frame)."""
    wb = Workbook(write_only=True)
    _sheet(wb, "About", pd.DataFrame(about, columns=["", "What"]), {"": 30, "What": 100})
    for title, frame in frames.items():
        _sheet(wb, title, frame, WIDTHS)
    return write_atomic(path, wb.save)
