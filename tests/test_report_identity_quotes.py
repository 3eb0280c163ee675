"""A model that repeats a real candidate's name or details in its justification.

When the model saw a real detail (a variant that kept it, real contact details let
through), its justification can quote it into the report's examples and the
answers table. Every identity slot the finder knows is masked there: the real
name becomes "[Resume N]", other details their placeholder; synthetic names stay.
"""

from __future__ import annotations

import csv
import io
import sqlite3
import zipfile
from pathlib import Path
from typing import Any

import pytest
from devtools.simulator import Simulator
from openpyxl import load_workbook

from resume_auditor.cli import main
from resume_auditor.report.privacy import IdentityMask


def _identity(out: Path) -> dict[str, str]:
    """kind -> original text of the first slot of each kind, as the finder stored it."""
    import json

    db = sqlite3.connect(out)
    try:
        text, template = db.execute("SELECT text, template_json FROM resume").fetchone()
    finally:
        db.close()
    found: dict[str, str] = {}
    for slot in json.loads(template)["slots"]:
        found.setdefault(slot["kind"], text[slot["start"] : slot["end"]])
    return found


def test_real_details_in_justifications_are_masked_everywhere_they_are_quoted(
    small_study: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "q.audit"
    real: dict[str, str] = {}

    def policy(_body: dict[str, Any]) -> str:
        name, email = real["full_name"], real["email"]
        surname = name.split()[-1]
        return (
            f"{name} ({email}) has it; {surname} shows more SQL than {name.upper()}. "
            "<answer>first</answer>"
        )

    with Simulator(policy=policy) as sim:
        study = small_study.read_text().replace(
            'provider = "local"', f'provider = "openai-compatible"\nbase_url = "{sim.base_url}"'
        )
        small_study.write_text(study)
        args = ["audit", str(small_study), "--out", str(out)]
        assert main([*args, "--model", "m", "--prepare-only"]) == 0
        real.update(_identity(out))
        code = main([*args, "--model", "m"])
        assert code == 0, capsys.readouterr().err
    name, email = real["full_name"], real["email"]
    surname = name.split()[-1]
    reports = tmp_path / "r"
    reports.mkdir()
    assert (
        main(
            [
                "report",
                str(out),
                "--html",
                str(reports / "r.html"),
                "--xlsx",
                str(reports / "r.xlsx"),
            ]
            + ["--csv", str(reports / "csv"), "--bundle", str(reports / "b.zip")]
        )
        == 0
    )
    html = (reports / "r.html").read_text()
    assert "[Resume 1] ([EMAIL]) has it; [Resume 1] shows more SQL than [Resume 1]." in html
    with (reports / "csv" / "judgments.csv").open() as handle:
        quoted = [row["justification"] for row in csv.DictReader(handle)]
    book = load_workbook(reports / "r.xlsx", read_only=True)
    cells = [
        str(c) for ws in book.worksheets for row in ws.iter_rows(values_only=True) for c in row
    ]
    with zipfile.ZipFile(reports / "b.zip") as bundle:
        bundled = bundle.read("data/judgments.csv").decode()
        answers = bundle.read("tables/response.jsonl").decode("unicode_escape")
    assert quoted and all("[Resume 1]" in q for q in quoted)
    for where, text in (
        ("html", html),
        ("csv", "\n".join(quoted)),
        ("xlsx", "\n".join(cells)),
        ("bundle csv", bundled),
        ("bundle answers", answers),
    ):
        for detail in (name, email, surname, name.upper()):
            assert detail not in text, (where, detail)
    assert list(csv.DictReader(io.StringIO(bundled)))[0]["justification"] == quoted[0]
    assert "[Resume 1]" in answers
    # the masked bundle still re-opens with every number recomputed identically
    assert main(["import", str(reports / "b.zip"), "--out", str(tmp_path / "again.audit")]) == 0


def test_synthetic_names_and_ordinary_words_stay() -> None:
    mask = IdentityMask(
        {
            "Resume 1": [
                ("Jordan  Ellery", "full_name"),
                ("jordan@example.com", "email"),
                ("Young", "last_name"),
                ("she", "pronoun_subject"),
                ("University of Rochester", "college"),
            ],
            "Resume 2": [("Emily Long", "full_name")],
        },
        keep=["Emily Walsh", "Lakisha Washington"],
    )
    quote = (
        "Emily Walsh is young; Jordan\nEllery (JORDAN@example.com) studied at the "
        "university of rochester; she and Long led. Emily Long too; a long list."
    )
    assert mask(quote) == (
        "Emily Walsh is young; [Resume 1] ([EMAIL]) studied at the [COLLEGE]; she and "
        "[Resume 2] led. [Resume 2] too; a long list."
    )
