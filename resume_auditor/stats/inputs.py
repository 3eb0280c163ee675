"""The tidy tables the metrics read, and plain checks of them.

Each design's metrics take one row per answer (or per candidate) with the
columns listed here; docs/stats-inputs.md documents the same specs for the
people who build the tables (variants, runner, workflow). A table that does not
fit gets a `StatsInputError` saying which column and which rows are wrong, never
a KeyError from deep inside a formula, and never a silently wrong number.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd


class StatsInputError(ValueError):
    """A table the metrics cannot use; the message says what is wrong and where."""


@dataclass(frozen=True)
class Column:
    name: str
    kind: str  # id | text | choice | int | number | bool
    meaning: str
    required: bool = True
    nullable: bool = False
    choices: tuple[str, ...] = ()
    low: float | None = None
    high: float | None = None

    def describe_type(self) -> str:
        if self.kind == "choice":
            return " \\| ".join(f"`{c}`" for c in self.choices)
        if self.kind in ("int", "number") and self.low is not None and self.high is not None:
            return f"{self.kind} {self.low:g}–{self.high:g}"
        return {"id": "int or text", "text": "text"}.get(self.kind, self.kind)


@dataclass(frozen=True)
class TableSpec:
    key: str
    title: str
    row: str  # what one row is
    columns: tuple[Column, ...]

    def column(self, name: str) -> Column:
        return next(c for c in self.columns if c.name == name)


def _rows(mask: np.ndarray | pd.Series, limit: int = 3) -> str:
    """'row 4 holds' / 'rows 2, 5 and 9 more hold' (row numbers count from 1)."""
    idx = np.flatnonzero(np.asarray(mask))
    shown = ", ".join(str(i + 1) for i in idx[:limit])
    more = f" and {idx.size - limit} more" if idx.size > limit else ""
    return f"rows {shown}{more}" if idx.size > 1 else f"row {shown}"


def _verb(mask: np.ndarray | pd.Series, singular: str, plural: str) -> str:
    return plural if int(np.asarray(mask).sum()) > 1 else singular


def _show(value: object) -> str:
    if isinstance(value, np.generic):
        value = value.item()
    return repr(value)


def validate(df: pd.DataFrame, spec: TableSpec) -> pd.DataFrame:
    """A cleaned copy of df (choices lower-cased, numbers as floats), or StatsInputError.

    Row numbers in messages count from 1 in the table's order. Optional columns
    that are absent are not added; callers check `name in out`.
    """
    if not isinstance(df, pd.DataFrame):
        raise StatsInputError(f"The {spec.title} must be a table, not {type(df).__name__}.")
    missing = [c for c in spec.columns if c.required and c.name not in df.columns]
    if missing:
        names = ", ".join(f"'{c.name}' ({c.meaning})" for c in missing)
        raise StatsInputError(f"The {spec.title} is missing column(s) {names}.")
    out = df.reset_index(drop=True).copy()
    for col in spec.columns:
        if col.name not in out.columns:
            continue
        out[col.name] = _check_column(out[col.name], col, spec)
    return out


def _check_column(values: pd.Series, col: Column, spec: TableSpec) -> pd.Series:
    where = f"the {spec.title}, column '{col.name}'"
    null = values.isna().to_numpy()
    if null.any() and not col.nullable:
        raise StatsInputError(
            f"In {where}, {_rows(null)} {_verb(null, 'is', 'are')} empty; every row needs a value."
        )
    if col.kind in ("id", "text"):
        return values
    if col.kind == "choice":
        if values.isin(col.choices).all():
            return values.astype(object)
        text = values.astype(object).where(~null, None)
        if values[~null].isin(col.choices).all():
            return text  # allowed values and empty ones (what the cleaning below gives)
        cleaned = text.map(lambda v: v if v is None else str(v).strip().lower())
        bad = ~null & ~cleaned.isin(col.choices).to_numpy()
        if bad.any():
            example = values[bad].iloc[0]
            raise StatsInputError(
                f"In {where}, {_rows(bad)} {_verb(bad, 'holds', 'hold')} {_show(example)}; "
                "allowed values are "
                f"{', '.join(col.choices)}."
            )
        return cleaned
    if col.kind == "bool":
        mapping = {"true": True, "false": False, "1": True, "0": False, "yes": True, "no": False}
        cleaned = values.astype(object).map(
            lambda v: (
                None
                if v is None or (isinstance(v, float) and np.isnan(v))
                else (
                    bool(v)
                    if isinstance(v, bool | np.bool_)
                    else mapping.get(str(v).strip().lower())
                )
            )
        )
        bad = ~null & cleaned.isna().to_numpy()
        if bad.any():
            raise StatsInputError(
                f"In {where}, {_rows(bad)} {_verb(bad, 'holds', 'hold')} "
                f"{_show(values[bad].iloc[0])}; use true or false."
            )
        return cleaned
    numbers = pd.to_numeric(values, errors="coerce").astype(float)
    bad = ~null & numbers.isna().to_numpy()
    if bad.any():
        raise StatsInputError(
            f"In {where}, {_rows(bad)} {_verb(bad, 'holds', 'hold')} "
            f"{_show(values[bad].iloc[0])}, which is not a number."
        )
    arr = numbers.to_numpy()
    with np.errstate(invalid="ignore"):
        if col.kind == "int":
            frac = ~np.isnan(arr) & (arr != np.round(arr))
            if frac.any():
                raise StatsInputError(
                    f"In {where}, {_rows(frac)} {_verb(frac, 'holds', 'hold')} "
                    f"{_show(values[frac].iloc[0])}; whole numbers only."
                )
        out_of_range = np.zeros(arr.shape, dtype=bool)
        if col.low is not None:
            out_of_range |= arr < col.low
        if col.high is not None:
            out_of_range |= arr > col.high
    if out_of_range.any():
        raise StatsInputError(
            f"In {where}, {_rows(out_of_range)} {_verb(out_of_range, 'holds', 'hold')} "
            f"{_show(values[out_of_range].iloc[0])}; values must be between {col.low:g} and "
            f"{col.high:g}."
        )
    return numbers


# -- the tables -----------------------------------------------------------------------

CLUSTER = Column(
    "cluster",
    "id",
    "the source resume the row was built from; rows sharing it are not independent",
)
REP = Column("rep", "int", "repeat number of the same request (0, 1, ...)", required=False)

# Every design's tables are in its folder (designs/<folder>/inputs.py,
# `Design.input_tables`).
ALL_TABLES: tuple[TableSpec, ...] = ()


VariantDetails = dict[int, tuple[str, str, str, str]]
"""variant id -> (kind, qual_type, change_location, generator), as the store keeps them."""
