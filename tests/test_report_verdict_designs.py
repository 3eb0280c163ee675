"""Page 1 reads every design: seen-but-not-flagged differences, untested questions, any flag."""

from __future__ import annotations

from typing import Any

from resume_auditor.report.verdict import build_verdict


def _test(p: float, p_adj: float, family: str = "fairness", **extra: Any) -> dict[str, Any]:
    return {"family": family, "p": p, "p_adjusted": p_adj, "family_size": 36, "alpha": 0.05,
            "significant": p_adj < 0.05, "crossed": True, **extra}  # fmt: skip


def _metric(value: float, ci: list[float], unit: str, flag: str = "", **test: Any) -> dict:
    return {"value": value, "ci": ci, "n": 40, "unit": unit, "clusters": 10, "title": "T",
            "flag": flag or None, "flag_test": _test(**test) if test else None}  # fmt: skip


def _d2(smd: dict[str, Any]) -> dict[str, Any]:
    """A whole D2 block (designs/d2_correspondence/model.D2Dict) with these differences."""
    return {"ratings": 40, "unreadable": 0, "sd": 1.0, "reference": "white_man", "smd": smd,
            "smd_race": {}, "smd_gender": {}, "impact_ratio": {}, "manipulation": {},
            "blinded": {}, "by_prompt": {}, "flags": []}  # fmt: skip


def _report(**blocks: Any) -> dict[str, Any]:
    base = {"counts": {"requests": 10, "answered": 10, "invalid": 0}, "flags": [],
            "thresholds": [], "d1": {}, "impact_ratio": {}}  # fmt: skip
    return base | blocks


def test_a_d2_difference_whose_interval_excludes_zero_is_never_called_nothing() -> None:
    d2 = _d2({"black_woman": _metric(-1.92, [-2.65, -1.18], "sd", p=0.004, p_adj=0.06)})
    d1 = {"selection_gap": {"black_woman": _metric(0.01, [-0.1, 0.12], "points", p=0.8,
                                                   p_adj=1.0)}}  # fmt: skip
    v = build_verdict(_report(d1=d1, d2=d2))
    text = " ".join(v.sentences)
    assert "No group difference was found" not in text and "No group preference" not in text
    assert "-2.65" in text or "−2.65" in text
    assert "did not survive the correction for the 36 fairness tests" in text
    assert "No problem found" not in v.headline and "did not survive" in v.headline
    spot = next(k for k in v.key_numbers if k.title == "Treats groups alike")
    assert spot.path == ["d2", "smd", "black_woman"]


def test_a_flag_in_any_design_is_read_and_spotlighted() -> None:
    d4 = {"differences": {"name": {"overall": {"black": _metric(
        -1.39, [-1.8, -0.9], "difference", "D4 flag", p=0.0001, p_adj=0.002)}}},
        "flags": ["D4 flag"]}  # fmt: skip
    v = build_verdict(_report(d4=d4))
    assert v.tone == "concern" and "race or gender" in v.headline
    assert "D4 flag" in v.flags
    assert any("Scores and ranks (D4)" in s for s in v.sentences)


def test_a_flag_added_by_another_module_is_read() -> None:
    extra = {
        "unreadable_gap": {
            "black_woman": _metric(
                0.2, [0.1, 0.3], "points", "Unreadable share differs", p=0.001, p_adj=0.01
            )
        }
    }
    v = build_verdict(_report(missing=extra))  # fmt: skip
    assert "Unreadable share differs" in v.flags
    assert v.tone == "concern"


def test_questions_not_answered_get_one_line_each_and_no_qualifications_headline() -> None:
    dv = {"value": 0.4, "ci": [0.3, 0.5], "n": 40, "unit": "proportion", "flag": "DV low"}
    cv = {"value": None, "ci": [None, None], "n": 0, "unit": "proportion", "flag": None}
    gap = _metric(0.0, [-0.3, 0.3], "points", p=1.0, p_adj=1.0,
                  untestable="cannot fire with these data")  # fmt: skip
    gap["flag_test"]["p_adjusted"] = None
    d1 = {"metrics": {"criterion_validity": cv, "discrim_validity": dv},
          "selection_gap": {"black_woman": gap}}  # fmt: skip
    v = build_verdict(_report(d1=d1))
    assert "does not judge qualifications" not in v.headline
    assert "equally qualified" in v.headline
    lines = [s for s in v.sentences if "not tested" in s]
    assert any(s.startswith("Picks the more qualified candidate: not tested") for s in lines)
    assert any("Treats groups alike, D1 (pairs): not tested" in s for s in lines)


def test_no_difference_found_states_simulated_power_of_the_real_test() -> None:
    smd = {
        g: _metric(0.05, [-0.4, 0.5], "sd", p=0.7, p_adj=1.0, share=0.01)
        for g in ("black_woman", "asian_woman", "hispanic_man")
    }
    v = build_verdict(_report(d2=_d2(smd)))
    text = " ".join(v.sentences)
    assert "No group difference was found beyond chance in Ratings by group (D2)" in text
    assert "(D2, a 0.3 SD difference)" in text and "simulated" in text
    assert v.tone == "clear"


def test_a_difference_seen_that_could_not_be_tested_is_a_caution() -> None:
    seen = _metric(-1.4, [-2.2, -0.6], "sd", p=0.06, p_adj=1.0, untestable="cannot fire")
    v = build_verdict(_report(d2=_d2({"black_woman": seen})))
    assert v.tone == "caution" and "too small to test" in v.headline
    assert any("could not be tested at this audit's size" in s for s in v.sentences)
