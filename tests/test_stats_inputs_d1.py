"""D1's judgments table is derived in one place from the answers every design shares."""

from __future__ import annotations

from typing import Any

import pandas as pd

from resume_auditor.designs.d1_castleman.inputs import D1_JUDGMENTS, JUDGMENT_COLUMNS, d1_judgments
from resume_auditor.stats.inputs import validate
from resume_auditor.store.requests import ANSWER_COLUMNS

VARIANTS = {
    1: ("base", "", "", ""),
    2: ("less", "education", "summary", ""),
    3: ("more", "hard_skill", "body", "gen-model"),
    4: ("base", "", "", ""),
    5: ("reworded", "", "", ""),
    9: ("base", "", "", ""),
}


def _answer(
    case_id: int, design: str, case_kind: str, variants: list[int], **d1: Any
) -> dict[str, Any]:
    row: dict[str, Any] = dict.fromkeys(ANSWER_COLUMNS)
    row |= {
        "request_id": case_id * 10,
        "run_id": 1,
        "ukey": f"pair:{case_id}:ab",
        "kind": "pairwise_abstain" if design == "D1" else "rating",
        "preset": "p",
        "ord": "ab" if design == "D1" else "",
        "variants": variants,
        "context": {},
        "cell": "",
        "rep": 0,
        "label": "first",
        "justification": "because",
        "parsed": {},
        "source": "api",
        "cost_usd": 0.0,
        "received_at": "t",
        "case_id": case_id,
        "design": design,
        "case_kind": case_kind,
        "cluster": 7,
        "case_variants": variants,
        "case_meta": {},
        "truth": None,
        "k": 0,
        "gap": 0,
        "pair_type": "",
        "differs": "",
        "group_a": None,
        "group_b": None,
        "signal": "",
    }
    return row | d1


def test_d1_rows_get_the_d1_columns_and_what_changed_from_their_variants() -> None:
    answers = pd.DataFrame(
        [
            _answer(
                1,
                "D1",
                "unequal",
                [3, 2],
                truth="a",
                k=1,
                gap=2,
                pair_type="more_less",
                group_a="black_woman",
                group_b="white_man",
                signal="name",
            ),
            _answer(
                2,
                "D1",
                "unequal",
                [1, 2],
                truth="b",
                k=1,
                gap=1,
                pair_type="base_less",
                group_a="white_man",
                group_b="white_man",
                signal="name",
            ),
            _answer(
                3,
                "D1",
                "equal",
                [4, 5],
                truth="equal",
                group_a="black_woman",
                group_b="white_man",
                signal="explicit",
            ),
            _answer(4, "D2", "copies", [9]),
            _answer(5, "", "", []) | {"design": None, "case_id": None},  # a generator's answer
        ]
    )
    frame = d1_judgments(answers, VARIANTS)
    assert list(frame.columns) == JUDGMENT_COLUMNS
    assert list(frame["pair_id"]) == [1, 2, 3] and list(frame["kind"]) == [
        "unequal",
        "unequal",
        "equal",
    ]
    assert list(frame["truth"]) == ["a", "b", "equal"] and list(frame["gap"]) == [2, 1, 0]
    # (c+, c-): both changed, in two places; (c, c-): only the c- copy's details count
    assert frame.loc[0, ["qual_type", "change_location", "generator"]].tolist() == [
        "education+hard_skill",
        "both",
        "gen-model",
    ]
    assert frame.loc[1, ["qual_type", "change_location"]].tolist() == ["education", "summary"]
    assert pd.isna(frame.loc[1, "generator"])  # not recorded: left out, not a value
    assert frame.loc[2, ["qual_type", "change_location", "generator"]].isna().all()
    validate(frame, D1_JUDGMENTS)  # what compute_d1 accepts


def test_no_d1_answers_give_an_empty_table_with_the_columns() -> None:
    assert list(d1_judgments(pd.DataFrame(columns=ANSWER_COLUMNS), VARIANTS).columns) == (
        JUDGMENT_COLUMNS
    )
    only_d2 = pd.DataFrame([_answer(4, "D2", "copies", [9])])
    assert d1_judgments(only_d2, VARIANTS).empty
