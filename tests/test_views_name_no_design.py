"""The screens know no design by name (issue 27): ui/ and the live feed, drill-down and
tidy tables of workflow/ reach every design through the registry and its hooks.

A design code ("D1", "d4") or a design-prefixed name (`d1_tab`) in their code, not in a
comment or a docstring, is a view that reads one design by name again; the test names
the module, the line and the token.
"""

from __future__ import annotations

import re
from pathlib import Path

from devtools.code_names import named_tokens

import resume_auditor
from resume_auditor.designs.registry import DESIGNS
from resume_auditor.ui.models.metric_table import DESIGN_TITLES
from resume_auditor.ui.pages.results_page import CHART_OWNER
from resume_auditor.ui.pages.results_page import DESIGNS as PAGE_DESIGNS
from resume_auditor.workflow import drilldown, feed

ROOT = Path(resume_auditor.__file__).parent
VIEWS = [
    *sorted((ROOT / "ui").rglob("*.py")),
    ROOT / "workflow" / "feed.py",
    ROOT / "workflow" / "drilldown.py",
    ROOT / "workflow" / "design_tables.py",
]
DESIGN_NAME = re.compile(r"(?<![a-zA-Z0-9])[dD]\d(?![0-9])")


def _named(path: Path, root: Path = ROOT) -> list[str]:
    source = path.read_text(encoding="utf-8")
    return [
        f"{path.relative_to(root)}:{line}: {token[:60]}"
        for line, token in named_tokens(source, DESIGN_NAME)
    ]


def test_the_views_name_no_design() -> None:
    assert len(VIEWS) > 20
    named = [hit for path in VIEWS for hit in _named(path)]
    assert named == []


def test_the_check_sees_a_design_named_in_code(tmp_path: Path) -> None:
    module = tmp_path / "view.py"
    module.write_text(
        '"""A view that names D1 in its docstring (allowed)."""\n'
        "# and D2 in a comment (allowed)\n"
        'TITLE = {"D3": "Pools"}\n'
        "d4_tab = None\n",
        encoding="utf-8",
    )
    hits = [h.split(": ", 1)[1] for h in _named(module, tmp_path)]
    assert hits == ['"D3"', "d4_tab"]


def test_every_design_reaches_the_views_through_the_registry() -> None:
    assert tuple(d.key for d in DESIGNS) == PAGE_DESIGNS
    assert {d.key: d.title for d in DESIGNS} == DESIGN_TITLES
    assert {key: d.key for d in DESIGNS for key in d.charts} == CHART_OWNER
    pairs = tuple(d.label for d in DESIGNS if d.pair_tab)
    assert pairs and feed.PAIR_DESIGNS == pairs == drilldown.PAIR_DESIGNS
    assert set(feed.DESIGN_TITLES) == {d.label for d in DESIGNS}
