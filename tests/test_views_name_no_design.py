"""The screens know no design by name (issue 27): ui/ and the live feed, drill-down and
tidy tables of workflow/ reach every design through the registry and its hooks.

A design code ("D1", "d4") or a design-prefixed name (`d1_tab`) in their code, not in a
comment or a docstring, is a view that reads one design by name again; the test names
the module, the line and the token.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

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


def _docstring_lines(tree: ast.AST) -> set[int]:
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            first = node.body[0] if node.body else None
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                out.update(range(first.lineno, (first.end_lineno or first.lineno) + 1))
    return out


def _named(path: Path, root: Path = ROOT) -> list[str]:
    source = path.read_text(encoding="utf-8")
    docs = _docstring_lines(ast.parse(source))
    found = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in (tokenize.NAME, tokenize.STRING) or tok.start[0] in docs:
            continue
        if DESIGN_NAME.search(tok.string):
            found.append(f"{path.relative_to(root)}:{tok.start[0]}: {tok.string[:60]}")
    return found


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
