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

_CLUSTER = Column(
    "cluster",
    "id",
    "the source resume the row was built from; rows sharing it are not independent",
)
REP = Column("rep", "int", "repeat number of the same request (0, 1, ...)", required=False)

D1_JUDGMENTS = TableSpec(
    "d1_judgments",
    "D1 judgments table",
    "one answer of the model to one pair in one presentation order",
    (
        Column("pair_id", "id", "the test case (pair of resumes)"),
        Column("kind", "choice", "equal or unequal pair", choices=("equal", "unequal")),
        Column(
            "truth",
            "choice",
            "which variant is more qualified (a, b) or equal",
            choices=("a", "b", "equal"),
        ),
        _CLUSTER,
        Column("group_a", "text", "group key of variant A, e.g. black_woman", nullable=True),
        Column("group_b", "text", "group key of variant B", nullable=True),
        Column("ord", "choice", "ab: A shown first; ba: B shown first", choices=("ab", "ba")),
        Column(
            "label",
            "choice",
            "the answer in presentation terms",
            choices=("first", "second", "abstain", "invalid"),
        ),
        REP,
        Column("k", "int", "qualifications that differ (0 on equal pairs)", required=False),
        Column(
            "signal",
            "text",
            "how demographics are signalled: name, explicit, ...",
            required=False,
            nullable=True,
        ),
        Column(
            "qual_type",
            "text",
            "kind of qualification changed: soft_skill, education, hard_skill, ...",
            required=False,
            nullable=True,
        ),
        Column(
            "gap",
            "int",
            "qualifications that truly differ: k, or 2k for a (c+, c-) pair (0 on equal pairs)",
            required=False,
        ),
        Column(
            "pair_type",
            "text",
            "more_base (c+, c), base_less (c, c-) or more_less (c+, c-); empty on equal pairs",
            required=False,
            nullable=True,
        ),
        Column(
            "change_location",
            "choice",
            "where the change sits in the resume",
            required=False,
            nullable=True,
            choices=("summary", "body", "both"),
        ),
        Column(
            "generator",
            "text",
            "model that generated the variant (empty: built without an LLM)",
            required=False,
            nullable=True,
        ),
    ),
)

# D2's, D3's and D4's tables are in their folders (designs/<folder>/inputs.py,
# `Design.input_tables`).
ALL_TABLES = (D1_JUDGMENTS,)


# -- D1's table from the common answers frame ------------------------------------------

JUDGMENT_COLUMNS = [
    "request_id",
    "run_id",
    "pair_id",
    "design",
    "kind",
    "truth",
    "cluster",
    "k",
    "group_a",
    "group_b",
    "signal",
    "differs",
    "ord",
    "rep",
    "label",
    "justification",
    "pair_type",
    "gap",
    "qual_type",
    "change_location",
    "generator",
    "construction",
]
"""D1's judgments table (D1_JUDGMENTS' columns and the ids a view shows)."""

VariantDetails = dict[int, tuple[str, str, str, str]]
"""variant id -> (kind, qual_type, change_location, generator), as the store keeps them."""


def d1_judgments(answers: pd.DataFrame, variants: VariantDetails) -> pd.DataFrame:
    """D1's judgments table from the answers every design shares (store `answers()`).

    The one place the D1 columns are derived: a pair is the answer's case
    (`pair_id` = `case_id`, `kind` its equal/unequal kind); what changed
    (`qual_type`, `change_location`, `generator`) comes from the variants the
    pair was built from. Rows of other designs are left out.
    """
    if answers.empty or "design" not in answers:
        return pd.DataFrame(columns=JUDGMENT_COLUMNS)
    frame = answers[answers["design"] == "D1"].reset_index(drop=True)
    frame = frame.drop(columns=["kind"]).rename(columns={"case_id": "pair_id", "case_kind": "kind"})
    if frame.empty:
        return pd.DataFrame(columns=JUDGMENT_COLUMNS)
    for column in ("pair_id", "cluster", "k", "gap"):
        frame[column] = frame[column].astype("int64")
    # a pair's details are the same on each of its many answers: worked out once a pair
    known: dict[tuple[str, tuple[int, ...]], tuple[str | None, str | None, str | None]] = {}
    details = []
    for kind, ids in zip(frame["kind"].tolist(), frame["case_variants"].tolist(), strict=True):
        key = (kind, tuple(ids))
        if key not in known:
            known[key] = _changed(kind, ids, variants)
        details.append(known[key])
    frame["qual_type"] = [d[0] for d in details]
    frame["change_location"] = [d[1] for d in details]
    frame["generator"] = [d[2] for d in details]
    # '' (an equal pair, or a file from before schema 7 with nothing to say): None, so
    # the breakdown by construction leaves it out rather than count it as a value
    frame["construction"] = [
        c if isinstance(c, str) and c and k == "unequal" else None
        for c, k in zip(frame["construction"].tolist(), frame["kind"].tolist(), strict=True)
    ]
    return frame[JUDGMENT_COLUMNS]


def _changed(
    kind: str, ids: list[int], variants: VariantDetails
) -> tuple[str | None, str | None, str | None]:
    """(qual_type, change_location, generator) of an unequal pair: the changed
    variant's (or both's) details; None when not recorded (and on equal pairs), so
    the D1 breakdowns leave such pairs out rather than count them as a value."""
    if kind != "unequal":
        return None, None, None
    changed = [variants.get(v, ("", "", "", "")) for v in ids]
    changed = [d for d in changed if d[0] in ("more", "less")]
    out: list[str | None] = []
    for i in (1, 2, 3):
        known = sorted({d[i] for d in changed if d[i]})
        if i == 2 and len(known) > 1:
            out.append("both")
        else:
            out.append("+".join(known) or None)
    return out[0], out[1], out[2]
