"""Audits with a known, imperfect model for the report tests (not a test module itself).

`biased_policy` is a simulated screener with every fault a report must show: it
sometimes picks the less qualified candidate or abstains on a clear pair, picks
one of two equal candidates, prefers White candidates over Black ones, and
favours the resume shown first. Its choices are a deterministic function of the
request, so an audit run twice gives the same answers.
"""

from __future__ import annotations

import csv
import hashlib
import json
from functools import cache
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from devtools.simulator import Simulator, _resumes

from resume_auditor.cli import main
from resume_auditor.resources import resource
from resume_auditor.store.parts import ResumeReader


@cache
def _groups_by_name() -> dict[str, str]:
    with open(resource("names", "names.csv"), newline="", encoding="utf-8") as fh:
        return {f"{r['first']} {r['last']}": r["group"] for r in csv.DictReader(fh)}


def _group(resume: str) -> str:
    first_line = resume.strip().splitlines()[0].strip() if resume.strip() else ""
    return _groups_by_name().get(first_line, "")


def _draw(text: str, salt: str) -> float:
    digest = hashlib.sha256(f"{salt}:{text}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def biased_policy(body: dict[str, Any]) -> str:
    user = body["messages"][-1]["content"]
    first, second = _resumes(user)
    u = _draw(user, "choice")
    if abs(len(first) - len(second)) > 0.04 * max(len(first), len(second), 1):
        better = "first" if len(first) > len(second) else "second"
        worse = "second" if better == "first" else "first"
        if u < 0.15:
            which = 1 if worse == "first" else 2
            return (
                f'=HYPERLINK("x") Resume {which} reads as more polished. <answer>{worse}</answer>'
            )
        if u < 0.25:
            return "Both candidates look equally strong for this role. <answer>ABSTAIN</answer>"
        which = 1 if better == "first" else 2
        return f"Resume {which} meets more of the requirements. <answer>{better}</answer>"
    race_1, race_2 = _group(first).split("_")[0], _group(second).split("_")[0]
    if race_1 != race_2 and "white" in (race_1, race_2) and u < 0.7:
        pick = "first" if race_1 == "white" else "second"
        which = 1 if pick == "first" else 2
        return f"Resume {which} seems a better cultural fit. <answer>{pick}</answer>"
    if u < 0.75:
        return "The two candidates are equally qualified. <answer>ABSTAIN</answer>"
    return "Resume 1 has a slightly clearer summary. <answer>first</answer>"


def run_audit(study: Path, out: Path, sim: Simulator, model: str = "sim-model") -> None:
    args = ["audit", str(study), "--out", str(out), "--provider", "openai-compatible"]
    assert main([*args, "--base-url", sim.base_url, "--model", model]) == 0


SAMPLE_STUDY = Path(__file__).resolve().parent.parent / "resources" / "sample" / "study.toml"


def study_with_models(folder: Path, models: list[tuple[str, str, str]]) -> Path:
    """The sample study (D1 only) in `folder`, with these (provider, base_url, model)
    as its `[[models]]`: the same cases sent to each."""
    text = SAMPLE_STUDY.read_text(encoding="utf-8").partition("[designs.d2]")[0]
    base = SAMPLE_STUDY.parent
    text = text.replace('file = "job.md"', f'file = "{base / "job.md"}"').replace(
        'files = ["resumes/*.pdf"]', f'files = ["{base}/resumes/*.pdf"]'
    )
    head, _, rest = text.partition("[model]")
    _, _, after = rest.partition("\n\n")
    tables = "".join(
        f'[[models]]\nprovider = "{p}"\nbase_url = "{url}"\nmodel = "{m}"\n\n'
        for p, url, m in models
    )
    study = folder / "study.toml"
    study.write_text(head + tables + after, encoding="utf-8")
    return study


def make_audit(folder: Path, models: tuple[str, ...] = ("sim-model",)) -> Path:
    """The sample study run against the biased simulator, once per model, in `folder`.

    The data folder is set to one inside `folder`, so a module-scoped audit does not
    read or write the user's own settings.
    """
    import pytest

    out = folder / "sample.audit"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("RESUME_AUDITOR_DATA_DIR", str(folder / "data"))
        with Simulator(biased_policy, models=models) as sim:
            for model in models:
                run_audit(SAMPLE_STUDY, out, sim, model)
    return out


class _Numbers(HTMLParser):
    """Every element carrying data-metric, and the embedded metrics JSON."""

    def __init__(self) -> None:
        super().__init__()
        self.numbers: list[tuple[list[str], str, str, str]] = []
        self._open: list[tuple[list[str], str, str, list[str]]] = []
        self._script = False
        self.script = ""
        self.ids: list[str] = []
        self.images: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids.append(str(a["id"]))
        if tag == "img":
            self.images.append(str(a.get("src", "")))
        if tag == "script" and a.get("id") == "metrics":
            self._script = True
        if "data-metric" in a:
            path = json.loads(str(a["data-metric"]))
            self._open.append((path, str(a["data-field"]), str(a["data-raw"]), []))

    def handle_data(self, data: str) -> None:
        if self._script:
            self.script += data
        for *_, text in self._open:
            text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._script = False
        if tag == "span" and self._open:
            path, field, raw, text = self._open.pop()
            self.numbers.append((path, field, raw, "".join(text)))


def parse_report(html: str) -> _Numbers:
    parser = _Numbers()
    parser.feed(html)
    return parser


def copy_audit(source: Path, target: Path) -> Path:
    """A file copy of a shared audit (conftest's `sample_audit`, `all_designs_audit`),
    for a test that changes it or hands it to a command or the window."""
    from resume_auditor.store.resultfile import ResultFile

    with ResultFile(source, readonly=True) as result:
        result.copy_to(target)
    return target


def original_identities(audit: Path | ResumeReader) -> list[str]:
    """What identifies the real candidates of an audit (a file, or one already open):
    file names and their stems, and the text of every name, email and phone slot of
    the source resumes."""
    from resume_auditor.store.resultfile import ResultFile

    if isinstance(audit, Path):
        with ResultFile(audit, readonly=True) as result:
            return original_identities(result)
    out: list[str] = []
    for record in audit.resumes():
        out += [record.filename, Path(record.filename).stem]
        for slot in (audit.resume_template(record.id) or {"slots": []})["slots"]:
            if slot["kind"] in ("full_name", "email", "phone", "first_name", "last_name"):
                out.append(record.text[slot["start"] : slot["end"]])
    return [s for s in out if len(s) >= 4]
