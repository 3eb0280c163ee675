"""Every audit design kept as a unit (`designs/<folder>`), in the order they are shown.

Adding a design is adding its folder and one line here; the workflow, report and
UI find it through this list (docs/designs.md, "Designs as units").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from resume_auditor.designs.base import Design
from resume_auditor.designs.d1_castleman import DESIGN_D1
from resume_auditor.designs.d2_correspondence import DESIGN_D2
from resume_auditor.designs.d3_rabbi import DESIGN_D3
from resume_auditor.designs.d4_faire import DESIGN_D4
from resume_auditor.designs.d5_bloomberg import DESIGN_D5
from resume_auditor.stats import power_sim

DESIGNS: tuple[Design[Any], ...] = (DESIGN_D1, DESIGN_D2, DESIGN_D3, DESIGN_D4, DESIGN_D5)
# The shared power simulator knows no design: each hands it the tests it is sized for.
power_sim.register(*(m for d in DESIGNS for m in d.power_models))


def schemas() -> dict[str, dict[str, Any]]:
    """Each design's study-file schema by key, for `domain.study.check_schema`."""
    return {d.key: d.schema() for d in DESIGNS}


def by_label() -> Mapping[str, Design[Any]]:
    """Each design by its `test_case.design` label ("D4")."""
    return {d.label: d for d in DESIGNS}


def enabled(config: Any) -> list[tuple[Design[Any], Any]]:
    """(design, its typed settings) for every design the study asks for."""
    out: list[tuple[Design[Any], Any]] = []
    for d in DESIGNS:
        spec = d.spec(config)
        if spec is not None:
            out.append((d, spec))
    return out


def run_prompt_design() -> Design[Any] | None:
    """The design whose requests use the run's prompt (`[run] prompt`), if any."""
    return next((d for d in DESIGNS if d.run_prompt), None)


def head() -> tuple[Design[Any], ...]:
    """The designs placed "head": their blocks, flags, notes and power come first."""
    return tuple(d for d in DESIGNS if d.placement == "head")
